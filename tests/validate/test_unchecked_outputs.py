"""Outputs the project's own test does not compare (`[binding] unchecked`): validate still runs
them but leaves them out of the comparison and says so ("not compared: ..."). The fixture
data/partial_twin writes y whole and z only on its last 8 elements (as DrivingSDK's bev_pool_v2
backward writes grad_depth for the last point of each interval only, while its test compares
grad_feat alone): z fails when compared, the project passes with z unchecked, and y is still
judged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.config import ConfigError, load_project_config
from ascend_tools.report import render_text
from ascend_tools.validate import ValidationInputError, validate_project
from bench import compat_bench

DATA = Path(__file__).resolve().parent / "data" / "partial_twin"
TABLE = "[binding]\ninitial = {{z = 0.0}}\nunchecked = {names}\n"


@pytest.fixture
def twin(fresh_copy: Callable[[Path], Path]) -> Path:
    return fresh_copy(DATA)


def _table(project: Path, names: str) -> None:
    (project / "kernelgen.toml").write_text(TABLE.format(names=names))


def test_a_partly_written_output_fails_when_compared(twin: Path) -> None:
    report = validate_project(twin)
    assert not report.ok
    assert report.cases[0].message.startswith("output z: 56 of 64 elements")
    assert report.unchecked == []


def test_an_unchecked_output_is_left_out_and_reported_as_not_compared(twin: Path) -> None:
    _table(twin, '["z"]')
    report = validate_project(twin)
    assert report.ok, render_text(report)
    assert report.unchecked == ["z"]
    assert "not compared: z" in render_text(report)
    assert report.model_dump()["unchecked"] == ["z"]


def test_the_outputs_left_compared_are_still_judged(twin: Path) -> None:
    _table(twin, '["z"]')
    kernel = twin / "op_kernel" / "partial_twin.cpp"
    kernel.write_text(kernel.read_text().replace("Muls(out, in, 2.0f", "Muls(out, in, 2.5f"))
    report = validate_project(twin)
    assert not report.ok
    assert report.cases[0].message.startswith("output y:")
    assert "output z" not in report.cases[0].message


def test_unchecked_must_name_outputs_and_leave_one_compared(twin: Path) -> None:
    _table(twin, '["x"]')
    with pytest.raises(ValidationInputError, match=r"unchecked names 'x', which is not one of"):
        validate_project(twin)
    _table(twin, '["y", "z"]')
    with pytest.raises(ValidationInputError, match=r"unchecked names every output"):
        validate_project(twin)
    _table(twin, '"z"')
    with pytest.raises(ConfigError, match=r"binding.unchecked"):
        load_project_config(twin)


def test_bench_compat_rows_list_the_outputs_not_compared(twin: Path) -> None:
    _table(twin, '["z"]')
    row = compat_bench.run_project(twin, "ascend910b2")
    assert row.passed and row.unchecked == ["z"]
    text = compat_bench.render_text([row], compat_bench.summarize([row]))
    assert "      not compared: z" in text.splitlines()
