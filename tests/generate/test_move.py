"""Data movement on the rule path: the last-two-axes transpose (through UB, one Gather per
tile), cat/stack and step-1 slices, strided views of any chain (permute, strided slices,
split/chunk/unbind with several outputs, flip, expand, repeat) and index_select/gather validate
on the emulator with odd sizes; what is not covered is refused with a PlanError naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.move import build_move_plan, is_move_graph
from server.cli import main

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"
# A cat of inputs followed by elementwise work is fused into the vector kernel (test_fuse_cat).
MOVE_STUBS = sorted(p.stem for p in STUBS.glob("move_*.py") if not p.stem.startswith("move_cat2_"))
# The default run validates the tiled transpose and the index gather; the strided views with
# several outputs (chunk), stack and the other forms run under slow.
DEFAULT = ("move_transpose_fp32", "move_gather_fp32")


# Forms validated at their captured shape only: arange has no input to resize, expand's target
# is a literal of the forward, and a stack of several inputs keeps its captured sizes in
# validation (docs/ARCHITECTURE.md: the sum of inputs' sizes is no runtime size the plan has).
FIXED_SHAPE = ("move_arange_", "move_expand_", "move_stack_")


def check_validated(stub: str, tmp_path: Path, capsys) -> dict:
    out_dir = tmp_path / stub
    code = main(
        [
            "generate",
            str(STUBS / f"{stub}.py"),
            "-o",
            str(out_dir),
            "--format",
            "json",
            "--backend",
            "rules",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out.get("error")
    assert out["ok"] and out["validation"]["ok"]
    if not stub.startswith(FIXED_SHAPE):
        assert any("shape" in c["name"] for c in out["validation"]["cases"])
    assert "mode move" in (out_dir / "plan.txt").read_text()
    assert out["speed"] is not None and out["speed"]["speedup"] > 0
    assert main(["lint", str(out_dir), "--format", "json"]) == 0
    assert not json.loads(capsys.readouterr().out)["diagnostics"]
    return out


@pytest.mark.parametrize("stub", DEFAULT)
def test_each_move_form_validates_and_lints_clean(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("stub", [s for s in MOVE_STUBS if s not in DEFAULT])
def test_every_move_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


def _stub(tmp_path: Path, args: str, body: str, inputs: str) -> Path:
    p = tmp_path / "stub.py"
    p.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        f"    def forward(self, {args}):\n        return {body}\n\n\n"
        f"def get_inputs():\n    return {inputs}\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    return p


@pytest.mark.parametrize(
    ("body", "op", "steps"),
    [
        ("x.permute(2, 0, 1).contiguous()", "view", [["permute"]]),
        ("x[:, ::2]", "view", [["slice"]]),
        ("torch.chunk(x, 2, dim=-1)", "view", [["slice"], ["slice"]]),
        ("torch.unbind(x, 0)", "view", [["slice", "squeeze"]] * 3),
        ("x.flip(-1).repeat(1, 2, 1)", "view", [["flip", "repeat"]]),
    ],
)
def test_view_chains_plan_one_part_per_output(
    tmp_path: Path, body: str, op: str, steps: list[list[str]]
) -> None:
    graph = capture(_stub(tmp_path, "x", body, "[torch.randn(3, 4, 6)]"))
    assert is_move_graph(graph)
    plan = build_move_plan(graph)
    assert plan.op == op
    assert [[s.kind for s in v.steps] for v in plan.views] == steps


def test_split_axis_keeps_its_size_in_validation_variants(tmp_path: Path) -> None:
    """torch.chunk of a grown axis makes other pieces: the variants leave that axis alone."""
    graph = capture(_stub(tmp_path, "x", "torch.chunk(x, 3, dim=1)", "[torch.randn(5, 12)]"))
    plan = build_move_plan(graph)
    assert plan.variants == [[[8, 12]]]


@pytest.mark.parametrize(
    ("args", "body", "inputs", "reason"),
    [
        ("x", "x.t().reshape(-1)[::2]", "[torch.randn(3, 4)]", "reshape inside a view chain"),
        ("x", "x.repeat(2, 1).t()", "[torch.randn(3, 4)]", "repeat last"),
        ("x", "x.flip(0)", "[torch.randint(0, 5, (3, 4))]", "views of int64"),
        (
            "x, i",
            "torch.gather(x, 1, i)",
            "[torch.randint(0, 5, (3, 4), dtype=torch.int32), torch.randint(0, 4, (3, 2))]",
            "gather of int32",
        ),
        (
            "x, i",
            "torch.index_select(x, 0, i)",
            "[torch.randint(0, 5, (6, 4), dtype=torch.int32), torch.randint(0, 6, (3,))]",
            "index_select of int32",
        ),
    ],
)
def test_unsupported_moves_are_refused(
    tmp_path: Path, args: str, body: str, inputs: str, reason: str
) -> None:
    graph = capture(_stub(tmp_path, args, body, inputs))
    assert is_move_graph(graph)
    with pytest.raises(PlanError, match=reason):
        build_move_plan(graph)


def test_expand_materialisation_is_one_eager_copy() -> None:
    """x.expand(...).contiguous() copies in eager mode: the modelled baseline charges it."""
    from ascend_tools.chips import get_chip
    from kernelgen_lm.speed import eager_time

    eager = eager_time(capture(STUBS / "move_expand_fp32.py"), get_chip("ascend910b2"))
    assert [op.target for op in eager.ops] == ["aten.contiguous.default"]
    assert eager.ops[0].gm_bytes == 2 * 5 * 7 * 33 * 4  # the expanded view read, the copy written
