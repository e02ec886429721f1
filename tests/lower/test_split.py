"""Multi-core reductions: rows split over cores and global stages spread over all cores, with
partials exchanged through the workspace and SyncAll (validated on the emulator).

The mechanism is tested at small shapes, splitting rows of 2048+ elements (`small_chunks`); the
default threshold, tuned to the cost of a barrier, has its own tests (`default_chunks`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.lint import lint_path
from ascend_tools.validate import validate_project
from kernelgen_lm.capture import capture
from kernelgen_lm.lower import host
from kernelgen_lm.lower.project import write_project
from kernelgen_lm.plan.build import build_plan

STUB = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, {args}):
        return {body}


def get_inputs():
    {inputs}


def get_init_inputs():
    return []
"""


DEFAULT_MIN_SPLIT = host.MIN_SPLIT


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "MIN_SPLIT", 2048)


@pytest.fixture
def default_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "MIN_SPLIT", DEFAULT_MIN_SPLIT)


def run(tmp_path: Path, body: str, inputs: str, args: str = "x", chip: str = "ascend910b2"):
    """Generates the project for the stub, lints it, validates it: (report, per-block counters)."""
    ref = tmp_path / "stub.py"
    ref.write_text(STUB.format(args=args, body=body, inputs=inputs))
    out = tmp_path / "proj"
    write_project(build_plan(capture(ref)), get_chip(chip), out, ref)
    errors = [d for d in lint_path(out, chip) if d.severity.value == "error"]
    assert not errors, [f"{d.file}:{d.line} {d.message}" for d in errors]
    report = validate_project(out, ref, chip=chip)
    assert report.ok, report.model_dump_json()[:2000]
    return report, report.counters["per_block"]


def test_sum_over_all_dims_splits_the_row_over_cores(tmp_path: Path) -> None:
    report, blocks = run(tmp_path, "x.sum()", "return [torch.randn(3, 5000)]")
    assert report.counters["block_dim"] > 1
    # every core reads its own chunk: no core streams the whole tensor
    assert max(b["gm_to_ub_bytes"] for b in blocks) < 15000 * 4 / 2
    assert all(b["sync_alls"] == 1 for b in blocks)


@pytest.mark.slow  # the default run keeps one proof per split form
def test_argmax_across_chunks_returns_the_first_index_of_the_maximum(tmp_path: Path) -> None:
    # the maximum 7 at 3000 and at 8000: different cores' chunks; torch gives the first
    inputs = "x = torch.full((8192,), -1.0)\n    x[3000] = 7.0\n    x[8000] = 7.0\n    return [x]"
    report, _ = run(tmp_path, "torch.argmax(x)", inputs)
    assert report.counters["block_dim"] > 2


def test_softmax_of_few_long_rows_uses_several_cores_and_reads_each_share_once(
    tmp_path: Path,
) -> None:
    report, blocks = run(tmp_path, "torch.softmax(x, dim=-1)", "return [torch.randn(2, 9000)]")
    assert report.counters["block_dim"] > 2
    assert all(b["sync_alls"] == 2 for b in blocks)  # one barrier per stage (max, sum)
    # a row share of one tile: softmax would read it three times when streaming (max, sum,
    # epilogue); held in UB it is read from GM once and stored without UB copies
    read = sum(b["gm_to_ub_bytes"] for b in blocks)
    assert read < 1.5 * 2 * 9000 * 4  # the input once, plus the small partial slots
    assert all(b["ub_to_ub_bytes"] == 0 for b in blocks)  # results computed into VECOUT tiles


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
def test_global_stage_loss_spreads_rows_over_cores(tmp_path: Path) -> None:
    report, blocks = run(
        tmp_path,
        "torch.nn.functional.cross_entropy(x, t)",
        "return [torch.randn(64, 100), torch.randint(0, 100, (64,))]",
        args="x, t",
    )
    assert report.counters["block_dim"] > 1
    assert all(b["sync_alls"] == 1 for b in blocks)


@pytest.mark.slow  # the default run keeps one proof per split form
def test_global_stage_over_split_rows_counts_each_row_once(tmp_path: Path) -> None:
    # 4 rows < cores: each row split over several cores, the batch mean over the 4 rows
    report, _ = run(
        tmp_path,
        "(y * (torch.log(y) - x)).sum(dim=1).mean()",
        "return [torch.randn(4, 9000).log_softmax(-1), torch.randn(4, 9000).softmax(-1)]",
        args="x, y",
    )
    assert report.counters["block_dim"] > 4


@pytest.mark.slow  # the default run keeps one proof per split form
def test_small_input_stays_on_one_core_without_barriers(tmp_path: Path) -> None:
    report, blocks = run(tmp_path, "x.sum()", "return [torch.randn(1000)]")
    assert report.counters["block_dim"] == 1
    assert blocks[0]["sync_alls"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("chip", ["ascend910", "ascend310p"])
def test_split_half_rows_validate_on_chips_without_datacopypad(tmp_path: Path, chip: str) -> None:
    report, _ = run(
        tmp_path,
        "x.max()",
        "return [torch.randn(7, 1111, dtype=torch.float16)]",
        chip=chip,
    )
    assert report.counters["block_dim"] > 1


def test_inputs_are_held_in_ub_only_within_the_chips_tensors_per_position(tmp_path: Path) -> None:
    # four row inputs + the partials' tile exceed the 4 VECIN tensors of Ascend 910
    ref = tmp_path / "four.py"
    ref.write_text(
        STUB.format(
            args="a, b, c, d",
            body="torch.softmax(a * b + c * d, dim=-1)",
            inputs="return [torch.randn(4, 3000) for _ in range(4)]",
        )
    )
    plan = build_plan(capture(ref))
    held = {}
    for chip in ("ascend910b2", "ascend910"):
        out = tmp_path / chip
        write_project(plan, get_chip(chip), out, ref)
        held[chip] = "r_in3" in next((out / "op_kernel").iterdir()).read_text()
    assert held == {"ascend910b2": True, "ascend910": False}


# The default threshold: a SyncAll pays only for rows (or global-stage domains) of MIN_SPLIT+
# elements (about what one core streams from GM in the time of a barrier); then every core
# available takes a chunk (at least MIN_CHUNK elements).


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
@pytest.mark.usefixtures("default_chunks")
def test_a_sum_too_small_to_pay_for_a_barrier_stays_on_one_core(tmp_path: Path) -> None:
    report, blocks = run(tmp_path, "x.sum()", f"return [torch.randn({DEFAULT_MIN_SPLIT - 8})]")
    assert report.counters["block_dim"] == 1
    assert blocks[0]["sync_alls"] == 0


@pytest.mark.usefixtures("default_chunks")
def test_a_row_worth_a_barrier_is_spread_over_every_core(tmp_path: Path) -> None:
    report, blocks = run(tmp_path, "x.sum()", f"return [torch.randn(3, {DEFAULT_MIN_SPLIT + 5})]")
    assert report.counters["block_dim"] > 40  # of 48 (tile rounding may leave one idle)
    assert all(b["sync_alls"] == 1 for b in blocks)


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
@pytest.mark.usefixtures("default_chunks")
def test_a_small_global_stage_loss_runs_on_one_core_without_a_barrier(tmp_path: Path) -> None:
    report, blocks = run(
        tmp_path,
        "torch.nn.functional.cross_entropy(x, t)",
        "return [torch.randn(64, 100), torch.randint(0, 100, (64,))]",
        args="x, t",
    )
    assert report.counters["block_dim"] == 1
    assert blocks[0]["sync_alls"] == 0
