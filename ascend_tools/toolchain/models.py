"""What the toolchain hands to the runner and the validator."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from ascend_tools.diagnostics import Diagnostic, Severity


class TensorDef(BaseModel):
    """One OpDef input or output: its dtype list is indexed by dtype combination."""

    name: str
    param_type: str = "required"
    dtypes: list[str] = Field(default_factory=list)
    formats: list[str] = Field(default_factory=list)
    init_value: int | None = None
    """An output's OpDef `InitValue`: the framework fills its GM with it before the launch."""


class AttrDef(BaseModel):
    name: str
    type: str
    required: bool = False
    default: str | None = None


class OpDefinition(BaseModel):
    """An operator as the host code registers it (the harness's `--describe` output)."""

    name: str
    inputs: list[TensorDef]
    outputs: list[TensorDef]
    attrs: list[AttrDef] = Field(default_factory=list)
    configs: list[str] = Field(default_factory=list)

    def combinations(self) -> list[dict[str, str]]:
        """Each dtype combination as {tensor name: dtype}."""
        tensors = self.inputs + self.outputs
        n = min((len(t.dtypes) for t in tensors), default=0)
        return [{t.name: t.dtypes[i] for t in tensors} for i in range(n)]


class StepResult(BaseModel):
    """A build step's outcome: diagnostics when it failed, how long it took, whether cached."""

    ok: bool
    seconds: float = 0.0
    cached: bool = True
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]


class DescribeResult(StepResult):
    op: OpDefinition | None = None
    host_dir: Path | None = None


class BuildResult(StepResult):
    binary: Path | None = None
    backend: str = "emulator"
