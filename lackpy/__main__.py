"""``python -m lackpy``: the same as the ``lackpy`` command."""

from lackpy.cli import main

main()
