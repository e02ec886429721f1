"""The cube's img2col path in the emulator (tests/emu/cpp/img2col.cpp): Load3D (LoadData with
LoadData3DParamsV2) turns an NC1HWC0 feature map in L1 into the img2col matrix in L0A or L0B,
and Mmad with the weight fractals gives torch's conv2d (stride, padding, dilation, K loaded in
kStartPt chunks, M in mStartPt chunks); the feature map and pad value can come from SetFmatrix /
SetLoadDataPaddingValue; Matmul's Iterate(enPartialSum) adds onto CO1; InitConstValue fills
L0. Seeded bugs are reported at the offending call with their rule code."""

from __future__ import annotations

from typing import NamedTuple

import pytest
import torch
import torch.nn.functional as F
from emu_device_support import from_bytes, marker_line

C0 = 16  # half


def _fmap(x: torch.Tensor) -> torch.Tensor:
    """[C, H, W] -> NC1HWC0 without N: [C1, H, W, C0]."""
    c, h, w = x.shape
    return x.view(c // C0, C0, h, w).permute(0, 2, 3, 1).contiguous()


def _weight_fractals(w: torch.Tensor) -> torch.Tensor:
    """[Cout, C, KH, KW] -> [Cout/16][K/16][16][16] fractals, K ordered (c1, kh, kw, c0) as
    Load3D orders the img2col columns: L0A's zZ layout for A[Cout, K]; the kernel loads them
    into L0B (B[K, Cout], "ZN": K fractal rows outermost) K/16 fractals apart."""
    cout, c, kh, kw = w.shape
    k = c * kh * kw
    wk = w.view(cout, c // C0, C0, kh, kw).permute(0, 1, 3, 4, 2).reshape(cout, k)
    n = -(-cout // 16) * 16
    wk = torch.cat([wk, wk.new_zeros(n - cout, k)])
    return wk.view(n // 16, 16, k // C0, C0).permute(0, 2, 1, 3).contiguous()


class Conv(NamedTuple):
    """One conv of the test program (its argv order); mchunk 0 loads the whole M at once."""

    h: int
    w: int
    c: int
    cout: int
    kh: int
    kw: int
    stride: int
    pad: int
    dil: int
    kchunks: int = 1
    mchunk: int = 0


CONVS = {
    "stride1_pad1": Conv(8, 8, 16, 16, 3, 3, 1, 1, 1),
    "stride2_two_channel_groups_k_chunks": Conv(8, 8, 32, 16, 3, 3, 2, 1, 1, kchunks=2),
    "dilation2_partial_m_fractal": Conv(8, 8, 16, 16, 3, 3, 1, 1, 2),
    "dilation2_m_chunks_cout32": Conv(9, 7, 32, 32, 3, 3, 1, 1, 2, mchunk=16),
    # several fractals along both K and Cout: tells L0B's K-major fractal order from N-major
    "cout32_k_chunks": Conv(8, 8, 32, 32, 3, 3, 1, 1, 1, kchunks=2),
}


def _run_conv(emu_build, run_program, case: str, conv: Conv, pad_value: float = 0.0):
    gen = torch.Generator().manual_seed(conv.h * 31 + conv.c)
    x = torch.randn(conv.c, conv.h, conv.w, generator=gen).half()
    wt = torch.randn(conv.cout, conv.c, conv.kh, conv.kw, generator=gen).half()
    res = run_program(
        emu_build("img2col"),
        [case, "{report}", "{x}", "{w}", "{out:y}", *map(str, conv)],
        {"x": _fmap(x), "w": _weight_fractals(wt)},
    )
    assert res.returncode == 0, res.stderr
    xp = F.pad(x.float(), (conv.pad,) * 4, value=pad_value)
    ref = F.conv2d(xp[None], wt.float(), stride=conv.stride, dilation=conv.dil)[0]
    return from_bytes(res.outputs["y"], "float32"), ref, res


@pytest.mark.parametrize("name", sorted(CONVS))
def test_load3d_into_l0a_then_mmad_is_conv2d(emu_build, run_program, name: str) -> None:
    conv = CONVS[name]
    y, ref, res = _run_conv(emu_build, run_program, "conv_a2", conv)
    cout, ho, wo = ref.shape
    m = ho * wo
    torch.testing.assert_close(
        y.view(m, cout), ref.permute(1, 2, 0).reshape(m, cout), rtol=1e-4, atol=1e-3
    )
    # L1 -> L0A: the img2col block in whole 16-row fractals, once per M chunk (K chunks add up
    # to K); GM -> L1/L0B: the feature map once, the weight fractals once per M chunk.
    step = conv.mchunk or m
    chunks = range(0, m, step)
    k = conv.c * conv.kh * conv.kw
    rows = sum(-(-min(step, m - m0) // 16) * 16 for m0 in chunks)
    total = res.report["counters"]["total"]
    assert total["l1_to_l0_bytes"] == rows * k * 2
    weight = -(-cout // 16) * 16 * k * 2
    assert total["gm_to_l1_bytes"] == conv.c * conv.h * conv.w * 2 + weight * len(chunks)


@pytest.mark.parametrize("name", ["stride1_pad1", "dilation2_m_chunks_cout32", "cout32_k_chunks"])
def test_load3d_into_l0b_gives_nchw_directly(emu_build, run_program, name: str) -> None:
    # K in 3 chunks; the whole M (up to 64 positions: 4 N fractals of Load3D's B) unless mchunk
    conv = CONVS[name]._replace(kchunks=3)
    y, ref, _ = _run_conv(emu_build, run_program, "conv_b2", conv)
    cout, ho, wo = ref.shape
    torch.testing.assert_close(y.view(cout, ho, wo), ref, rtol=1e-4, atol=1e-3)


def test_feature_map_and_pad_value_from_the_registers(emu_build, run_program) -> None:
    # SetFmatrix gives the 8 x 8 map and pads, SetLoadDataPaddingValue a pad of 1.0: the params'
    # own l1H/l1W (1) and padValue (0) are ignored under IsResetLoad3dConfig {false, false}.
    y, ref, _ = _run_conv(emu_build, run_program, "conv_regs", CONVS["stride1_pad1"], pad_value=1.0)
    cout, ho, wo = ref.shape
    torch.testing.assert_close(
        y.view(ho * wo, cout), ref.permute(1, 2, 0).reshape(ho * wo, cout), rtol=1e-4, atol=1e-3
    )


def test_iterate_partial_sum_adds_onto_the_result_in_co1(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(5)
    a = torch.randn(2, 32, 32, generator=gen).half()
    b = torch.randn(2, 32, 32, generator=gen).half()
    res = run_program(
        emu_build("img2col"),
        ["ok_partial_sum", "{report}", "{a}", "{b}", "{out:c}"],
        {"a": a, "b": b},
    )
    assert res.returncode == 0, res.stderr
    c = from_bytes(res.outputs["c"], "float32")[: 32 * 32].view(32, 32)
    ref = a[0].float() @ b[0].float() + a[1].float() @ b[1].float()
    torch.testing.assert_close(c, ref, rtol=1e-4, atol=1e-3)


def test_init_const_value_fills_l0(emu_build, run_program) -> None:
    res = run_program(
        emu_build("img2col"),
        ["ok_init_const", "{report}", "{x}", "{w}", "{out:c}"],
        {"x": torch.zeros(8), "w": torch.zeros(8)},
    )
    assert res.returncode == 0, res.stderr
    c = from_bytes(res.outputs["c"], "float32").view(64, 16)
    assert torch.equal(c, torch.full((64, 16), 32.0))  # 2.0 x 1.0 over k = 16


# case -> (rule code, texts the message must hold)
BUGS = {
    "load3d_l1_unaligned": ("fractal-align", "src starts at L1 offset 16, not 32-byte"),
    "load3d_reads_past_l1": (
        "count-exceeds-tensor",
        "of a 1040-element L1 tensor ([C1][l1H=9][l1W=8][C0=16])",
    ),
    "load3d_l0a_too_small": (
        "count-exceeds-tensor",
        "needs 9216 elements of dst (L0A), a LocalTensor of 8192",
    ),
    "load3d_k_start_unaligned": ("param-range", "kStartPt = 8 is not a multiple of C0 = 16"),
    "load3d_k_past_matrix": ("param-range", "kStartPt + kExtension = 160 exceeds the img2col K"),
    "load3d_stride_range": ("param-range", "strideW = 64; it must be in [1, 63]"),
    "load3d_int8_into_l0b": ("dtype-support", "has no int8_t form into B2 on ascend910b2"),
    "load3d_on_910": ("chip-support", "ascend910 has no Load3Dv2"),
    "load3d_repeats": ("param-range", "SetLoadDataRepeat set repeatTime = 2"),
    "load3d_fmatrix_unset": ("param-range", "no SetFmatrix came before"),
    "partial_sum_first": ("param-range", "no result in CO1 to add to"),
    "partial_sum_many_blocks": ("param-range", "singleCoreM == baseM and singleCoreN == baseN"),
    "tscm_tap_offset": (
        "fractal-align",
        "Matmul::SetTensorA: the operand starts at L1 offset 2064, not 32-byte",
    ),
    "init_const_l0a_unaligned": ("fractal-align", "dst starts at L0A offset 32, not 512-byte"),
    "init_const_past_tensor": (
        "count-exceeds-tensor",
        "2 repeats of 512 B (gap 0 B) write 1024 B of dst",
    ),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_img2col_path_bug_is_reported_at_the_call(
    emu_build, run_program, case: str, expect
) -> None:
    code, *texts = expect
    res = run_program(emu_build("img2col"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("img2col.cpp", f"BUG: {case}"), err
    assert all(text in err["message"] for text in texts), err
