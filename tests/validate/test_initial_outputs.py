"""Outputs the framework fills before the launch (`[binding] initial`): validate starts every
output as poison so that unwritten elements fail, which fails a kernel that accumulates with
SetAtomicAdd into an output its caller creates with at::zeros. The fixture data/atomic_rowsum
is such a kernel: without the entry it fails with a message naming the entry, with it it passes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.config import ConfigError, load_project_config
from ascend_tools.reference import filled_bytes, from_bytes
from ascend_tools.runner.case import Case, CaseTensor, case_text, write_case
from ascend_tools.validate import ValidationInputError, validate_project

DATA = Path(__file__).resolve().parent / "data" / "atomic_rowsum"


@pytest.fixture
def rowsum(fresh_copy: Callable[[Path], Path]) -> Path:
    return fresh_copy(DATA)


def test_atomic_accumulation_into_a_zeroed_output_needs_and_names_the_initial_entry(
    rowsum: Path,
) -> None:
    report = validate_project(rowsum)
    assert not report.ok
    message = report.cases[0].message
    assert "got nan" in message
    assert "accumulates into y with SetAtomicAdd" in message
    assert "initial = {y = 0.0}" in message
    (rowsum / "kernelgen.toml").write_text("[binding.initial]\ny = 0.0\n")
    assert validate_project(rowsum).ok


def test_a_wrong_initial_value_fails_without_the_hint(rowsum: Path) -> None:
    (rowsum / "kernelgen.toml").write_text("[binding]\ninitial = {y = 1.0}\n")
    report = validate_project(rowsum)
    assert not report.ok
    assert "differ" in report.cases[0].message
    assert "SetAtomicAdd" not in report.cases[0].message


def test_initial_entry_must_name_an_opdef_output_of_a_value_its_dtype_holds(
    rowsum: Path,
) -> None:
    (rowsum / "kernelgen.toml").write_text("[binding]\ninitial = {x = 0.0}\n")
    with pytest.raises(ValidationInputError, match=r"initial names 'x', which is not one of"):
        validate_project(rowsum)
    (rowsum / "kernelgen.toml").write_text('[binding]\ninitial = {y = "zero"}\n')
    with pytest.raises(ConfigError, match=r"binding.initial.y"):
        load_project_config(rowsum)


def test_filled_bytes_rejects_what_the_dtype_cannot_hold() -> None:
    assert from_bytes(filled_bytes("float16", [3], -1.5), "float16", [3]).tolist() == [-1.5] * 3
    assert from_bytes(filled_bytes("int32", [2], -7.0), "int32", [2]).tolist() == [-7, -7]
    with pytest.raises(ValueError, match="not a value of int32"):
        filled_bytes("int32", [2], 0.5)
    with pytest.raises(ValueError, match="not a value of uint8"):
        filled_bytes("uint8", [2], -1.0)


def test_case_file_names_the_initial_bytes_of_a_prefilled_output(tmp_path: Path) -> None:
    case = Case(
        chip=get_chip("ascend910b2"),
        op="AtomicRowsum",
        kernel="atomic_rowsum",
        inputs=[CaseTensor(name="x", dtype="float32", shape=[2, 8])],
        outputs=[
            CaseTensor(name="y", dtype="float32", shape=[8], initial=0.0),
            CaseTensor(name="z", dtype="float32", shape=[8]),
        ],
    )
    lines = case_text(case).splitlines()
    assert "output y float32 1 8 y.bin y.initial.bin" in lines
    assert "output z float32 1 8 z.bin" in lines
    write_case(tmp_path, case, {"x": bytes(64)})
    assert (tmp_path / "y.initial.bin").read_bytes() == bytes(32)
    assert not (tmp_path / "z.initial.bin").exists()


def test_a_project_without_reference_still_only_compiles(rowsum: Path) -> None:
    (rowsum / "ref.py").unlink()
    report = validate_project(rowsum)
    assert report.ok and report.compile.ok and not report.cases
    assert any("no reference" in n for n in report.notes)


def test_opdef_init_value_zero_has_the_output_zeroed_without_a_table(rowsum: Path) -> None:
    # The reference's OpParamDef::InitValue(0) (with SetNeedAtomic): the framework zeroes the
    # output's GM before the launch, so the accumulating kernel needs no [binding] entry.
    declared = 'Output("y").ParamType(REQUIRED)'
    host = next(f for f in (rowsum / "op_host").glob("*.cpp") if declared in f.read_text())
    text = host.read_text()
    host.write_text(text.replace(declared, declared + ".InitValue(0)"))
    assert validate_project(rowsum).ok
    host.write_text(text.replace(declared, declared + ".InitValue(2)"))
    with pytest.raises(ValidationInputError, match=r"InitValue\(2\); the uint64_t form takes"):
        validate_project(rowsum)
