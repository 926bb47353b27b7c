"""The caller of a served call, as far as lackpy may know it: who it is and the trace it belongs to.

``principal`` holds who the call is for, when the server checked it (the
subject of its access token); ``traceparent`` reads a caller's W3C trace
context strictly and holds it. The MCP server sets both for the call it
serves; a run thread gets them with the call's context, and the audit of its
approvals (``lackpy.approvals.approver.Audit``) names them. They import
nothing else of lackpy, so every layer may read them.
"""
