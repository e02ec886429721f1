"""API contracts the NPU build or hardware enforces and the emulator now checks: element types
per API and chip and Cast pairs and RoundModes (`dtype-support`, from the catalog) and partial
source/destination overlap (`operand-overlap`). Each seeded bug stops at its line with its
code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.validate import validate_project

KERNEL = "op_kernel/add_custom.cpp"
ADD = "Add(zLocal, xLocal, yLocal, length);"
AS_INT = (
    "auto zi = zLocal.template ReinterpretCast<int32_t>();\n"
    "        auto xi = xLocal.template ReinterpretCast<int32_t>();\n"
)

# (case id, rule code, original, seeded text with `// BUG`, dtype, words the message names)
SEEDED: list[tuple[str, str, str, str, str, tuple[str, ...]]] = [
    (
        "exp-on-int32",
        "dtype-support",
        ADD,
        f"{AS_INT}        Exp(zi, xi, 8);  // BUG\n"
        f"        {ADD}",
        "float32",
        ("Exp", "int32_t", "ascend910b2"),
    ),
    (
        "div-on-int32",
        "dtype-support",
        ADD,
        f"{AS_INT}        Div(zi, xi, xi, 8);  // BUG\n"
        f"        {ADD}",
        "float32",
        ("Div", "int32_t"),
    ),
    (
        "add-on-bfloat16",
        "dtype-support",
        "Add(zf, xf, yf, length);",
        "Add(zLocal, xLocal, yLocal, length);  // BUG",
        "bfloat16",
        ("Add", "bfloat16_t", "ascend910b2"),
    ),
    (
        "cast-round-mode",
        "dtype-support",
        "Cast(zLocal, zf, RoundMode::CAST_RINT, length);",
        "Cast(zLocal, zf, RoundMode::CAST_NONE, length);  // BUG",
        "bfloat16",
        ("float -> bfloat16_t", "ascend910b2", "not CAST_NONE"),
    ),
    (
        "partial-overlap",
        "operand-overlap",
        ADD,
        f"{ADD}\n        Adds(zLocal[8], zLocal, (DTYPE_X)1, 16);  // BUG",
        "float32",
        ("dst", "src", "partially"),
    ),
]


@pytest.mark.parametrize(
    ("case", "code", "old", "new", "dtype", "words"),
    [  # div-on-int32 repeats exp-on-int32's contract: slow
        pytest.param(*s, id=s[0], marks=(pytest.mark.slow,) if s[0] == "div-on-int32" else ())
        for s in SEEDED
    ],
)
def test_seeded_contract_breach_is_stopped_at_its_line(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    case: str,
    code: str,
    old: str,
    new: str,
    dtype: str,
    words: tuple[str, ...],
) -> None:
    project = example("add_unaligned")
    line = mutate(project / KERNEL, old, new)
    report = validate_project(project, project / "ref.py", dtype=dtype)
    assert report.compile.ok, report.compile.diagnostics
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == (code, KERNEL, line), err
    assert all(w in err.message for w in words), err.message


def test_in_place_ops_are_full_overlap_and_allowed(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    mutate(project / KERNEL, ADD, f"{ADD}\n        Adds(zLocal, zLocal, (DTYPE_X)0, length);")
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])


def test_short_reduce_work_buffer_is_a_workspace_size_error(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    # 1000 floats take 16 repeats of 256 bytes: the work area needs 16 floats; 8 is short.
    project = example("softmax_rows")
    kernel = "op_kernel/softmax_custom.cpp"
    line = mutate(
        project / kernel,
        "ReduceSum(reduced, row, work, cols);",
        "ReduceSum(reduced, row, workBuf.Get<float>(8), cols);  // BUG",
    )
    report = validate_project(project, project / "ref.py")
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("workspace-size", kernel, line), err
    assert "at least 16" in err.message and "holds 8" in err.message
