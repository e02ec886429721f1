"""A vector read past its source LocalTensor that stays inside UB runs, as on the NPU (which checks
no LocalTensor length), with a `count-exceeds-tensor` warning: the lanes read there hold the bytes
that follow in UB, and a kernel that drops them (DrivingSDK's select_idx_with_mask casts a count
rounded up to 64 from an 8-element tensor) passes. A write past the tensor into another buffer's
bytes, or any access past the end of UB, stays the error, except inside the TBuf a `Get(len)` or
`GetWithOffset` view came from (the kernel lays that TBuf out itself: DrivingSDK's
assign_score_withk_grad BroadCasts 24 elements into a 21-element view of a 24-element TBuf), and
into UB that no buffer owns, which nothing the kernel holds can notice (sgl-kernel-npu's
alloc_extend indexes its queue tensor in bytes, past every buffer). One program, one run per case:
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
    assert "inside the TBuf it came from" in res.stderr and "[count-exceeds-tensor]" in res.stderr


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
    "case", ["write_past", "read_past_ub_end", "write_past_ub_end", "tbuf_get_len_past_tbuf"]
)
def test_a_write_past_the_tensor_or_a_read_past_ub_stays_an_error(
    emu_build, run_program, case: str
) -> None:
    res = run_program(emu_build("read_past"), [case])
    assert res.returncode == 3, res.stderr
    assert "[ERROR]" in res.stderr and res.stderr.rstrip().endswith("[count-exceeds-tensor]"), (
        res.stderr
    )
