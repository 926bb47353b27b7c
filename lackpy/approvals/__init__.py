"""Approvals: a person says yes before a program does what they asked to be asked about.

One name per idea:

- the **policy** (``policy.ApprovalPolicy``, the config's ``[approvals]``):
  which gates ask, and how each asks (``policy.Ask``: block, auto, notify,
  none);
- the **gatekeeper** (``gatekeeper.Gatekeeper``): the gates of one run,
  which ask as the policy says;
- the **request** (``request.ApprovalRequest``): what a person is asked,
  shown whole;
- the **approver** (``approver``): who answers; the terminal
  (``terminal``), an MCP client (``lackpy.mcp.approvals``) or a Python
  callback; ``forms`` checks the answers to an MCP server's questions;
- the **decision** (``decision.Decision``): one answer, kept in the result,
  its trace and the audit file (``approver.Audit``).

The gates act inside a run, but this package sits one layer below it
(``tests/test_layers.py``): the runner imports the gatekeeper and gives it
what it needs of the run, and nothing here imports ``lackpy.run``. This
file imports nothing, so importing one of its modules costs only that module.
"""
