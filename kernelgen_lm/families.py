"""The rule generator's kernel families, as one table.

A family knows which captured graphs it claims, how to plan them, how to print the plan, which
unaligned shape variants validate it, and which writer in `kernelgen_lm.lower.project` lowers it.
Generation walks the table in order: the first family whose `claims` accepts the graph plans it
(its PlanError is the answer); families without `claims` are tried in turn and the first one's
error is reported when none plans. Adding a family is one entry here plus its plan and lower
modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ascend_tools.chips import Chip
from kernelgen_lm.capture import CapturedGraph
from kernelgen_lm.plan.attn import (
    AttnPlan,
    attn_text,
    attn_variants,
    build_attn_plan,
    is_attn_graph,
)
from kernelgen_lm.plan.build import PlanError, build_plan
from kernelgen_lm.plan.conv import (
    ConvPlan,
    build_conv_plan,
    conv_text,
    conv_variants,
    is_conv_graph,
)
from kernelgen_lm.plan.ir import KernelPlan, plan_text
from kernelgen_lm.plan.matmul import (
    MatmulPlan,
    build_matmul_plan,
    is_matmul_graph,
    matmul_text,
    matmul_variants,
)
from kernelgen_lm.plan.move import (
    MovePlan,
    build_move_plan,
    is_move_graph,
    move_text,
    move_variants,
)
from kernelgen_lm.plan.stages import (
    StagedPlan,
    build_staged_plan,
    needs_stages,
    staged_text,
    staged_variants,
)
from kernelgen_lm.plan.window import WindowPlan, build_window_plan, window_text

AnyPlan = KernelPlan | WindowPlan | MatmulPlan | MovePlan | AttnPlan | ConvPlan | StagedPlan
Variants = list[list[list[int]]]


@dataclass(frozen=True)
class Family:
    name: str
    plan_type: type
    build: Callable[[CapturedGraph, Chip | None], Any]
    text: Callable[[Any], str]
    # Name of the `kernelgen_lm.lower.project` function writing the project (imported on use:
    # lowering pulls in the emitters, which planning alone does not need).
    writer: str
    # None: the family is tried and falls through on PlanError.
    claims: Callable[[CapturedGraph], bool] | None = None
    # Validation shapes from the plan; None (or a None answer): the generic variants of the
    # graph's inputs.
    variants: Callable[[Any], Variants | None] | None = None
    # The mode shown in progress and benches; None: the family's name.
    mode: Callable[[Any], str] | None = None


def claims_stages(g: CapturedGraph) -> bool:
    """Products the single-product planner refuses but that cut into stages (plan/stages.py);
    a graph of two products around a softmax stays the attention family's when its planner
    takes it (one fused kernel, the scores never in GM)."""
    if not needs_stages(g):
        return False
    if is_attn_graph(g):
        try:
            build_attn_plan(g, None)
        except PlanError:
            return True
        return False
    return True


FAMILIES: list[Family] = [
    # Before attention and matmul, which claim graphs with products: a product followed by
    # reductions, further products (MLP blocks) or a softmax and a product that the attention
    # planner does not take, as one kernel of sequential stages.
    Family(
        "staged",
        StagedPlan,
        build_staged_plan,
        staged_text,
        "write_staged_project",
        claims=claims_stages,
        variants=staged_variants,
        mode=lambda p: "matmul-staged",
    ),
    # Before matmul, which claims any graph with a product: attention has two.
    Family(
        "attn",
        AttnPlan,
        build_attn_plan,
        attn_text,
        "write_attn_project",
        claims=is_attn_graph,
        variants=attn_variants,
    ),
    Family(
        "matmul",
        MatmulPlan,
        build_matmul_plan,
        matmul_text,
        "write_matmul_project",
        claims=is_matmul_graph,
        variants=matmul_variants,
    ),
    Family(
        "move",
        MovePlan,
        lambda g, _chip: build_move_plan(g),
        move_text,
        "write_move_project",
        claims=is_move_graph,
        variants=move_variants,
    ),
    Family(
        "conv",
        ConvPlan,
        build_conv_plan,
        conv_text,
        "write_conv_project",
        claims=is_conv_graph,
        variants=conv_variants,
    ),
    Family(
        "domain",
        KernelPlan,
        lambda g, _chip: build_plan(g),
        plan_text,
        "write_project",
        variants=lambda p: p.variants,
        mode=lambda p: p.mode,
    ),
    Family(
        "window",
        WindowPlan,
        lambda g, _chip: build_window_plan(g),
        window_text,
        "write_window_project",
    ),
]


def family_of(plan: AnyPlan) -> Family:
    for fam in FAMILIES:
        if isinstance(plan, fam.plan_type):
            return fam
    raise TypeError(f"no kernel family plans {type(plan).__name__}")


def build_family_plan(graph: CapturedGraph, chip: Chip | None) -> AnyPlan:
    first: PlanError | None = None
    for fam in FAMILIES:
        if fam.claims is not None:
            if fam.claims(graph):
                return fam.build(graph, chip)
            continue
        try:
            return fam.build(graph, chip)
        except PlanError as e:
            first = first or e
    raise first or PlanError("no kernel family plans this graph")


def write_family_project(plan: AnyPlan, chip: Chip, out: Path, ref: Path | None) -> Any:
    """Lowers `plan` into a project under `out`; returns the LoweredProject."""
    project = importlib.import_module("kernelgen_lm.lower.project")
    return getattr(project, family_of(plan).writer)(plan, chip, out, ref)
