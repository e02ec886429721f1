"""The pattern form of the high-level reductions (ReduceSum/Max/Min/Mean/Prod/All/Any with
AscendC::Pattern::Reduce::AR or RA, src rows padded to 32 bytes in UB) and Broadcast, the
current name of BroadCast (tests/emu/cpp/reduce_pattern.cpp)."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

SOURCE = "reduce_pattern.cpp"


def run(emu_build, run_program, case: str, x: torch.Tensor):
    return run_program(emu_build("reduce_pattern"), [case, "{x}", "{out:y}", "{report}"], {"x": x})


def ok(emu_build, run_program, case: str, x: torch.Tensor) -> bytes:
    res = run(emu_build, run_program, case, x)
    assert res.returncode == 0, res.stderr
    assert res.report is not None and res.report["errors"] == [], res.report
    return res.outputs["y"]


@pytest.mark.parametrize("case,dim", [("ar", 1), ("ra", 0)])
def test_pattern_reductions_over_padded_rows(emu_build, run_program, case: str, dim: int) -> None:
    gen = torch.Generator().manual_seed(21)
    x = (torch.rand(5, 13, generator=gen) * 1.5 + 0.25) * torch.where(
        torch.rand(5, 13, generator=gen) < 0.3, -1.0, 1.0)
    y = from_bytes(ok(emu_build, run_program, case, x.flatten()), "float32")
    n = x.shape[1 - dim]
    got = y.view(6, n)
    xd = x.double()
    want = [xd.sum(dim), xd.sum(dim), xd.amax(dim), xd.amin(dim), xd.mean(dim), xd.prod(dim)]
    for row, w in zip(got, want, strict=True):
        torch.testing.assert_close(row, w.float(), rtol=1e-6, atol=1e-6)


def test_all_and_any_on_uint8(emu_build, run_program) -> None:
    x = (torch.rand(3, 40, generator=torch.Generator().manual_seed(22)) < 0.8).float()
    x[1] = 1.0  # a row that is all ones
    x[:, 5] = 0.0  # a column that is all zeros
    y = torch.frombuffer(bytearray(ok(emu_build, run_program, "all_any_u8", x.flatten())),
                         dtype=torch.uint8)
    b = x.bool()
    want = torch.cat([b.all(1), b.any(1), b.all(0), b.any(0)]).to(torch.uint8)
    assert torch.equal(y, want)


def test_count_form_still_resolves(emu_build, run_program) -> None:
    x = torch.arange(20, dtype=torch.float32) * 0.5 - 3
    x[7] = 40.0
    y = from_bytes(ok(emu_build, run_program, "count_form", x), "float32")
    assert y[0].item() == pytest.approx(float(x.double().sum()))
    assert y[1].item() == 40.0
    assert y[2:3].view(torch.int32).item() == 7  # index bits of the maximum


def test_broadcast_current_name_and_old_name(emu_build, run_program) -> None:
    x = torch.arange(8, dtype=torch.float32) + 1
    y = from_bytes(ok(emu_build, run_program, "broadcast", x), "float32").view(3, 4, 8)
    torch.testing.assert_close(y[0], x[:4].view(4, 1).expand(4, 8))
    torch.testing.assert_close(y[1], x.view(1, 8).expand(4, 8))
    torch.testing.assert_close(y[2], y[0])


def test_unpadded_flag_over_block_aligned_rows_is_a_warning(emu_build, run_program) -> None:
    x = torch.arange(64, dtype=torch.float32)
    res = run(emu_build, run_program, "unpadded_aligned", x)
    assert res.returncode == 0, res.stderr
    [warning] = res.report["warnings"]
    assert warning["code"] == "param-range" and "same layout" in warning["message"], warning
    assert warning["line"] == marker_line(SOURCE, "WARN: unpadded_aligned"), warning
    y = from_bytes(res.outputs["y"], "float32")
    torch.testing.assert_close(y, x.view(4, 16).sum(0))


@pytest.mark.parametrize("case,code,words", [
    ("unpadded", "param-range", "srcInnerPad = false"),
    ("half_sum", "dtype-support", "half"),
    ("overlap", "operand-overlap", "overlaps src"),
    ("bad_broadcast", "param-range", "does not broadcast"),
])
def test_documented_limits_are_errors(emu_build, run_program, case, code, words) -> None:
    res = run(emu_build, run_program, case, torch.zeros(8))
    assert res.report is not None and res.report["status"] == "error", res.stderr
    err = res.report["errors"][0]
    assert err["code"] == code and words in err["message"], err
    assert err["line"] == marker_line(SOURCE, f"BUG: {case}"), err
