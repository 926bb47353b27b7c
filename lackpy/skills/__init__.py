"""Skills: a folder with a SKILL.md is lackpy's unit for handing an agent a job.

``skill`` reads one (the Agent Skills convention, and lackpy's keys: its
kit, the intents that route to its programs, its arguments); ``sources``
finds them (the workspace, its ``[skills] paths``, the person's own,
packages); ``catalog`` judges them by their kits and by trust and routes
intents; ``tier`` serves a routed intent with no model; ``new`` writes one to
start from; ``builtin`` offers the skills lackpy ships in ``library/``; ``remote``
names, checks and holds back the skills other MCP servers serve. The
``skill_file`` tool (``lackpy.tools.skills``) reads a skill's own files.
"""
