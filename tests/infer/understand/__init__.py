"""Tests of ``lackpy.infer.understand``: the intents the rules tier understands."""
