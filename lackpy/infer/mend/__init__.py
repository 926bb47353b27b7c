"""Mending a model's answer: the program it meant, found and fixed with no second model call.

Start at ``answer.mend``: ``sanitize.extract`` finds the code in the answer
(fences, prose, prompt marks, REPL and notebook transcripts with
``transcript``) and notices a cut-off one (``truncation``); ``repairs`` then
applies the deterministic repairs in order (f-strings in ``fstrings``, the
standard library as tool calls in ``stdlib_calls``, helpers written out in
``inline``, counting loops in ``loops``; shared AST helpers in ``asttools``).
``failures`` names the failure modes, so that mending and the diagnosis of a
failed answer use the same names. The wing imports nothing else of
``lackpy.infer``: the dispatcher and the diagnosis import it, never the other
way round.
"""
