"""The rule path end to end on the breadth ops: each stub is generated and validated on the
emulator against its PyTorch reference (NaN/inf compared exactly where the reference has them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.generate.test_generate import generate_json

HEAD = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward({args}):
{body}
"""


def stub(tmp_path: Path, args: str, body: str, inputs: str) -> Path:
    p = tmp_path / "stub.py"
    text = HEAD.format(args=args, body=body)
    text += f"\n\ndef get_inputs():\n{inputs}\n\n\ndef get_init_inputs():\n    return []\n"
    p.write_text(text)
    return p


def assert_validated(tmp_path: Path, ref: Path, capsys) -> None:
    code, out = generate_json(ref, tmp_path / "out", capsys, "--backend", "rules")
    assert code == 0, out["attempts"][-1]
    assert out["backend_used"] == "rules" and out["validation"]["ok"]


@pytest.mark.slow
def test_rounding_matches_torch_on_halves_huge_and_non_finite_values(
    tmp_path: Path, capsys
) -> None:
    ref = stub(
        tmp_path,
        "self, x",
        "        return (torch.floor(x), torch.ceil(x), torch.round(x), torch.trunc(x),\n"
        "                torch.frac(x))",
        "    x = torch.randn(7, 129) * 5\n"
        "    x[0, :10] = torch.tensor([float('inf'), -float('inf'), float('nan'), 3e9, -1e10,\n"
        "                              0.5, 1.5, -2.5, -0.0, 8388607.5])\n"
        "    return [x]",
    )
    assert_validated(tmp_path, ref, capsys)


@pytest.mark.slow
def test_fmod_and_remainder_signs_zero_divisors_and_non_finite_values(
    tmp_path: Path, capsys
) -> None:
    # Quotients stay below 2^23: x - trunc(x / y) * y is exact only up to that size.
    ref = stub(
        tmp_path,
        "self, x, y",
        "        return torch.fmod(x, y), torch.remainder(x, y)",
        "    x = torch.randn(7, 129) * 5\n"
        "    x[0, :3] = torch.tensor([float('inf'), -float('inf'), float('nan')])\n"
        "    y = torch.randn(129).sign() * (torch.rand(129) + 0.5)\n"
        "    y[3] = 0.0\n"
        "    return [x, y]",
    )
    assert_validated(tmp_path, ref, capsys)


@pytest.mark.slow
def test_lamb_step_with_the_bitwise_and_guard_and_ones_like(tmp_path: Path, capsys) -> None:
    ref = stub(
        tmp_path,
        "self, p, g, m, v",
        "        m2 = 0.9 * m + 0.1 * g\n"
        "        v2 = 0.999 * v + 0.001 * g * g\n"
        "        update = (m2 / 0.1) / (torch.sqrt(v2 / 0.001) + 1e-6) + 0.01 * p\n"
        "        w_norm, u_norm = torch.norm(p), torch.norm(update)\n"
        "        trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm,\n"
        "                            torch.ones_like(w_norm))\n"
        "        return p - 1e-3 * trust * update, m2, v2",
        "    return [torch.randn(1001), torch.randn(1001), torch.randn(1001), torch.rand(1001)]",
    )
    assert_validated(tmp_path, ref, capsys)


@pytest.mark.slow
def test_kdim_cross_entropy_with_class_weights(tmp_path: Path, capsys) -> None:
    ref = stub(
        tmp_path,
        "self, x, t, w",
        "        return F.cross_entropy(x, t, weight=w)",
        "    return [torch.randn(3, 7, 5, 9), torch.randint(0, 7, (3, 5, 9)), torch.rand(7)]",
    )
    assert_validated(tmp_path, ref, capsys)


def test_logical_ops_on_a_bool_input_written_as_a_bool_output(tmp_path: Path, capsys) -> None:
    ref = stub(
        tmp_path,
        "self, x, m",
        "        return torch.logical_xor(~m & (x > 0), torch.logical_or(m, x < -1))",
        "    return [torch.randn(33, 65), torch.rand(33, 65) > 0.5]",
    )
    assert_validated(tmp_path, ref, capsys)
