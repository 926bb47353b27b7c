"""Diagnosing a failed answer: which failure mode it shows, and the feedback most likely to fix it.

Start at ``classify``: it names the mode of an answer the validator refused
or a run that failed, and builds the retry message (a hint, the tool doc
sections and the guide sections for that mode). ``suspect`` finds runs that
went wrong without raising (a glob that matched nothing, an empty answer to
"which files"), and ``keys`` the keys a program reads that a tool never
returns. The wing names failures with ``lackpy.infer.mend.failures`` and may
import the mend wing; nothing of the mend wing imports it, and it imports
nothing of the infer core: the dispatcher imports it.
"""
