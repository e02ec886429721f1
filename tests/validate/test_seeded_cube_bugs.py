"""Seeded bugs of the cube path through validate_project on a Matmul API project
(tests/validate/data/compat/matmul_mix, tiling from the host's MatmulApiTiling): the
emulator stops each with its rule's code at the line of the bug. Slow (a host and kernel build
per case); tests/emu/test_cube_rules.py proves the same rules in the default run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.validate import validate_project

PROJECT = Path(__file__).resolve().parent / "data" / "compat" / "matmul_mix"
KERNEL = "op_kernel/matmul_mix.cpp"
REGIST = "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);\n"

# (rule code, seeded text in place of REGIST with a `// BUG` marker, text of the message)
SEEDED: list[tuple[str, str, str]] = [
    (
        # the user's L1 buffer fills all but 32 B of L1: the Matmul's own A1/B1 share from the
        # host tiling no longer fits; both parts are named
        "l1-overflow",
        REGIST + "    TBuf<TPosition::A1> mine;\n"
        "    pipe.InitBuffer(mine, 512 * 1024 - 32);  // BUG\n",
        "Matmul A1 (depthA1 x baseM x baseK",
    ),
    (
        # a base block off the fractal layout: baseK of half must be a multiple of 16
        "fractal-align",
        "    TCubeTiling odd = t;\n    odd.baseK = 24;\n"
        "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &odd);  // BUG\n",
        "baseK = 24 is not a multiple of 16",
    ),
]


@pytest.fixture
def matmul_project(fresh_copy: Callable[[Path], Path]) -> Path:
    return fresh_copy(PROJECT)


@pytest.mark.slow
@pytest.mark.parametrize(("code", "new", "text"), SEEDED, ids=[s[0] for s in SEEDED])
def test_seeded_cube_bug_is_stopped_at_its_line(
    matmul_project: Path,
    mutate: Callable[[Path, str, str], int],
    code: str,
    new: str,
    text: str,
) -> None:
    line = mutate(matmul_project / KERNEL, REGIST, new)
    report = validate_project(matmul_project, matmul_project / "ref.py")
    assert report.compile.ok, report.compile.diagnostics
    assert not report.ok
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == (code, KERNEL, line), err
    assert text in err.message, err.message


@pytest.mark.slow
def test_unseeded_matmul_project_passes_and_reports_cube_counters(matmul_project: Path) -> None:
    report = validate_project(matmul_project, matmul_project / "ref.py")
    assert report.ok, (report.runtime_errors, report.cases)
    total = report.counters["total"]
    assert total["cube_macs"] == 64 * 32 * 32  # C[64, 32] = A[64, 32] x B[32, 32]
    assert total["l1_to_l0_bytes"] > 0
