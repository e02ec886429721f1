"""The compiler's automatic synchronization (BiSheng `--cce-auto-sync`, on by default in
kernel-launch and custom operator projects) inserts the flags between S and MTE2/MTE3/V itself
(https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/compiler/BishengCompiler/atlas_bisheng_10_0008.html).
A scalar read right after a vector op or a GM -> UB copy therefore validates by default and is
a `pipe-hazard` in a project that sets `auto_sync = false`; MTE2 -> V stays the kernel's job."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.validate import validate_project

KERNEL = "op_kernel/add_custom.cpp"
ADD = "Add(zLocal, xLocal, yLocal, length);"
# ReduceMax on PIPE_V into the (consumed) x tile, then its result read on PIPE_S.
REDUCE_THEN_READ = (
    f"{ADD}\n        ReduceMax(xLocal, zLocal, yLocal, length);\n"
    "        T m = xLocal.GetValue(0);  // BUG\n        (void)m;"
)
# A GM -> UB copy on PIPE_MTE2 into the output tile, read on PIPE_S before the Add rewrites it.
COPY_THEN_READ = (
    "DataCopyPad(zLocal, yGm[0], {1, 32, 0, 0, 0}, {false, 0, 0, 0});\n"
    f"        T v = zLocal.GetValue(0);  // BUG\n        (void)v;\n        {ADD}"
)
SCALAR_READS = [
    ("vector-then-scalar", REDUCE_THEN_READ, "PIPE_V"),
    ("mte2-then-scalar", COPY_THEN_READ, "PIPE_MTE2"),
]


def _strict(project: Path) -> None:
    (project / "kernelgen.toml").write_text("auto_sync = false\n")


@pytest.mark.parametrize(("case", "new", "writer"), SCALAR_READS, ids=[c[0] for c in SCALAR_READS])
def test_scalar_read_without_flag_validates_under_auto_sync(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    case: str,
    new: str,
    writer: str,
) -> None:
    project = example("add_unaligned")
    mutate(project / KERNEL, ADD, new)
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.compile.ok, report.compile.diagnostics
    assert report.runtime_errors == [], report.runtime_errors
    assert report.ok, [c.message for c in report.cases]


@pytest.mark.parametrize(("case", "new", "writer"), SCALAR_READS, ids=[c[0] for c in SCALAR_READS])
def test_scalar_read_without_flag_is_a_pipe_hazard_without_auto_sync(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    case: str,
    new: str,
    writer: str,
) -> None:
    project = example("add_unaligned")
    line = mutate(project / KERNEL, ADD, new)
    _strict(project)
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert not report.ok
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("pipe-hazard", KERNEL, line), err
    assert writer in err.message and "PIPE_S" in err.message, err.message


def test_mte2_to_vector_without_flag_is_a_pipe_hazard_under_auto_sync(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    # The compiler leaves MTE2 -> V to the queues or the kernel: a copy into a tile that a vector
    # op reads with no queue hand-off or flag between is still a hazard with auto-sync on.
    project = example("add_unaligned")
    line = mutate(
        project / KERNEL,
        ADD,
        "DataCopyPad(zLocal, yGm[0], {1, 32, 0, 0, 0}, {false, 0, 0, 0});\n"
        f"        Adds(zLocal, zLocal, (T)0, 8);  // BUG\n        {ADD}",
    )
    report = validate_project(project, project / "ref.py", dtype="float32")
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("pipe-hazard", KERNEL, line), err
    assert "MTE2_V" in err.message, err.message
