"""The matmul family of the rule path: products on the Matmul high-level API with fused vector
epilogues validate on the emulator (odd M, N, K and their +3/+1/+1 variant), and the forms it
does not cover are refused at plan time with a message naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from kernelgen_lm.capture import capture
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.matmul import build_matmul_plan, matmul_variants
from server.cli import main

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"
# mm_big_*: transformer-sized, minutes on the emulator; validated by the generation bench only.
MM_STUBS = sorted(p.stem for p in STUBS.glob("mm_*.py") if not p.stem.startswith("mm_big_"))
# The default run: a transposed fp32 product with relu, scale, residual and a cast to half
# (the others, 3-D fp16 nn.Linear with its bias in the epilogue included: slow), and one staged
# kernel (plan/stages.py: Linear + ReLU, then a row sum as the second stage).
DEFAULT = ("mm_epilogue_fp32",)
STAGED_DEFAULT = "mm_linear_relu_sum_fp32"

STUB = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return {body}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
"""


def write(tmp_path: Path, body: str, inputs: str = "torch.randn(9, 5), torch.randn(5, 7)") -> Path:
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(body=body, inputs=inputs))
    return p


def generate(stub: Path, out: Path, capsys) -> tuple[int, dict]:
    code = main(["generate", str(stub), "-o", str(out), "--format", "json", "--backend", "rules"])
    return code, json.loads(capsys.readouterr().out)


def check_validated(stub: str, tmp_path: Path, capsys) -> dict:
    code, out = generate(STUBS / f"{stub}.py", tmp_path / stub, capsys)
    assert code == 0, out.get("error")
    assert out["ok"] and out["validation"]["ok"]
    cases = [c["name"] for c in out["validation"]["cases"]]
    assert any("shape" in c for c in cases), cases  # the odd M/N/K variant ran too
    assert "mode matmul" in (Path(out["project"]) / "plan.txt").read_text()
    assert out["speed"]["kernel"]["total_us"] > 0
    lint = main(["lint", str(tmp_path / stub), "--format", "json"])
    diags = json.loads(capsys.readouterr().out)
    assert lint == 0 and not diags.get("diagnostics"), diags
    return out


@pytest.mark.parametrize("stub", DEFAULT)
def test_matmul_stub_validates_and_lints_clean(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


def test_staged_kernel_validates_and_counts_the_intermediates_round_trip(
    tmp_path: Path, capsys
) -> None:
    """Linear(37 -> 45) + ReLU, then sum over the features: stage 1 writes the [7, 45] float
    intermediate to the workspace, every block passes the SyncAll, stage 2 reads it back and
    writes the [7, 1] sums. The emulator's counters (which the modelled speed prices) hold
    exactly that traffic, so the stage split's GM round trip is charged."""
    out = check_validated(STAGED_DEFAULT, tmp_path, capsys)
    plan = (Path(out["project"]) / "plan.txt").read_text()
    assert "mode matmul-staged" in plan and "stage 2 (vector)" in plan
    counters = out["validation"]["counters"]
    total = counters["total"]
    mid, result = 7 * 45 * 4, 7 * 1 * 4  # the counters are the captured shapes' run
    assert total["ub_to_gm_bytes"] == mid + result
    assert total["gm_to_ub_bytes"] == mid
    assert total["sync_alls"] == counters["block_dim"]  # one barrier, every block
    assert out["speed"]["kernel"]["sync_us"] > 0
    assert out["speed"]["eager"]["launches"] == 3  # linear, relu, sum


@pytest.mark.slow
@pytest.mark.parametrize("stub", [s for s in MM_STUBS if s not in (*DEFAULT, STAGED_DEFAULT)])
def test_every_matmul_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(stub, tmp_path, capsys)


REFUSED = {
    "two products": (
        "(a @ b) @ b.t()",
        "torch.randn(9, 5), torch.randn(5, 5)",
        "2 matrix products",
    ),
    "prologue": ("torch.relu(a) @ b", None, "ops before the product"),
    "reduction epilogue": ("torch.softmax(a @ b, dim=-1)", None, "reductions after the matrix"),
    "mixed dtypes": ("a @ b.float()", "torch.randn(9, 5).half(), torch.randn(5, 7)", "dtypes"),
    "flattened result": ("(a @ b).flatten()", None, "fewer than two axes"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_unsupported_forms_are_refused_with_the_reason(case: str, tmp_path: Path) -> None:
    body, inputs, text = REFUSED[case]
    graph = capture(write(tmp_path, body, inputs or "torch.randn(9, 5), torch.randn(5, 7)"))
    with pytest.raises(PlanError, match=text):
        build_matmul_plan(graph, get_chip())


def test_chips_without_the_path_are_refused(tmp_path: Path) -> None:
    graph = capture(write(tmp_path, "a @ b"))
    with pytest.raises(PlanError, match="float32 matrix products are not supported by the cube"):
        build_matmul_plan(graph, get_chip("ascend310p"))
    with pytest.raises(PlanError, match="not documented for this chip"):
        build_matmul_plan(graph, get_chip("ascend910"))
    assert build_matmul_plan(graph, get_chip("ascend910b2")).dtype == "float32"
    half = capture(
        write(tmp_path, "torch.relu(a @ b)", "torch.randn(9, 5).half(), torch.randn(5, 7).half()")
    )
    with pytest.raises(PlanError, match="no DataCopyPad"):
        build_matmul_plan(half, get_chip("ascend310p"))


def test_generate_reports_the_refusal(tmp_path: Path, capsys) -> None:
    code, out = generate(write(tmp_path, "torch.relu(a) @ b"), tmp_path / "out", capsys)
    assert code != 0 and not out["ok"]
    assert "aten.relu" in out["error"] and "ops before the product" in out["error"]


def test_variants_grow_m_n_k_together_and_parameters_pin_theirs(tmp_path: Path) -> None:
    plan = build_matmul_plan(
        capture(write(tmp_path, "a @ b.t()", "torch.randn(9, 5), torch.randn(7, 5)"))
    )
    assert plan.b.trans and not plan.a.trans
    assert matmul_variants(plan) == [[[12, 6], [8, 6]]]
    linear = build_matmul_plan(capture(STUBS / "mm_linear_fp32.py"))
    assert linear.bias is not None and linear.epilogue is None  # bias added by the Matmul API
    assert matmul_variants(linear) == [[[48, 37]]]  # weight [29, 37] pins N and K


def test_batches_fold_into_m_only_where_every_row_maps_to_one_result_row() -> None:
    def plan(stub: str):
        return build_matmul_plan(capture(STUBS / f"{stub}.py"))

    assert plan("mm_linear_fp16").folded  # [2, 37, 24] x weight: one [74, 24] product
    assert not plan("mm_bcast_fp32").folded  # B has its own batch axis
    assert not plan("mm_bcast_residual_fp32").folded  # the residual repeats per batch
