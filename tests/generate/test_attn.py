"""The attention family of the rule path: softmax(Q K^T * scale [+ mask]) V written out in torch
ops and F.scaled_dot_product_attention lower to one fused flash-attention kernel that validates
on the emulator (odd Sq and Sk, several key blocks, their +3/+5 variant), and the forms it does
not cover are refused at plan time with a message naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from kernelgen_lm.capture import capture
from kernelgen_lm.families import build_family_plan
from kernelgen_lm.lower.attn import AttnEmitter, AttnLayout
from kernelgen_lm.plan.attn import AttnPlan, attn_variants, build_attn_plan
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.speed import eager_time
from server.cli import main

STUBS = Path(__file__).resolve().parents[2] / "bench" / "stubs"
ATTN_STUBS = sorted(p.stem for p in STUBS.glob("attn_*.py"))

STUB = """
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, {args}):
        {body}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
"""
QKV = "torch.randn(1, 2, 19, 64), torch.randn(1, 2, 23, 64), torch.randn(1, 2, 23, 64)"


def write(tmp_path: Path, body: str, inputs: str = QKV, args: str = "q, k, v") -> Path:
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(args=args, body=body, inputs=inputs))
    return p


def plan_of(tmp_path: Path, body: str, inputs: str = QKV, args: str = "q, k, v") -> AttnPlan:
    return build_attn_plan(capture(write(tmp_path, body, inputs, args)), get_chip())


def generate(stub: Path, out: Path, capsys) -> dict:
    code = main(["generate", str(stub), "-o", str(out), "--format", "json", "--backend", "rules"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0, res.get("error")
    return res


def check_validated(stub: Path, out: Path, capsys) -> dict:
    res = generate(stub, out, capsys)
    assert res["ok"] and res["validation"]["ok"]
    cases = [c["name"] for c in res["validation"]["cases"]]
    assert any("shape" in c for c in cases), cases  # the odd Sq + 3 / Sk + 5 variant ran too
    assert "mode attn" in (Path(res["project"]) / "plan.txt").read_text()
    assert res["speed"]["kernel"]["total_us"] > 0 and res["speed"]["speedup"] > 0
    lint = main(["lint", str(out), "--format", "json"])
    diags = json.loads(capsys.readouterr().out)
    assert lint == 0 and not diags.get("diagnostics"), diags
    return res


# The default run: one small case per source form. Sk = 133 > BK = 128 keys, so the online
# softmax rescales the accumulator across two key blocks, the second a 5-key tail.
def test_written_out_attention_validates_across_key_blocks(tmp_path: Path, capsys) -> None:
    stub = write(
        tmp_path,
        "return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v",
        "torch.randn(1, 2, 19, 64), torch.randn(1, 2, 133, 64), torch.randn(1, 2, 133, 64)",
    )
    res = check_validated(stub, tmp_path / "out", capsys)
    [kernel] = (Path(res["project"]) / "op_kernel").glob("*.cpp")
    text = kernel.read_text()
    assert "SoftmaxFlashV2<float, true>" in text and "GetUserWorkspace" in text


def test_causal_sdpa_in_half_validates(tmp_path: Path, capsys) -> None:
    # 70 rows: two 64-row query blocks, the second's diagonal block a 6-row tail.
    stub = write(
        tmp_path,
        "return F.scaled_dot_product_attention(q, k, v, is_causal=True)",
        "torch.randn(1, 70, 64).half(), torch.randn(1, 70, 64).half(), "
        "torch.randn(1, 70, 64).half()",
    )
    res = check_validated(stub, tmp_path / "out", capsys)
    assert [o["api"] for o in res["speed"]["eager"]["ops"]] == ["Matmul", "SoftMax", "Matmul"]


@pytest.mark.slow
@pytest.mark.parametrize("stub", ATTN_STUBS)
def test_every_attention_stub_validates(stub: str, tmp_path: Path, capsys) -> None:
    check_validated(STUBS / f"{stub}.py", tmp_path / stub, capsys)


def test_the_family_claims_attention_before_matmul(tmp_path: Path) -> None:
    written = capture(write(tmp_path, "return torch.softmax(q @ k.mT * 0.1, dim=-1) @ v"))
    assert isinstance(build_family_plan(written, get_chip()), AttnPlan)
    sdpa = capture(write(tmp_path, "return F.scaled_dot_product_attention(q, k, v)"))
    plan = build_family_plan(sdpa, get_chip())
    assert isinstance(plan, AttnPlan) and plan.source == "sdpa"
    assert plan.scale == pytest.approx(64**-0.5)


def test_scales_and_masks_are_read_from_either_form(tmp_path: Path) -> None:
    mask_in = QKV + ", torch.randn(19, 23)"
    p = plan_of(
        tmp_path,
        "return torch.softmax((q * 0.5) @ (k * 0.25).mT + m, -1) @ v",
        mask_in,
        "q, k, v, m",
    )
    assert p.scale == pytest.approx(0.125) and p.mask == 3 and p.mask_kind == "add"
    bool_in = QKV + ", torch.rand(19, 23) > 0.5"
    p = plan_of(
        tmp_path,
        "return torch.softmax((q @ k.mT).masked_fill(m, float('-inf')), -1) @ v",
        bool_in,
        "q, k, v, m",
    )
    assert p.mask_kind == "drop" and p.scale == 1.0
    p = plan_of(
        tmp_path,
        "return torch.softmax((q @ k.mT).masked_fill(~(m == 0), float('-inf')), -1) @ v",
        bool_in,
        "q, k, v, m",
    )
    assert p.mask_kind == "drop" and p.mask == 3  # two inversions: True is masked
    p = plan_of(
        tmp_path,
        "return F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3)",
        bool_in,
        "q, k, v, m",
    )
    assert p.mask_kind == "keep" and p.scale == pytest.approx(0.3)
    p = plan_of(tmp_path, "return F.scaled_dot_product_attention(q, k, v, is_causal=True)")
    assert p.causal and p.mask is None


REFUSED = {
    "dropout": ("return F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)", None, "dropout"),
    "gqa": (
        "return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)",
        "torch.randn(1, 4, 19, 64), torch.randn(1, 2, 23, 64), torch.randn(1, 2, 23, 64)",
        "enable_gqa",
    ),
    "broadcast heads": (
        "return torch.softmax(q @ k.mT, -1) @ v",
        "torch.randn(1, 2, 19, 64), torch.randn(1, 1, 23, 64), torch.randn(1, 1, 23, 64)",
        "batch axes must be equal",
    ),
    "projection": (
        "return F.scaled_dot_product_attention(q.relu(), k, v)",
        None,
        "projections are not fused",
    ),
    "softmax over queries": (
        "return torch.softmax(q @ k.mT, dim=-2) @ v",
        None,
        "other than the last",
    ),
    "residual after": ("return torch.softmax(q @ k.mT, -1) @ v + q", None, "after the attention"),
    "float masked_fill": (
        "return torch.softmax((q @ k.mT).masked_fill(m == 0, float('-inf')), -1) @ v",
        QKV + ", torch.randn(19, 23)",
        "only bool masks are fused",
    ),
    "op on the scores": ("return torch.softmax(torch.tanh(q @ k.mT), -1) @ v", None, "not fused"),
    "value transposed": (
        "return torch.softmax(q @ k.mT, -1) @ v.mT",
        "torch.randn(1, 2, 19, 64), torch.randn(1, 2, 23, 64), torch.randn(1, 2, 64, 23)",
        "untransposed",
    ),
    "value head too large": (
        "return F.scaled_dot_product_attention(q, k, v)",
        "torch.randn(1, 19, 64), torch.randn(1, 23, 64), torch.randn(1, 23, 300)",
        "value head size 300",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_unsupported_forms_are_refused_with_the_reason(case: str, tmp_path: Path) -> None:
    body, inputs, text = REFUSED[case]
    inputs = inputs or QKV
    args = "q, k, v, m" if inputs.count("torch.") == 4 else "q, k, v"
    with pytest.raises(PlanError, match=text):
        plan_of(tmp_path, body, inputs, args)


def test_masks_broadcast_along_keys_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="broadcast along the key axis"):
        plan_of(
            tmp_path,
            "return F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
            QKV + ", torch.randn(19, 1)",
            "q, k, v, m",
        )


def test_chips_without_the_cube_path_are_refused(tmp_path: Path) -> None:
    graph = capture(write(tmp_path, "return F.scaled_dot_product_attention(q, k, v)"))
    with pytest.raises(PlanError, match="not documented for this chip"):
        build_attn_plan(graph, get_chip("ascend910"))
    with pytest.raises(PlanError, match="float32 attention is not supported by the cube"):
        build_attn_plan(graph, get_chip("ascend310p"))


def test_variants_grow_the_sequences_and_the_mask_with_them(tmp_path: Path) -> None:
    p = plan_of(
        tmp_path,
        "return F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
        QKV + ", torch.randn(1, 1, 19, 23)",
        "q, k, v, m",
    )
    assert attn_variants(p) == [[[1, 2, 22, 64], [1, 2, 28, 64], [1, 2, 28, 64], [1, 1, 22, 28]]]


def test_blocks_fit_ub_and_causal_blocks_are_square(tmp_path: Path) -> None:
    chip = get_chip()
    wide = plan_of(
        tmp_path,
        "return F.scaled_dot_product_attention(q, k, v)",
        "torch.randn(1, 19, 128), torch.randn(1, 23, 128), torch.randn(1, 23, 256)",
    )
    lay = AttnLayout(wide, chip)
    assert lay.ub_bytes(lay.bq, lay.bk) <= chip.ub_bytes and lay.dva == 256
    causal = AttnLayout(
        plan_of(tmp_path, "return F.scaled_dot_product_attention(q, k, v, is_causal=True)"), chip
    )
    assert causal.bq == causal.bk
    text = AttnEmitter(wide, chip).kernel()
    # 256 accumulator columns: four 64-lane repeats per row for each rescale and the final divide.
    assert text.count("Mul(acc[") == 4 and text.count("Div(acc[") == 4


def test_eager_sdpa_is_two_products_and_a_softmax_through_gm(tmp_path: Path) -> None:
    graph = capture(write(tmp_path, "return F.scaled_dot_product_attention(q, k, v)"))
    eager = eager_time(graph, get_chip())
    assert [o.api for o in eager.ops] == ["Matmul", "SoftMax", "Matmul"]
    scores = 2 * 19 * 23 * 4
    assert eager.ops[1].gm_bytes == 2 * scores  # the scores read and written once
