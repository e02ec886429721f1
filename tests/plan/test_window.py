"""Pooling plans: window parameters normalized to 3D, 1D pools seen through torch's unsqueeze."""

from __future__ import annotations

from pathlib import Path

from kernelgen_lm.capture import capture
from kernelgen_lm.plan.window import build_window_plan, window_text

STUB = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {body}


def get_inputs():
    return [{inputs}]


def get_init_inputs():
    return []
"""


def plan(tmp_path: Path, body: str, inputs: str):
    p = tmp_path / "pool.py"
    p.write_text(STUB.format(body=body, inputs=inputs))
    return build_window_plan(capture(p))


def test_max_pool2d_parameters_are_normalized_to_three_dims(tmp_path: Path) -> None:
    w = plan(tmp_path, "F.max_pool2d(x, 3, 2, 1)", "torch.randn(2, 3, 9, 10)")
    assert (w.op, w.kernel, w.stride, w.padding) == ("max", [1, 3, 3], [1, 2, 2], [0, 1, 1])
    assert w.spatial == [-1, 2, 3]  # no depth dim; H and W are input dims 2 and 3


def test_avg_pool1d_keeps_count_include_pad_and_ceil_mode(tmp_path: Path) -> None:
    w = plan(
        tmp_path,
        "F.avg_pool1d(x, 4, 2, 1, ceil_mode=True, count_include_pad=False)",
        "torch.randn(2, 3, 17)",
    )
    assert w.op == "avg" and w.ceil_mode and not w.count_include_pad
    assert w.kernel == [1, 1, 4] and w.spatial == [-1, -1, 2]
    assert "avg_pool" in window_text(w)
