"""Dynamic (tensor-list) inputs: repeated `input` lines reach TilingFunc as instances and the
kernel as one descriptor in the layout README "Dynamic parameters" documents."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from ascend_tools.chips import get_chip

from . import emu_build
from .emu_build import chip_fields


def test_dynamic_input_list_is_summed(tmp_path: Path) -> None:
    binary = emu_build.SUM_LIST.run_binary()
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((2, 16)).astype(np.float32) for _ in range(3)]
    lines = ["chip " + " ".join(chip_fields(get_chip())), "op SumList", "kernel sum_list"]
    for k, x in enumerate(xs):
        x.tofile(tmp_path / f"x{k}.bin")
        lines.append(f"input xs float32 2 2 16 x{k}.bin")
    lines.append("output z float32 2 2 16 z.bin")
    (tmp_path / "case.txt").write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [binary, "case.txt", "report.json"], cwd=tmp_path, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    z = np.fromfile(tmp_path / "z.bin", dtype=np.float32).reshape(2, 16)
    np.testing.assert_allclose(z, xs[0] + xs[1] + xs[2], rtol=1e-6)
    report = json.loads((tmp_path / "report.json").read_text())
    assert (report["status"], report["tiling_bytes"]) == ("ok", 8)
