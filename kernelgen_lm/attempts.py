"""What one generation try did, shared by the rule-based path and the LLM path."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Stage = Literal[
    "capture", "plan", "lower", "llm", "parse", "lint", "compile", "run", "compare", "done"
]


class Attempt(BaseModel):
    """One try at producing a validated project; `stage` is where it stopped (or `done`)."""

    backend: str
    ok: bool
    stage: Stage
    message: str = ""
