"""The staged family (plan/stages.py): graphs the single-product planner refuses are cut at a
product's epilogued result into a product stage and a rest planned by the existing planners (or
cut again: MLP blocks, a softmax between products); what it does not cover keeps a refusal
naming the form. (The stubs validate on the emulator in test_matmul.py: one in the default run,
the rest slow.)"""

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
    [mid] = plan.mids
    assert mid.name == "relu"  # the ReLU runs on the product's blocks, not in stage 2
    assert mid.shape == [7, 45] and mid.dtype == "float32"
    assert plan.first.bias is not None  # nn.Linear's fp32 bias: the Matmul API's SetBias
    second = plan.stages[1]
    assert isinstance(second, KernelPlan) and second.mode == "row"
    assert plan.stage_inputs == [[0, 1, 2], [-1]]  # the sum reads only the intermediate
    # The intermediate's runtime sizes: x's rows and the weight's rows.
    assert mid.dims == [DimRef(input=0, dim=0), DimRef(input=1, dim=0)]
    assert plan.out_shape == [7, 1]


def test_a_second_product_is_planned_by_the_matmul_planner_on_the_intermediate() -> None:
    g = capture(STUBS / "mm_mlp2_fp16.py")
    plan = build_staged_plan(g, get_chip())
    second = plan.stages[1]
    assert isinstance(second, MatmulPlan) and len(plan.stages) == 2
    assert plan.mids[0].name == "gelu" and plan.mids[0].dtype == "float16"
    names = [t.name for t in g.inputs]
    # Stage 2's A is the intermediate; its weight and bias are the model's fc2 parameters.
    assert [names[i] if i >= 0 else "mid" for i in plan.stage_inputs[1]] == [
        "mid",
        "p_fc2_weight",
        "p_fc2_bias",
    ]
    assert second.a.input == 0 and second.b.trans
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
    assert plan.stage_inputs[1] == [-1, 2]  # v is a forward input of stage 2
    assert staged_variants(plan) is None


REFUSED = {
    "five products": ("(((x @ w.t()) @ v.t()) @ v) @ v.t() @ v", "5 matrix products.*at most 4"),
    "cumulative": ("(x @ w.t()).cumsum(-1)", "cumulative"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_forms_after_a_product_that_are_not_covered_are_refused_by_name(
    case: str, tmp_path: Path
) -> None:
    body, text = REFUSED[case]
    g = graph_of(tmp_path, body)
    with pytest.raises(PlanError, match=text) as e:
        build_family_plan(g, get_chip())
    assert "matrix product" in str(e.value)


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


def test_deeper_blocks_cut_again_each_stage_reading_the_one_before() -> None:
    """Three Linear layers: three product stages, mids chained; a softmax between two products
    is a vector stage of its own."""
    plan = build_staged_plan(capture(STUBS / "mm_mlp3_fp32.py"), get_chip())
    assert [type(sp).__name__ for sp in plan.stages] == ["MatmulPlan"] * 3
    assert [c for ins in plan.stage_inputs[1:] for c in ins if c < 0] == [-1, -2]
    # Every intermediate is [x rows, a weight's rows]: sizes from the model inputs.
    assert [m.dims[0] for m in plan.mids] == [DimRef(input=0, dim=0)] * 2
    plan = build_staged_plan(capture(STUBS / "mm_linear_softmax_linear_fp16.py"), get_chip())
    kinds = [type(sp).__name__ for sp in plan.stages]
    assert kinds == ["MatmulPlan", "KernelPlan", "MatmulPlan"]
    assert plan.stage_inputs[2][0] == -2  # the second product reads the softmax
