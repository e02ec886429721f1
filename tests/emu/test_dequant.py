"""AscendDequant (tests/emu/cpp/dequant.cpp) against torch: every documented (dst, deqScale) type
pair with a tensor and a scalar scale, the dst rows padded to 32 bytes with the elements past
calCount undetermined (poisoned), DEQUANT_WITH_SINGLE_ROW's reading of {1, n, calCount} against
DEQUANT_WITH_MULTI_ROW, a uint64_t scale's float in its low 32 bits, the deprecated forms without
DequantParams, and the documented limits."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

SRC = (torch.arange(1024, dtype=torch.int32) - 500) * 37
SRC[5] = 16777217  # not a float32: int32 -> fp32 rounds to nearest even first
SCALE = torch.linspace(-2.0, 2.0, 64, dtype=torch.float32)
DTYPES = {"f32": "float32", "bf16": "bfloat16", "half": "float16"}
TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "half": torch.float16, "u64": torch.float32}


def run(emu_build, run_program, case: str):
    return run_program(
        emu_build("dequant"),
        [case, "{src}", "{scale}", "{out:y}", "{report}"],
        {"src": SRC, "scale": SCALE},
    )


def dequant(m: int, n: int, cal: int, dst: str, scale: str, scalar: bool = False) -> torch.Tensor:
    """The first cal columns of each [m, n] row: fp32(src) * fp32(scale), rounded to dst."""
    s = SCALE.to(TORCH[scale]).float()
    s = s[0].expand(cal) if scalar else s[:cal]
    x = SRC[: m * n].view(m, n)[:, :cal].float()
    y = x * s
    if dst == "half":  # out of range saturates, as Cast does, rather than becoming inf
        y = y.clamp(-65504.0, 65504.0)
    return y.to(TORCH[dst])


def cols(n: int, dst: str) -> int:
    block = 32 // torch.tensor([], dtype=TORCH[dst]).element_size()
    return (n + block - 1) // block * block


@pytest.mark.parametrize(
    ("case", "dst", "scale", "shape", "scalar"),
    [
        ("f32_f32", "f32", "f32", (4, 8, 4), False),
        ("f32_bf16", "f32", "bf16", (3, 16, 16), False),
        ("bf16_bf16", "bf16", "bf16", (4, 8, 4), False),
        ("bf16_f32", "bf16", "f32", (2, 24, 20), False),
        ("half_u64", "half", "u64", (3, 8, 8), False),
        ("on_310p", "half", "u64", (2, 16, 16), False),
        ("scalar_f32_f32", "f32", "f32", (4, 8, 4), True),
        ("scalar_bf16_bf16", "bf16", "bf16", (2, 16, 16), True),
        ("scalar_f32_bf16", "f32", "bf16", (2, 8, 8), True),
        ("single_row_short", "f32", "f32", (1, 16, 4), False),
    ],
)
def test_rows_match_torch_and_the_padding_is_undetermined(
    emu_build,
    run_program,
    case: str,
    dst: str,
    scale: str,
    shape: tuple[int, int, int],
    scalar: bool,
) -> None:
    res = run(emu_build, run_program, case)
    assert res.returncode == 0, res.stderr
    m, n, cal = shape
    y = from_bytes(res.outputs["y"], DTYPES[dst]).view(m, cols(n, dst))
    assert torch.equal(y[:, :cal], dequant(m, n, cal, dst, scale, scalar))
    # Past calCount (up to the 32-byte padded n_dst) the reference promises nothing: poisoned.
    assert torch.all(y[:, cal:].float().abs() >= 1e4)


def test_single_row_mode_reads_one_long_row_as_rows_of_cal(emu_build, run_program) -> None:
    single = run(emu_build, run_program, "single_row")
    multi = run(emu_build, run_program, "multi_row")
    assert single.returncode == 0 and multi.returncode == 0, single.stderr + multi.stderr
    y1 = from_bytes(single.outputs["y"], "float32")
    y2 = from_bytes(multi.outputs["y"], "float32")
    # {1, 16, 8}: two rows of 8 against the first 8 scales, or one row whose tail is undetermined.
    assert torch.equal(y1, dequant(2, 8, 8, "f32", "f32").flatten())
    assert torch.equal(y2[:8], y1[:8])
    assert torch.all(y2[8:].abs() >= 1e4)


def test_deprecated_forms_read_src_flat_with_a_repeating_scale(emu_build, run_program) -> None:
    res = run(emu_build, run_program, "deprecated_count")
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float16")
    torch.testing.assert_close(y, dequant(3, 8, 8, "half", "u64").flatten(), rtol=0, atol=0)
    res = run(emu_build, run_program, "deprecated_whole")
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    assert torch.equal(y, dequant(128, 8, 8, "f32", "f32").flatten())


@pytest.mark.parametrize(
    ("case", "code", "words"),
    [
        ("n_unaligned", "param-range", ("n is 6", "32 bytes")),
        ("cal_over_n", "param-range", ("calCount is 9", "[1, n = 8]")),
        ("cal_zero", "param-range", ("calCount is 0",)),
        ("cal_over_scale", "param-range", ("calCount is 16", "deqScale holds 8")),
        ("bad_combo", "dtype-support", ("half", "float", "not a documented combination")),
        ("bf16_on_310p", "chip-support", ("bfloat16_t", "ascend310p")),
        ("on_910", "chip-support", ("ascend910",)),
        ("in_place", "operand-overlap", ("srcTensor", "not even in place")),
        ("deprecated_not_multiple", "param-range", ("calCount 12", "multiple of deqScale's 8")),
    ],
)
def test_documented_limits_are_reported(
    emu_build, run_program, case: str, code: str, words: tuple[str, ...]
) -> None:
    res = run(emu_build, run_program, case)
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert all(w in err["message"] for w in words), err["message"]
    assert err["line"] == marker_line("dequant.cpp", f"BUG: {case}")


def test_dst_rows_are_padded_to_32_bytes(emu_build, run_program) -> None:
    # {4, 8, 8} into bfloat16_t needs 4 rows of 16 (n_dst), more than the 16-element tensor.
    res = run(emu_build, run_program, "dst_short")
    assert res.returncode == 0, res.stderr
    [warn] = [w for w in res.report["warnings"] if w["code"] == "count-exceeds-tensor"]
    assert "needs 64 elements of dstTensor" in warn["message"]
    assert warn["line"] == marker_line("dequant.cpp", "BUG: dst_short")


def test_host_tmp_size_range_is_allocatable(emu_build, run_program) -> None:
    res = run(emu_build, run_program, "tmp_size")
    assert res.returncode == 0, res.stderr
    [line] = [x for x in res.stdout.splitlines() if x.startswith("tmp ")]
    max_tmp, min_tmp = map(int, line.split()[1:])
    assert max_tmp == 2 * 1024 * 4 and 0 < min_tmp <= max_tmp and min_tmp % 32 == 0
