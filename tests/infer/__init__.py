"""Tests of the inference tiers; a package so its module names do not clash with tests/kit's."""
