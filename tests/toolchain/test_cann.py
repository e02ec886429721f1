"""The CANN probe names every missing part of a partial toolkit precisely."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.runner.npu import probe_npu
from ascend_tools.toolchain.cann import REQUIRED_PARTS, probe_cann


def _touch(root: Path, rel: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("")


def test_no_variable_means_no_toolkit() -> None:
    status = probe_cann({})
    assert status.root is None and not status.complete
    assert "ASCEND_HOME_PATH" in status.summary()


def test_partial_toolkit_lists_each_missing_part(tmp_path: Path) -> None:
    _touch(tmp_path, "compiler/ccec_compiler/bin/bisheng")
    _touch(tmp_path, "lib64/libascendcl.so")
    status = probe_cann({"ASCEND_HOME_PATH": str(tmp_path)})
    assert not status.complete
    assert status.env_var == "ASCEND_HOME_PATH"
    assert len(status.missing) == 2
    assert any(m.startswith("msopgen project generator") for m in status.missing)
    assert any("kernel_operator.h" in m for m in status.missing)
    assert str(tmp_path) in status.summary()
    assert "AscendC compiler (bisheng or ccec)" in status.found


def test_variable_pointing_nowhere_is_reported(tmp_path: Path) -> None:
    status = probe_cann({"ASCEND_TOOLKIT_HOME": str(tmp_path / "absent")})
    assert not status.complete
    assert status.missing == [f"ASCEND_TOOLKIT_HOME={tmp_path / 'absent'} is not a directory"]


def test_complete_toolkit(tmp_path: Path) -> None:
    for _, candidates in REQUIRED_PARTS:
        _touch(tmp_path, candidates[0])
    status = probe_cann({"ASCEND_TOOLKIT_HOME": str(tmp_path)})
    assert status.complete and status.missing == []


def test_npu_probe_names_what_is_missing_here() -> None:
    status = probe_npu({})
    assert not status.available
    assert any("torch_npu" in m for m in status.missing)
    assert any("CANN" in m for m in status.missing)


def test_cann_build_without_a_complete_toolkit_says_why(tmp_path: Path) -> None:
    from ascend_tools.project import load_project
    from ascend_tools.toolchain.cann import cann_build

    examples = Path(__file__).resolve().parents[2] / "bench" / "examples"
    status = probe_cann({"ASCEND_HOME_PATH": str(tmp_path)})
    step = cann_build(load_project(examples / "add_unaligned"), status)
    assert not step.ok
    assert "incomplete" in step.diagnostics[0].message
    assert step.diagnostics[0].file == "op_kernel/add_custom.cpp"
