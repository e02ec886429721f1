"""The convolution's slab lowering (Load3D from an NC1HWC0 slab in L1, `lower/conv_slab.py`): the
cost model (`plan/conv_cost.py`) takes it only for the convs it can run and where it beats the
gathered im2col workspace, the counters it charges are the ones the emulator reports, and the
generated kernels validate (bias + ReLU through Fixpipe, other epilogues on the vector side)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_conv import STUBS, check_validated, write

from ascend_tools.chips import get_chip
from ascend_tools.cost import kernel_time
from ascend_tools.validate import validate_project
from kernelgen_lm.capture import capture
from kernelgen_lm.lower.project import write_conv_project
from kernelgen_lm.plan.conv import build_conv_plan
from kernelgen_lm.plan.conv_cost import gather_counters, slab_counters
from server.cli import main

CHIP = get_chip("ascend910b2")


def _plan(stub: str):
    return build_conv_plan(capture(STUBS / f"{stub}.py"), CHIP)


def test_small_bf16_conv_takes_the_slab_lowering_and_validates(tmp_path: Path, capsys) -> None:
    # 16 -> 16 channels on 13 x 11 (its variant 15 x 12, N + 1): the smallest stub the cost
    # model gives to the slab; bias + ReLU go through the cube and Fixpipe.
    plan = _plan("conv_slab_odd_relu_bf16")
    assert plan.slab and not plan.shared_weight, plan.lowering
    assert plan.fixpipe_epilogue == (True, True)
    out = check_validated("conv_slab_odd_relu_bf16", tmp_path, capsys)
    root = Path(out["project"])
    assert "mode conv (conv2d, Load3D slab)" in (root / "plan.txt").read_text()
    kernel = next((root / "op_kernel").glob("*.cpp")).read_text()
    assert "LoadData3DParamsV2" in kernel and "Mmad(" in kernel and "Matmul<" not in kernel
    # The cost model's slab counters are the emulator's, core by core: the re-layouts' GM
    # bytes (AIV), the slab and weight into L1, Fixpipe's output, Load3D's and the weight's
    # L1 -> L0 bytes (MTE1) and the MACs (AIC).
    counters = slab_counters(plan, CHIP)
    emulated = out["validation"]["counters"]["per_block"]
    keys = ("gm_to_ub_bytes", "ub_to_gm_bytes", "gm_to_l1_bytes", "l0c_to_gm_bytes",
            "l1_to_l0_bytes", "cube_macs")  # fmt: skip
    for key in keys:
        assert [b[key] for b in counters["per_block"]] == [b.get(key, 0) for b in emulated], key
    modelled = kernel_time(counters, CHIP).total_us
    assert modelled == pytest.approx(out["speed"]["kernel"]["total_us"], rel=1e-6)


def test_the_slab_is_refused_for_what_it_cannot_run_with_the_reason() -> None:
    cases = {
        "conv_2d_relu_fp32": "float32: Load3D's slab path is lowered for float16 and bfloat16",
        "conv_2d_groups_bf16": "groups > 1",
        "conv_2d_fp16": "Cin = 5 is not a multiple of C0 = 16",
        "conv_big_pointwise_fp16": "pointwise",
    }
    for stub, why in cases.items():
        plan = _plan(stub)
        assert not plan.slab and why in plan.lowering, (stub, plan.lowering)


def test_the_big_resnet_conv_takes_the_slab_with_one_shared_weight_relayout() -> None:
    # 64 -> 64 channels, 2 x 56 x 56: the gathered col costs 645 KB a core; the slab path's
    # weight re-layout per core (147 KB) costs more than one SyncAll, so it is shared.
    plan = _plan("conv_big_resnet_fp16")
    assert plan.slab and plan.shared_weight, plan.lowering
    slab = kernel_time(slab_counters(plan, CHIP, shared=True), CHIP).total_us
    own = kernel_time(slab_counters(plan, CHIP), CHIP).total_us
    gather = kernel_time(gather_counters(plan, CHIP), CHIP)
    assert slab < own < gather.total_us
    # The gather estimate is the emulated kernel's: 805 KB on the busiest core (less the
    # 112-byte bias the estimate leaves out, read alike by both lowerings).
    assert max(c.gm_bytes for c in gather.per_core) == 804976 - 112


def test_a_conv_with_few_positions_per_core_keeps_the_gather(tmp_path: Path) -> None:
    # 32 -> 64 channels, stride 2 on 27 x 23: the weight re-laid per core outweighs the col.
    ref = write(
        tmp_path,
        "nn.Conv2d(32, 64, 3, stride=2, padding=1).half()",
        "torch.relu(self.conv(x))",
        "torch.randn(2, 32, 27, 23, dtype=torch.float16)",
    )
    plan = build_conv_plan(capture(ref), CHIP)
    assert not plan.slab and plan.lowering.startswith("gather lowering (modelled slab")


def test_a_weight_larger_than_l1_keeps_the_gather(tmp_path: Path) -> None:
    # 256 -> 256 channels, 3 x 3, fp16: the re-laid weight alone is 1.2 MB, L1 holds 512 KB.
    ref = write(
        tmp_path,
        "nn.Conv2d(256, 256, 3, padding=1).half()",
        "self.conv(x)",
        "torch.randn(1, 256, 9, 9, dtype=torch.float16)",
    )
    plan = build_conv_plan(capture(ref), CHIP)
    assert not plan.slab and "do not fit L1 / UB" in plan.lowering, plan.lowering


def test_the_cost_model_reserves_the_ub_the_hosts_reserve() -> None:
    from kernelgen_lm.lower import host
    from kernelgen_lm.plan import conv_cost

    assert conv_cost.UB_RESERVE == host.UB_RESERVE


def test_only_bias_and_relu_go_through_fixpipe() -> None:
    assert _plan("conv_big_resnet_fp16").fixpipe_epilogue == (True, True)
    assert _plan("conv_2d_fp16").fixpipe_epilogue == (True, False)
    assert _plan("conv_2d_residual_fp16").fixpipe_epilogue is None  # a residual input
    assert _plan("conv_1d_fp32").fixpipe_epilogue is None  # GELU


# Forms the slab lowering must also get right, whichever lowering the model picks for them:
# (layer, body, input, whether bias/ReLU go through Fixpipe).
FORCED = {
    "residual_vector_epilogue": (
        "nn.Conv2d(16, 16, 3, padding=1).half()",
        "torch.relu(self.conv(x)) + x",
        "torch.randn(2, 16, 13, 11, dtype=torch.float16)",
        False,
    ),
    "conv1d_cout24_fixpipe": (
        "nn.Conv1d(32, 24, 5, padding=2).half()",
        "torch.relu(self.conv(x))",
        "torch.randn(2, 32, 37, dtype=torch.float16)",
        True,
    ),
    "dilated_strided_rows_no_bias_sigmoid": (
        "nn.Conv2d(16, 32, 3, stride=(2, 1), padding=(2, 1), dilation=(2, 1), bias=False).half()",
        "torch.sigmoid(self.conv(x))",
        "torch.randn(1, 16, 17, 13, dtype=torch.float16)",
        False,
    ),
}


@pytest.mark.slow  # about 40 s each on the emulator
@pytest.mark.parametrize("form", sorted(FORCED))
def test_the_slab_lowering_validates_other_forms(form: str, tmp_path: Path) -> None:
    layer, body, inputs, fixpipe = FORCED[form]
    ref = write(tmp_path, layer, body, inputs)
    plan = build_conv_plan(capture(ref), CHIP)
    assert (plan.fixpipe_epilogue is not None) == fixpipe
    plan = plan.model_copy(update={"slab": True, "lowering": "slab lowering (test)"})
    project = write_conv_project(plan, CHIP, tmp_path / "proj", ref)
    report = validate_project(project.root, ref, chip=CHIP.name, trials=1)
    assert report.ok, report.model_dump_json()[:2000]
    kernel = next((project.root / "op_kernel").glob("*.cpp")).read_text()
    assert ("Epilogue(b, oy0, pn);" in kernel) != fixpipe


@pytest.mark.slow  # the stride-2 stub with its variant: ~1 min
def test_strided_slab_stub_validates(tmp_path: Path, capsys) -> None:
    assert _plan("conv_slab_s2_relu_fp16").slab
    out = check_validated("conv_slab_s2_relu_fp16", tmp_path, capsys)
    assert out["speed"]["speedup"] > 1


@pytest.mark.slow  # 2 x 64 x 56 x 56: minutes on the emulator
def test_big_resnet_conv_validates_on_the_slab(tmp_path: Path, capsys) -> None:
    code = main(
        ["generate", str(STUBS / "conv_big_resnet_fp16.py"), "-o", str(tmp_path / "big"),
         "--format", "json", "--backend", "rules"]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["validation"]["ok"], out.get("error")
    assert "weight re-laid once, shared" in (Path(out["project"]) / "plan.txt").read_text()
