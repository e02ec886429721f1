"""Reductions, Compare/Select, the mask/repeat forms (count mask, bit mask, counter mode,
block and repeat strides) and the DataCopy/DataCopyPad/atomic forms, against a numpy model of
the documented lane layout: one repeat = 8 blocks of 32 bytes, strides in blocks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from emu_device_support import from_bytes

N = 1024
NP = {"float32": np.float32, "float16": np.float16}


def run_case(emu_build, run_program, case: str, dtype: str, x: np.ndarray, y: np.ndarray, blocks=1):
    res = run_program(
        emu_build("vecforms"),
        [case, dtype, str(N), str(blocks), "{x}", "{y}", "{out:z}", "{report}"],
        {"x": torch.from_numpy(x), "y": torch.from_numpy(y)},
    )
    assert res.returncode == 0, res.stderr
    z = from_bytes(res.outputs["z"], dtype).numpy()
    return z, res


def inputs(dtype: str, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(seed)
    x = gen.normal(0, 2, N).astype(NP[dtype])
    y = gen.normal(0, 2, N).astype(NP[dtype])
    return x, y


def geometry(dtype: str) -> tuple[int, int]:
    size = np.dtype(NP[dtype]).itemsize
    return 256 // size, 32 // size  # elements per repeat, per block


def index_bits(value: int, dtype: str) -> np.ndarray:
    """An index stored in a T slot as the unsigned integer of T's width."""
    width = np.uint32 if dtype == "float32" else np.uint16
    return np.array([value], dtype=width).view(NP[dtype])[0]


def fresh() -> np.ndarray:
    return np.full(N, -7.0)


def same(got: np.ndarray, want: np.ndarray, dtype: str, rtol: float = 0.0) -> None:
    want = np.asarray(want).astype(NP[dtype])
    if rtol == 0.0:
        bad = np.nonzero(got.view(np.uint8) != want.view(np.uint8))[0][:5]
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"bytes differ at {bad}"
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol)


DTYPES = ["float32", "float16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_sum_over_unaligned_count(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "reduce_sum", dtype, x, y)
    want = fresh()
    want[0] = x[: N - 24].astype(np.float64).sum()
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_max_min_with_index(emu_build, run_program, dtype, kind) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, f"reduce_{kind}", dtype, x, y)
    part = x[: N - 24]
    i = int(np.argmax(part) if kind == "max" else np.argmin(part))
    want = fresh().astype(NP[dtype])
    want[0] = part[i]
    want[1] = index_bits(i, dtype)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_min_bit_mask_takes_the_masked_lanes_of_every_repeat(
    emu_build, run_program, dtype
) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "reduce_min_bits", dtype, x, y)
    lanes = [0, 1, 2, 3, per, per + 1, per + 2, per + 3]
    i = lanes[int(np.argmin(x[lanes]))]
    want = fresh().astype(NP[dtype])
    want[0] = x[i]
    want[1] = index_bits(i, dtype)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_reduce_sum_one_result_per_repeat(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "whole_reduce_sum", dtype, x, y)
    want = fresh()
    sums = x.astype(np.float64).reshape(-1, per).sum(axis=1)
    want[: len(sums)] = sums
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_reduce_max_value_index_pairs_with_partial_mask(
    emu_build, run_program, dtype
) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "whole_reduce_max", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for r in range(4):
        seg = x[r * per : r * per + 50]
        k = int(np.argmax(seg))
        want[2 * r] = seg[k]
        want[2 * r + 1] = index_bits(k, dtype)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_reduce_min_only_value(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "whole_reduce_min_value", dtype, x, y)
    want = fresh()
    want[:4] = x[: 4 * per].reshape(4, per).min(axis=1)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_block_reduce_one_result_per_block(emu_build, run_program, dtype, kind) -> None:
    x, y = inputs(dtype)
    per, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, f"block_reduce_{kind}", dtype, x, y)
    blocks = x[: 4 * per].astype(np.float64).reshape(32, epb)
    want = fresh()
    want[:32] = blocks.sum(axis=1) if kind == "sum" else blocks.max(axis=1)
    same(z, want, dtype, rtol=1e-6 if kind == "sum" else 0.0)


