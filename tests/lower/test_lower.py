"""Lowering: project layout, tail handling per chip, tiling consistency between host and kernel."""

from __future__ import annotations

import re
from pathlib import Path

from ascend_tools.chips import get_chip
from kernelgen_lm.capture import capture
from kernelgen_lm.lower.project import write_project
from kernelgen_lm.plan.build import build_plan

STUB = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.softmax(x, dim=-1) * y


def get_inputs():
    return [torch.randn(7, 33, dtype=torch.float16), torch.randn(7, 33, dtype=torch.float16)]


def get_init_inputs():
    return []
"""


def lowered(tmp_path: Path, chip: str) -> Path:
    ref = tmp_path / "smx.py"
    ref.write_text(STUB)
    out = tmp_path / chip
    write_project(build_plan(capture(ref)), get_chip(chip), out, ref)
    return out


def test_project_has_msopgen_layout_binding_and_plan(tmp_path: Path) -> None:
    out = lowered(tmp_path, "ascend910b2")
    for rel in (
        "op_host/smx_custom.cpp",
        "op_host/smx_custom_tiling.h",
        "op_kernel/smx_custom.cpp",
        "plan.txt",
        "framework/smx_custom_binding.cpp",
        "framework/model_new.py",
    ):
        assert (out / rel).is_file(), rel
    kernel = (out / "op_kernel/smx_custom.cpp").read_text()
    assert re.search(
        r"void smx_custom\(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, "
        r"GM_ADDR workspace, GM_ADDR tiling\)",
        kernel,
    )
    assert "EXEC_NPU_CMD(aclnnSmxCustom" in (out / "framework/smx_custom_binding.cpp").read_text()


def test_tail_uses_datacopypad_only_on_chips_that_have_it(tmp_path: Path) -> None:
    assert (
        "DataCopyPad" in (lowered(tmp_path, "ascend910b2") / "op_kernel/smx_custom.cpp").read_text()
    )
    old = (lowered(tmp_path, "ascend910") / "op_kernel/smx_custom.cpp").read_text()
    assert "DataCopyPad(" not in old and "SetValue" in old


def test_half_inputs_are_cast_to_float_and_back(tmp_path: Path) -> None:
    kernel = (lowered(tmp_path, "ascend910b2") / "op_kernel/smx_custom.cpp").read_text()
    assert "RoundMode::CAST_NONE" in kernel and "RoundMode::CAST_RINT" in kernel


def test_every_tiling_field_set_by_the_host_is_read_by_the_kernel(tmp_path: Path) -> None:
    out = lowered(tmp_path, "ascend910b2")
    header = (out / "op_host/smx_custom_tiling.h").read_text()
    fields = re.findall(r"TILING_DATA_FIELD_DEF\(uint32_t, (\w+)\)", header)
    host = (out / "op_host/smx_custom.cpp").read_text()
    kernel = (out / "op_kernel/smx_custom.cpp").read_text()
    assert fields
    for f in fields:
        assert f"set_{f}(" in host
        assert f"td.{f}" in kernel
    assert "GetInputShape" in host  # tiling from runtime shapes
