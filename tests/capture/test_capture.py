"""Capture of KernelBench-format stubs: inputs, parameters order, and error messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelgen_lm.capture import CaptureError, capture

WITH_PARAMS = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return [8]
"""


def test_parameters_follow_forward_inputs_in_named_parameters_order(tmp_path: Path) -> None:
    p = tmp_path / "ln.py"
    p.write_text(WITH_PARAMS)
    g = capture(p)
    assert [(t.kind, t.target) for t in g.inputs] == [
        ("input", ""),
        ("parameter", "ln.weight"),
        ("parameter", "ln.bias"),
    ]
    assert g.op_name == "LnCustom"
    assert any(n.target == "aten.native_layer_norm.default" for n in g.nodes)


def test_file_without_model_is_refused_with_a_message(tmp_path: Path) -> None:
    p = tmp_path / "bad.py"
    p.write_text("x = 1\n")
    with pytest.raises(CaptureError, match="no `class Model"):
        capture(p)


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.py"
    p.write_text("import torch\n\ndef f(:\n")
    with pytest.raises(CaptureError, match=r"broken.py:3: syntax error"):
        capture(p)


def test_data_dependent_control_flow_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "dyn.py"
    p.write_text(WITH_PARAMS.replace("return self.ln(x)", "return x if x.sum() > 0 else -x"))
    with pytest.raises(CaptureError, match=r"torch\.export failed"):
        capture(p)


UINT16_RESULT = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.to(torch.uint16) + 1


def get_inputs():
    return [torch.randint(0, 5, (4, 8), dtype=torch.int32)]


def get_init_inputs():
    return []
"""


def test_dtype_the_lowering_cannot_declare_is_refused_by_name(tmp_path: Path) -> None:
    # uint16 has a reference (toolchain) name but no GE dtype in the lowering.
    p = tmp_path / "u16.py"
    p.write_text(UINT16_RESULT)
    with pytest.raises(CaptureError, match=r"unsupported dtype torch\.uint16"):
        capture(p)


def test_captured_dtypes_are_exactly_those_the_lowering_declares() -> None:
    from kernelgen_lm.capture import DTYPE_NAMES
    from kernelgen_lm.lower.host import GE_DTYPE

    assert sorted(DTYPE_NAMES.values()) == sorted(GE_DTYPE)
