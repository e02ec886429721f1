"""What the repair prompt tells the model about a failed sample: short, specific, located.

Compile errors keep their `file:line` (and the toolchain's "did you mean" catalog names for
invented APIs) and get the offending source line. Emulator rule failures keep their rule code
and line; numerical mismatches are summarised per case. Everything is capped so the prompt
stays small.
"""

from __future__ import annotations

from pathlib import Path

from ascend_tools.diagnostics import Diagnostic, Severity
from ascend_tools.report import ValidationReport
from kernelgen_lm.attempts import latent_faults

MAX_DIAGNOSTICS = 10
MAX_RUNTIME_ERRORS = 6
MAX_CASES = 4
MAX_MESSAGE_CHARS = 400


def _source_line(project: Path, file: str, line: int) -> str:
    path = Path(file) if Path(file).is_absolute() else project / file
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _relative(project: Path, file: str) -> str:
    try:
        return str(Path(file).resolve().relative_to(project.resolve()))
    except ValueError:
        return file


def _diagnostic(project: Path, d: Diagnostic) -> str:
    where = f"{_relative(project, d.file)}:{d.line}"
    text = f"{where}: {d.severity.value}: {d.message[:MAX_MESSAGE_CHARS]}"
    src = _source_line(project, d.file, d.line)
    return text + (f"\n    > {src}" if src else "")


def report_feedback(report: ValidationReport, project: Path) -> str:
    """The failures of one validation, as a few located lines for the model."""
    out: list[str] = []
    if not report.compile.ok:
        diags = [d for d in report.compile.diagnostics if d.severity == Severity.ERROR]
        diags = diags or report.compile.diagnostics
        out.append("Compilation failed:")
        out += [_diagnostic(project, d) for d in diags[:MAX_DIAGNOSTICS]]
        if len(diags) > MAX_DIAGNOSTICS:
            out.append(f"(and {len(diags) - MAX_DIAGNOSTICS} more errors)")
        if not diags:
            out.append("(the compiler gave no diagnostics)")
    if report.runtime_errors:
        out.append("The emulator stopped the kernel:")
        for e in report.runtime_errors[:MAX_RUNTIME_ERRORS]:
            where = f"{e.file}:{e.line}: " if e.file else ""
            block = f" (block {e.block})" if e.block >= 0 else ""
            line = f"{where}[{e.code}] {e.message[:MAX_MESSAGE_CHARS]}{block}"
            src = _source_line(project, e.file, e.line) if e.file else ""
            out.append(line + (f"\n    > {src}" if src else ""))
    if report.ok and latent_faults(report):
        out.append("The kernel passed, but only because the bytes it overran were dead this time:")
        for w in latent_faults(report)[:MAX_RUNTIME_ERRORS]:
            where = f"{w.file}:{w.line}: " if w.file else ""
            src = _source_line(project, w.file, w.line) if w.file else ""
            line = f"{where}[{w.code}] {w.message[:MAX_MESSAGE_CHARS]}"
            out.append(line + (f"\n    > {src}" if src else ""))
    failed = [c for c in report.cases if not c.ok]
    if failed and report.compile.ok:
        out.append(f"{len(failed)} of {len(report.cases)} test cases failed:")
        for c in failed[:MAX_CASES]:
            parts = [f"case {c.name}:"]
            if c.message:
                parts.append(c.message[:MAX_MESSAGE_CHARS])
            if c.mismatches:
                parts.append(f"{c.mismatches} elements differ")
            if c.first_mismatch is not None:
                parts.append(f"first at index {tuple(c.first_mismatch)}")
            if c.max_abs_err is not None:
                parts.append(f"max abs err {c.max_abs_err:.3g}")
            out.append(" ".join(parts))
    out += [f"note: {n}" for n in report.notes[:3]]
    if len(out) == 0:
        out.append("Validation failed without details.")
    return "\n".join(out)


def parse_feedback(message: str) -> str:
    return f"Your answer could not be used: {message}."
