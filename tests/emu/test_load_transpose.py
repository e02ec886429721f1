"""LoadDataWithTranspose for int8_t, half and float in the emulator
(tests/emu/cpp/load_transpose.cpp; AscendC API reference atlasascendc_api_07_0239): each repeat
transposes one square: b8 two 16 x 32 fractals stacked into 32 x 32, b16 one 16 x 16 fractal,
b32 two 16 x 8 fractals side by side into 16 x 16; the transposed square is split the same way,
its first fractal placed r x (1 + dstGap) fractals into dst and its second 1 + dstFracGap
fractals after that; startIndex and srcStride count squares, addrMode 1 steps down. A product
whose B goes to L0B so is exact against torch for int8 and float. A source read past its end,
overlapping destination fractals, a misaligned dst, addrMode stepping below the first square
and a type the chip does not document stop at the call."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line, to_bytes

OUT = 8192
SRC = 4096
# case -> (dtype, startIndex, repeatTimes, srcStride, dstGap, dstFracGap, addrMode)
LAYOUTS = {
    "i8_seq": (torch.int8, 0, 3, 1, 1, 0, 0),
    "i8_gap": (torch.int8, 0, 3, 1, 0, 2, 0),
    "i8_start": (torch.int8, 1, 2, 2, 1, 0, 0),
    "i8_down": (torch.int8, 3, 2, 2, 1, 0, 1),
    "f32_seq": (torch.float32, 0, 3, 1, 1, 0, 0),
    "f32_gap": (torch.float32, 0, 3, 1, 0, 2, 0),
    "f32_start": (torch.float32, 1, 2, 2, 1, 0, 0),
    "f16_gap": (torch.float16, 1, 2, 1, 1, 5, 0),
}


def _source(dtype: torch.dtype) -> torch.Tensor:
    gen = torch.Generator().manual_seed(3)
    count = SRC // torch.empty(0, dtype=dtype).element_size()
    if dtype == torch.int8:
        return torch.randint(-128, 128, (count,), generator=gen, dtype=torch.int8)
    return torch.randint(-1000, 1000, (count,), generator=gen).to(dtype)


def _fractals_to_square(fracs: torch.Tensor, c0: int) -> torch.Tensor:
    """fracs: [n, 16, c0] fractals, row by row. b8 stacks two (rows), b32 puts two side by side."""
    if c0 == 32:
        return torch.cat([fracs[0], fracs[1]], dim=0)
    if c0 == 8:
        return torch.cat([fracs[0], fracs[1]], dim=1)
    return fracs[0]


def _square_to_fractals(square: torch.Tensor, c0: int) -> list[torch.Tensor]:
    if c0 == 32:
        return [square[:16], square[16:]]
    if c0 == 8:
        return [square[:, :8], square[:, 8:]]
    return [square]


def _expected(
    src: torch.Tensor, start: int, repeat: int, stride: int, gap: int, frac_gap: int, down: int
) -> bytes:
    size = src.element_size()
    c0 = 32 // size
    nfrac = 1 if size == 2 else 2
    frac = 512 // size
    fracs = src.view(-1, 16, c0)
    out = bytearray(b"\x7f" * OUT)
    for r in range(repeat):
        q = start - r * stride if down else start + r * stride
        square = _fractals_to_square(fracs[q * nfrac : (q + 1) * nfrac], c0)
        for f, piece in enumerate(_square_to_fractals(square.T.contiguous(), c0)):
            d = (r * (1 + gap) + f * (1 + frac_gap)) * frac * size
            out[d : d + 512] = to_bytes(piece.contiguous())
    return bytes(out)


def _run(emu_build, run_program, case: str, x: torch.Tensor):
    return run_program(emu_build("load_transpose"), [case, "{x}", "{out:y}", "{report}"], {"x": x})


@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_each_square_is_transposed_and_placed_by_the_gaps(emu_build, run_program, case) -> None:
    dtype, *params = LAYOUTS[case]
    src = _source(dtype)
    res = _run(emu_build, run_program, case, src)
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [], res.report["errors"]
    got, want = res.outputs["y"], _expected(src, *params)
    if got != want:  # a readable diff of the first differing fractal
        frac = next(i for i in range(0, OUT, 512) if got[i : i + 512] != want[i : i + 512])
        dt = {torch.int8: "int8", torch.float16: "float16", torch.float32: "float32"}[dtype]
        pytest.fail(
            f"fractal {frac // 512}: got {from_bytes(got[frac : frac + 512], dt)[:16]} "
            f"want {from_bytes(want[frac : frac + 512], dt)[:16]}"
        )
    # MTE1 moved one square (1 KB for b8/b32, 512 B for b16) a repeat
    square = 512 if dtype == torch.float16 else 1024
    assert res.report["counters"]["total"]["l1_to_l0_bytes"] == params[1] * square


def test_the_int8_square_is_the_l0b_layout_mmad_reads(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(11)
    a = torch.randint(-128, 128, (16, 64), generator=gen, dtype=torch.int8)
    b = torch.randint(-128, 128, (64, 64), generator=gen, dtype=torch.int8)
    res = _run(emu_build, run_program, "i8_mmad", torch.cat([a.flatten(), b.flatten()]))
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [] and res.report["warnings"] == []
    got = from_bytes(res.outputs["y"], "int32")[: 16 * 64].view(16, 64)
    assert torch.equal(got, a.int() @ b.int())


def test_the_float_square_is_the_l0b_layout_mmad_reads(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(12)
    a = torch.randint(-20, 20, (16, 32), generator=gen).float()
    b = torch.randint(-20, 20, (32, 32), generator=gen).float()
    res = _run(emu_build, run_program, "f32_mmad", torch.cat([a.flatten(), b.flatten()]))
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [] and res.report["warnings"] == []
    got = from_bytes(res.outputs["y"], "float32")[: 16 * 32].view(16, 32)
    assert torch.equal(got, a @ b)


# case -> (rule code, text the message must hold)
BUGS = {
    "i8_src_past_end": (
        "count-exceeds-tensor",
        "repeat 1 reads square 4, elements [4096, 5120) of a 4096-element",
    ),
    "f32_overlap": ("param-range", "repeat 1 writes dst fractal 1 again (dstGap 0, dstFracGap 0)"),
    "i8_dst_unaligned": ("fractal-align", "dst starts at L0B offset 32, not 512-byte aligned"),
    "i8_down_below_start": ("param-range", "repeat 1 would read square -1"),
    "i16_undocumented": ("dtype-support", "LoadDataWithTranspose has no int16_t form on ascend910"),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_load_transpose_error_is_reported_at_the_call(emu_build, run_program, case, expect) -> None:
    code, text = expect
    res = _run(emu_build, run_program, case, _source(torch.int8))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("load_transpose.cpp", f"BUG: {case}"), err
    assert text in err["message"], err
