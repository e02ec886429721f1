"""End to end: an msopgen-layout AddCustom project written against the AscendC device API,
built as README steps 1-4 describe (host object, kernel wrapper with the tiling header
force-included, harness) and run through case files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascend_tools.chips import get_chip
from ascend_tools.runner.case import chip_fields

from . import emu_build


@pytest.fixture(scope="module")
def add_bin() -> Path:
    return emu_build.ADD_CUSTOM.run_binary()


def run_add(
    binary: Path, work: Path, n: int
) -> tuple[subprocess.CompletedProcess, dict, np.ndarray]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    x.tofile(work / "x.bin")
    y.tofile(work / "y.bin")
    lines = [
        "chip " + " ".join(chip_fields(get_chip("ascend910b2"))),
        "op AddCustom",
        "kernel add_custom",
        f"input x float16 1 {n} x.bin",
        f"input y float16 1 {n} y.bin",
        f"output z float16 1 {n} z.bin",
    ]
    (work / "case.txt").write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [binary, "case.txt", "report.json"], cwd=work, capture_output=True, text=True, timeout=120
    )
    report = json.loads((work / "report.json").read_text())
    if res.returncode != 0:
        return res, report, np.array([])
    z = np.fromfile(work / "z.bin", dtype=np.float16)
    return res, report, (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16) - z


def test_add_custom_project_runs_on_the_emulator(add_bin: Path, tmp_path: Path) -> None:
    n = 8 * 2048
    res, report, diff = run_add(add_bin, tmp_path, n)
    assert res.returncode == 0, res.stderr
    assert np.abs(diff).max() == 0
    assert report["status"] == "ok"
    assert (report["block_dim"], report["tiling_bytes"], report["tiling_key"]) == (8, 8, 0)
    assert report["workspace_bytes"] == 16 * 1024 * 1024
    assert report["counters"]["total"]["gm_to_ub_bytes"] == 2 * n * 2  # x and y, half
    assert report["counters"]["total"]["ub_to_gm_bytes"] == n * 2


def test_add_custom_unaligned_length_is_reported_at_the_kernel_line(
    add_bin: Path, tmp_path: Path
) -> None:
    res, report, _ = run_add(add_bin, tmp_path, 8 * 2048 + 8 * 16 * 3)  # tiles of 8 halves
    assert res.returncode == 3, res.stderr
    err = report["errors"][0]
    assert err["code"] == "datacopy-align"
    assert err["file"].endswith("op_kernel/add_custom.cpp") and err["line"] > 0
