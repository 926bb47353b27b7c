"""From an intent to a program: inference tiers, prompt, and the dispatcher that ties them.

The modules here are the core (``dispatch``, ``base``, ``tiers``,
``templates``, ``fill``, ``prompt``, ``select``, ``settings``, ``result``,
the ``rules`` tier and the model ``providers``). It imports three wings that
import none of it: ``understand`` (what the words of an intent mean),
``mend`` (a model's answer extracted and repaired, and the failure modes)
and ``diagnose`` (why an answer failed and the feedback; it may import
``mend``). ``tests/test_layers.py`` holds these edges.
"""
