"""The CANN toolkit backend: find an installed toolkit and say exactly what of it is missing.

A toolkit is used only when every part below is present; a partial install is reported part by
part (which binary or directory, under which root) and the emulator build is used instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.project import KernelProject
from ascend_tools.runner.sandbox import SandboxLimits, run_sandboxed
from ascend_tools.toolchain.errors import Locator, parse_compiler_output
from ascend_tools.toolchain.models import StepResult

ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")

# (what it is, where a toolkit keeps it relative to its root, any one of them suffices)
REQUIRED_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "AscendC compiler (bisheng or ccec)",
        (
            "compiler/ccec_compiler/bin/bisheng",
            "compiler/ccec_compiler/bin/ccec",
            "bin/bisheng",
            "bin/ccec",
        ),
    ),
    (
        "msopgen project generator",
        ("python/site-packages/bin/msopgen", "tools/msopgen/bin/msopgen", "bin/msopgen"),
    ),
    (
        "AscendC kernel headers (kernel_operator.h)",
        (
            "compiler/tikcpp/tikcfw/kernel_operator.h",
            "x86_64-linux/tikcpp/tikcfw/kernel_operator.h",
            "aarch64-linux/tikcpp/tikcfw/kernel_operator.h",
            "include/ascendc/kernel_operator.h",
        ),
    ),
    (
        "ACL runtime library (libascendcl.so)",
        (
            "lib64/libascendcl.so",
            "runtime/lib64/libascendcl.so",
            "x86_64-linux/lib64/libascendcl.so",
            "aarch64-linux/lib64/libascendcl.so",
        ),
    ),
)
BUILD_LIMITS = SandboxLimits(
    wall_seconds=900, cpu_seconds=1800, memory_bytes=16 << 30, isolate_network=False
)


class ToolkitStatus(BaseModel):
    """`root` is None when no variable points anywhere; `missing` names each absent part."""

    env_var: str | None = None
    root: Path | None = None
    found: dict[str, str] = {}
    missing: list[str] = []

    @property
    def complete(self) -> bool:
        return self.root is not None and not self.missing

    def summary(self) -> str:
        if self.root is None:
            return f"no CANN toolkit ({' / '.join(ENV_VARS)} not set)"
        if self.complete:
            return f"CANN toolkit at {self.root}"
        return f"CANN toolkit at {self.root} ({self.env_var}) is incomplete: " + "; ".join(
            self.missing
        )


def probe_cann(env: Mapping[str, str] | None = None) -> ToolkitStatus:
    env = os.environ if env is None else env
    for var in ENV_VARS:
        value = env.get(var)
        if not value:
            continue
        root = Path(value).expanduser()
        if not root.is_dir():
            return ToolkitStatus(
                env_var=var, root=root, missing=[f"{var}={value} is not a directory"]
            )
        found: dict[str, str] = {}
        missing: list[str] = []
        for what, candidates in REQUIRED_PARTS:
            hit = next((c for c in candidates if (root / c).exists()), None)
            if hit:
                found[what] = str(root / hit)
            else:
                missing.append(f"{what}: none of {', '.join(candidates)} under {root}")
        return ToolkitStatus(env_var=var, root=root, found=found, missing=missing)
    return ToolkitStatus()


def cann_build(project: KernelProject, status: ToolkitStatus) -> StepResult:
    """Builds a full msopgen project with its own `build.sh` under the toolkit's environment."""
    locator = Locator(project.root, (str(project.kernel_file), project.entry.line), {})
    script = project.root / "build.sh"
    if not status.complete or not script.exists():
        why = (
            status.summary()
            if not status.complete
            else (
                f"{script} not found: the CANN build needs the full msopgen project "
                "(`msopgen gen -i op.json -c ai_core-<soc> -lan cpp -out <dir>`)"
            )
        )
        return StepResult(
            ok=False, cached=False, diagnostics=parse_compiler_output(why, locator, failed=True)
        )
    env = {"ASCEND_HOME_PATH": str(status.root), "ASCEND_TOOLKIT_HOME": str(status.root)}
    res = run_sandboxed(["bash", str(script)], cwd=project.root, limits=BUILD_LIMITS, env=env)
    ok = res.returncode == 0
    return StepResult(
        ok=ok,
        seconds=res.wall_seconds,
        cached=False,
        diagnostics=parse_compiler_output(res.stderr + res.stdout, locator, failed=not ok),
    )
