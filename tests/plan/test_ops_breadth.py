"""Plans of the breadth ops: boolean masks, fills, rounding, modulo, casts, norms, K-dim targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.build import PlanError, build_plan
from kernelgen_lm.plan.ir import KernelPlan, plan_text

STUB = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward({args}):
        return {body}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
"""


def plan_for(tmp_path: Path, body: str, inputs: str, args: str = "self, x") -> KernelPlan:
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(args=args, body=body, inputs=inputs))
    return build_plan(capture(p))


def output_text(plan: KernelPlan, k: int = 0) -> str:
    line = next(
        ln
        for ln in plan_text(plan).splitlines()
        if ln.startswith(f"output {plan.outputs[k].name}:")
    )
    return line.split(" = ", 1)[1]


XY = "torch.randn(6, 10), torch.randn(6, 10)"


def test_logical_and_of_comparisons_is_the_product_of_their_masks(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.logical_and(x > 0, y < 1).float()", XY, "self, x, y")
    assert output_text(plan) == "gt(mul(gt(x, 0), lt(y, 1)), 0)"


def test_bitwise_ops_on_bool_masks_compose_like_the_logical_ones(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "((x > 0) | (y > 0)) ^ ~(x < y)", XY, "self, x, y")
    assert output_text(plan) == "ne(gt(max(gt(x, 0), gt(y, 0)), 0), eq(lt(x, y), 0))"
    assert plan.outputs[0].dtype == "bool"


def test_a_float_operand_of_a_logical_op_is_tested_against_zero(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.logical_or(x, y > 0)", XY, "self, x, y")
    assert output_text(plan) == "gt(max(ne(x, 0), gt(y, 0)), 0)"


def test_bitwise_and_of_integer_tensors_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match=r"bitwise_and.*int64.*bool masks"):
        plan_for(
            tmp_path,
            "x * (t & 1)",
            "torch.randn(6), torch.randint(0, 5, (6,))",
            "self, x, t",
        )


def test_lamb_trust_ratio_guard_is_a_scalar_mask_over_two_norms(tmp_path: Path) -> None:
    body = (
        "p - 0.1 * torch.where(((wn := torch.norm(p)) > 0) & ((un := torch.norm(g)) > 0), "
        "wn / un, torch.ones_like(wn)) * g"
    )
    plan = plan_for(tmp_path, body, "torch.randn(97), torch.randn(97)", "self, p, g")
    assert plan.mode == "row" and [s.op for s in plan.stages] == ["sum", "sum"]
    lets = dict(
        ln.strip().split(" = ", 1) for ln in plan_text(plan).splitlines() if ln.startswith("  t")
    )
    w, u = (next(k for k, v in lets.items() if v == f"sqrt(s{i}_sum)") for i in (0, 1))
    guard = f"where(gt(mul(gt({w}, 0), gt({u}, 0)), 0), div({w}, {u}), 1)"  # ones_like: 1
    assert guard in output_text(plan)


def test_full_of_a_static_shape_is_a_constant_broadcast_over_the_domain(tmp_path: Path) -> None:
    plan = plan_for(
        tmp_path, "x * torch.ones(6, 10) + torch.full((6, 1), 0.5)", "torch.randn(6, 10)"
    )
    assert plan.mode == "elementwise" and len(plan.inputs) == 1
    assert output_text(plan) == "add(mul(x, 1), 0.5)"


def test_full_like_takes_the_shape_of_its_argument(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.full_like(x, 2.5)", "torch.randn(6, 10)")
    assert output_text(plan) == "2.5" and plan.outputs[0].level == "full"


@pytest.mark.parametrize("op", ["floor", "ceil", "trunc"])
def test_rounding_passes_large_and_non_finite_values_through(tmp_path: Path, op: str) -> None:
    plan = plan_for(tmp_path, f"torch.{op}(x)", "torch.randn(6, 10)")
    # |x| >= 2^23 is integral already (inf and NaN fail the test): the int32 Cast never saturates.
    assert output_text(plan) == f"where(lt(abs(x), 8.38861e+06), {op}(x), x)"


def test_torch_round_is_round_half_to_even(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.round(x)", "torch.randn(6, 10)")
    assert "rint(x)" in output_text(plan)


def test_round_with_decimals_scales_around_the_rounding(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.round(x, decimals=2)", "torch.randn(6, 10)")
    assert "t2 = mul(x, 100)" in plan_text(plan)
    assert output_text(plan) == "div(where(lt(abs(t2), 8.38861e+06), rint(t2), t2), 100)"


def test_fmod_truncates_and_remainder_floors_the_quotient(tmp_path: Path) -> None:
    fmod = output_text(plan_for(tmp_path, "torch.fmod(x, y)", XY, "self, x, y"))
    rem = output_text(plan_for(tmp_path, "torch.remainder(x, y)", XY, "self, x, y"))
    assert fmod.startswith("sub(x, mul(where(") and "trunc(t" in plan_text(
        plan_for(tmp_path, "torch.fmod(x, y)", XY, "self, x, y")
    )
    assert rem.startswith("sub(x, mul(where(") and "floor(" in plan_text(
        plan_for(tmp_path, "torch.remainder(x, y)", XY, "self, x, y")
    )


def test_casts_to_integer_truncate_and_to_bool_test_nonzero(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "x.long().float() + x.bool().float()", "torch.randn(6, 10)")
    assert output_text(plan) == "add(where(lt(abs(x), 8.38861e+06), trunc(x), x), ne(x, 0))"


def test_vector_norm_ord_zero_counts_nonzero_and_minus_inf_is_a_min(tmp_path: Path) -> None:
    zero = plan_for(tmp_path, "torch.linalg.vector_norm(x, ord=0, dim=-1)", "torch.randn(6, 10)")
    assert [(s.op, s.value) for s in zero.stages] == [("sum", zero.stages[0].value)]
    assert "reduce_sum(over reduced axes) ne(x, 0)" in plan_text(zero)
    neg = plan_for(
        tmp_path, "torch.linalg.vector_norm(x, ord=float('-inf'), dim=-1)", "torch.randn(6, 10)"
    )
    assert "reduce_min(over reduced axes) abs(x)" in plan_text(neg)


def test_kdim_cross_entropy_targets_skip_the_class_axis(tmp_path: Path) -> None:
    plan = plan_for(
        tmp_path,
        "F.cross_entropy(x, t)",
        "torch.randn(4, 7, 9, 13), torch.randint(0, 7, (4, 9, 13))",
        "self, x, t",
    )
    # (N, C, d1*d2): classes reduced, the merged spatial dims are the vector axis.
    assert [a.example for a in plan.axes] == [4, 7, 117]
    assert plan.mode == "column" and [a.reduced for a in plan.axes] == [False, True, False]
    assert plan.inputs[1].dtype == "int64" and plan.inputs[1].mask == [True, False, True]
    assert plan.outputs[0].level == "scalar"


def test_kdim_cross_entropy_with_class_weights_lays_the_weights_on_the_class_axis(
    tmp_path: Path,
) -> None:
    plan = plan_for(
        tmp_path,
        "F.cross_entropy(x, t, weight=w)",
        "torch.randn(4, 7, 33), torch.randint(0, 7, (4, 33)), torch.rand(7)",
        "self, x, t, w",
    )
    assert plan.inputs[2].mask == [False, True, False]


def test_targets_that_broadcast_onto_the_class_axis_are_refused_clearly(tmp_path: Path) -> None:
    # N == C: right-aligned broadcasting puts (N,) targets on the class axis; refused, not guessed.
    with pytest.raises(PlanError, match="gather"):
        plan_for(
            tmp_path,
            "F.cross_entropy(x, t)",
            "torch.randn(10, 10), torch.randint(0, 10, (10,))",
            "self, x, t",
        )


def test_isinf_compares_against_the_largest_finite_float(tmp_path: Path) -> None:
    # Kernel constants cannot spell inf, so isinf is |x| > FLT_MAX, not |x| == inf.
    plan = plan_for(tmp_path, "torch.isinf(x)", "torch.randn(6, 10)")
    assert output_text(plan) == "gt(abs(x), 3.40282e+38)" and plan.outputs[0].dtype == "bool"


def test_isnan_is_x_not_equal_to_itself(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.isnan(x)", "torch.randn(6, 10)")
    assert output_text(plan) == "ne(x, x)"


def test_pow_with_a_tensor_exponent_handles_negative_bases_and_zero_exponents(
    tmp_path: Path,
) -> None:
    text = output_text(plan_for(tmp_path, "torch.pow(x, y)", XY, "self, x, y"))
    assert text.startswith("where(eq(y, 0), 1, where(lt(x, 0), where(eq(y, ")
    assert "nan)" in text  # a negative base with a fractional exponent


def test_any_is_a_max_of_masks_and_all_is_not_any_not(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "(x > 0).any(dim=-1)", "torch.randn(6, 10)")
    assert [s.op for s in plan.stages] == ["max"]
    assert output_text(plan) == "gt(s0_max, 0)" and plan.outputs[0].dtype == "bool"
    plan = plan_for(tmp_path, "torch.all(x, dim=-1)", "torch.randn(6, 10)")  # not any(not x)
    assert "reduce_max(over reduced axes) eq(x, 0)" in plan_text(plan)
    assert output_text(plan) == "eq(gt(s0_max, 0), 0)"


def test_var_mean_shares_one_mean_stage(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.var_mean(x, dim=-1)", "torch.randn(6, 10)")
    assert [s.op for s in plan.stages] == ["sum", "sum"]
    assert output_text(plan, 1) == "div(s0_sum, N_reduced)"


def test_sinh_halves_before_exp_so_it_stays_finite_near_the_float_range(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.sinh(x)", "torch.randn(6, 10)")
    assert output_text(plan) == "sub(exp(sub(x, 0.693147)), exp(sub(-0.693147, x)))"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("x == float('inf')", "gt(x, 3.40282e+38)"),
        ("x != float('inf')", "eq(gt(x, 3.40282e+38), 0)"),
        ("x == -float('inf')", "gt(neg(x), 3.40282e+38)"),
        ("x < float('inf')", "le(x, 3.40282e+38)"),
        ("x <= float('inf')", "eq(x, x)"),
    ],
)
def test_comparisons_with_infinity_use_the_largest_finite_float(
    tmp_path: Path, body: str, expected: str
) -> None:
    assert output_text(plan_for(tmp_path, body, "torch.randn(6, 10)")) == expected
