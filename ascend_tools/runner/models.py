"""What a run of one case produced."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

RunStatus = Literal["ok", "error", "crash", "timeout", "harness-error"]


class RuntimeFailure(BaseModel):
    """A rule the emulator stopped on (or the sandbox's verdict), at the kernel's source line."""

    code: str
    message: str
    file: str = ""
    line: int = 0
    block: int = -1


class RunResult(BaseModel):
    status: RunStatus
    message: str = ""
    errors: list[RuntimeFailure] = Field(default_factory=list)
    report: dict = Field(default_factory=dict)
    seconds: float = 0.0
    outputs: dict[str, bytes] = Field(default_factory=dict, exclude=True)
    """Output bytes by `CaseTensor.stem` (the output's name unless the case repeats it)."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"
