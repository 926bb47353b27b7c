"""KitPolicy: which kits the clients of one ``lackpy serve`` may use, and what that lets them do.

The person who starts the server decides: ``--kit`` names the kit a request
gets when it names none, ``--allow-kits`` the kits a request may name (by
default every kit within the read-only grade). A request may also name a
comma list of tools, allowed when every tool belongs to an allowed kit.
``mcp:NAME`` is a kit like any other: every tool MCP server NAME serves at
start (a tool it gains later is refused until a restart, as below).

A server holds what it was started with. Each allowed kit is resolved at
start and remembered (``Held``: its tools, their grades, its limits and
other terms); every request resolves its kit again and is refused when the
kit now reaches further than it did then, so a kit file that changes while
the server runs (a program of another kit, a co-resident process, a ``git
pull``) never widens what a client gets. Why the tools and not only the
grade: a grade is two numbers, and a kit of the same grade can still gain a
tool the person never offered (one that reads another part of the machine,
a remote server's); the person allowed a set of tools, so that set is what
holds. A kit that lost tools still runs (it reaches less); one whose limits
or other terms (``approvals``) changed is refused, since lackpy cannot tell
in general whether new terms ask less, and a server that is restarted
accepts any change its person made on purpose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from lackpy.errors import DeniedError, DocsError, KitError, LackpyError
from lackpy.kit.resolve import REMOTE_PROVIDER, SERVER_KIT, ResolvedKit
from lackpy.lang.grade import Grade
from lackpy.service import LackpyService


@dataclass(frozen=True)
class Held:
    """What one allowed kit resolved to when the server started: tools (name in programs -> tool, grade), grade, terms."""

    tools: Mapping[str, tuple[str, Grade]]
    grade: Grade
    terms: str

    @classmethod
    def of(cls, kit: ResolvedKit) -> "Held":
        return cls({alias: (spec.name, _tool_grade(spec)) for alias, spec in kit.tools.items()}, kit.grade, _terms(kit))

    def widened(self, kit: ResolvedKit) -> list[str]:
        """What ``kit`` (resolved now) has beyond this: each new or stronger tool, a higher grade, other terms."""
        found = []
        for alias, spec in kit.tools.items():
            was, now = self.tools.get(alias), _tool_grade(spec)
            if was is None or was[0] != spec.name:
                found.append(f"{alias} ({now}), which it did not have")
            elif not now.within(was[1]):
                found.append(f"{alias} at {now}, above its {was[1]}")
        if not found and not kit.grade.within(self.grade):
            found.append(f"the grade {kit.grade}, above its {self.grade}")
        if _terms(kit) != self.terms:
            found.append("other limits or approvals than it had")
        return found


@dataclass(frozen=True)
class KitPolicy:
    """The default kit, the allowed kit names, the tools they hold and the highest grade they reach, as at start."""

    default_kit: str
    allowed: tuple[str, ...]
    tools: frozenset[str]
    grades: tuple[Grade, ...]
    #: Each allowed kit as it resolved at start.
    held: Mapping[str, Held] = field(default_factory=dict)
    #: Each tool of the allowed kits with its grade at start.
    tool_grades: Mapping[str, Grade] = field(default_factory=dict)
    #: The doc paths of the allowed kits (their tools' docs and their own), as at start.
    docs: frozenset[str] = frozenset()
    #: Per kit name, the resolved kit last found within what it held at start: the service's kit cache gives that
    #: same object until the kit's files or the toolbox change, so it passes again without a second look.
    _passed: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, service: LackpyService, default_kit: str = "readonly", allow_kits: Iterable[str] | None = None) -> "KitPolicy":
        """The policy of a server over ``service``; the default kit is always allowed.

        ``allow_kits`` None allows every kit of the workspace and the package
        whose grade is within the read-only grade (and is not ignored).
        Raises KitError when a kit named here does not resolve.
        """
        if allow_kits is None:
            ceiling = service.read_only_grade
            names = [row["name"] for row in service.kit_list() if not row.get("ignored") and not row.get("error")]
            allowed = [name for name in names if _grade(service, name).within(ceiling)]
        else:
            allowed = [name.strip() for name in allow_kits if name.strip()]
        if default_kit not in allowed:
            allowed.insert(0, default_kit)
        held: dict[str, Held] = {}
        tool_grades: dict[str, Grade] = {}
        docs: set[str] = set()
        for name in allowed:
            try:
                resolved = service.resolve_kit(name)
            except LackpyError as exc:
                raise KitError(f"lackpy serve cannot offer kit '{name}' (--kit or --allow-kits): {exc}") from None
            held[name] = Held.of(resolved)
            tool_grades.update((spec.name, _tool_grade(spec)) for spec in resolved.tools.values())
            docs.update(resolved.docs)
            docs.update(spec.docs for spec in resolved.tools.values() if spec.docs)
        grades = tuple(kit.grade for kit in held.values())
        return cls(default_kit, tuple(allowed), frozenset(tool_grades), grades, held, tool_grades, frozenset(docs))

    def doc(self, path_or_tool: object) -> str:
        """What a client may read as a doc: a tool of the allowed kits (its name) or a doc path they list; DocsError otherwise.

        A doc read is a file read: left open, ``resolve_doc`` would hand a
        client any file of the workspace, past its kits (a server that
        offers only web tools) and past ``[tools] deny``. The server then
        reads it among the allowed kits' docs only (``resolve_doc(..., kits=allowed)``),
        where its kit or tool says it lives (``lackpy.kit.docplace``).
        """
        if isinstance(path_or_tool, str) and (path_or_tool in self.tools or path_or_tool in self.docs):
            return path_or_tool
        raise DocsError(
            f"doc {path_or_tool!r} is not one this server offers: give a tool name of the allowed kits, or a path "
            f"that docs_index lists"
        )

    # -- what a request may use -------------------------------------------------

    def resolve(self, service: LackpyService, kit: str | None) -> ResolvedKit:
        """The kit a request runs with, resolved now: ``kit`` when allowed, the default when None.

        Raises the service's own error when ``kit`` does not resolve; KitError,
        naming the option that allows it, when it is not allowed; DeniedError
        when an allowed kit now reaches further than it did at start.
        """
        name = self.default_kit if kit is None or not kit.strip() else kit.strip()
        resolved = service.resolve_kit(name)  # an unknown kit or tool fails here with its own message
        held = self.held.get(name)
        if held is not None:
            if self._passed.get(name) is resolved:
                return resolved
            widened = held.widened(resolved)
            if widened:
                raise DeniedError(
                    f"kit '{name}' changed since this server started: it now has {'; '.join(widened)}; "
                    "the server keeps the kits it was started with, so restart lackpy serve to accept the change"
                )
            self._passed[name] = resolved
            return resolved
        if resolved.name not in (None, "none"):
            raise KitError(
                f"kit '{name}' is not allowed by this server (allowed: {', '.join(self.allowed)}); "
                f"whoever starts it can allow it: lackpy serve --allow-kits {','.join((*self.allowed, name))}"
            )
        return self._checked_tools(resolved)

    def resolve_tools(self, service: LackpyService, names: list[str]) -> ResolvedKit:
        """The kit of the tools ``names`` (an exposed tool's call), resolved now and checked as a comma list is."""
        return self._checked_tools(service.resolve_kit(list(names)))

    def _checked_tools(self, resolved: ResolvedKit) -> ResolvedKit:
        """``resolved`` (a list of tools) when every tool is in an allowed kit at no more than its grade at start."""
        self.check_tools(list(resolved.tools.values()))
        return resolved

    def check_tools(self, specs: list) -> None:
        """Nothing when every tool of ``specs`` is in an allowed kit at no more than its grade at start; else why not."""
        outside = [spec for spec in specs if spec.name not in self.tool_grades]
        if outside:
            raise KitError(
                f"tool(s) {', '.join(sorted(spec.name for spec in outside))} are in no kit this server allows (allowed: {', '.join(self.allowed)}); "
                f"whoever starts it can allow a kit that has them: lackpy serve --allow-kits {','.join((*self.allowed, *_kits_for(outside)))}"
            )
        stronger = [f"{spec.name} at {_tool_grade(spec)}, above its {self.tool_grades[spec.name]}"
                    for spec in specs if not _tool_grade(spec).within(self.tool_grades[spec.name])]
        if stronger:
            raise DeniedError(
                f"tool(s) changed since this server started: {'; '.join(stronger)}; "
                "the server keeps the tools it was started with, so restart lackpy serve to accept the change"
            )

    def granted(self, resolved: ResolvedKit, kits: tuple[str, ...]) -> None:
        """Nothing when ``resolved`` is one of ``kits`` (a caller's, from its access token's scopes: ``lackpy.mcp.bearer``)
        or all its tools are in them; DeniedError otherwise, saying which."""
        if resolved.name in kits:
            return
        theirs = {name for kit in kits if kit in self.held for name, _ in self.held[kit].tools.values()}
        outside = sorted(spec.name for spec in resolved.tools.values() if spec.name not in theirs)
        if outside:
            what = f"kit '{resolved.name}'" if resolved.name not in (None, "none") else f"tool(s) {', '.join(outside)}"
            raise DeniedError(
                f"{what} is beyond what your access token's scopes give (kits: {', '.join(kits) or 'none'}); "
                "ask your authorization server for a token with a scope that gives it"
            )

    def default_for(self, kits: tuple[str, ...] | None) -> str | None:
        """The kit a caller gets when it names none: the server's default when its scopes give it, else the first they give."""
        if kits is None or self.default_kit in kits:
            return None
        return kits[0] if kits else self.default_kit

    # -- what that lets a client do (MCP tool annotations) -------------------------

    @property
    def read_only(self) -> bool:
        """Whether no allowed kit changes anything (every effects ceiling is 0)."""
        return all(grade.d == 0 for grade in self.grades)

    @property
    def destructive(self) -> bool:
        """Whether an allowed kit may overwrite or delete (an effects ceiling of 3)."""
        return any(grade.d >= 3 for grade in self.grades)

    @property
    def open_world(self) -> bool:
        """Whether an allowed kit reaches beyond the workspace (world coupling 2 or more)."""
        return any(grade.w >= 2 for grade in self.grades)


def _grade(service: LackpyService, name: str) -> Grade:
    try:
        return service.resolve_kit(name).grade
    except LackpyError:
        return Grade(3, 3)


def _kits_for(specs: list) -> list[str]:
    """The kits to name for ``specs``: ``mcp:NAME`` for a remote server's tools (every tool of it), ``KIT`` for the rest."""
    servers = sorted({spec.provider_config.get("server") for spec in specs if spec.provider == REMOTE_PROVIDER} - {None})
    rest = [spec for spec in specs if spec.provider != REMOTE_PROVIDER or not spec.provider_config.get("server")]
    return [f"{SERVER_KIT}{server}" for server in servers] + (["KIT"] if rest else [])


def _tool_grade(spec: Any) -> Grade:
    return Grade(spec.grade_w, spec.effects_ceiling)


def _terms(kit: ResolvedKit) -> str:
    """A kit's limits and other frontmatter (approvals, plugins' keys), comparable as text."""
    return json.dumps({"limits": kit.limits, "extra": kit.extra}, sort_keys=True, default=repr)


__all__ = ["Held", "KitPolicy"]
