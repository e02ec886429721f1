"""Run one case of a compiled op on the emulator, sandboxed, and read back outputs and report.

Exit codes follow `emu/README.md`: 0 ran, 3 stopped by a rule (the report names it), 2 bad case;
4 (host code threw), a signal or any other code is a crash, a wall-clock or CPU-time kill a
timeout.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ascend_tools.diagnostics import RuleCode
from ascend_tools.runner.case import Case, write_case
from ascend_tools.runner.models import RunResult, RuntimeFailure
from ascend_tools.runner.sandbox import SandboxLimits, run_sandboxed

RULE_FAILURE_EXIT = 3
BAD_CASE_EXIT = 2
# Other exit codes of the harness that are crashes with a known cause.
EXIT_HINTS = {
    RULE_FAILURE_EXIT: " (rule failure without a report)",
    4: " (the op's host code threw a C++ exception)",
}
# 4 GiB of address space: tensors up to about 1 GiB each, a block's thread stack for each of up
# to 48 blocks, and a memory bomb stopped long before it hurts the machine.
RUN_LIMITS = SandboxLimits(
    wall_seconds=60, cpu_seconds=60, memory_bytes=4 << 30, file_bytes=2 << 30
)


def _tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _report(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _failures(report: dict) -> list[RuntimeFailure]:
    out = []
    for e in report.get("errors", []):
        if isinstance(e, dict):
            try:
                out.append(RuntimeFailure(**e))
            except ValueError:
                continue
    return out


def run_case(
    binary: Path,
    case: Case,
    inputs: dict[str, bytes],
    limits: SandboxLimits | None = None,
    env: Mapping[str, str] | None = None,
) -> RunResult:
    """Runs one case; `env` adds variables the emulator reads (KERNELGEN_BLOCK_ORDER, ...)."""
    limits = limits or RUN_LIMITS
    with tempfile.TemporaryDirectory(prefix="kernelgen-run-") as tmp:
        work = Path(tmp)
        case_path = write_case(work, case, inputs)
        res = run_sandboxed(
            [binary, case_path.name, "report.json"], cwd=work, limits=limits, env=env
        )
        report = _report(work / "report.json")
        errors = _failures(report)
        if res.timed_out:
            return RunResult(
                status="timeout",
                report=report,
                seconds=res.wall_seconds,
                message=f"the kernel run {res.describe_end()} (limits: {limits.wall_seconds:.0f} s "
                f"wall, {limits.cpu_seconds} s CPU); an endless loop or a queue that never fills?",
                errors=errors
                or [RuntimeFailure(code=RuleCode.TIMEOUT.value, message="run timed out")],
            )
        if res.returncode == RULE_FAILURE_EXIT and errors:
            first = errors[0]
            return RunResult(
                status="error",
                report=report,
                errors=errors,
                seconds=res.wall_seconds,
                message=f"{first.code}: {first.message}",
            )
        if res.returncode == BAD_CASE_EXIT:
            return RunResult(
                status="harness-error",
                report=report,
                seconds=res.wall_seconds,
                message=f"the harness rejected the case: {_tail(res.stderr)}",
            )
        if res.returncode != 0:
            hint = EXIT_HINTS.get(res.returncode, "") if res.signal is None else ""
            msg = f"the kernel run {res.describe_end()}{hint}: {_tail(res.stderr)}".rstrip(": ")
            return RunResult(
                status="crash",
                report=report,
                seconds=res.wall_seconds,
                message=msg,
                errors=errors or [RuntimeFailure(code=RuleCode.CRASH.value, message=msg)],
            )
        outputs = {}
        for t in case.outputs:
            path = work / t.file
            data = path.read_bytes() if path.exists() else b""
            if len(data) != t.nbytes:
                return RunResult(
                    status="harness-error",
                    report=report,
                    seconds=res.wall_seconds,
                    message=f"output {t.name}: expected {t.nbytes} bytes, got {len(data)}",
                )
            outputs[t.stem] = data
        return RunResult(status="ok", report=report, outputs=outputs, seconds=res.wall_seconds)
