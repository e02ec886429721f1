"""validate_project: caching, compile diagnostics, mismatches, shape variants, attributes."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from ascend_tools.validate import ValidationInputError, validate_project

Example = Callable[[str], Path]
Mutate = Callable[[Path, str, str], int]
ADD_KERNEL = "op_kernel/add_custom.cpp"


def test_second_validation_is_served_from_the_cache(example: Example, mutate: Mutate) -> None:
    project = example("add_unaligned")
    # Content no other test builds, so the first validation has to compile the kernel.
    mutate(
        project / ADD_KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        f"constexpr int32_t BUFFER_NUM = 2;  // {uuid.uuid4()}",
    )
    first = validate_project(project, project / "ref.py")
    second = validate_project(project, project / "ref.py")
    assert first.ok and second.ok
    assert not first.compile.cached
    assert second.compile.cached
    assert second.compile.seconds < first.compile.seconds


def test_editing_the_kernel_invalidates_the_cache(example: Example, mutate: Mutate) -> None:
    project = example("add_unaligned")
    assert validate_project(project, project / "ref.py").ok
    mutate(
        project / ADD_KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Sub(zLocal, xLocal, yLocal, length);",
    )
    report = validate_project(project, project / "ref.py")
    assert not report.compile.cached
    assert not report.ok
    case = report.cases[0]
    assert case.mismatches > 30000 and case.first_mismatch is not None
    assert len(case.first_mismatch) == 2 and "differ" in case.message


def test_misspelled_api_is_a_compile_error_at_its_line_with_a_hint(
    example: Example, mutate: Mutate
) -> None:
    project = example("add_unaligned")
    line = mutate(
        project / ADD_KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Addd(zLocal, xLocal, yLocal, length);  // BUG",
    )
    report = validate_project(project, project / "ref.py")
    assert not report.ok and not report.compile.ok and report.cases == []
    diag = report.compile.diagnostics[0]
    assert (diag.file, diag.line, diag.code) == (ADD_KERNEL, line, "compile-error")
    assert "did you mean" in diag.message and "Add" in diag.message


def test_host_compile_error_points_into_op_host(example: Example, mutate: Mutate) -> None:
    project = example("leaky_relu")
    line = mutate(
        project / "op_host/leaky_relu_custom.cpp",
        "tiling.set_negativeSlope(*slope);",
        "tiling.set_negative_slope(*slope);  // BUG",
    )
    report = validate_project(project, project / "ref.py")
    diag = report.compile.diagnostics[0]
    assert (diag.file, diag.line) == ("op_host/leaky_relu_custom.cpp", line)


def test_attribute_reaches_the_kernel(example: Example, mutate: Mutate) -> None:
    project = example("leaky_relu")
    # A reference with another slope only passes if the attribute travels through tiling.
    mutate(project / "ref.py", "NEGATIVE_SLOPE = 0.2", "NEGATIVE_SLOPE = 0.05")
    assert validate_project(project, project / "ref.py").ok
    mutate(project / "op_kernel/leaky_relu_custom.cpp", "slope = negativeSlope;", "slope = 0.2f;")
    assert not validate_project(project, project / "ref.py").ok


def test_shape_variants_add_cases_and_catch_shape_bugs(example: Example, mutate: Mutate) -> None:
    project = example("add_unaligned")
    shapes = [[(7, 5), (7, 5)], [(4096,), (4096,)]]
    report = validate_project(project, project / "ref.py", trials=2, shapes=shapes)
    assert [c.name for c in report.cases] == [
        "trial0",
        "trial0-shape1",
        "trial0-shape2",
        "trial1",
        "trial1-shape1",
        "trial1-shape2",
    ]
    assert report.ok
    # Round the last core's share down to whole 32-byte blocks: the default shape still passes
    # (33000 fp32 elements, a multiple of 8), the 35-element variant loses its 3-element tail.
    # (Overrunning the end instead would only write into the allocator's padding, which passes
    # on the NPU too: a gm-extent warning, not a shape bug.)
    mutate(
        project / ADD_KERNEL,
        "blockLength = totalLength - offset;",
        "blockLength = (totalLength - offset) / 8 * 8;",
    )
    report = validate_project(project, project / "ref.py", shapes=[[(7, 5), (7, 5)]])
    assert report.cases[0].ok
    assert not report.cases[1].ok


def test_tolerance_override_decides(example: Example) -> None:
    project = example("softmax_rows")
    assert validate_project(project, project / "ref.py", dtype="float16").ok
    strict = validate_project(project, project / "ref.py", dtype="float16", atol=0.0, rtol=1e-6)
    assert not strict.ok


def test_dtype_the_op_does_not_declare_is_bad_input(example: Example, mutate: Mutate) -> None:
    project = example("add_unaligned")
    for _ in range(3):
        mutate(
            project / "op_host/add_custom.cpp",
            ".DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})",
            ".DataType({ge::DT_FLOAT16, ge::DT_FLOAT16, ge::DT_BF16})",
        )
    with pytest.raises(ValidationInputError, match="declares no dtype combination"):
        validate_project(project, project / "ref.py")


def test_bfloat16_on_a_chip_without_it_is_bad_input(example: Example) -> None:
    project = example("add_unaligned")
    with pytest.raises(ValidationInputError, match="no bfloat16"):
        validate_project(project, project / "ref.py", chip="ascend310p", dtype="bfloat16")


def test_partial_cann_toolkit_is_named_and_the_emulator_is_used(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bisheng").write_text("")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    project = example("leaky_relu")
    report = validate_project(project, project / "ref.py")
    assert report.ok and report.backend == "emulator"
    note = next(n for n in report.notes if "incomplete" in n)
    assert "msopgen project generator" in note and "libascendcl.so" in note
    assert "AscendC compiler" not in note


def test_validation_leaves_the_callers_random_stream_alone(example: Example) -> None:
    project = example("leaky_relu")
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    assert validate_project(project, project / "ref.py", trials=2).ok
    assert torch.equal(torch.rand(3), expected)
