"""Kernels written with the idioms real AscendC code uses (events, barriers, DataCopyPad with
ext params, TBuf<>, KERNEL_TASK_TYPE_DEFAULT, ASCEND_IS_AIC, the SoftMax/SoftmaxFlashV2 APIs,
the Matmul high-level API) compile unchanged and compute what torch computes."""

from __future__ import annotations

import torch
from emu_device_support import from_bytes, marker_line


def run(emu_build, run_program, case: str, a: torch.Tensor, b: torch.Tensor):
    res = run_program(
        emu_build("compat"), [case, "{a}", "{b}", "{out:y}", "{report}"], {"a": a, "b": b}
    )
    assert res.returncode == 0, res.stderr
    return from_bytes(res.outputs["y"], "float32"), res.report


def test_softmax_without_row_statistics(emu_build, run_program) -> None:
    # SoftMax(dst, src, sharedTmpBuffer, tiling, shapeInfo) and SoftMax(dst, src, tiling) in place.
    x = torch.randn(2, 8, 64, generator=torch.Generator().manual_seed(3)) * 3
    y, _ = run(emu_build, run_program, "api_softmax_no_stats", x, torch.zeros(8))
    torch.testing.assert_close(y.view(2, 8, 64), torch.softmax(x, dim=2), rtol=1e-5, atol=1e-7)


def test_hand_written_row_softmax(emu_build, run_program) -> None:
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1)) * 4
    y, report = run(emu_build, run_program, "row_softmax", x, torch.zeros(8))
    torch.testing.assert_close(y.view(8, 64), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-7)
    block = report["counters"]["per_block"][0]
    assert block["scalar_accesses"] == 16  # two GetValue per row
    assert block["vector_repeats"]["Exp"] == 8  # 64 floats = one repeat per row


