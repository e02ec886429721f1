"""`kernelgen generate`: the rule path end to end, and clear failures with exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main

STUB = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {body}


def get_inputs():
    return [torch.randn(5, 37)]


def get_init_inputs():
    return []
"""


def write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "stub.py"
    p.write_text(STUB.format(body=body))
    return p


def generate_json(ref: Path, out: Path, capsys, *options: str) -> tuple[int, dict]:
    """Runs `kernelgen generate REF -o OUT --format json OPTIONS`: exit code and the report."""
    code = main(["generate", str(ref), "-o", str(out), "--format", "json", *options])
    return code, json.loads(capsys.readouterr().out)


def test_rule_path_generates_a_validated_softmax_project(tmp_path: Path, capsys) -> None:
    ref = write(tmp_path, "torch.softmax(x, dim=-1)")
    code, out = generate_json(ref, tmp_path / "out", capsys, "--backend", "rules")
    assert code == 0, out
    assert out["ok"] and out["backend_used"] == "rules"
    assert out["validation"]["ok"]
    assert out["attempts"][-1]["stage"] == "done"


def test_uncovered_op_without_backend_names_the_op_and_how_to_configure(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("KERNELGEN_LLM_BASE_URL", "KERNELGEN_LLM_MODEL", "KERNELGEN_LLM_LOCAL_MODEL"):
        monkeypatch.delenv(var, raising=False)
    ref = write(tmp_path, "torch.sin(x)")
    code, out = generate_json(ref, tmp_path / "out", capsys)
    assert code != 0 and not out["ok"]
    assert "aten.sin" in out["error"]
    assert "LLM backend not available" in out["error"]
    assert "KERNELGEN_LLM_BASE_URL" in out["error"]


def test_malformed_file_is_a_bad_input_exit_code(tmp_path: Path, capsys) -> None:
    ref = tmp_path / "bad.py"
    ref.write_text("def broken(:\n")
    code = main(["generate", str(ref), "-o", str(tmp_path / "out"), "--backend", "rules"])
    assert code == 2
    assert "syntax error" in capsys.readouterr().err


def test_auto_falls_back_to_the_configured_llm_backend_and_reports_its_failure(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on: a real connection refusal
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KERNELGEN_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("KERNELGEN_LLM_MODEL", "tiny")
    monkeypatch.setenv("KERNELGEN_LLM_TIMEOUT", "5")
    monkeypatch.delenv("KERNELGEN_LLM_LOCAL_MODEL", raising=False)
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path / "cache"))
    ref = write(tmp_path, "torch.sin(x)")
    code, out = generate_json(ref, tmp_path / "out", capsys, "--max-repairs", "0")
    assert code == 1 and not out["ok"]
    assert out["backend_used"] == "llm"
    stages = [(a["backend"], a["stage"]) for a in out["attempts"]]
    assert stages[0] == ("rules", "plan")
    llm = out["attempts"][1:]
    assert llm and all(a["backend"] != "rules" and a["stage"] == "llm" for a in llm)
    assert "cannot reach" in out["error"]


def test_shape_variants_grow_shared_dims_consistently(tmp_path: Path) -> None:
    from kernelgen_lm.capture import capture
    from kernelgen_lm.generate import shape_variants

    p = tmp_path / "ce.py"
    p.write_text(
        STUB.replace("def forward(self, x):", "def forward(self, x, t):")
        .replace("return {body}", "return torch.nn.functional.cross_entropy(x, t)")
        .replace("[torch.randn(5, 37)]", "[torch.randn(6, 10), torch.randint(0, 10, (6,))]")
    )
    assert shape_variants(capture(p)) == [[[9, 10], [9]], [[6, 11], [6]]]
