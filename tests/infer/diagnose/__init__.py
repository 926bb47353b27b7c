"""Tests of ``lackpy.infer.diagnose``: failure modes and the feedback a model gets for each."""
