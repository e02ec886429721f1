"""Dynamic (tensor-list) inputs: repeated `input` lines reach TilingFunc as instances and the
kernel as one descriptor in the layout README "Dynamic parameters" documents, which
AscendC::ListTensorDesc parses (fixtures/sum_list)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from ascend_tools.chips import get_chip
from ascend_tools.runner.case import chip_fields

from . import emu_build

KERNEL = emu_build.SUM_LIST.root / "op_kernel" / "sum_list.cpp"


def run_sum_list(
    tmp_path: Path, xs: list[np.ndarray], extra: list[str]
) -> subprocess.CompletedProcess:
    binary = emu_build.SUM_LIST.run_binary()
    lines = ["chip " + " ".join(chip_fields(get_chip())), "op SumList", "kernel sum_list", *extra]
    for k, x in enumerate(xs):
        x.tofile(tmp_path / f"x{k}.bin")
        lines.append(f"input xs float32 {x.ndim} {' '.join(map(str, x.shape))} x{k}.bin")
    lines.append(f"output z float32 {xs[0].ndim} {' '.join(map(str, xs[0].shape))} z.bin")
    (tmp_path / "case.txt").write_text("\n".join(lines) + "\n")
    return subprocess.run(
        [binary, "case.txt", "report.json"], cwd=tmp_path, capture_output=True, text=True
    )


def test_dynamic_input_list_is_read_through_list_tensor_desc(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((2, 16)).astype(np.float32) for _ in range(3)]
    res = run_sum_list(tmp_path, xs, [])
    assert res.returncode == 0, res.stderr
    z = np.fromfile(tmp_path / "z.bin", dtype=np.float32).reshape(2, 16)
    np.testing.assert_allclose(z, xs[0] + xs[1] + xs[2], rtol=1e-6)
    report = json.loads((tmp_path / "report.json").read_text())
    assert (report["status"], report["tiling_bytes"]) == ("ok", 16)


def test_list_tensor_desc_index_past_the_list_is_out_of_bounds(tmp_path: Path) -> None:
    xs = [np.ones((4, 8), dtype=np.float32) for _ in range(2)]
    res = run_sum_list(tmp_path, xs, ["attr probe_past_end int 1"])
    assert res.returncode == 3, res.stderr
    [err] = json.loads((tmp_path / "report.json").read_text())["errors"]
    assert err["code"] == "gm-out-of-bounds"
    assert "GetDataPtr(2) of a list of 2 tensors" in err["message"]
    lines = KERNEL.read_text().splitlines()
    assert lines[err["line"] - 1].rstrip().endswith("// BUG: probe_past_end")
