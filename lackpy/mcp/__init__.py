"""lackpy as an MCP server: ``lackpy serve`` (needs ``pip install 'lackpy[mcp]'``).

``lackpy.mcp.server.build_server(service, policy)`` builds the server,
``lackpy.mcp.policy.KitPolicy`` decides which kits clients may use,
``lackpy.mcp.skills.SkillPolicy`` which skills (its prompts and resources),
``lackpy.mcp.skill_extension`` publishes those skills as SEP-2640 (files read
through ``lackpy.mcp.skill_shelf``), and ``lackpy.mcp.serve`` runs it over
stdio or streamable HTTP.
"""

INSTALL_HINT = "lackpy serve needs the MCP SDK; install it: pip install 'lackpy[mcp]'"
