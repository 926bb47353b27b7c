"""Tests of ``lackpy.infer.mend``: a model's answer extracted, repaired and mended."""
