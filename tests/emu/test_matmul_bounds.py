"""The Matmul high-level API writes and reads only inside its operands (tests/emu/cpp/
matmul_bounds.cpp): blocks past the matrix end compute nothing, and a result or operand that
does not fit is a rule failure at the user's call, never a write into the harness heap."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line


def test_blocks_past_the_matrix_end_compute_nothing(emu_build, run_program) -> None:
    # corpus matmul_custom at M=100, K=40, N=72 used to abort with `free(): invalid next size`
    gen = torch.Generator().manual_seed(7)
    a = torch.randn(100, 40, generator=gen).half()
    b = torch.randn(40, 72, generator=gen).half()
    res = run_program(
        emu_build("matmul_bounds"),
        ["ok_blocks_past_end", "{report}", "{a}", "{b}", "{out:c}"],
        {"a": a, "b": b},
    )
    assert res.returncode == 0, res.stderr
    c = from_bytes(res.outputs["c"], "float32").view(100, 72)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-5, atol=1e-4)


def test_iterate_restarts_per_unit_and_counts_cube_work(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(100, 40, generator=gen).half()
    b = torch.randn(40, 72, generator=gen).half()
    res = run_program(
        emu_build("matmul_bounds"),
        ["ok_iterate_per_unit", "{report}", "{a}", "{b}", "{out:c}"],
        {"a": a, "b": b},
    )
    assert res.returncode == 0, res.stderr
    c = from_bytes(res.outputs["c"], "float32").view(100, 72)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-5, atol=1e-4)
    total = res.report["counters"]["total"]
    assert total["cube_macs"] == 100 * 72 * 40 and total["cube_macs_fp32"] == 0
    assert total["l0c_to_gm_bytes"] == 100 * 72 * 4
    # Per unit (50 x 72, base 32 x 32): A panels 50x40 halves x 3 N blocks, B 40x72 x 2 M blocks.
    assert total["gm_to_l1_bytes"] == 2 * (50 * 40 * 2 * 3 + 40 * 72 * 2 * 2)


def test_iterate_all_with_en_atomic_accumulates_across_blocks_without_a_race(
    emu_build, run_program
) -> None:
    # DrivingSDK deformable_conv2d_grad: IterateAll<false>(c, 1, false, true), WaitIterateAll;
    # before, no such overload, and the writes counted as plain stores racing each other.
    gen = torch.Generator().manual_seed(5)
    a = torch.randn(100, 40, generator=gen).half()
    b = torch.randn(40, 72, generator=gen).half()
    res = run_program(
        emu_build("matmul_bounds"),
        ["ok_atomic_iterate_all", "{report}", "{a}", "{b}", "{out:c}"],
        {"a": a, "b": b},
    )
    assert res.returncode == 0, res.stderr
    assert not [w for w in res.report["warnings"] if w["code"] == "gm-race"], res.report
    c = from_bytes(res.outputs["c"], "float32").view(100, 72)
    torch.testing.assert_close(c, 2 * (a.float() @ b.float()), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    "case",
    ["ok_async_walk", "ok_same_product_two_blocks", "ok_same_blocks_two_blocks", "ok_cube_only"],
)
def test_async_walk_and_two_blocks_storing_the_same_product(
    emu_build, run_program, case: str
) -> None:
    # Ascend/samples: MatmulLeakyReluInvocationAsync (one Iterate<false>, then a GetTensorC<false>
    # per block: before, every call fetched block 0), the IBShare sample (both AIVs store the
    # whole product: before, a gm-race), MatmulLeakyReluCustom (its AIVs past usedCoreNum repeat
    # another's block through GetTensorC: a gm-race until GetTensorC passed its bytes on too) and
    # 22_baremix (the pure Cube mode: before, the AIC left at REGIST_MATMUL_OBJ and the AIVs
    # waited for it forever).
    gen = torch.Generator().manual_seed(11)
    a = torch.randn(100, 40, generator=gen).half()
    b = torch.randn(40, 72, generator=gen).half()
    res = run_program(emu_build("matmul_bounds"), [case, "{report}", "{a}", "{b}", "{out:c}"],
                      {"a": a, "b": b})
    assert res.returncode == 0, res.stderr  # a race would stop the run
    races = [w["message"] for w in res.report["warnings"] if w["code"] == "gm-race"]
    assert all("stores the very bytes already there" in m for m in races), races
    c = from_bytes(res.outputs["c"], "float32").view(100, 72)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-5, atol=1e-4)


BUGS = {
    "iterate_all_past_end": ("gm-out-of-bounds", "Matmul::IterateAll writes"),
    "get_tensor_c_past_end": ("gm-out-of-bounds", "GM buffer 'c'"),
    "get_tensor_c_without_iterate": ("param-range", "Iterate()"),
    "local_a_too_small": ("count-exceeds-tensor", "of A"),
    "five_matmul_objects": ("matmul-object-count", "registers 5 Matmul objects"),
    "init_buffer_before_regist": ("matmul-register-order", "after InitBuffer of TQue<A1, 1> (line"),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_matmul_out_of_bounds_is_reported_at_the_call(emu_build, run_program, case, expect):
    code, text = expect
    res = run_program(emu_build("matmul_bounds"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("matmul_bounds.cpp", f"BUG: {case}"), err
    assert text in err["message"], err


@pytest.mark.parametrize("case", ["ok_four_matmul_objects", "ok_one_matmul_tiling_by_init"])
def test_up_to_four_matmul_objects_register(emu_build, run_program, case: str) -> None:
    res = run_program(emu_build("matmul_bounds"), [case, "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_regist_after_only_vector_queues_is_a_warning(emu_build, run_program) -> None:
    # The documented order is broken, but the Matmul object's share lies in L1/L0, which a UB
    # queue does not take: Ascend/samples' matmul + LeakyRelu samples pass on the NPU this way.
    res = run_program(emu_build("matmul_bounds"), ["ok_vector_queue_before_regist", "{report}"])
    assert res.returncode == 0, res.stderr
    [warning] = [w for w in res.report["warnings"] if w["code"] == "matmul-register-order"]
    assert warning["line"] == marker_line("matmul_bounds.cpp", "WARN: vector_queue_before_regist")
    assert "TQue<VECOUT, 1>" in warning["message"]
