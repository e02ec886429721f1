"""Cross-block stores to the same GM bytes (tests/emu/cpp/gm_identical.cpp): two stores of
identical bytes with nothing ordering them are unobservable (a warning), while a store of other
bytes and different values stay `gm-race` errors, and a read ordered after neither writer gets
poison with a `gm-race` warning (below every value where the writers only raise the bytes with
AtomicMax)."""

from __future__ import annotations

import pytest
from emu_device_support import marker_line

SOURCE = "gm_identical.cpp"


def _run(emu_build, run_program, case: str):
    return run_program(emu_build("gm_identical"), [case, "{report}"])


def test_every_block_zeroing_one_workspace_warns_once_and_runs(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "ok_all_blocks_zero")
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = res.report["warnings"]
    assert warning["code"] == "gm-race"
    assert warning["line"] == marker_line(SOURCE, "WARN: ok_all_blocks_zero")
    assert "stores the very bytes already there" in warning["message"]
    assert "bytes [0, 256) of GM buffer 'workspace' that block 0 wrote" in warning["message"]


def test_a_block_reading_bytes_it_zeroed_with_another_is_no_race(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "ok_cowriter_reads")
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


@pytest.mark.parametrize(
    "case",
    [
        "zero_after_atomic_add",
        "other_bytes_after_shared_zero",
        "different_values",
    ],
)
def test_stores_or_reads_that_can_see_a_difference_are_races(
    emu_build, run_program, case: str
) -> None:
    res = _run(emu_build, run_program, case)
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "gm-race", err
    assert err["line"] == marker_line(SOURCE, f"BUG: {case}"), err
    assert "depends on their timing" in err["message"]


def test_zeroing_racing_an_accumulation_names_the_fix(emu_build, run_program) -> None:
    """pixel_group's fault: a block's zeroing unordered with another block's SetAtomicAdd."""
    err = _run(emu_build, run_program, "zero_after_atomic_add").report["errors"][0]
    assert "that block 0 wrote with DataCopy(UB->GM)" in err["message"], err
    assert "initialise, SyncAll, then accumulate" in err["message"], err


def test_a_read_ordered_after_neither_co_writer_reads_poison(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "third_block_reads")
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    line = marker_line(SOURCE, "WARN: third_block_reads")
    reads = [w for w in res.report["warnings"] if w["line"] == line]
    assert reads and reads[0]["code"] == "gm-race" and "poison" in reads[0]["message"], reads
    assert "block 2 reads 3e+38" in res.stdout, res.stdout


@pytest.mark.parametrize(("mode", "value"), [("max", "-3e+38"), ("add", "3e+38")])
def test_a_read_racing_an_atomic_max_gets_poison_below_every_value(
    emu_build, run_program, mode: str, value: str
) -> None:
    """DrivingSDK scatter_max's argmax pass reads what other blocks raise with AtomicMax and
    writes it back through AtomicMax: any value the NPU's read sees gives the same maximum, so
    the poison must not win that maximum; an accumulation by AtomicAdd keeps the usual poison."""
    res = _run(emu_build, run_program, f"read_after_atomic_{mode}")
    assert res.returncode == 0, res.stderr
    [warning] = [w for w in res.report["warnings"]
                 if w["line"] == marker_line(SOURCE, "WARN: read_after_atomic")]
    assert warning["code"] == "gm-race"
    assert ("poison below every value" in warning["message"]) == (mode == "max"), warning
    assert f"block 1 reads {value}" in res.stdout, res.stdout
