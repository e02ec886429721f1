"""The bundled examples validate through `kernelgen validate` in every float dtype."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "examples"
NAMES = ("add_unaligned", "softmax_rows", "leaky_relu")


DTYPES = ("float32", "float16", "bfloat16")


def _cases() -> list:
    """Every example in every dtype; the default run takes each example once and each dtype
    once (a rotation), the slow run the rest."""
    cases = []
    for i, name in enumerate(NAMES):
        for j, dtype in enumerate(DTYPES):
            marks = () if j == i % len(DTYPES) else (pytest.mark.slow,)
            cases.append(pytest.param(name, dtype, marks=marks, id=f"{name}-{dtype}"))
    return cases


@pytest.mark.parametrize(("name", "dtype"), _cases())
def test_example_validates(name: str, dtype: str, capsys: pytest.CaptureFixture[str]) -> None:
    project = EXAMPLES / name
    code = main(
        [
            "validate",
            str(project),
            "--ref",
            str(project / "ref.py"),
            "--dtype",
            dtype,
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["ok"] and report["compile"]["ok"]
    assert [c["name"] for c in report["cases"]] == ["trial0"]
    assert report["cases"][0]["mismatches"] == 0


def test_json_report_has_the_stable_fields(capsys: pytest.CaptureFixture[str]) -> None:
    project = EXAMPLES / "add_unaligned"
    main(
        [
            "validate",
            str(project),
            "--ref",
            str(project / "ref.py"),
            "--trials",
            "2",
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert {"ok", "chip", "backend", "compile", "cases", "runtime_errors", "counters"} <= set(
        report
    )
    assert set(report["compile"]) >= {"ok", "seconds", "cached", "diagnostics"}
    assert {c["name"] for c in report["cases"]} == {"trial0", "trial1"}
    case_keys = {"name", "ok", "max_abs_err", "max_rel_err", "mismatches", "message"}
    assert all(case_keys <= set(c) for c in report["cases"])
    assert report["chip"] == "ascend910b2" and report["backend"] == "emulator"
    # 33000 float32 elements in, twice, and out once: what the counters must have seen.
    total = report["counters"]["total"]
    assert total["gm_to_ub_bytes"] == 2 * 33000 * 4
    assert total["ub_to_gm_bytes"] == 33000 * 4
    per_block = report["counters"]["per_block"]
    assert len(per_block) == report["counters"]["block_dim"] == 48
    assert sum(b["ub_to_gm_bytes"] for b in per_block) == 33000 * 4


def test_text_report_names_each_case(capsys: pytest.CaptureFixture[str]) -> None:
    project = EXAMPLES / "leaky_relu"
    code = main(["validate", str(project), "--ref", str(project / "ref.py")])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("PASS  chip=ascend910b2 backend=emulator")
    assert "case trial0: ok" in out
