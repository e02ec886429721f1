"""The kernel's tiling structs are generated from the host's tiling definitions, as CANN's build
generates them, so the kernel never sees op_host's tiling header and what that includes.

The fixture project data/kernel_tiling/guarded_consts (written for these tests) has an op_host
tiling header that includes op_host/consts.h, whose include guard is also op_kernel/consts.h's:
read into the kernel, it would hide the kernel's own constants. Its struct holds a nested tiling
struct and arrays sized by host-only constants.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascend_tools.project import load_project
from ascend_tools.toolchain.kernel_tiling import generated_tiling
from ascend_tools.validate import validate_project

DATA = Path(__file__).resolve().parent / "data" / "kernel_tiling"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "guarded_consts"
    shutil.copytree(DATA / "guarded_consts", root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_host_tiling_header_includes_stay_out_of_the_kernel(project: Path) -> None:
    # op_host/consts.h shares op_kernel/consts.h's guard: the kernel must still see ROW_BIAS.
    report = validate_project(project, project / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases


def test_generated_struct_has_host_constant_sizes_and_nested_structs_first(project: Path) -> None:
    text = generated_tiling(load_project(project))
    assert text is not None
    assert "TILING_DATA_FIELD_DEF_ARR(float, 4, rowScale)" in text
    assert "TILING_DATA_FIELD_DEF_ARR(uint8_t, 5, pad)" in text  # HOST_ROW_ALIGN / 2 + 1
    assert text.index("BEGIN_TILING_DATA_DEF(RowShape)") < text.index(
        "BEGIN_TILING_DATA_DEF(GuardedConstsTilingData)")
    assert 'op_key("GuardedConsts")' in text
    assert "MAX_ROWS" not in text and "consts.h" not in text


def test_a_size_the_reader_cannot_evaluate_keeps_the_host_header(project: Path) -> None:
    _edit(project / "op_host" / "guarded_consts_tiling.h",
          "HOST_ROW_ALIGN / 2 + 1", "sizeof(uint64_t)")
    assert generated_tiling(load_project(project)) is None


def test_kernel_including_the_host_tiling_header_itself_sees_the_real_file(project: Path) -> None:
    # Its own relative include is what CANN's kernel build compiles too; the kernel's constants
    # then live under a guard of their own.
    _edit(project / "op_kernel" / "consts.h", "GUARDED_CONSTS_CONSTS_H", "GUARDED_KERNEL_CONSTS_H")
    _edit(project / "op_kernel" / "consts.h", "GUARDED_CONSTS_CONSTS_H", "GUARDED_KERNEL_CONSTS_H")
    _edit(project / "op_kernel" / "consts.h", "constexpr uint32_t MAX_ROWS = 4;\n", "")
    _edit(project / "op_kernel" / "guarded_consts.cpp", '#include "consts.h"',
          '#include "../op_host/guarded_consts_tiling.h"\n#include "consts.h"')
    assert generated_tiling(load_project(project)) is None
    report = validate_project(project, project / "ref.py")
    assert report.compile.ok, [d.message for d in report.compile.diagnostics]
    assert report.ok, report.cases
