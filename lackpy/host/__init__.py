"""The machine under the tools: what lackpy's tools stand on, and nothing that defines a tool.

Workspace files resolved beneath the root (``fs``, ``beneath``, ``deny``, and
``hardlinks`` for denied files under other names), the
commit journal (``journal``), Landlock and seccomp (``landlock``,
``sockfilter``), command confinement (``confine``), the process supervisor
and the local shell (``supervise``, ``local_shell``), output budgets
(``budget``) and the linear-time regex engine (``regex``). Modules here import
only ``lackpy.errors`` and each other.
"""
