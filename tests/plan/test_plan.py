"""Plan building: modes, stages, broadcasting masks, and clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.build import PlanError, build_plan
from kernelgen_lm.plan.ir import plan_text

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


def plan_for(tmp_path: Path, body: str, inputs: str, args: str = "self, x"):
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(args=args, body=body, inputs=inputs))
    return build_plan(capture(p))


def test_softmax_last_dim_is_a_row_plan_with_max_then_sum(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.softmax(x, dim=-1)", "torch.randn(8, 100)")
    assert plan.mode == "row"
    assert [s.op for s in plan.stages] == ["max", "sum"]
    assert plan.outputs[0].level == "full"


def test_softmax_over_a_middle_dim_is_a_column_plan(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.softmax(x, dim=1)", "torch.randn(4, 50, 33)")
    assert plan.mode == "column"
    assert [a.reduced for a in plan.axes] == [False, True, False]


def test_channel_bias_broadcast_varies_only_along_the_channel_axis(tmp_path: Path) -> None:
    plan = plan_for(
        tmp_path, "x + b", "torch.randn(2, 3, 4, 5), torch.randn(1, 3, 1, 1)", args="self, x, b"
    )
    assert plan.mode == "elementwise"
    assert len(plan.axes) == 3  # (N, C, H*W) after merging H and W
    assert plan.inputs[0].mask == [True, True, True]
    assert plan.inputs[1].mask == [False, True, False]


def test_mean_divides_by_the_runtime_count_of_reduced_elements(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "x.mean(dim=0)", "torch.randn(30, 7)")
    assert any(n.op == "count" for n in plan.nodes)
    assert plan.outputs[0].level == "reduced"


def test_plan_text_names_stages_outputs_and_domain(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.log_softmax(x, dim=-1)", "torch.randn(8, 100)")
    text = plan_text(plan)
    assert "stage s0_max" in text and "stage s1_sum" in text
    assert "x.shape[1]" in text and "vector axis" in text


def test_unsupported_op_is_named_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match=r"aten\.sin.*line \d+.*LLM backend"):
        plan_for(tmp_path, "torch.sin(x)", "torch.randn(4, 5)")


def test_two_different_reductions_of_the_full_tensor_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="different dims"):
        plan_for(
            tmp_path, "x.sum(dim=1, keepdim=True) + x.sum(dim=0, keepdim=True)", "torch.randn(4, 5)"
        )


def test_row_sums_then_their_total_is_a_global_stage(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "x.sum(dim=1).sum(dim=0)", "torch.randn(4, 5)")
    assert [s.scope for s in plan.stages] == ["domain", "global"]


def test_cross_entropy_is_row_stages_then_a_global_mean(tmp_path: Path) -> None:
    plan = plan_for(
        tmp_path,
        "F.cross_entropy(x, t)",
        "torch.randn(6, 10), torch.randint(0, 10, (6,))",
        args="self, x, t",
    )
    assert plan.mode == "row"
    assert [s.scope for s in plan.stages].count("global") == 2
    assert any(n.op == "iota" for n in plan.nodes)  # gather = sum of x * (position == target)
    assert plan.outputs[0].level == "scalar"
    assert plan.inputs[1].dtype == "int64" and plan.inputs[1].mask == [True, False]


def test_integer_input_along_the_vector_axis_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="int64"):
        plan_for(
            tmp_path, "x * t", "torch.randn(6, 10), torch.randint(0, 3, (6, 10))", args="self, x, t"
        )


def test_reverse_cumsum_through_flips_is_one_reversed_scan(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.cumsum(x.flip(1), dim=1).flip(1)", "torch.randn(4, 9)")
    (stage,) = plan.stages
    assert stage.scope == "scan" and stage.reverse and stage.op == "sum"
    assert plan.outputs[0].level == "full"


def test_scan_along_a_middle_dim_is_column_mode(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.cumprod(x, dim=1)", "torch.randn(3, 7, 5)")
    assert plan.mode == "column" and plan.stages[0].scope == "scan"


def test_max_with_indices_gives_a_value_and_an_index_stage(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "torch.max(x, dim=1)", "torch.randn(4, 9)")
    assert [s.op for s in plan.stages] == ["max", "argmax"]
    assert [o.dtype for o in plan.outputs] == ["float32", "int64"]
