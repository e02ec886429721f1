"""The NPU checks no LocalTensor length: an access past a tensor inside UB runs there, and here
with a `count-exceeds-tensor` warning. A read past it reads the bytes that follow (DrivingSDK's
select_idx_with_mask casts a count rounded up to 64 from an 8-element tensor and drops the extra
lanes). A write past it lands in those bytes: inside the TBuf a `Get(len)` view came from
(DrivingSDK's assign_score_withk_grad), in UB no buffer owns (sgl-kernel-npu's alloc_extend), or in
another buffer's bytes, harmless while they are dead (never written before, or written again or
allocated again before any read: DrivingSDK's cartesian_to_frenet1 and scatter_add_grad). A read
first of overwritten bytes that held the kernel's data is the error, at the overflowing write,
and so is any access past the end of UB. One program, one run per case:
the exit code is the number of failed checks, or 3 when a rule stops the run."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("case", ["cast_rounded_up", "adds_reads_the_next_buffer"])
def test_a_read_past_the_tensor_inside_ub_runs_with_a_warning(
    emu_build, run_program, case: str
) -> None:
    res = run_program(emu_build("read_past"), [case])
    assert res.returncode == 0, res.stderr
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("[WARNING]")]
    assert any(w.endswith("[count-exceeds-tensor]") and "stays inside UB" in w for w in warned), (
        res.stderr
    )
    assert "[ERROR]" not in res.stderr


def test_a_write_past_a_tbuf_view_inside_its_tbuf_runs_with_a_warning(
    emu_build, run_program
) -> None:
    res = run_program(emu_build("read_past"), ["tbuf_get_len"])
    assert res.returncode == 0, res.stderr
    assert "inside the buffer it came from" in res.stderr and "[count-exceeds-tensor]" in res.stderr


def test_a_write_past_every_buffer_lands_in_free_ub_with_a_warning(emu_build, run_program) -> None:
    res = run_program(emu_build("read_past"), ["write_into_free_ub"])
    assert res.returncode == 0, res.stderr
    warned = [ln for ln in res.stderr.splitlines() if ln.endswith("[count-exceeds-tensor]")]
    assert any(
        "Duplicate" in w and "no buffer owns (the TPipe's buffers end at 320)" in w for w in warned
    ), res.stderr
    assert any("SetValue(16)" in w and "no buffer owns" in w for w in warned), res.stderr
    assert "[ERROR]" not in res.stderr


@pytest.mark.parametrize(
    "case",
    [
        "write_past_into_dead_bytes",
        "write_past_into_a_freed_slot",
        "helper_writes_past_then_fills_next",
        "tbuf_get_len_past_tbuf",
        "write_past_into_never_written_bytes",
    ],
)
def test_a_write_past_the_tensor_into_dead_bytes_of_another_buffer_runs_with_a_warning(
    emu_build, run_program, case: str
) -> None:
    res = run_program(emu_build("read_past"), [case])
    assert res.returncode == 0, res.stderr
    warned = [ln for ln in res.stderr.splitlines() if ln.endswith("[count-exceeds-tensor]")]
    assert any("into another buffer's" in w for w in warned), res.stderr
    assert "[ERROR]" not in res.stderr


@pytest.mark.parametrize(
    "case", ["write_past", "write_past_scalar_read", "write_past_partly_rewritten"]
)
def test_a_write_past_the_tensor_whose_bytes_another_buffer_then_reads_is_an_error(
    emu_build, run_program, case: str
) -> None:
    res = run_program(emu_build("read_past"), [case])
    assert res.returncode == 3, res.stderr
    [error] = [ln for ln in res.stderr.splitlines() if ln.startswith("[ERROR]")]
    assert error.endswith("[count-exceeds-tensor]"), res.stderr
    assert "Duplicate: needs 16 elements of dst, a LocalTensor<float> of 8 elements" in error
    assert "then reads before anything writes them again" in error


@pytest.mark.parametrize("case", ["read_past_ub_end", "write_past_ub_end"])
def test_an_access_past_the_end_of_ub_stays_an_error(
    emu_build, run_program, case: str
) -> None:
    res = run_program(emu_build("read_past"), [case])
    assert res.returncode == 3, res.stderr
    assert "[ERROR]" in res.stderr and res.stderr.rstrip().endswith("[count-exceeds-tensor]"), (
        res.stderr
    )
