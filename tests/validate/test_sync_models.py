"""The ordering models of the emulator. Pipes: a read on one pipe of on-chip data another pipe
wrote, with nothing ordering the two, is `pipe-hazard` at the reading call, and so is a write
of data another pipe still reads (at the writing call). Cores: a block that
reads or rewrites GM another block wrote, with no SyncAll between, is `gm-race`. The same
kernels with the missing synchronisation added validate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.validate import validate_project

KERNEL = "op_kernel/add_custom.cpp"
ADD = "Add(zLocal, xLocal, yLocal, length);"
COPY_OUT = "DataCopyPad(zGm[progress * tileLength], zLocal, params);"
# A copy into the output tile and a vector op reading it; the Add then overwrites the tile, so
# only the missing flag can make the run fail.
RELOAD = "DataCopyPad(zLocal, yGm[0], {1, 32, 0, 0, 0}, {false, 0, 0, 0});"
READ = "Adds(zLocal, zLocal, (DTYPE_X)0, 8);"

# (case id, original text, seeded text with `// BUG` on the reading call, pipes named). MTE2 -> V
# and V -> MTE3 are hazards as the projects are built (with --cce-auto-sync); S -> V only in a
# project built without it (`auto_sync = false`), since the compiler inserts S <-> V flags itself.
HAZARDS: list[tuple[str, str, str, str]] = [
    ("mte2-then-vector", ADD, f"{RELOAD}\n        {READ}  // BUG\n        {ADD}", "PIPE_MTE2"),
    (
        "vector-then-mte3",
        COPY_OUT,
        f"Adds(zLocal, zLocal, (DTYPE_X)0, length);\n        {COPY_OUT}  // BUG",
        "PIPE_V",
    ),
    (
        "scalar-then-vector",
        ADD,
        f"yLocal.SetValue(0, yLocal.GetValue(0));\n        {ADD}  // BUG",
        "PIPE_S",
    ),
]


# Write after read: MTE2 refills an input tile the vector Add (the line above) still reads.
REFILL = "DataCopyPad(xLocal, yGm[0], {1, 32, 0, 0, 0}, {false, 0, 0, 0});"


def test_unsynchronised_overwrite_is_a_pipe_hazard_at_the_writing_line(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    line = mutate(project / KERNEL, ADD, f"{ADD}\n        {REFILL}  // BUG")
    report = validate_project(project, project / "ref.py", dtype="float32")
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("pipe-hazard", KERNEL, line), err
    assert "overwrites" in err.message and "PIPE_V" in err.message, err.message
    assert f"line {line - 1}" in err.message and "V_MTE2" in err.message, err.message


# Two readers of the input tile on different pipes (the vector Add, then an MTE3 copy of it),
# and a flag that orders only the later one before MTE2 refills the tile: the Add may still be
# reading. The refill must be checked against every reader since the last ordering point.
EARLIER_READER = (
    f"{ADD}\n        DataCopyPad(zGm[0], xLocal, DataCopyExtParams{{1, 32, 0, 0, 0}});\n"
    "        SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID3);\n"
    "        WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID3);\n"
)


def test_overwrite_checks_every_unordered_reader_not_only_the_last(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    line = mutate(project / KERNEL, ADD, f"{EARLIER_READER}        {REFILL}  // BUG")
    report = validate_project(project, project / "ref.py", dtype="float32")
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("pipe-hazard", KERNEL, line), err
    assert "PIPE_V" in err.message and f"line {line - 4}" in err.message, err.message
    assert "V_MTE2" in err.message, err.message


def test_overwrite_after_both_readers_are_ordered_has_no_pipe_hazard(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    # (the copy of x into z[0..8) makes the output wrong; only the pipe order is checked here)
    project = example("add_unaligned")
    mutate(
        project / KERNEL,
        ADD,
        f"{EARLIER_READER}        SetFlag<HardEvent::V_MTE2>(EVENT_ID2);\n"
        f"        WaitFlag<HardEvent::V_MTE2>(EVENT_ID2);\n        {REFILL}",
    )
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.compile.ok, report.compile.diagnostics
    assert report.runtime_errors == [], report.runtime_errors


@pytest.mark.parametrize(("case", "old", "new", "writer"), HAZARDS, ids=[h[0] for h in HAZARDS])
def test_unsynchronised_read_is_a_pipe_hazard_at_the_reading_line(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    case: str,
    old: str,
    new: str,
    writer: str,
) -> None:
    project = example("add_unaligned")
    line = mutate(project / KERNEL, old, new)
    if writer == "PIPE_S":
        (project / "kernelgen.toml").write_text("auto_sync = false\n")
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.compile.ok, report.compile.diagnostics
    assert not report.ok
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line) == ("pipe-hazard", KERNEL, line), err
    assert writer in err.message and f"line {line - 1}" in err.message, err.message


# The same seeded accesses with the flag the NPU needs: they validate.
SYNCED: list[tuple[str, str, str]] = [
    (
        "vector-then-mte2-overwrite",
        ADD,
        f"{ADD}\n        SetFlag<HardEvent::V_MTE2>(EVENT_ID3);\n"
        f"        WaitFlag<HardEvent::V_MTE2>(EVENT_ID3);\n        {REFILL}",
    ),
    (
        "mte2-then-vector",
        ADD,
        f"{RELOAD}\n        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);\n"
        f"        WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);\n        {READ}\n        {ADD}",
    ),
    (
        "vector-then-mte3",
        COPY_OUT,
        "Adds(zLocal, zLocal, (DTYPE_X)0, length);\n        PipeBarrier<PIPE_ALL>();\n"
        f"        {COPY_OUT}",
    ),
    (
        "scalar-then-vector",
        ADD,
        "yLocal.SetValue(0, yLocal.GetValue(0));\n        SetFlag<HardEvent::S_V>(EVENT_ID2);\n"
        f"        WaitFlag<HardEvent::S_V>(EVENT_ID2);\n        {ADD}",
    ),
]


# The default run keeps one flag of each family (MTE2 -> V, S -> V); the others run under slow.
SYNCED_SLOW = ("vector-then-mte2-overwrite", "vector-then-mte3")


@pytest.mark.parametrize(
    ("case", "old", "new"),
    [
        pytest.param(*s, id=s[0], marks=(pytest.mark.slow,) if s[0] in SYNCED_SLOW else ())
        for s in SYNCED
    ],
)
def test_the_same_access_with_its_flag_validates(
    example: Callable[[str], Path],
    mutate: Callable[[Path, str, str], int],
    case: str,
    old: str,
    new: str,
) -> None:
    project = example("add_unaligned")
    mutate(project / KERNEL, old, new)
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])


def test_a_flag_on_the_wrong_pipe_pair_does_not_order(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    line = mutate(
        project / KERNEL,
        ADD,
        f"{RELOAD}\n        SetFlag<HardEvent::MTE3_V>(EVENT_ID1);\n"
        f"        WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);\n        PipeBarrier<PIPE_V>();\n"
        f"        {READ}  // BUG\n        {ADD}",
    )
    report = validate_project(project, project / "ref.py", dtype="float32")
    err = report.runtime_errors[0]
    assert (err.code, err.line) == ("pipe-hazard", line), err
    assert "MTE2_V" in err.message


ENTRY = "    op.Process();"
# A view of the whole output, so block 1 can reach what block 0 writes.
WHOLE_Z = (
    "    op.Process();\n    GlobalTensor<DTYPE_X> whole;\n"
    "    whole.SetGlobalBuffer((__gm__ DTYPE_X*)z, 8);\n"
)
def test_cross_block_rewrite_without_sync_all_is_a_gm_race(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    line = mutate(
        project / KERNEL, ENTRY,
        f"{WHOLE_Z}    if (GetBlockIdx() == 1) {{ whole.SetValue(0, (DTYPE_X)0); }}  // BUG"
    )
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.compile.ok, report.compile.diagnostics
    err = report.runtime_errors[0]
    assert (err.code, err.file, err.line, err.block) == ("gm-race", KERNEL, line, 1), err
    assert "block 0 wrote" in err.message and "writes" in err.message


def test_cross_block_read_without_sync_all_reads_poison_with_a_warning(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    # On the NPU the read may see block 0's bytes or what was there before: the emulator hands
    # it poison (tests/emu: ok_racing_read_dropped) and warns; a kernel that drops it passes.
    project = example("add_unaligned")
    read = "DTYPE_X v = whole.GetValue(0);"
    mutate(project / KERNEL, ENTRY, f"{WHOLE_Z}    if (GetBlockIdx() == 1) {{ {read} (void)v; }}")
    line = (project / KERNEL).read_text().splitlines().index(
        f"    if (GetBlockIdx() == 1) {{ {read} (void)v; }}") + 1
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])
    assert any(n.startswith(f"emulator warning [gm-race]: {KERNEL}:{line}: GetValue on block 1 "
                            "reads") and "poison" in n for n in report.notes), report.notes


def test_cross_block_read_after_sync_all_validates(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    project = example("add_unaligned")
    mutate(
        project / KERNEL,
        ENTRY,
        f"{WHOLE_Z}    SyncAll();\n"
        "    if (GetBlockIdx() == 1) { DTYPE_X v = whole.GetValue(0); (void)v; }",
    )
    report = validate_project(project, project / "ref.py", dtype="float32")
    assert report.ok, (report.runtime_errors, [c.message for c in report.cases])


def test_second_trial_runs_blocks_in_another_order(
    example: Callable[[str], Path], mutate: Callable[[Path, str, str], int]
) -> None:
    # Block 1 scribbles on block 2's first output through a raw pointer (invisible to the GM
    # model). In core order block 2 overwrites it afterwards; in the reversed order of trial 1
    # block 2 runs first and the scribble survives.
    project = example("add_unaligned")
    mutate(
        project / KERNEL,
        "            CopyOut(i, length);\n        }",
        "            CopyOut(i, length);\n        }\n"
        "        if (GetBlockIdx() == 1) {\n"
        "            ((__gm__ T*)zGm.GetPhyAddr())[blockLength] = (T)12345;\n"
        "        }",
    )
    report = validate_project(project, project / "ref.py", dtype="float32", trials=2)
    assert [c.ok for c in report.cases] == [True, False], [c.message for c in report.cases]
    assert "12345" in report.cases[1].message
