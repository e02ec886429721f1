"""GatherMask reads what the API reference documents (tests/emu/cpp/gather_mask.cpp): in Counter
mode `mask` lanes a repeat on the A2 (configuration one, more than one repeat's 256 bytes allowed)
and `mask` lanes in all on the 310P (configuration two); in Normal mode whole 256-byte repeats, so
a source that ends inside its last repeat is read past its end with a warning (Compare's count
form, whole repeats, likewise), while reads the kernel chose past a tensor stay errors."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

X = torch.arange(192, dtype=torch.float32) + 1


def run(emu_build, run_program, case: str):
    return run_program(emu_build("gather_mask"), [case, "{x}", "{out:y}", "{report}"], {"x": X})


def kept_and_count(res) -> tuple[torch.Tensor, int]:
    assert res.returncode == 0, res.stderr
    out = from_bytes(res.outputs["y"], "float32")
    return out[:-1], int(out[-1].item())


def every_fourth_first_and_last(span: torch.Tensor) -> torch.Tensor:
    """Lanes the pattern 0x99999999 keeps (bits 0 and 3 of every nibble)."""
    lanes = torch.arange(span.numel())
    return span[(lanes % 4 == 0) | (lanes % 4 == 3)]


def test_counter_mode_mask_spans_more_than_one_repeat(emu_build, run_program) -> None:
    y, n = kept_and_count(run(emu_build, run_program, "counter_per_repeat"))
    assert n == 64
    torch.testing.assert_close(y, X[0::3])


def test_counter_mode_follows_the_references_example(emu_build, run_program) -> None:
    y, n = kept_and_count(run(emu_build, run_program, "counter_reference_example"))
    want = torch.cat([every_fourth_first_and_last(X[0:70]), every_fourth_first_and_last(X[32:102])])
    assert n == want.numel() == 70
    torch.testing.assert_close(y, want)


def test_counter_mode_on_310p_counts_mask_in_all(emu_build, run_program) -> None:
    y, n = kept_and_count(run(emu_build, run_program, "counter_total_310p"))
    want = torch.cat([every_fourth_first_and_last(X[0:64]), every_fourth_first_and_last(X[64:70])])
    assert n == want.numel()
    torch.testing.assert_close(y, want)


def test_normal_mode_keeps_the_pattern_of_whole_repeats(emu_build, run_program) -> None:
    y, n = kept_and_count(run(emu_build, run_program, "normal"))
    assert n == 64
    torch.testing.assert_close(y, X[0:128:2])


def test_normal_mode_tail_reads_past_the_source_with_a_warning(emu_build, run_program) -> None:
    res = run(emu_build, run_program, "normal_tail")
    y, n = kept_and_count(res)
    assert n == 64  # two whole repeats' even lanes, 24 of them from past the source
    torch.testing.assert_close(y[:40], X[0:80:2])
    warnings = [w for w in res.report["warnings"] if w["code"] == "count-exceeds-tensor"]
    assert {w["line"] for w in warnings} == {marker_line("gather_mask.cpp", "tail: normal_tail")}
    text = " ".join(w["message"] for w in warnings)
    assert "48 elements that follow it" in text and "24 past dst" in text


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("counter_past_src", "count-exceeds-tensor"),
        ("normal_dst_short", "count-exceeds-tensor"),
        ("counter_mask_zero", "mask-range"),
        ("pattern7_310p", "param-range"),
    ],
)
def test_gather_mask_faults_stay_errors(emu_build, run_program, case: str, code: str) -> None:
    res = run(emu_build, run_program, case)
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("gather_mask.cpp", f"BUG: {case}"), err


@pytest.mark.parametrize("case", ["normal_past_src_by_repeats", "compare_past_src"])
def test_reads_further_past_the_source_inside_ub_are_warnings(emu_build, run_program,
                                                              case: str) -> None:
    """More than the last repeat past the source still reads UB only (the NPU checks no
    LocalTensor length): the general read-past rule's warning at the call, no error."""
    res = run(emu_build, run_program, case)
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    lines = {w["line"] for w in res.report["warnings"] if w["code"] == "count-exceeds-tensor"}
    assert lines == {marker_line("gather_mask.cpp", f"BUG: {case}")}


def test_compare_count_form_reads_its_last_repeat_past_the_source(emu_build, run_program) -> None:
    res = run(emu_build, run_program, "compare_tail")
    assert res.returncode == 0, res.stderr
    raw = torch.frombuffer(bytearray(res.outputs["y"]), dtype=torch.uint8)
    bits = ((raw.view(2, 8).unsqueeze(-1).long() >> torch.arange(8)) & 1).view(2, 64)
    torch.testing.assert_close(bits[0, :40], (X[:40] > 20.5).long())
    torch.testing.assert_close(bits[1, :40], (X[:40] < 10.5).long())
    lines = {w["line"] for w in res.report["warnings"] if w["code"] == "count-exceeds-tensor"}
    assert lines == {
        marker_line("gather_mask.cpp", "tail: compare_tail"),
        marker_line("gather_mask.cpp", "tail: compare_scalar_tail"),
    }
