"""run_case against the real harness: outputs and report come back, bad cases are named."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from ascend_tools.chips import get_chip
from ascend_tools.project import load_project
from ascend_tools.reference import from_bytes, to_bytes
from ascend_tools.runner.case import Case, CaseAttr, CaseTensor
from ascend_tools.runner.emulator import run_case
from ascend_tools.toolchain import emulator

EXAMPLE = Path(__file__).resolve().parents[2] / "bench" / "examples" / "add_unaligned"
DTYPES = {"x": "float32", "y": "float32", "z": "float32"}


@pytest.fixture(scope="module")
def binary() -> Path:
    # Built in the run's shared cache (tests/conftest.py).
    built = emulator.build(load_project(EXAMPLE), get_chip(), DTYPES)
    assert built.ok and built.binary is not None, built.diagnostics
    return built.binary


def _case(n: int, **kw) -> Case:
    return Case(
        chip=get_chip(),
        op="AddCustom",
        kernel="add_custom",
        inputs=[
            CaseTensor(name="x", dtype="float32", shape=[n]),
            CaseTensor(name="y", dtype="float32", shape=[n]),
        ],
        outputs=[CaseTensor(name="z", dtype="float32", shape=[n])],
        **kw,
    )


def test_run_returns_outputs_and_report(binary: Path) -> None:
    x, y = torch.randn(1000), torch.randn(1000)
    run = run_case(binary, _case(1000), {"x": to_bytes(x), "y": to_bytes(y)})
    assert run.status == "ok", run.message
    assert torch.equal(from_bytes(run.outputs["z"], "float32", [1000]), x + y)
    assert run.report["status"] == "ok" and run.report["chip"] == "ascend910b2"
    assert run.report["counters"]["total"]["ub_to_gm_bytes"] == 4000


def test_case_the_harness_rejects_is_a_harness_error(binary: Path) -> None:
    case = _case(8, attrs=[CaseAttr(name="no_such_attr", type="int", value=1)])
    run = run_case(binary, case, {"x": b"\0" * 32, "y": b"\0" * 32})
    assert run.status == "harness-error"
    assert "no_such_attr" in run.message


def test_run_is_fresh_each_time(binary: Path) -> None:
    # Outputs never leak between runs: each has its own temporary directory.
    a = run_case(binary, _case(16), {"x": to_bytes(torch.ones(16)), "y": to_bytes(torch.ones(16))})
    b = run_case(
        binary, _case(16), {"x": to_bytes(torch.zeros(16)), "y": to_bytes(torch.zeros(16))}
    )
    assert from_bytes(a.outputs["z"], "float32", [16]).tolist() == [2.0] * 16
    assert from_bytes(b.outputs["z"], "float32", [16]).tolist() == [0.0] * 16
