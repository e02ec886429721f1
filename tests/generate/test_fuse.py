"""Slices, splits, a cat with constant blocks and arange fused into the vector kernel (the
domain family): glu / chunk-gated units read both halves of one input at an axis offset, the
exclusive cumsum reads its input shifted by one with the cat's zero filled in, and arange is an
index-generated operand. Each form validates on the emulator (odd shapes, shape variants) and
lints clean; what is not covered is refused with a PlanError naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.families import build_family_plan
from kernelgen_lm.plan.build import build_plan
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import KernelPlan, plan_text
from server.cli import main

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"
FUSED = ("act_glu_", "act_chunk_", "scan_cumsum_exclusive_", "ew_arange_")
FUSED_STUBS = sorted(p.stem for p in STUBS.glob("*.py") if p.stem.startswith(FUSED))
# The default run validates two forms (the emulator compile dominates): the two halves of one
# input (fp16) and the shifted read with a zero fill (fp32); arange and the rest run under slow.
DEFAULT = ("act_chunk_swiglu_fp16", "scan_cumsum_exclusive_fp32")


def check_validated(stub: str, tmp_path: Path, capsys) -> dict:
    out_dir = tmp_path / stub
    args = ["-o", str(out_dir), "--format", "json", "--backend", "rules"]
    code = main(["generate", str(STUBS / f"{stub}.py"), *args])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out.get("error")
    assert out["ok"] and out["backend_used"] == "rules" and out["validation"]["ok"]
    assert any("shape" in c["name"] for c in out["validation"]["cases"])
    assert out["speed"] is not None and out["speed"]["speedup"] > 0
    assert main(["lint", str(out_dir), "--format", "json"]) == 0
    assert not json.loads(capsys.readouterr().out)["diagnostics"]
    return out


@pytest.mark.parametrize("stub", DEFAULT)
def test_each_fused_form_validates_and_lints_clean(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("stub", [s for s in FUSED_STUBS if s not in DEFAULT])
def test_every_fused_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


def _stub(tmp_path: Path, body: str, inputs: str = "[torch.randn(7, 74)]") -> Path:
    p = tmp_path / "stub.py"
    p.write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
        "class Model(nn.Module):\n"
        f"    def forward(self, x):\n        return {body}\n\n\n"
        f"def get_inputs():\n    return {inputs}\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    return p


def _plan(tmp_path: Path, body: str, inputs: str = "[torch.randn(7, 74)]") -> KernelPlan:
    plan = build_family_plan(capture(_stub(tmp_path, body, inputs)), None)
    assert isinstance(plan, KernelPlan)
    return plan


def test_glu_reads_the_second_half_at_half_the_input_dim(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "F.glu(x, dim=-1)")
    assert [a.example for a in plan.axes] == [7, 37]
    assert plan.axes[1].size.div == 2  # the domain follows the runtime input: dim / 2
    (x,) = plan.inputs
    assert x.span[1].terms == [(0, 1)]  # rows of x are 74 long: strides use x.shape[1]
    reads = [n.read for n in plan.nodes if n.op == "input" and n.read is not None]
    assert len(reads) == 1 and reads[0].axis == 1 and not reads[0].back
    assert (reads[0].offset.terms, reads[0].offset.div) == ([(0, 1)], 2)
    # validation grows the sliced dim in steps of 2 (both halves stay whole)
    assert plan.variants == [[[10, 74]], [[7, 76]]]


def test_exclusive_cumsum_is_a_shifted_read_with_the_zero_filled_in(tmp_path: Path) -> None:
    body = "torch.cat([torch.zeros_like(x[:, :1]), x], dim=1)[:, :-1].cumsum(dim=1)"
    plan = _plan(tmp_path, body)
    assert plan.has_scan and [a.example for a in plan.axes] == [7, 74]
    (read,) = [n.read for n in plan.nodes if n.read is not None]
    assert read.back and read.fill == 0.0 and read.offset.mul == 1 and not read.offset.terms
    assert "x[a1 - 1, 0 before the start]" in plan_text(plan)


def test_arange_is_an_index_operand_along_the_axis_it_lines_up_with(tmp_path: Path) -> None:
    body = "x * torch.arange(2, 2 + 3 * x.shape[1], 3, dtype=torch.float32)"
    plan = _plan(tmp_path, body)
    assert plan.inputs[0].used and len(plan.inputs) == 1
    assert "mul(x, add(mul(index(a1), 3), 2))" in plan_text(plan)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("x.cumsum(1)[:, 1:] - x[:, 1:]", "a slice of a computed value .* only as an output"),
        ("x[:, ::3] * 2", "step 3 along the last axis is not supported"),
    ],
)
def test_uncovered_fusions_are_refused(tmp_path: Path, body: str, reason: str) -> None:
    with pytest.raises(PlanError, match=reason):
        build_plan(capture(_stub(tmp_path, body)))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "inputs"),
    [
        # the shifted read over several vector tiles: only the first one has the fill
        # (integer values: sums this long are exact, no float drift to blur a misplaced shift)
        (
            "torch.cat([torch.zeros_like(x[:, :1]), x], dim=1)[:, :-1].cumsum(dim=1)",
            "[torch.randint(-4, 5, (3, 20001)).float()]",
        ),
        # the halves along the row axis: an offset of rows, not of elements
        ("F.glu(x, dim=0)", "[torch.randn(14, 37)]"),
        # a block of two ones ahead (a shift of 2) times the input: a plain and a shifted read
        (
            "torch.cat([torch.ones_like(x[:, :2]), x], dim=1)[:, :-2] * x",
            "[torch.randn((5, 70), dtype=torch.float16)]",
        ),
    ],
)
def test_more_fused_views_validate(tmp_path: Path, capsys, body: str, inputs: str) -> None:
    args = ["-o", str(tmp_path / "out"), "--format", "json", "--backend", "rules"]
    code = main(["generate", str(_stub(tmp_path, body, inputs)), *args])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out.get("error")
    assert out["ok"] and out["validation"]["ok"]
