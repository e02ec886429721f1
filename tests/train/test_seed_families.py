"""Seed records of the cube and data-movement families: the chain of thought states the matrix
product's real sizes and MAC arithmetic, and every record carries its family's plan text."""

from __future__ import annotations

from ascend_tools.chips import get_chip
from kernelgen_lm.train.seed import seed_records
from tests.train.conftest import STUBS


def test_matmul_seed_record_reasons_with_the_products_sizes_and_macs() -> None:
    failures: dict[str, str] = {}
    records = list(seed_records([STUBS / "mm_small_k_fp32.py"], ["ascend910b3"],
                                failures=failures))
    assert not failures and len(records) == 1
    rec = records[0]
    chip = get_chip("ascend910b3")
    # torch.mm of [70, 3] x [3, 41]: the sizes and MAC count are the stub's, not a template's.
    assert "M = 70, N = 41, K = 3: 8610 multiply-accumulates" in rec.reasoning
    assert f"{chip.cube_cores} cube cores" in rec.reasoning
    assert "float32 runs at" in rec.reasoning  # the fp32 cube rate is named
    assert "mode matmul" in rec.reasoning  # the plan text follows the reasoning
    assert any(f.startswith("op_kernel/") for f in rec.answer.files)
    assert rec.metadata.validation.ok is True
