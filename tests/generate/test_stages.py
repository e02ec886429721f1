"""The staged family (plan/stages.py): graphs the single-product planner refuses are cut at the
product's epilogued result into a product stage and a second stage planned by the existing
planners; what it does not cover keeps a refusal naming the form. (The stubs validate on the
emulator in test_matmul.py: one in the default run, the rest slow.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from kernelgen_lm.capture import capture
from kernelgen_lm.families import build_family_plan, family_of
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import KernelPlan
from kernelgen_lm.plan.matmul import DimRef, MatmulPlan
from kernelgen_lm.plan.stages import StagedPlan, build_staged_plan, needs_stages, staged_variants

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"

STUB = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, w, v):
        return {body}


def get_inputs():
    return [torch.randn(7, 37), torch.randn(45, 37), torch.randn(29, 45)]


def get_init_inputs():
    return []
"""


def graph_of(tmp_path: Path, body: str):
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(body=body))
    return capture(p)


def test_the_cut_keeps_the_elementwise_ops_in_the_products_epilogue() -> None:
    plan = build_staged_plan(capture(STUBS / "mm_linear_relu_sum_fp32.py"), get_chip())
    assert plan.mid_name == "relu"  # the ReLU runs on the product's blocks, not in stage 2
    assert plan.mid_shape == [7, 45] and plan.mid_dtype == "float32"
    assert plan.first.bias is not None  # nn.Linear's fp32 bias: the Matmul API's SetBias
    assert isinstance(plan.second, KernelPlan) and plan.second.mode == "row"
    assert plan.second_inputs == [-1]  # the sum reads only the intermediate
    # The intermediate's runtime sizes: x's rows and the weight's rows.
    assert plan.mid_dims == [DimRef(input=0, dim=0), DimRef(input=1, dim=0)]
    assert plan.out_shape == [7, 1]


def test_a_second_product_is_planned_by_the_matmul_planner_on_the_intermediate() -> None:
    g = capture(STUBS / "mm_mlp2_fp16.py")
    plan = build_staged_plan(g, get_chip())
    assert isinstance(plan.second, MatmulPlan)
    assert plan.mid_name == "gelu" and plan.mid_dtype == "float16"
    names = [t.name for t in g.inputs]
    # Stage 2's A is the intermediate; its weight and bias are the model's fc2 parameters.
    assert [names[i] if i >= 0 else "mid" for i in plan.second_inputs] == [
        "mid",
        "p_fc2_weight",
        "p_fc2_bias",
    ]
    assert plan.second.a.input == 0 and plan.second.b.trans
    # M grows by 3 in validation (the parameters pin N and K).
    assert staged_variants(plan) == [[[10, 37]]]


def test_dispatch_sends_refused_products_to_the_staged_family_only() -> None:
    staged = build_family_plan(capture(STUBS / "mm_linear_softmax_fp32.py"), get_chip())
    assert family_of(staged).name == "staged" and isinstance(staged, StagedPlan)
    single = build_family_plan(capture(STUBS / "mm_linear_gelu_fp32.py"), get_chip())
    assert isinstance(single, MatmulPlan)  # one product with an elementwise epilogue


def test_a_second_stage_reading_a_forward_input_takes_the_generic_variants(tmp_path) -> None:
    g = graph_of(tmp_path, "(F.relu(x @ w.t()) @ v.t())")
    plan = build_staged_plan(g, get_chip())
    assert plan.second_inputs == [-1, 2]  # v is a forward input of stage 2
    assert staged_variants(plan) is None


REFUSED = {
    "three products": ("((x @ w.t()) @ v.t()) @ v", "3 matrix products .* two stages"),
    "cumulative": ("(x @ w.t()).cumsum(-1)", "cumulative"),
    "prologue of the second product": ("F.relu(x @ w.t()) @ F.relu(v).t()", "before the product"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_forms_after_a_product_that_are_not_covered_are_refused_by_name(
    case: str, tmp_path: Path
) -> None:
    body, text = REFUSED[case]
    g = graph_of(tmp_path, body)
    with pytest.raises(PlanError, match=text) as e:
        build_family_plan(g, get_chip())
    assert "after the matrix product's result" in str(e.value)


def test_a_graph_with_no_cut_keeps_the_single_product_refusal(tmp_path: Path) -> None:
    g = graph_of(tmp_path, "torch.relu(x) @ w.t()")
    assert not needs_stages(g)
    with pytest.raises(PlanError, match="ops before the product"):
        build_family_plan(g, get_chip())


def test_a_chip_that_refuses_the_product_gives_its_own_reason() -> None:
    g = capture(STUBS / "mm_linear_softmax_fp32.py")
    with pytest.raises(PlanError, match="float32 matrix products are not supported"):
        build_family_plan(g, get_chip("ascend310p"))
    with pytest.raises(PlanError, match="not documented for this chip"):
        build_family_plan(g, get_chip("ascend910"))
