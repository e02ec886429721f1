"""`kernelgen validate` on bad input: a clear message on stderr, exit code 2, no traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascend_tools.config import configured_chip
from server.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "bench" / "examples" / "add_unaligned"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["validate", *args])
    err = capsys.readouterr().err
    return code, err


def test_missing_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run([str(tmp_path / "absent"), "--ref", str(EXAMPLE / "ref.py")], capsys)
    assert code == 2 and "project not found" in err and "Traceback" not in err


def test_missing_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run([str(EXAMPLE), "--ref", str(tmp_path / "absent.py")], capsys)
    assert code == 2 and "reference file not found" in err


def test_reference_without_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text("def get_inputs():\n    return []\n")
    code, err = _run([str(EXAMPLE), "--ref", str(ref)], capsys)
    assert code == 2 and "no `class Model(nn.Module)`" in err


def test_unknown_chip(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(
        [str(EXAMPLE), "--ref", str(EXAMPLE / "ref.py"), "--chip", "ascend999"], capsys
    )
    assert code == 2 and "unknown chip 'ascend999'" in err and "ascend910b2" in err


def test_project_without_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run([str(tmp_path), "--ref", str(EXAMPLE / "ref.py")], capsys)
    assert code == 2 and "no kernel found" in err


def test_zero_trials(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run([str(EXAMPLE), "--ref", str(EXAMPLE / "ref.py"), "--trials", "0"], capsys)
    assert code == 2 and "--trials must be at least 1" in err


def test_reference_that_does_not_fit_the_op(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text(
        "import torch\nimport torch.nn as nn\n"
        "class Model(nn.Module):\n    def forward(self, x):\n        return x\n"
        "def get_inputs():\n    return [torch.randn(4)]\n"
    )
    code, err = _run([str(EXAMPLE), "--ref", str(ref)], capsys)
    assert code == 2 and "OpDef input y (required) gets no tensor from the reference" in err
    assert '[binding]\ninputs = {x = "x", y = "?"}\noutputs = {z = "return[0]"}' in err


def test_failed_validation_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.py"
    ref.write_text((EXAMPLE / "ref.py").read_text().replace("return x + y", "return x - y"))
    code = main(["validate", str(EXAMPLE), "--ref", str(ref)])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("FAIL") and "differ" in out


def test_the_projects_configured_chip_is_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `[lint] chip` names the project's target; validate uses it when --chip is not given
    # (an unknown name here shows that it was read, without a build).
    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    assert configured_chip(root) is None
    (root / "kernelgen.toml").write_text('[lint]\nchip = "ascend999"\n')
    assert configured_chip(root) == "ascend999"
    code, err = _run([str(root)], capsys)
    assert code == 2 and "ascend999" in err
