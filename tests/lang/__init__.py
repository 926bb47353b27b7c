"""Tests for lackpy's language layer: grammar, validator, diagnostics and grades."""