def packed(cond: np.ndarray) -> np.ndarray:
    return np.packbits(cond.astype(np.uint8), bitorder="little").astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("case", "cond"),
    [
        ("compare_lt", lambda x, y: x < y),
        ("compare_lt_mask_count", lambda x, y: x < y),
        ("compare_lt_mask_bits", lambda x, y: x < y),
        ("compare_ge", lambda x, y: x >= y),
        ("compare_eq", lambda x, y: x == x),
        ("compare_scalar_gt", lambda x, y: x > 0.5),
        ("compare_scalar_gt_mask_count", lambda x, y: x > 0.5),
        ("compare_scalar_gt_mask_bits", lambda x, y: x > 0.5),
    ],
)
def test_compare_writes_lsb_first_bit_mask(emu_build, run_program, dtype, case, cond) -> None:
    x, y = inputs(dtype)
    y[:8] = x[:8]  # some equal pairs
    z, _ = run_case(emu_build, run_program, case, dtype, x, y)
    want = np.zeros(N)
    want[: N // 8] = packed(cond(x, y))
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_modes(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "select_tensor", dtype, x, y)
    same(z, np.where(x < y, x, y), dtype)
    z, _ = run_case(emu_build, run_program, "select_scalar", dtype, x, y)
    same(z, np.where(x > 0, x, 0), dtype)
    # mode 0: the first repeat's bits of selMask apply to every repeat
    z, _ = run_case(emu_build, run_program, "select_spr", dtype, x, y)
    lt = x < y
    cond = lt[np.arange(N) % per]
    same(z, np.where(cond, x, y), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_with_bytes_mask_zero_takes_src0(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "select_bytes_mask", dtype, x, y)
    mask = ((np.arange(256) * 7) % 3).reshape(4, 64)[:, :32].flatten()
    want = fresh().astype(NP[dtype])
    want[:128] = np.where(mask != 0, NP[dtype](5), x[:128])
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_column_to_rows(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "broadcast_rows", dtype, x, y)
    want = fresh().astype(NP[dtype])
    want[:256] = np.repeat(x[:8], 32)
    same(z, want, dtype)


def test_cast_mask_form_places_narrow_output_by_its_own_blocks(emu_build, run_program) -> None:
    x, y = inputs("float32")
    z, _ = run_case(emu_build, run_program, "cast_mask_half_out", "float32", x, y)
    got = z.view(np.float16)
    want = fresh().astype(np.float32).view(np.float16).copy()
    for r in range(2):  # dst repeat stride 4 blocks = 64 halves
        want[r * 64 : r * 64 + 64] = x[r * 64 : r * 64 + 64].astype(np.float16)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_reduce_sum_bit_mask_and_dst_stride(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "whole_reduce_sum_bits", dtype, x, y)
    want = fresh()
    for r in range(3):
        want[2 * r] = x[r * per : r * per + 8].astype(np.float64).sum()
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_datacopy_pad_left_padding_old_params(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    _, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "datacopy_pad_left", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for i in range(2):  # 2 pad, 3 data, pad to 32 bytes; GM rows back to back
        row = np.zeros(epb, dtype=NP[dtype])
        row[2:5] = x[3 * i : 3 * i + 3]
        want[i * epb : (i + 1) * epb] = row
    same(z, want, dtype)


def lanes(bits: list[int], per: int) -> list[int]:
    return [k for k in range(per) if (bits[(k % 128) // 64] >> (k % 64)) & 1]


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_count_mask_with_repeats(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, res = run_case(emu_build, run_program, "add_mask_count", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for r in range(4):
        s = slice(r * per, r * per + 40)
        want[s] = x[s] + y[s]
    same(z, want, dtype)
    assert res.report["counters"]["per_block"][0]["vector_repeats"]["Add"] == 4


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_bit_mask_with_block_and_repeat_strides(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "add_mask_bits_strided", dtype, x, y)
    bits = [0x5555555555555555, 0xFFFF0000 if dtype == "float16" else 0]
    want = fresh().astype(NP[dtype])
    for r in range(3):
        for k in lanes(bits, per):
            d = r * 16 * epb + (k // epb) * 2 * epb + k % epb
            want[d] = x[r * 8 * epb + k] + y[r * 16 * epb + k]
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_counter_mode_with_mask_placeholder(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, res = run_case(emu_build, run_program, "add_counter_mode", dtype, x, y)
    want = fresh().astype(NP[dtype])
    want[:150] = x[:150] + y[:150]
    same(z, want, dtype)
    assert res.report["counters"]["per_block"][0]["vector_repeats"]["Add"] == -(-150 // per)


@pytest.mark.parametrize("dtype", DTYPES)
def test_normal_mode_mask_from_set_vector_mask(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, _ = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "mul_placeholder_norm", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for r in range(2):
        for k in lanes([0xF0F0, 0], per):
            want[r * per + k] = x[r * per + k] * y[r * per + k]
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_mask_with_source_block_stride(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "exp_mask_src_stride", dtype, x, y)
    want = fresh()
    for r in range(2):
        for k in range(per):
            src = r * 16 * epb + (k // epb) * 2 * epb + k % epb
            want[r * 8 * epb + k] = np.exp(np.float32(x[src]))
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_bit_mask_with_dst_repeat_stride(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "adds_mask_bits", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for r in range(2):
        for k in lanes([0xFF00, 0], per):
            want[r * 4 * epb + k] = x[r * 8 * epb + k] + NP[dtype](1)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_mask_forms_accumulate_into_dst(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    per, epb = geometry(dtype)
    x32 = x.astype(np.float32)
    z, _ = run_case(emu_build, run_program, "axpy_mask_count", dtype, x, y)
    want = fresh().astype(np.float32)
    for r in range(3):
        lo = r * per
        want[lo : lo + 40] = np.float32(-7) + x32[lo : lo + 40] * np.float32(2)
    same(z, want, dtype)
    z, _ = run_case(emu_build, run_program, "axpy_mask_bits", dtype, x, y)
    want = fresh().astype(np.float32)
    for r in range(2):
        for k in lanes([0xFF00, 0], per):
            want[r * 4 * epb + k] = np.float32(-7) + x32[r * 8 * epb + k] * np.float32(0.5)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_duplicate_mask_form(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    _, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "duplicate_mask", dtype, x, y)
    want = fresh()
    for r in range(3):
        want[r * 16 * epb : r * 16 * epb + 20] = 3
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_brcb_broadcasts_each_element_to_a_block(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    _, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "brcb", dtype, x, y)
    want = fresh().astype(NP[dtype])
    want[: 16 * epb] = np.repeat(x[:16], epb)
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_by_byte_offsets(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "gather", dtype, x, y)
    want = fresh().astype(NP[dtype])
    want[:64] = x[(np.arange(64) * 37) % 64]
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_datacopy_params_strides_in_blocks(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    _, epb = geometry(dtype)
    z, res = run_case(emu_build, run_program, "datacopy_params", dtype, x, y)
    want = fresh().astype(NP[dtype])
    want[epb : 2 * epb] = x[:epb]  # UB row 0 block 0
    want[2 * epb : 3 * epb] = x[3 * epb : 4 * epb]  # UB row 1 (GM row 1 after a 1-block gap)
    same(z, want, dtype)
    counters = res.report["counters"]["per_block"][0]
    assert counters["ub_to_gm_bytes"] == N * x.itemsize + 2 * 32


@pytest.mark.parametrize("dtype", DTYPES)
def test_datacopy_pad_rows_in_and_out(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    _, epb = geometry(dtype)
    z, _ = run_case(emu_build, run_program, "datacopy_pad", dtype, x, y)
    want = fresh().astype(NP[dtype])
    for i in range(3):
        want[i * epb : i * epb + 5] = x[7 * i : 7 * i + 5]
        want[i * epb + 5 : (i + 1) * epb] = 9
        want[64 + 6 * i : 64 + 6 * i + 5] = x[7 * i : 7 * i + 5]
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_atomic_add_accumulates_every_block(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "atomic_add", dtype, x, y, blocks=4)
    want = fresh().astype(NP[dtype])
    for _ in range(4):  # blocks run in order; each add rounds to T
        want[:64] = (want[:64].astype(np.float32) + x[:64].astype(np.float32)).astype(NP[dtype])
    same(z, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_rows_of_valid_elements(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "sum_rows", dtype, x, y)
    want = fresh()
    want[:4] = x[:256].astype(np.float64).reshape(4, 64)[:, :50].sum(axis=1)
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_rows_of_valid_elements(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "mean_rows", dtype, x, y)
    want = fresh()
    want[:4] = x[:256].astype(np.float64).reshape(4, 64)[:, :50].mean(axis=1)
    same(z, want, dtype, rtol=1e-6 if dtype == "float32" else 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_init_global_memory_fills_gm(emu_build, run_program, dtype) -> None:
    x, y = inputs(dtype)
    z, _ = run_case(emu_build, run_program, "init_global_memory", dtype, x, y)
    want = fresh()
    want[16:48] = 2
    same(z, want, dtype)
