"""The corpus Matmul project (tests/data/corpus/matmul_custom) through the harness at a shape
that does not divide into its 24 blocks (M=100, K=40, N=72): it once aborted with
`free(): invalid next size` because blocks past the matrix end wrote outside C."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from ascend_tools.chips import get_chip
from ascend_tools.runner.case import chip_fields

from . import emu_build


def test_corpus_matmul_with_blocks_past_the_matrix_end(tmp_path: Path) -> None:
    binary = emu_build.MATMUL_CORPUS.run_binary()
    rng = np.random.default_rng(8)
    a = rng.standard_normal((100, 40)).astype(np.float16)
    b = rng.standard_normal((40, 72)).astype(np.float16)
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    lines = [
        "chip " + " ".join(chip_fields(get_chip())),
        "op MatmulCustom",
        "kernel matmul_custom",
        "input a float16 2 100 40 a.bin",
        "input b float16 2 40 72 b.bin",
        "output c float32 2 100 72 c.bin",
    ]
    (tmp_path / "case.txt").write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [binary, "case.txt", "report.json"], cwd=tmp_path, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    c = np.fromfile(tmp_path / "c.bin", dtype=np.float32).reshape(100, 72)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    assert json.loads((tmp_path / "report.json").read_text())["status"] == "ok"
