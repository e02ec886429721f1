"""The DropOut high-level API (tests/emu/cpp/dropout.cpp): byte and bit masks with and without
dirty mask data (dropOutMode 1-4), the mode inferred from the shape (0), half and float, in
place, the reference's own example, and the documented limits as errors at their lines.

Expected values are computed here: an element whose mask byte is non-zero (byte mode) or whose
mask bit is set (bit mode: element j of a row is bit j % 8, LSB first, of byte j / 8) becomes
src * (1 / keepProb rounded to T), every other one 0; with dirty mask data the mask afterwards
holds each row's valid bytes packed from its start."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

SOURCE = "dropout.cpp"


def inputs(seed: int, n: int = 512, mask_bytes: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(n, generator=gen) * 8 - 4
    # Byte mode: bytes 0, 1 and larger (a Boolean is any non-zero byte); bit mode: random bits.
    m = torch.randint(0, 256, (mask_bytes,), generator=gen, dtype=torch.uint8)
    m[::3] = 0
    m[1::5] = 1
    return x, m


def run(emu_build, run_program, case: str, x: torch.Tensor, m: torch.Tensor):
    args = [case, "{x}", "{m}", "{out:y}", "{report}"]
    return run_program(emu_build("dropout"), args, {"x": x, "m": m})


def ok(emu_build, run_program, case: str, x: torch.Tensor, m: torch.Tensor) -> tuple[bytes, dict]:
    res = run(emu_build, run_program, case, x, m)
    assert res.returncode == 0, res.stderr
    assert res.report is not None and res.report["errors"] == [], res.report
    return res.outputs["y"], res.report


def expected(x, m, rows, s, mk, mode, keep, dtype):
    """dst and the mask after the call, for dropOutMode `mode` (1-4)."""
    bit, dirty = mode >= 3, mode in (1, 4)
    src = x[: rows * s].view(rows, s).to(dtype)
    mask = m[: rows * mk].view(rows, mk)
    if bit:
        bits = (mask.long()[:, :, None] >> torch.arange(8)) & 1
        keep_el = bits.reshape(rows, mk * 8)[:, :s].bool()
    else:
        keep_el = mask[:, :s] != 0
    one, p = torch.tensor(1.0), torch.tensor(keep, dtype=torch.float32)
    scale = (one / p).to(dtype).float()  # 1 / keepProb in float, rounded to T
    dst = torch.where(keep_el, (src.float() * scale).to(dtype), torch.zeros((), dtype=dtype))
    after = m[: rows * mk].clone()
    if dirty:
        valid = s // 8 if bit else s
        after[: rows * valid] = mask[:, :valid].reshape(-1)
    return dst.flatten(), after


def check(out: bytes, dst: torch.Tensor, after: torch.Tensor) -> None:
    nbytes = dst.numel() * dst.element_size()
    got = from_bytes(out[:nbytes], {torch.float32: "float32", torch.float16: "float16"}[dst.dtype])
    assert torch.equal(got, dst), (got, dst)
    got_mask = torch.frombuffer(bytearray(out[nbytes:]), dtype=torch.uint8)
    assert torch.equal(got_mask, after), (got_mask, after)


@pytest.mark.parametrize("case,rows,s,mk,mode,keep,dtype", [
    ("byte_clean", 4, 16, 16, 2, 0.5, torch.float32),
    ("byte_dirty", 4, 16, 32, 1, 0.25, torch.float32),
    ("bit_clean", 4, 64, 8, 3, 0.8, torch.float32),
    ("bit_dirty", 4, 32, 32, 4, 0.6, torch.float32),
    ("half_bit_inplace", 2, 128, 16, 3, 0.7, torch.float16),
    ("half_byte_init", 3, 32, 32, 2, 0.9, torch.float16),
    ("infer_byte_clean", 4, 16, 16, 2, 0.5, torch.float32),
    ("infer_bit_clean", 4, 64, 8, 3, 0.5, torch.float32),
    ("infer_byte_dirty", 4, 16, 32, 1, 0.5, torch.float32),
    ("infer_bit_dirty", 4, 64, 32, 4, 0.5, torch.float32),
    ("on_310p", 4, 64, 8, 3, 0.8, torch.float32),
])
def test_modes(emu_build, run_program, case, rows, s, mk, mode, keep, dtype) -> None:
    x, m = inputs(len(case))
    out, report = ok(emu_build, run_program, case, x, m)
    assert report["warnings"] == [], report["warnings"]
    check(out, *expected(x, m, rows, s, mk, mode, keep, dtype))


def test_dirty_mask_rows_are_packed_and_dirty_bytes_ignored(emu_build, run_program) -> None:
    """Dirty bytes past the valid ones change nothing (all ones here), and the mask afterwards
    starts with the rows' valid bytes back to back."""
    x, m = inputs(7)
    m = m.clone()
    m.view(-1)[: 4 * 32].view(4, 32)[:, 4:] = 0xFF  # bit_dirty: 4 valid bytes per row of 32
    out, _ = ok(emu_build, run_program, "bit_dirty", x, m)
    dst, after = expected(x, m, 4, 32, 32, 4, 0.6, torch.float32)
    check(out, dst, after)
    assert torch.equal(after[:16], m[: 4 * 32].view(4, 32)[:, :4].reshape(-1))


