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
