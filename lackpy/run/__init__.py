"""Compile and run programs under guards, with every tool call traced.

The package imports nothing itself: its modules are imported by name
(``lackpy.run.runner``, ``lackpy.run.result``, ...), so reading one small
module (``lackpy.run.modes``) never loads the runner, and no module of the
package reaches another through this one. The public names are re-exported
from ``lackpy``.
"""