def test_reference_example(emu_build, run_program) -> None:
    """The API reference's example: x = 0..31, this byte mask, keepProb 0.5."""
    x = torch.arange(32, dtype=torch.float32)
    m = torch.tensor([0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1,
                      0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0], dtype=torch.uint8)
    out, _ = ok(emu_build, run_program, "doc_example", x, m)
    y = from_bytes(out[: 32 * 4], "float32")
    want = [0, 2, 0, 0, 0, 0, 0, 0, 16, 0, 20, 22, 24, 0, 28, 30,
            0, 0, 36, 0, 0, 42, 44, 46, 48, 0, 52, 0, 56, 58, 60, 0]
    assert y.tolist() == want


def test_bit_order_is_lsb_first(emu_build, run_program) -> None:
    """Mask byte 169 = 0b1010_1001 over [1..8]: bits 0, 3, 5, 7 are set, so elements 1, 4, 6, 8
    stay (doubled by keepProb 0.5). Inferred from Select's mask order, which the documented
    algorithm uses; the reference's example prints [1, 0, 3, 0, 5, 0, 0, 8] (MSB first)."""
    x = torch.arange(1, 9, dtype=torch.float32)
    out, _ = ok(emu_build, run_program, "one_byte_bits", x, torch.tensor([169], dtype=torch.uint8))
    assert from_bytes(out[:32], "float32").tolist() == [2, 0, 0, 8, 0, 12, 0, 16]


def test_keep_prob_one_warns_and_copies_the_kept_elements(emu_build, run_program) -> None:
    x, m = inputs(3)
    out, report = ok(emu_build, run_program, "keep_one", x, m)
    [w] = report["warnings"]
    assert w["code"] == "param-range" and "(0, 1)" in w["message"], w
    check(out, *expected(x, m, 4, 16, 16, 2, 1.0, torch.float32))


@pytest.mark.parametrize("case,code,words", [
    ("bad_mode", "param-range", "dropOutMode is 5"),
    ("keep_zero", "param-range", "keepProb is 0"),
    ("keep_above_one", "param-range", "keepProb is 1.5"),
    ("zero_axis", "param-range", "greater than 0"),
    ("mode2_shape", "param-range", "maskLastAxis == srcLastAxis"),
    ("mode3_shape", "param-range", "maskLastAxis == srcLastAxis / 8"),
    ("bit_cols", "param-range", "multiple of 8"),
    ("odd_valid", "param-range", "multiple of 2"),
    ("dirty_unpadded", "param-range", "padded to 32 bytes"),
    ("mask_too_short", "param-range", "shorter than a byte mask"),
    ("int32", "dtype-support", "int32_t"),
    ("on_910", "chip-support", "ascend910"),
    ("overlap", "operand-overlap", "overlap partially"),
])
def test_documented_limits_are_errors(emu_build, run_program, case, code, words) -> None:
    x, m = inputs(1)
    res = run(emu_build, run_program, case, x, m)
    assert res.report is not None and res.report["status"] == "error", res.stderr
    err = res.report["errors"][0]
    assert err["code"] == code and words in err["message"], err
    assert err["line"] == marker_line(SOURCE, f"BUG: {case}"), err
