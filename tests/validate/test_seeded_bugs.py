"""One seeded bug per runtime rule the emulator checks: validate_project stops it with the
rule's code at the line of the bug."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.runner.sandbox import SandboxLimits
from ascend_tools.validate import validate_project

KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"

# (rule code, file, original text, seeded text with a `// BUG` marker, dtype, chip)
SEEDED: list[tuple[str, str, str, str, str | None, str]] = [
    (
        "datacopy-align",
        KERNEL,
        "DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);",
        "DataCopy(xLocal, xGm[progress * tileLength], length);  // BUG",
        "float16",
        "ascend910b2",
    ),
    (
        "ub-overflow",
        KERNEL,
        "pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));",
        "pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T) * 16);  // BUG",
        None,
        "ascend910b2",
    ),
    (
        # three tiles from x's first slot: through its second slot into y's, which Add then reads
        "count-exceeds-tensor",
        KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Duplicate(xLocal, T(0), tileLength * 3);  // BUG\n"
        "            Add(zLocal, xLocal, yLocal, length);",
        None,
        "ascend910b2",
    ),
    (
        "gm-out-of-bounds",
        KERNEL,
        "DataCopyPad(zGm[progress * tileLength], zLocal, params);",
        # 512 elements past: beyond the padded, 512-byte-rounded block of the allocation (a
        # few elements past would land in that padding: a gm-extent warning, as on the NPU)
        "DataCopyPad(zGm[progress * tileLength + 512], zLocal, params);  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "queue-protocol",
        KERNEL,
        "LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();",
        "LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();\n"
        "        LocalTensor<T> again = inQueueX.DeQue<T>();  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "queue-depth",
        KERNEL,
        "inQueueX.EnQue(xLocal);",
        "inQueueX.EnQue(xLocal);\n        inQueueX.EnQue(inQueueX.AllocTensor<T>());  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "ub-offset-align",
        KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Add(zLocal, xLocal[3], yLocal, 8);  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "tensor-position",
        KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        # a vector operand in L1 (GM -> VECOUT copies are legal: real kernels make them)
        "TBuf<TPosition::A1> l1Buf;\n        pipe.InitBuffer(l1Buf, tileLength * sizeof(T));\n"
        "        Add(zLocal, l1Buf.Get<T>(), yLocal, length);  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "mask-range",
        KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Add(zLocal, xLocal, yLocal, (uint64_t)65, 1, {1, 1, 1, 8, 8, 8});  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "repeat-range",
        KERNEL,
        "Add(zLocal, xLocal, yLocal, length);",
        "Add(zLocal, xLocal, yLocal, (uint64_t)64, 300, {1, 1, 1, 8, 8, 8});  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "param-range",
        KERNEL,
        "DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);",
        "params.blockLen -= 1;  // no whole number of elements\n"
        "        DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "buffer-count",
        KERNEL,
        "pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));",
        "pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));\n"
        "        pipe.InitBuffer(spare, 61, 32);  // BUG\n",
        None,
        "ascend910b2",
    ),
    (
        "single-tpipe",
        KERNEL,
        "    op.Process();",
        "    op.Process();\n    TPipe second;  // BUG",
        None,
        "ascend910b2",
    ),
    (
        "chip-support",
        KERNEL,
        "DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);",
        "DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);  // BUG",
        None,
        "ascend910",
    ),
]


@pytest.mark.parametrize(
    ("code", "file", "old", "new", "dtype", "chip"), SEEDED, ids=[s[0] for s in SEEDED]
)
def test_seeded_bug_is_stopped_at_its_line(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    code: str,
    file: str,
    old: str,
    new: str,
    dtype: str | None,
    chip: str,
) -> None:
    project = example("add_unaligned")
    if code == "queue-depth":
        mutate(
            project / KERNEL,
            "TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;",
            "TQue<QuePosition::VECIN, 1> inQueueX, inQueueY;",
        )
    if code == "buffer-count":
        mutate(
            project / KERNEL,
            "TBuf<QuePosition::VECCALC> calcBuf;",
            "TBuf<QuePosition::VECCALC> calcBuf;\n    TQue<QuePosition::VECIN, 1> spare;",
        )
    line = mutate(project / file, old, new)
    report = validate_project(project, project / "ref.py", chip=chip, dtype=dtype)
    assert report.compile.ok, report.compile.diagnostics
    assert not report.ok
    assert report.runtime_errors, report.cases
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == (code, file, line), err
    assert not report.cases[0].ok and code in report.cases[0].message


def test_kernel_that_never_ends_is_a_timeout(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    mutate(
        project / KERNEL,
        "    op.Process();",
        "    op.Process();\n    while (true) {}  // BUG",
    )
    limits = SandboxLimits(wall_seconds=3, cpu_seconds=2)
    report = validate_project(project, project / "ref.py", limits=limits)
    assert not report.ok
    assert report.runtime_errors[0].code == "timeout"
    assert report.cases[0].message.startswith("timeout")


def test_kernel_that_segfaults_is_a_crash(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    mutate(
        project / KERNEL,
        "    op.Process();",
        "    op.Process();\n    *(volatile int*)nullptr = 1;  // BUG",
    )
    report = validate_project(project, project / "ref.py")
    assert not report.ok
    assert report.runtime_errors[0].code == "crash"
    assert "SIGSEGV" in report.cases[0].message


def test_sync_all_deadlock_is_reported_as_timeout_at_the_barrier(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    line = mutate(
        project / KERNEL,
        "    op.Process();",
        "    op.Process();\n    if (GetBlockIdx() != 0) { SyncAll(); }  // BUG",
    )
    report = validate_project(project, project / "ref.py")
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("timeout", KERNEL, line)


def test_block_dim_out_of_range_is_stopped(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    mutate(project / HOST, "context->SetBlockDim(coreNum);", "context->SetBlockDim(70000);  // BUG")
    report = validate_project(project, project / "ref.py")
    assert not report.ok
    assert report.runtime_errors[0].code == "block-dim"


def test_failing_tiling_function_is_reported(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("leaky_relu")
    mutate(
        project / "op_host/leaky_relu_custom.cpp",
        "if (typeSize == 0 || totalLength == 0 || slope == nullptr) {",
        "if (true) {",
    )
    report = validate_project(project, project / "ref.py")
    assert not report.ok
    assert report.runtime_errors[0].code == "tiling-failed"
    assert "LeakyReluCustom" in report.runtime_errors[0].message


def test_kernel_parameter_list_that_skips_workspace_is_a_tiling_mismatch(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("leaky_relu")
    mutate(
        project / "op_kernel/leaky_relu_custom.cpp",
        "GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling",
        "GM_ADDR y, GM_ADDR tiling",
    )
    report = validate_project(project, project / "ref.py")
    assert not report.ok
    assert report.runtime_errors[0].code == "tiling-mismatch"
