"""Compile and run programs under guards, with every tool call traced."""

from lackpy.run.result import ExecutionResult
from lackpy.run.runner import run_program
from lackpy.run.trace import TraceEntry

__all__ = ["ExecutionResult", "TraceEntry", "run_program"]
