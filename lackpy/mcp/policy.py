"""KitPolicy: which kits the clients of one ``lackpy serve`` may use, and what that lets them do.

The person who starts the server decides: ``--kit`` names the kit a request
gets when it names none, ``--allow-kits`` the kits a request may name (by
default every kit within the read-only grade). A request may also name a
comma list of tools, allowed when every tool belongs to an allowed kit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from lackpy.errors import KitError, LackpyError
from lackpy.lang.grade import Grade
from lackpy.service import LackpyService


@dataclass(frozen=True)
class KitPolicy:
    """The default kit, the allowed kit names, the tools they hold and the highest grade they reach."""

    default_kit: str
    allowed: tuple[str, ...]
    tools: frozenset[str]
    grades: tuple[Grade, ...]

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
        tools: set[str] = set()
        grades = []
        for name in allowed:
            try:
                resolved = service.resolve_kit(name)
            except LackpyError as exc:
                raise KitError(f"lackpy serve cannot offer kit '{name}' (--kit or --allow-kits): {exc}") from None
            tools.update(spec.name for spec in resolved.tools.values())
            grades.append(resolved.grade)
        return cls(default_kit, tuple(allowed), frozenset(tools), tuple(grades))

    # -- what a request may use -------------------------------------------------

    def kit_for(self, service: LackpyService, kit: str | None) -> str:
        """The kit a request runs with: ``kit`` when allowed, the default when None.

        Raises the service's own error when ``kit`` does not resolve, and
        KitError, naming the option that allows it, when it is not allowed.
        """
        if kit is None or not kit.strip():
            return self.default_kit
        kit = kit.strip()
        if kit in self.allowed:
            return kit
        resolved = service.resolve_kit(kit)  # an unknown kit or tool fails here with its own message
        if resolved.name in (None, "none") and all(spec.name in self.tools for spec in resolved.tools.values()):
            return kit
        if resolved.name not in (None, "none"):
            raise KitError(
                f"kit '{kit}' is not allowed by this server (allowed: {', '.join(self.allowed)}); "
                f"whoever starts it can allow it: lackpy serve --allow-kits {','.join((*self.allowed, kit))}"
            )
        outside = sorted(spec.name for spec in resolved.tools.values() if spec.name not in self.tools)
        raise KitError(
            f"tool(s) {', '.join(outside)} are in no kit this server allows (allowed: {', '.join(self.allowed)}); "
            f"whoever starts it can allow a kit that has them: lackpy serve --allow-kits {','.join(self.allowed)},KIT"
        )

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


__all__ = ["KitPolicy"]
