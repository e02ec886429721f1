"""The bias table (BT, TPosition C2) in the emulator (tests/emu/cpp/bias_table.cpp): DataCopy L1 ->
C2 converts half to float (or copies float as it is) with blockLen in 64 source bytes, the source
gap in 32 bytes and the destination gap in 64 bytes (CCE intrinsic copy_cbuf_to_bt, CANN 8.5
cceapi_0097), on PIPE_MTE1; Mmad with a C2 bias and cmatrixInitVal false starts C from the bias,
broadcast along M. Wrong pairs, positions, alignment, a missing MTE1 -> M flag and a chip without
a bias table stop at the call."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

M, K = 16, 32


def _inputs(n: int, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(n)
    a = torch.randint(-4, 5, (M, K), generator=gen).half()
    b = torch.randint(-4, 5, (K, n), generator=gen).half()
    x = torch.cat([a.reshape(-1), b.reshape(-1)]).view(torch.uint8)
    return a, b, torch.cat([x, bias.reshape(-1).view(torch.uint8)])


def _run(emu_build, run_program, case: str, n: int, bias: torch.Tensor):
    a, b, x = _inputs(n, bias)
    res = run_program(emu_build("bias_table"), [case, "{x}", "{out:y}", "{report}"], {"x": x})
    y = from_bytes(res.outputs["y"], "float32")[: M * n].view(M, n) if "y" in res.outputs else None
    return res, a.float() @ b.float(), y


def _bias(count: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randint(-50, 50, (count,), generator=torch.Generator().manual_seed(7)).to(dtype)


def test_half_bias_is_converted_and_added_to_every_row(emu_build, run_program) -> None:
    bias = _bias(32, torch.float16)
    res, prod, y = _run(emu_build, run_program, "half_bias", 32, bias)
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [] and res.report["warnings"] == []
    assert torch.equal(y, prod + bias.float())
    # MTE1 moved the 64 bias bytes out of L1, besides LoadData's 2 + 4 fractals
    assert res.report["counters"]["total"]["l1_to_l0_bytes"] == 6 * 512 + 64


def test_block_len_counts_64_source_bytes_and_the_source_gap_32(emu_build, run_program) -> None:
    bias = _bias(128, torch.float16)
    res, prod, y = _run(emu_build, run_program, "strided", 64, bias)
    assert res.returncode == 0, res.stderr
    # bursts of 32 halves; a gap of 2 x 32 B (32 halves) skips bias[32:64]
    assert torch.equal(y, prod + torch.cat([bias[:32], bias[64:96]]).float())


def test_float_copies_as_it_is_and_the_dst_gap_counts_64_bytes(emu_build, run_program) -> None:
    bias = _bias(64, torch.float32)
    res, prod, y = _run(emu_build, run_program, "float_gap", 64, bias)
    assert res.returncode == 0, res.stderr
    # bursts of 16 floats; a gap of 64 B (16 floats) leaves BT [16, 32) as it was (never written)
    assert torch.equal(y[:, :16], prod[:, :16] + bias[:16])
    assert torch.equal(y[:, 32:48], prod[:, 32:48] + bias[16:32])
    assert torch.isnan(y[:, 16:32]).all()


def test_cmatrix_init_val_true_starts_from_zero_and_warns(emu_build, run_program) -> None:
    res, prod, y = _run(emu_build, run_program, "init_val_true", 32, _bias(32, torch.float16))
    assert res.returncode == 0, res.stderr
    assert torch.equal(y, prod)
    [w] = res.report["warnings"]
    assert w["code"] == "param-range" and "the bias is not added" in w["message"], w


# case -> (rule code, text the message must hold)
BUGS = {
    "bt_unaligned": ("fractal-align", "dst (C2) starts at BT offset 32, not 64-byte aligned"),
    "no_sync": ("pipe-hazard", "DataCopy(L1->C2, DataCopyParams) on PIPE_MTE1"),
    "bf16_pair": ("dtype-support", "bfloat16_t -> float is not an L1 -> bias table pair"),
    "ub_source": ("tensor-position", "the bias table (C2) is filled from L1"),
    "half_bias_in_bt": ("dtype-support", "a half bias for a float result"),
    "chip_310p": ("chip-support", "ascend310p has no bias table"),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_bias_table_rule_is_reported_at_the_call(emu_build, run_program, case: str, expect) -> None:
    code, text = expect
    res, _, _ = _run(emu_build, run_program, case, 32, _bias(32, torch.float16))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("bias_table.cpp", f"BUG: {case}"), err
    assert text in err["message"], err
