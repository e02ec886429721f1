"""Pooling on the vector unit: generated window kernels validated on the emulator, with the
cases a wrong neutral slot, divisor or offset would break, and counters that show the window
is gathered by the vector unit (Gather repeats), not element by element on the scalar unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.chips import all_chips, get_chip
from kernelgen_lm.generate import GenerationResult, generate
from kernelgen_lm.lower.window import vector_window

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


def run(tmp_path: Path, body: str, inputs: str, chip: str = "ascend910b2") -> GenerationResult:
    ref = tmp_path / "pool.py"
    ref.write_text(STUB.format(body=body, inputs=inputs))
    res = generate(ref, tmp_path / "out", chip=chip, backend="rules", max_repairs=0, trials=1)
    assert res.ok, (res.error, [a.message for a in res.attempts])
    return res


def per_block(res: GenerationResult) -> list[dict]:
    assert res.validation is not None
    return res.validation.counters["per_block"]


def test_padded_positions_never_win_a_max_pool_of_negative_inputs(tmp_path: Path) -> None:
    # A neutral slot of 0 (or stale data) would win every border window here.
    run(tmp_path, "F.max_pool2d(x, 3, 2, 1)", "-1.0 - torch.rand(2, 3, 11, 13)")


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
def test_avg_pool_without_padding_count_divides_border_windows_by_their_clipped_size(
    tmp_path: Path,
) -> None:
    run(
        tmp_path,
        "F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
        "torch.rand(2, 3, 10, 12) + 1.0",
    )


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
def test_dilated_max_pool_with_padding_gathers_the_dilated_columns(tmp_path: Path) -> None:
    run(tmp_path, "F.max_pool1d(x, 4, 1, 2, dilation=3)", "torch.randn(3, 5, 40)")


def test_stride_two_max_pool_uses_gathers_and_no_scalar_accesses(tmp_path: Path) -> None:
    res = run(tmp_path, "F.max_pool2d(x, 3, 2, 1)", "torch.randn(2, 8, 29, 30)")
    for block in per_block(res):
        # Three window columns per window row: one Gather and one Max each.
        assert block["vector_repeats"].get("Gather", 0) > 0
        assert block["vector_repeats"].get("Max", 0) > 0
        assert block["scalar_accesses"] == 0


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
def test_chip_without_datacopypad_copies_rows_in_blocks_and_stays_correct(
    tmp_path: Path,
) -> None:
    # Ascend 310P: Gather but no DataCopyPad. Rows of 30 fp32 (not whole 32-byte blocks) and
    # several rows per core: the over-read input and the output spill into the core's next row
    # must not change the result; only a core's last row (and the input's end) may move a tail
    # through the scalar unit.
    res = run(tmp_path, "F.max_pool2d(x, 3, 1, 1)", "torch.randn(2, 4, 9, 30)", "ascend310p")
    blocks = per_block(res)
    assert len(blocks) < 2 * 4 * 9  # cores hold several output rows each
    tail = 2 * (30 % 8)  # one GetValue + one SetValue per tail element
    assert all(b["vector_repeats"].get("Gather", 0) > 0 for b in blocks)
    assert all(b["scalar_accesses"] == tail for b in blocks[:-1])
    assert blocks[-1]["scalar_accesses"] <= 3 * tail  # + the input's last row, read twice


@pytest.mark.slow  # one proof per mechanism stays in the default run; CI runs the slow ones
def test_block_copies_of_short_fp16_rows_never_spill_past_the_core_or_the_tensor(
    tmp_path: Path,
) -> None:
    # Output rows of 6 halves: one 32-byte block spans almost three rows, so a block write is
    # only allowed while the rows it spills into are this core's own later rows.
    run(
        tmp_path,
        "F.avg_pool2d(x, 3, 2, 1, divisor_override=5)",
        "torch.randn(2, 4, 9, 11, dtype=torch.float16)",
        "ascend310p",
    )


@pytest.mark.parametrize("chip", sorted(all_chips()))
def test_vector_window_needs_gather_and_createvecindex_on_the_chip_arch(chip: str) -> None:
    # Public product-support tables: both APIs on dav-c220, dav-m200 and dav-m300 only.
    expected = get_chip(chip).arch != "dav-c100"
    assert vector_window(get_chip(chip)) is expected


@pytest.mark.parametrize(
    ("body", "inputs"),
    [
        ("F.max_pool2d(x, 3, 2, 1)", "-1.0 - torch.rand(2, 3, 11, 13)"),
        pytest.param(
            "F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
            "torch.rand(2, 3, 10, 12) + 1.0",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "F.max_pool1d(x, 4, 1, 2, dilation=3)",
            "torch.randn(3, 5, 40, dtype=torch.float16)",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_ascend910_pools_on_the_scalar_unit_without_gather_apis(
    tmp_path: Path, body: str, inputs: str
) -> None:
    # No Gather/CreateVecIndex on the first-generation Ascend 910: the window is read on the
    # scalar unit; lint (chip-support) passes and the result still matches torch.
    res = run(tmp_path, body, inputs, "ascend910")
    assert res.project is not None
    kernel = next((res.project / "op_kernel").glob("*.cpp")).read_text()
    assert "Gather(" not in kernel and "CreateVecIndex(" not in kernel
    for block in per_block(res):
        assert "Gather" not in block["vector_repeats"]
        assert block["scalar_accesses"] > 0
