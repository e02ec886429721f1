"""Speed figures end to end: the emulator's SyncAll counter, `kernelgen generate` output, and
`kernelgen bench`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.cost import kernel_time
from ascend_tools.validate import validate_project
from kernelgen_lm.speed import SpeedReport
from server.cli import main

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / "bench" / "stubs"


def test_emulator_counts_sync_all_barriers_and_the_model_charges_them(tmp_path: Path) -> None:
    project = tmp_path / "add"
    shutil.copytree(ROOT / "bench" / "examples" / "add_unaligned", project)
    kernel = project / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text()
    assert "    op.Process();" in text
    kernel.write_text(
        text.replace("    op.Process();", "    op.Process();\n    SyncAll();\n    SyncAll();")
    )
    report = validate_project(project, project / "ref.py")
    assert report.ok, report.runtime_errors
    assert all(b["sync_alls"] == 2 for b in report.counters["per_block"])
    chip = get_chip(report.chip)
    assert kernel_time(report.counters, chip).sync_us == pytest.approx(2 * chip.perf.sync_all_us)


def test_generate_reports_a_modelled_speedup_with_its_parts(tmp_path: Path, capsys) -> None:
    stub = STUBS / "ew_fma3_fp32.py"
    code = main(["generate", str(stub), "-o", str(tmp_path / "json"), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"], out["error"]
    speed = out["speed"]
    kernel, eager = speed["kernel"], speed["eager"]
    # A chain of eager ops fused into one kernel.
    assert eager["launches"] > 1 and speed["speedup"] > 1
    assert speed["speedup"] == pytest.approx(eager["total_us"] / kernel["total_us"])
    assert kernel["total_us"] == pytest.approx(
        kernel["launch_us"]
        + max(kernel["transfer_us"], kernel["vector_us"])
        + kernel["scalar_us"]
        + kernel["sync_us"]
    )
    assert kernel["bound"] in ("launch", "memory", "vector", "scalar", "sync")
    assert kernel["cores_used"] == len(kernel["per_core"]) > 1
    assert speed["note"] == "model, not measured"
    # the line the text format prints
    line = SpeedReport.model_validate(speed).line()
    assert line.startswith("modelled speed-up vs eager: ")
    assert "model, not measured" in line and "kernel " in line and "eager " in line


def test_bench_command_passes_its_arguments_to_the_bench_module(tmp_path: Path, capsys) -> None:
    assert main(["bench", "lint", "--help"]) == 0
    assert "--lines" in capsys.readouterr().out
    out = tmp_path / "bench"
    args = ["--only", "act_relu_fp32", "--trials", "1", "--out", str(out)]
    assert main(["bench", "generate", *args]) == 0
    report = json.loads((out / "results.json").read_text())
    (row,) = report["stubs"]
    assert row["stub"] == "act_relu_fp32" and row["ok"]
    assert row["kernel_us"] > 0 and row["eager_us"] > 0 and row["speedup"] > 0
    assert report["overall"]["total"] == 1 and set(report["overall"]["fast"]) == {
        "1.0",
        "0.8",
        "0.2",
    }
    md = (out / "results.md").read_text()
    assert "model, not measured" in md and "| act_relu_fp32 | yes |" in md


def test_bench_command_rejects_an_unknown_suite_and_chip(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "nope"])
    assert exc.value.code == 2
    assert main(["bench", "generate", "--chip", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown chip 'nope'" in capsys.readouterr().err
