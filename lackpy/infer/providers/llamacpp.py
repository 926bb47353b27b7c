"""The llama-cpp tier: a local GGUF model run in-process by llama-cpp-python (``pip install 'lackpy[local]'``).

::

    [inference.llama-cpp]
    model_path = "models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  # required; relative to the workspace
    n_ctx = 4096          # context window, in tokens
    temperature = 0
    max_tokens = 512
    seed = 0              # with temperature 0, the same answer every time
    # n_threads = 4       # default: llama.cpp's choice
    # chat_format = "chatml"  # default: the template stored in the GGUF file

No server to start and no network: the price is loading the model into this
process, which happens once per provider, on the first ``complete``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from lackpy.errors import InferenceError
from lackpy.infer.base import CUT, Availability, Completion, Message, OnText, Tier, gather
from lackpy.infer.providers.http import excerpt

MISSING_PACKAGE = "llama-cpp-python is not installed (pip install 'lackpy[local]')"
MISSING_PATH = 'set model_path = "path/to/model.gguf" under [inference.llama-cpp]'


def _import_llama() -> Any:
    """The ``Llama`` class; InferenceError when llama-cpp-python is missing or its library cannot load."""
    try:
        from llama_cpp import Llama
    except ImportError:
        raise InferenceError(MISSING_PACKAGE) from None
    except Exception as exc:  # a broken build: the shared library fails to load
        raise InferenceError(
            f"llama-cpp-python cannot load ({type(exc).__name__}: {excerpt(str(exc))}); reinstall it"
        ) from None
    return Llama


class LlamaCppTier(Tier):
    """A GGUF model loaded with ``llama_cpp.Llama`` and asked with ``create_chat_completion``."""

    name = "llama-cpp"
    model = True

    def __init__(self, settings: Mapping[str, Any] | None = None, workspace=None) -> None:
        super().__init__(settings, workspace)
        self._llama: Any = None

    # -- settings -----------------------------------------------------------

    @property
    def model_path(self) -> Path:
        """The GGUF file: ``~`` expanded, relative paths taken from the workspace."""
        value = self.settings.get("model_path")
        if not isinstance(value, str) or not value.strip():
            raise InferenceError(MISSING_PATH)
        path = Path(value.strip()).expanduser()
        return path if path.is_absolute() else self.workspace / path

    def _load_kwargs(self) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model_path": str(self.model_path),
            "n_ctx": _whole(s.get("n_ctx", 4096), "n_ctx"),
            "seed": _whole(s.get("seed", 0), "seed", minimum=0),
            "verbose": False,
        }
        if s.get("n_threads") is not None:
            kwargs["n_threads"] = _whole(s["n_threads"], "n_threads")
        if s.get("chat_format"):
            kwargs["chat_format"] = str(s["chat_format"])
        return kwargs

    def _chat_kwargs(self) -> dict[str, Any]:
        s = self.settings
        temperature = s.get("temperature", 0)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature < 0:
            raise InferenceError(f"[inference.llama-cpp] temperature must be a number from 0, not {temperature!r}")
        return {"temperature": temperature, "max_tokens": _whole(s.get("max_tokens", 512), "max_tokens")}

    # -- the tier -----------------------------------------------------------

    def available(self) -> Availability:
        try:
            _import_llama()
            path = self.model_path
        except InferenceError as exc:
            return Availability(False, str(exc))
        if not path.is_file():
            return Availability(False, f"the model file {path} does not exist; fix model_path under [inference.llama-cpp]")
        return Availability(True)

    def load(self) -> Any:
        """The loaded model, loaded on the first call and kept for this provider's life."""
        if self._llama is None:
            Llama = _import_llama()
            kwargs = self._load_kwargs()
            if not Path(kwargs["model_path"]).is_file():
                raise InferenceError(
                    f"the model file {kwargs['model_path']} does not exist; fix model_path under [inference.llama-cpp]"
                )
            try:
                self._llama = Llama(**kwargs)
            except Exception as exc:
                raise InferenceError(
                    f"llama.cpp cannot load {kwargs['model_path']} ({excerpt(str(exc)) or type(exc).__name__}); "
                    "is it a GGUF file this llama-cpp-python version reads?"
                ) from None
        return self._llama

    def complete(self, messages: list[Message], on_text: OnText | None = None) -> Completion:
        chat = self._chat_kwargs()
        llama = self.load()
        return gather(self._pieces(llama, messages, chat), on_text)

    def describe(self) -> str:
        return f"llama-cpp {self.settings.get('model_path') or '(no model_path set)'}"

    def _pieces(self, llama: Any, messages: list[Message], chat: dict[str, Any]) -> Iterator[Any]:
        """The answer's text as llama.cpp streams it, then ``CUT`` if it stopped at ``max_tokens``."""
        try:
            for chunk in llama.create_chat_completion(messages=list(messages), stream=True, **chat):
                choice = chunk["choices"][0]
                content = choice["delta"].get("content")
                if content:
                    yield content
                if choice.get("finish_reason") == "length":
                    yield CUT
        except Exception as exc:
            raise InferenceError(
                f"llama.cpp failed while answering ({type(exc).__name__}: {excerpt(str(exc))}); "
                "a longer conversation may need a bigger n_ctx"
            ) from None


def _whole(value: Any, key: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InferenceError(f"[inference.llama-cpp] {key} must be a whole number from {minimum}, not {value!r}")
    return value


__all__ = ["LlamaCppTier"]

