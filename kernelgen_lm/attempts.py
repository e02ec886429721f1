"""What one generation try did, shared by the rule-based path and the LLM path."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ascend_tools.report import RuntimeErrorReport, ValidationReport

Stage = Literal[
    "capture", "plan", "lower", "llm", "parse", "lint", "compile", "run", "compare", "done"
]


class Attempt(BaseModel):
    """One try at producing a validated project; `stage` is where it stopped (or `done`)."""

    backend: str
    ok: bool
    stage: Stage
    message: str = ""


# Emulator warnings a kernel the generator writes must not pass with. A user's kernel that
# writes past a tensor into bytes that happen to be dead, or initialises a buffer past the end of
# UB it never uses, runs on the NPU and gets a warning; code the generator produces is held to
# the stricter bar, since another shape makes those bytes live.
LATENT_FAULTS = frozenset({"count-exceeds-tensor", "ub-overflow"})


def latent_faults(report: ValidationReport) -> list[RuntimeErrorReport]:
    """The warnings of `report` that keep a generated kernel from being accepted."""
    return [w for w in report.warnings if w.code in LATENT_FAULTS]


def accepted(report: ValidationReport) -> bool:
    """Whether a generated kernel's validation accepts it: passed, and no latent fault."""
    return report.ok and not latent_faults(report)


def report_stage(report: ValidationReport) -> Stage:
    """Where a validation stopped: compile, run (rule failure, crash, timeout, or a pass with a
    latent fault), compare, done."""
    if accepted(report):
        return "done"
    if not report.compile.ok:
        return "compile"
    if report.runtime_errors or report.ok:
        return "run"
    return "compare"