def test_softmax_and_flash_v2_update(emu_build, run_program) -> None:
    x = torch.randn(2, 8, 64, generator=torch.Generator().manual_seed(2)) * 3
    y, _ = run(emu_build, run_program, "api_softmax", x, torch.zeros(8))
    soft = y[: 8 * 64].view(8, 64)
    torch.testing.assert_close(soft, torch.softmax(x[0], dim=1), rtol=1e-5, atol=1e-7)
    # second tile, updated from the first: unnormalised exp against the running max
    m1 = x[0].max(dim=1).values
    s1 = torch.exp(x[0] - m1[:, None]).sum(dim=1)
    m2 = torch.maximum(m1, x[1].max(dim=1).values)
    e2 = torch.exp(x[1] - m2[:, None])
    torch.testing.assert_close(y[8 * 64 : 16 * 64].view(8, 64), e2, rtol=1e-5, atol=1e-6)
    stats = y[16 * 64 : 16 * 64 + 24]
    torch.testing.assert_close(stats[:8], m2)
    exp_max = torch.exp(m1 - m2)
    torch.testing.assert_close(stats[8:16], exp_max * s1 + e2.sum(dim=1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(stats[16:24], exp_max)


def test_matmul_iterate_all_and_blocks(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(32, 64, generator=gen).half()
    bt = torch.randn(48, 64, generator=gen).half()  # B transposed: [N, K]
    bias = torch.randn(48, generator=gen)
    y, _ = run(emu_build, run_program, "matmul", torch.cat([a.flatten(), bt.flatten()]), bias)
    prod = a.float() @ bt.float().T
    torch.testing.assert_close(y[: 32 * 48].view(32, 48), prod + bias, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(y[32 * 48 :].view(32, 48), prod, rtol=1e-5, atol=1e-4)


def test_matmul_with_a_get_normal_config_template_computes_the_same_product(
    emu_build, run_program
) -> None:
    # #8: DrivingSDK's deformable_conv2d declares `constexpr MatmulConfig CFG = GetNormalConfig();`,
    # a six-parameter MatmulType and calls IterateAll<false>; before, 'MatmulConfig does not name
    # a type'. The configuration schedules the work; the product is the same.
    gen = torch.Generator().manual_seed(7)
    a = torch.randn(32, 64, generator=gen).half()
    bt = torch.randn(48, 64, generator=gen).half()
    y, _ = run(
        emu_build, run_program, "matmul_norm_config", torch.cat([a.flatten(), bt.flatten()]), bt
    )
    torch.testing.assert_close(y.view(32, 48), a.float() @ bt.float().T, rtol=1e-5, atol=1e-4)


def test_low_level_cube_path_nd2nz_loaddata_mmad_fixpipe(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(32, 64, generator=gen).half()
    b = torch.randn(64, 48, generator=gen).half()
    y, _ = run(emu_build, run_program, "cube_matmul", torch.cat([a.flatten(), b.flatten()]), b)
    torch.testing.assert_close(y.view(32, 48), a.float() @ b.float(), rtol=1e-5, atol=1e-4)


def test_enhanced_transpose_converts_nchw_to_nhwc_and_back(emu_build, run_program) -> None:
    # #8: grid_sample_ms (ms_custom_ops) calls Transpose with TransposeParamsExt and a
    # TransposeType; before, 'AscendC::TransposeType' was not declared.
    x = torch.arange(96, dtype=torch.float32)
    y, report = run(emu_build, run_program, "transpose_nchw", x, torch.zeros(8))
    nchw = x.view(2, 3, 1, 16)
    torch.testing.assert_close(y[:96].view(2, 1, 16, 3), nchw.permute(0, 2, 3, 1))
    torch.testing.assert_close(y[96:].view(2, 3, 1, 16), nchw)
    assert report["counters"]["per_block"][0]["vector_repeats"]["Transpose"] == 4  # 384 B twice


def test_math_api_whole_tensor_forms_take_the_source_size(emu_build, run_program) -> None:
    # #8: DrivingSDK's roi_align_rotated_v2 calls Sin(dst, src) and Cos(dst, src), the documented
    # forms without a count; before, they did not compile ('no matching function for call').
    x = torch.linspace(-6.0, 6.0, 64)
    y, _ = run(emu_build, run_program, "whole_tensor_math", x, torch.zeros(8))
    torch.testing.assert_close(y[:64], torch.sin(x), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(y[64:], torch.cos(x), rtol=1e-5, atol=1e-6)


def test_scalar_cast_rounds_as_documented(emu_build, run_program) -> None:
    # #8: DrivingSDK's deformable_aggregation floors with ScalarCast<float, int32_t, CAST_FLOOR>;
    # before, ScalarCast was not declared.
    x = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.2, 1.2, 3.7, -3.7, 0.0, 7.0, 1e-3])
    x = torch.cat([x, torch.tensor([100.49, 2049.5, -0.0])])
    y, _ = run(emu_build, run_program, "scalar_cast", x, torch.zeros(8))
    torch.testing.assert_close(y[:16], torch.floor(x))
    torch.testing.assert_close(y[16:32], torch.ceil(x))
    half_away = torch.sign(x) * torch.floor(x.abs() + 0.5)  # CAST_ROUND: ties away from zero
    torch.testing.assert_close(y[32:48], half_away)
    torch.testing.assert_close(y[48:64], torch.round(x))  # CAST_RINT: ties to even
    # CAST_ODD: truncate to half precision, and an inexact result takes the odd neighbour
    # (2049.5 lies between the halves 2048 and 2050; the odd significand is 2050's).
    assert y[64 + 14].item() == 2050.0
    assert y[64 + 11].item() == 7.0 and y[64 + 4].item() == 1.5


def test_scalar_abs_of_a_float_stays_a_float(emu_build, run_program) -> None:
    # #8: DrivingSDK's boxes_overlap_bev returns abs(area2) / 2 on a float; before, the call
    # resolved to int abs(int) and a rotated box's area 1.9999 / 2 came out 0.5.
    x = torch.tensor([1.9999, -1.9999, 0.25, -0.25, 3.5, -7.75, 0.0, -0.0, 1e-3, -1e-3])
    x = torch.cat([x, torch.tensor([65504.0, -2.5, 0.1, -0.1, 100.5, -100.5])])
    y, _ = run(emu_build, run_program, "scalar_abs", x, torch.zeros(8))
    torch.testing.assert_close(y[:16], x.abs(), rtol=0, atol=0)
    torch.testing.assert_close(y[16:], x.half().abs().float(), rtol=0, atol=0)


def test_create_vec_index_mask_forms_index_the_lanes_they_write(emu_build, run_program) -> None:
    # #8: DrivingSDK's diff_iou_rotated_sort_vertices calls CreateVecIndex(dst, 0, 32, 1, 1, 4),
    # the documented mask/repeat form; before, only the count form existed.
    y, _ = run(emu_build, run_program, "vec_index_mask", torch.zeros(8), torch.zeros(8))
    minus = torch.full((32,), -1.0)
    torch.testing.assert_close(y[:64], torch.cat([torch.arange(5, 37).float(), minus]))
    torch.testing.assert_close(y[64:192], torch.arange(128).float())
    from_bits = torch.cat([torch.arange(100, 116).float(), minus, minus[:16]])
    torch.testing.assert_close(y[192:], from_bits)


def test_veccalc_queue_tensors_past_the_position_limit_warn_and_run(emu_build, run_program) -> None:
    # #8: the per-position limit is the pool of events queue buffers hold between pipes; a
    # VECCALC queue crosses no pipe (DrivingSDK's roi_align_rotated_v2 holds 18 and runs on the
    # NPU), so 10 of them are a warning and the kernel computes; VECIN/VECOUT stay an error
    # (tests/emu/test_runtime_checks.py).
    x = torch.randn(64, generator=torch.Generator().manual_seed(3))
    y, report = run(emu_build, run_program, "veccalc_queues", x, torch.zeros(8))
    torch.testing.assert_close(y, x * 55.0)
    [w] = [w for w in report["warnings"] if w["code"] == "buffer-count"]
    assert "9 tensors of position VECCALC" in w["message"] and "allows 8" in w["message"]


def test_unpad_drops_right_columns_of_aligned_rows(emu_build, run_program) -> None:
    # UnPadTilingFunc on the host for a [4, 16] float source, UnPad with rightPad 3 on the
    # kernel: the rows come back packed, 13 floats each.
    x = torch.arange(64, dtype=torch.float32)
    y, _ = run(emu_build, run_program, "unpad", x, torch.zeros(8))
    torch.testing.assert_close(y.view(4, 13), x.view(4, 16)[:, :13])


def test_unpad_rejects_rows_not_32_byte_aligned(emu_build, run_program) -> None:
    res = run_program(
        emu_build("compat"),
        ["unpad_unaligned", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": torch.zeros(52), "b": torch.zeros(8)},
    )
    assert res.returncode != 0
    assert "srcWidth 13 x sizeof(float) is not 32-byte aligned" in res.stderr


def _event_ids(emu_build, run_program, ids: list[float]):
    x = torch.cat([torch.arange(64, dtype=torch.float32), torch.tensor(ids)])
    return run_program(
        emu_build("compat"),
        ["integer_event_ids", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": x, "b": torch.zeros(8)},
    )


def test_cce_flags_take_integer_event_ids_and_order_what_they_pair(emu_build, run_program) -> None:
    # #8: DrivingSDK's scatter_add_grad/scatter_mean_grad call set_flag(PIPE_MTE3, PIPE_V, 0)
    # and wait_flag(..., eventId) with a uint64_t: the intrinsic's documented integer form
    # (CCE intrinsic API, set_flag & wait_flag); before, 'invalid conversion to event_t'.
    res = _event_ids(emu_build, run_program, [3, 5, 3, 5])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    torch.testing.assert_close(from_bytes(res.outputs["y"], "float32"), torch.arange(64.0) + 1)
    res = _event_ids(emu_build, run_program, [3, 5, 3, 6])  # V->MTE3 set on 5, waited on 6
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "pipe-hazard", err
    assert err["line"] == marker_line("compat.cpp", "BUG: integer_event_ids"), err


def test_cce_flag_event_id_past_three_bits_is_a_range_error(emu_build, run_program) -> None:
    res = _event_ids(emu_build, run_program, [8, 5, 8, 5])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "param-range", err
    assert "set_flag: event id 8 is not a 3-bit id (0-7)" in err["message"], err
    assert err["line"] == marker_line("compat.cpp", "BUG: event id range"), err


def test_repeat_reduce_sum_sums_mask_lanes_of_each_repeat(emu_build, run_program) -> None:
    # #8: DrivingSDK's geometric_kernel_attn_grad calls RepeatReduceSum (documented, reduction);
    # before, 'RepeatReduceSum was not declared'.
    x = torch.randn(128, generator=torch.Generator().manual_seed(5))
    res = run_program(
        emu_build("compat"),
        ["repeat_reduce_sum", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": torch.cat([x, torch.tensor([64.0])]), "b": torch.zeros(8)},
    )
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    torch.testing.assert_close(y[0], x[:48].sum())
    torch.testing.assert_close(y[2], x[64:112].sum())
    torch.testing.assert_close(y[4], x[:64].sum())
    assert y[1].item() == -1.0 and y[3].item() == -1.0


def test_repeat_reduce_sum_mask_past_one_repeat_is_a_range_error(emu_build, run_program) -> None:
    res = run_program(
        emu_build("compat"),
        ["repeat_reduce_sum", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": torch.cat([torch.zeros(128), torch.tensor([65.0])]), "b": torch.zeros(8)},
    )
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "mask-range" and "RepeatReduceSum" in err["message"], err
    assert err["line"] == marker_line("compat.cpp", "BUG: repeat_reduce_sum mask"), err


def test_gather_mask_forms_take_one_repeat_of_offsets_per_repeat(emu_build, run_program) -> None:
    # #8: DrivingSDK's multi_scale_deformable_attn_grad calls Gather(dst, src, offsets, 0, 64,
    # repeats, 8), the documented count-mask form; before, 'no matching function for call'.
    x = torch.randn(128, generator=torch.Generator().manual_seed(6))
    offsets = ((127 - torch.arange(128)) * 4).to(torch.int32).view(torch.float32)
    res = run_program(
        emu_build("compat"),
        ["gather_mask_form", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": torch.cat([x, offsets]), "b": torch.zeros(8)},
    )
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    torch.testing.assert_close(y[:128], x.flip(0))
    # the bit-mask form on the offsets of the second repeat: lanes 0-15 take x[63 - k]
    torch.testing.assert_close(y[128:144], x[48:64].flip(0))
    assert (y[144:] == -1).all()


def test_pad_fills_the_redundant_columns_of_aligned_rows(emu_build, run_program) -> None:
    # PadTilingFunc for a [4, 16] float source with 13 valid columns; Pad with rightPad 3 and
    # padValue 7 keeps the shape and overwrites the 3 redundant columns.
    x = torch.arange(64, dtype=torch.float32)
    y, _ = run(emu_build, run_program, "pad_aligned", x, torch.zeros(8))
    want = x.view(4, 16).clone()
    want[:, 13:] = 7
    torch.testing.assert_close(y.view(4, 16), want)


def test_pad_widens_unaligned_rows(emu_build, run_program) -> None:
    # [4, 13] floats, rows packed: each row gains 3 columns of -2, 16 floats (64 bytes) per row.
    x = torch.arange(52, dtype=torch.float32)
    y, _ = run(emu_build, run_program, "pad_widen", x, torch.zeros(8))
    want = torch.full((4, 16), -2.0)
    want[:, :13] = x.view(4, 13)
    torch.testing.assert_close(y.view(4, 16), want)


def test_pad_rejects_a_right_pad_over_valid_columns(emu_build, run_program) -> None:
    res = run_program(
        emu_build("compat"),
        ["pad_overwrite", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": torch.zeros(64), "b": torch.zeros(8)},
    )
    assert res.returncode != 0
    assert "rightPad 3 would overwrite valid data" in res.stderr


def _trans5hd_input() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(5)
    h = torch.randn(16, 32, generator=g).half()
    f = torch.randn(16, 16, generator=g)
    b = torch.randint(0, 255, (16, 32), generator=g, dtype=torch.uint8)
    raw = torch.cat([h.flatten().view(torch.uint8), f.flatten().view(torch.uint8), b.flatten()])
    return h, f, b, raw.view(torch.float32)


def test_trans_data_to_5hd_per_width_and_repeat_strides(emu_build, run_program) -> None:
    h, f, b, x = _trans5hd_input()
    y, _ = run(emu_build, run_program, "trans5hd", x, torch.zeros(8))
    out = y.view(torch.uint8)
    # 2-byte: 2 repeats of 16 x 16 make the [16, 32] tile's transpose
    torch.testing.assert_close(out[:1024].view(torch.float16).view(32, 16), h.T.contiguous())
    # 4-byte: block 2e holds element 8 + e of source rows 0..7, block 2e + 1 of rows 8..15
    # (the single repeat reads each row's second block: srcRepStride 1)
    fo = out[1024:1536].view(torch.float32).view(16, 8)
    want = torch.empty(16, 8)
    for e in range(8):
        want[2 * e] = f[:8, 8 + e]
        want[2 * e + 1] = f[8:, 8 + e]
    torch.testing.assert_close(fo, want)
    # 1-byte: dst[e][16 + k] = src[k][16 + e]; the low halves keep 0xFF
    bo = out[1536:2048].view(16, 32)
    assert torch.equal(bo[:, :16], torch.full((16, 16), 255, dtype=torch.uint8))
    assert torch.equal(bo[:, 16:], b[:, 16:].T.contiguous())


def test_trans_data_to_5hd_rejects_a_misaligned_address(emu_build, run_program) -> None:
    *_, x = _trans5hd_input()
    res = run_program(
        emu_build("compat"),
        ["trans5hd_misaligned", "{a}", "{b}", "{out:y}", "{report}"],
        {"a": x, "b": torch.zeros(8)},
    )
    assert res.returncode != 0
    assert "TransDataTo5HD: dstList[0] starts at UB offset" in res.stderr
    assert "not 32-byte aligned" in res.stderr
