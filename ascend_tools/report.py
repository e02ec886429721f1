"""The validation report: the stable JSON other tools read (`kernelgen validate --format json`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ascend_tools.diagnostics import Diagnostic


class CompileReport(BaseModel):
    ok: bool
    seconds: float = 0.0
    cached: bool = False
    diagnostics: list[Diagnostic] = Field(default_factory=list)


class CaseReport(BaseModel):
    """One trial (and shape variant): passed only if it ran and every output matched."""

    name: str
    ok: bool
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    rel_l2_err: float | None = None  # worst output's ||actual - expected|| / ||expected||
    mismatches: int = 0
    first_mismatch: list[int] | None = None
    message: str = ""


class RuntimeErrorReport(BaseModel):
    """A rule the emulator stopped on, or a crash/timeout; `file` relative to the project root."""

    code: str
    message: str
    file: str = ""
    line: int = 0
    block: int = -1


class ValidationReport(BaseModel):
    """`ok` only if it compiled and every case passed. `counters`: the emulator's counters of the
    first passing case, `{"block_dim", "tiling_key", "total": {gm_to_ub_bytes, ub_to_gm_bytes,
    ub_to_ub_bytes, scalar_accesses, sync_alls, cube_macs, cube_macs_fp32, gm_to_l1_bytes,
    l1_to_l0_bytes, l0c_to_gm_bytes, vector_repeats: {api: n}}, "per_block":
    [{"block", ...}]}` (empty when no case passed). `notes`: toolchain/device facts and emulator
    warnings, as text. `warnings`: the emulator's warnings (the run went on), one per code and
    place. `unchecked`: outputs that ran but were not compared (`[binding] unchecked`)."""

    ok: bool
    chip: str
    backend: str
    compile: CompileReport
    cases: list[CaseReport] = Field(default_factory=list)
    runtime_errors: list[RuntimeErrorReport] = Field(default_factory=list)
    counters: dict = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    warnings: list[RuntimeErrorReport] = Field(default_factory=list)
    unchecked: list[str] = Field(default_factory=list)


def render_text(report: ValidationReport) -> str:
    """Human-readable summary: compile diagnostics in compiler style, one line per case."""
    lines = [f"{'PASS' if report.ok else 'FAIL'}  chip={report.chip} backend={report.backend}"]
    c = report.compile
    state = "ok" if c.ok else "FAILED"
    lines.append(f"compile: {state} ({c.seconds:.2f} s{', cached' if c.cached else ''})")
    lines += [f"  {d.compiler_style()}" for d in c.diagnostics]
    for case in report.cases:
        if case.ok:
            lines.append(
                f"case {case.name}: ok (max abs err {case.max_abs_err:.3g}, "
                f"max rel err {case.max_rel_err:.3g}, rel L2 err {case.rel_l2_err or 0.0:.3g})"
            )
        else:
            lines.append(f"case {case.name}: FAILED {case.message}")
    for e in report.runtime_errors:
        where = f"{e.file}:{e.line}: " if e.file else ""
        block = f" (block {e.block})" if e.block >= 0 else ""
        lines.append(f"runtime: {where}{e.message} [{e.code}]{block}")
    if report.unchecked:
        lines.append(
            f"not compared: {', '.join(report.unchecked)} (kernelgen.toml [binding] unchecked: "
            "the project's own test does not check them)"
        )
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines)
