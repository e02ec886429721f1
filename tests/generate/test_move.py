"""Data movement on the rule path: the last-two-axes transpose (through UB, one Gather per
tile), cat and step-1 slices validate on the emulator with odd sizes; other permutes and
strided slices are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.move import build_move_plan, is_move_graph
from server.cli import main

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"
MOVE_STUBS = sorted(p.stem for p in STUBS.glob("move_*.py"))
DEFAULT = "move_transpose_fp32"


def check_validated(stub: str, tmp_path: Path, capsys) -> None:
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
    assert any("shape" in c["name"] for c in out["validation"]["cases"])
    assert "mode move" in (out_dir / "plan.txt").read_text()
    assert main(["lint", str(out_dir), "--format", "json"]) == 0
    assert not json.loads(capsys.readouterr().out)["diagnostics"]


def test_transpose_stub_validates_and_lints_clean(tmp_path: Path, capsys) -> None:
    check_validated(DEFAULT, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("stub", [s for s in MOVE_STUBS if s != DEFAULT])
def test_every_move_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("x.permute(2, 0, 1).contiguous()", "only the last-two-axes transpose"),
        ("x[:, ::2]", "step 1 only"),
    ],
)
def test_unsupported_moves_are_refused(tmp_path: Path, body: str, reason: str) -> None:
    p = tmp_path / "stub.py"
    p.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        f"    def forward(self, x):\n        return {body}\n\n\n"
        "def get_inputs():\n    return [torch.randn(3, 4, 5)]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    graph = capture(p)
    assert is_move_graph(graph)
    with pytest.raises(PlanError, match=reason):
        build_move_plan(graph)
