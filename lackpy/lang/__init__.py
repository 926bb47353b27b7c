"""The lackpy language: grammar, validation, diagnostics and grades."""

from lackpy.lang.diagnostics import Diagnostic, ValidationResult
from lackpy.lang.grade import Grade, compute_grade
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Check, Rule, analyze, validate

__all__ = ["Check", "Diagnostic", "Grade", "Rule", "ValidationResult", "analyze", "compute_grade", "language_spec", "validate"]
