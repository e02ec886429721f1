"""The eager baseline from a captured graph, the speed-up ratio and the suite metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.cost import even_counters
from kernelgen_lm.capture import capture
from kernelgen_lm.speed import eager_time, speed_report, speed_summary

CHIP = get_chip("ascend910b2")

CHAIN = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return (torch.exp(x) + y).view(-1) * 2.0


def get_inputs():
    return [torch.randn(64, 1024), torch.randn(64, 1024)]


def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("chain") / "chain.py"
    path.write_text(CHAIN)
    return capture(path)


def test_eager_counts_one_launch_per_compute_op_and_ignores_views(chain) -> None:
    eager = eager_time(chain, CHIP)
    assert [op.target for op in eager.ops] == [
        "aten.exp.default",
        "aten.add.Tensor",
        "aten.mul.Tensor",
    ]
    assert eager.launches == 3
    n = 64 * 1024 * 4
    # exp reads x and writes its result; add reads two operands and writes one.
    assert [op.gm_bytes for op in eager.ops] == [2 * n, 3 * n, 2 * n]
    assert eager.total_us == pytest.approx(sum(op.total_us for op in eager.ops))
    assert eager.total_us >= 3 * CHIP.perf.launch_us


FUSED = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, y):
        return F.mse_loss(torch.softmax(x, dim=-1), y.float())


def get_inputs():
    return [torch.randn(64, 1024), torch.randn(64, 1024)]


def get_init_inputs():
    return []
"""


def test_eager_launches_fused_torch_ops_once_and_skips_no_op_casts(tmp_path: Path) -> None:
    path = tmp_path / "fused.py"
    path.write_text(FUSED)
    graph = capture(path)
    # The kernel plan sees the core-ATen decomposition; eager runs softmax and mse_loss as one
    # kernel each, and `y.float()` of a float tensor is no kernel at all.
    assert len(graph.nodes) > 3
    eager = eager_time(graph, CHIP)
    assert [op.target for op in eager.ops] == ["aten.softmax.int", "aten.mse_loss.default"]
    assert [op.api for op in eager.ops] == ["SoftMax", "ReduceSum"]


def test_speedup_is_eager_over_kernel_time(chain) -> None:
    n = 64 * 1024 * 4
    fused = even_counters(3 * n, {"Exp": 1024, "Add": 1024, "Muls": 1024}, 48)
    report = speed_report(chain, fused, CHIP)
    assert report.speedup == pytest.approx(report.eager.total_us / report.kernel.total_us)
    assert report.speedup > 1  # one launch and one pass over GM instead of three
    assert "model, not measured" in report.line()
    single_core = speed_report(chain, even_counters(3 * n, {"Exp": 1024}, 1), CHIP)
    assert single_core.speedup < report.speedup


def test_fast_p_counts_stubs_that_are_correct_and_fast_enough() -> None:
    s = speed_summary([(True, 2.0), (True, 0.9), (True, 0.5), (False, None), (True, 0.1)])
    assert (s.total, s.passed, s.pass_rate) == (5, 4, 0.8)
    assert s.fast == {"1.0": 0.2, "0.8": 0.4, "0.2": 0.6}
    assert s.geomean_speedup == pytest.approx((2.0 * 0.9 * 0.5 * 0.1) ** 0.25)
    empty = speed_summary([])
    assert empty.total == 0 and empty.geomean_speedup is None


def test_eager_matrix_products_run_on_the_cube(tmp_path: Path) -> None:
    path = tmp_path / "mm.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, a, b):\n        return torch.relu(a @ b)\n\n\n"
        "def get_inputs():\n"
        "    return [torch.randn(512, 1024).half(), torch.randn(1024, 768).half()]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    eager = eager_time(capture(path), CHIP)
    mm, relu = eager.ops
    assert mm.api == "Matmul" and relu.target == "aten.relu.default"
    # 512 x 768 x 1024 MACs over 24 cube cores at 4096 MACs/cycle, 1.8 GHz (or the GM time).
    cube_us = 512 * 768 * 1024 / 24 / 4096 / 1800
    assert mm.total_us >= CHIP.perf.launch_us + cube_us
