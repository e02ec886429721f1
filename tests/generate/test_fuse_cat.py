"""Cats of several tensors, constant blocks after the tensor or wider than a 32-byte block,
slices along two dims, stepped slices along the last axis and slices of elementwise results
fused into the vector kernel (plan/views.py, plan/slicedown.py): each tensor of a cat is read
over its own range with 0 elsewhere and the parts added; a read over a bounded range along the
vector axis pads the partial blocks at its ends by DataCopyPad and fills whole blocks after the
load; a stepped slice loads the span and keeps every step-th element with GatherMask; a slice
of an elementwise result becomes the op on slices of its operands. Each form validates on the
emulator (odd shapes, shape variants) and lints clean; what is still not covered is refused
naming what is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.build import build_plan
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import plan_text
from server.cli import main
from tests.generate.test_fuse import STUBS, _plan, _stub, check_validated

FORMS = ("move_cat2_", "ew_roll_", "ew_pad_after_", "ew_shift_wide_", "ew_slice2_", "ew_step")
FORMS += ("ew_slice_computed_", "ew_cat_computed_", "red_sum_slice_", "sm_softmax_slice_")
FORMS += ("scan_cumsum_rows_slice_", "sm_softmax_cat_", "scan_cumsum_slice_")
FORM_STUBS = sorted(p.stem for p in STUBS.glob("*.py") if p.stem.startswith(FORMS))
# In the default run (its time budget), one stub per read mechanism: a cat of two inputs along
# the last axis (fp16; reads bounded to their columns), a zero after the tensor (a bounded read
# with a fill), even and odd columns (fp16; GatherMask), two slices of a computed value. The
# roll, the wide fill and the two-dim stencil reuse those mechanisms: they run under `slow`.
# Outputs stored by range: a cat of computed tensors (fp16; each part's tile at its columns);
# slices of computed values (a reduction's rows, a softmax's columns, a scan's rows) store
# through the same output path and run under `slow`.
DEFAULT = (
    "move_cat2_relu_fp16",
    "ew_pad_after_diff_fp32",
    "ew_step_pairs_fp16",
    "ew_slice_computed_diff_fp32",
    "ew_cat_computed_fp16",
)


@pytest.mark.parametrize("stub", DEFAULT)
def test_each_form_validates_and_lints_clean(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("stub", [s for s in FORM_STUBS if s not in DEFAULT])
def test_every_form_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


def _reads(plan) -> list:
    return [n.read for n in plan.nodes if n.op == "input" and n.read is not None]


def _stub2(tmp_path: Path, body: str, inputs: str) -> Path:
    """A stub whose forward takes two tensors, x and y."""
    p = _stub(tmp_path, body, inputs)
    p.write_text(p.read_text().replace("def forward(self, x)", "def forward(self, x, y)"))
    return p


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "inputs"),
    [
        # row mode: a softmax over the cat (each stage streams both parts' tiles)
        ("torch.softmax(torch.cat([x, y], -1), -1)", "[torch.randn(7, 37), torch.randn(7, 21)]"),
        # column mode: a sum over the rows of a cat along the rows
        ("torch.cat([x, y], 0).sum(0)", "[torch.randn(7, 37), torch.randn(5, 37)]"),
    ],
)
def test_cats_feeding_reductions_validate(tmp_path: Path, capsys, body: str, inputs: str) -> None:
    args = ["-o", str(tmp_path / "out"), "--format", "json", "--backend", "rules"]
    code = main(["generate", str(_stub2(tmp_path, body, inputs)), *args])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out.get("error")
    assert out["ok"] and out["validation"]["ok"]


def test_cat_of_two_inputs_adds_two_reads_each_zero_outside_its_columns(tmp_path: Path) -> None:
    inputs = "[torch.randn(7, 37), torch.randn(7, 21)]"
    plan = build_plan(capture(_stub2(tmp_path, "torch.cat([x, y], dim=-1).relu()", inputs)))
    assert [a.example for a in plan.axes] == [7, 58]
    first, second = _reads(plan)
    # x: columns [0, x.shape[1]); y: from column 37 on, read at a1 - 37
    assert first.fill == 0.0 and first.lo is None and first.hi.terms == [(0, 1)]
    assert second.back and second.offset.mul == 37 and second.lo.mul == 37 and second.hi is None
    assert "relu(add(x[" in plan_text(plan)
    # the cat dim is the sum of two inputs' sizes: validation keeps it, grows the rows
    assert plan.variants == [[[10, 37], [10, 21]]]


def test_roll_is_a_cat_of_two_slices_of_one_input(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "torch.cat([x[:, 1:], x[:, :1]], dim=1) - x", "[torch.randn(7, 37)]")
    assert [a.example for a in plan.axes] == [7, 37]
    head, tail = _reads(plan)
    assert not head.back and head.offset.mul == 1 and head.hi.mul == 36
    assert tail.back and tail.offset.mul == 36 and tail.lo.mul == 36


def test_a_zero_after_the_tensor_bounds_the_read_at_its_end(tmp_path: Path) -> None:
    body = "torch.cat([x, torch.zeros_like(x[:, :1])], dim=1)[:, 1:] - x"
    plan = _plan(tmp_path, body, "[torch.randn(7, 37)]")
    (r,) = _reads(plan)
    # domain position j reads x[j + 1]; from j = x.shape[1] - 1 on it reads the zero
    assert r.offset.mul == 1 and r.fill == 0.0 and r.lo is None and r.hi.mul == 36


def test_two_dim_slice_reads_rows_at_an_offset_and_columns_narrowed(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "x[1:, :-1] * 2", "[torch.randn(7, 37)]")
    assert [a.example for a in plan.axes] == [6, 36]
    (r,) = _reads(plan)
    assert r.axis == 0 and r.offset.mul == 1 and r.fill is None
    (x,) = plan.inputs
    assert sorted(x.span) == [0, 1]  # strides use x's own 7 x 37


def test_offsets_along_two_dims_are_one_read_with_a_second_shift(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "x[:, 1:, 1:] - x[:, :-1, :-1]", "[torch.randn(3, 7, 37)]")
    assert [a.example for a in plan.axes] == [3, 6, 36]
    (r,) = _reads(plan)
    assert r.axis == 1 and r.offset.mul == 1 and r.shifts[2].mul == 1
    assert "sub(x[a1 + 1, a2 + 1], x)" in plan_text(plan)
    # dims sliced relative to their end stay at their captured size; the batch grows
    assert plan.variants == [[[6, 7, 37]]]


def test_stepped_slices_read_every_second_column_from_their_start(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "x[:, ::2] * x[:, 1::2]", "[torch.randn(7, 74)]")
    assert [a.example for a in plan.axes] == [7, 37]
    even, odd = _reads(plan)
    assert (even.step, even.offset.mul, odd.step, odd.offset.mul) == (2, 0, 2, 1)
    assert "mul(x[2*a1 + 0], x[2*a1 + 1])" in plan_text(plan)
    # the domain is half the input's columns: the sliced dim grows in steps of 2
    assert plan.variants == [[[10, 74]], [[7, 76]]]


def test_slices_of_a_computed_value_move_onto_the_input(tmp_path: Path) -> None:
    body = "(torch.sigmoid(x) * 2)[:, 1:] + (torch.sigmoid(x) * 2)[:, :-1]"
    plan = _plan(tmp_path, body, "[torch.randn(7, 37)]")
    assert [a.example for a in plan.axes] == [7, 36]
    (r,) = _reads(plan)
    assert r.offset.mul == 1 and r.fill is None
    text = plan_text(plan)
    assert "x[a1 + 1]" in text and text.count("exp(") == 2  # computed once per slice


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            "torch.cat([torch.zeros(8, 1), torch.cat([torch.zeros(1, 37), x], 0)], 1)"
            "[:-1, :-1] * 2",
            "with a fill on one of them",
        ),
        ("torch.cat([x, torch.ones_like(x[:, :1]), x], 1) * 2", "zero blocks only"),
        ("torch.cat([x, x * 2], 1) + 1", "cat of computed tensors is fused only as an output"),
        ("torch.cat([x.relu(), x.sum(1, keepdim=True)], 1)", "every part has one shape"),
        ("torch.softmax(x, 1)[:, 1:] * 2", "a slice of a computed value .* only as an output"),
        ("x.sum(1)[::2]", "step 2 of a computed value"),
        ("x.cumsum(0)[1:, :5]", "along two dims are not supported"),
        ("x[:, ::3] * 2", "steps 2, 4 are"),
        ("x[::2] * 2", "along the last axis only"),
    ],
)
def test_forms_still_not_covered_are_refused(tmp_path: Path, body: str, reason: str) -> None:
    with pytest.raises(PlanError, match=reason):
        build_plan(capture(_stub(tmp_path, body, "[torch.randn(7, 37)]")))


def test_cat_of_computed_tensors_stores_each_part_at_its_columns(tmp_path: Path) -> None:
    body = "torch.cat([x.relu(), y * 2], -1)"
    plan = build_plan(capture(_stub2(tmp_path, body, "[torch.randn(7, 37), torch.randn(7, 37)]")))
    (o,) = plan.outputs
    assert [a.example for a in plan.axes] == [7, 37]  # the domain is one part's shape
    assert len(o.parts) == 2 and o.node == o.parts[0] and o.cat_axis == 1
    assert o.dims is not None and [d.text(["x", "y"]) for d in o.dims] == [
        "x.shape[0]",
        "x.shape[1]*2",
    ]
    assert "cat along a1 of [relu(x), mul(y, 2)]" in plan_text(plan)


@pytest.mark.parametrize(
    ("body", "shape", "axis", "lo", "hi"),
    [
        # a reduction's rows: the last axis is reduced, the kept rows 0..4 of each batch stored
        ("x.sum(-1)[..., :5]", "(3, 7, 37)", 1, 0, 5),
        # a softmax's epilogue tile: stats over all 37 columns, the first 20 stored
        ("torch.softmax(x, -1)[:, :20]", "(7, 37)", 1, 0, 20),
        # a scan along the rows: rows from the second on, stored one row back
        ("x.cumsum(0)[1:]", "(7, 37)", 0, 1, 7),
        # a scan along the last axis from its second column: the tile holding column 1 is
        # gathered to the front of a work tile (no store from an unaligned UB position)
        ("x.cumsum(-1)[:, 1:]", "(7, 37)", 1, 1, 37),
    ],
)
def test_slice_of_a_computed_value_stores_only_its_range(
    tmp_path: Path, body: str, shape: str, axis: int, lo: int, hi: int
) -> None:
    plan = build_plan(capture(_stub(tmp_path, body, f"[torch.randn{shape}]")))
    (o,) = plan.outputs
    assert o.window is not None and (o.window.axis, o.window.lo, o.window.hi) == (axis, lo, hi)
    assert o.dims is not None and o.dims[axis].mul == hi - lo and not o.dims[axis].terms
    assert f"stored at a{axis} in [{lo}, {hi}) only" in plan_text(plan)
    # the bounds are captured constants: validation varies the shape but never the sliced dim
    # (here the plan axis is the input's dim of the same index)
    captured = plan.inputs[0].shape[axis]
    assert plan.variants and all(v[0][axis] == captured for v in plan.variants)
    assert any(v[0] != plan.inputs[0].shape for v in plan.variants)
