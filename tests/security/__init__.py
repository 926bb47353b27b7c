"""Adversarial security tests: hostile programs against the validator, guards, limits and tools."""
