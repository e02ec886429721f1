"""The kernel's translation unit as the toolchain builds it (the generated wrapper, the op's
tiling header, the kernel) sees what CANN's kernel build sees: the host standard headers the
tiling header brings do not define <climits>' macros, so a kernel's own INT_MAX compiles, while
a kernel that includes <climits> itself still gets them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ascend_tools.chips import get_chip
from ascend_tools.project import load_project
from ascend_tools.toolchain.emulator import unit_flags, wrapper_source
from ascend_tools.toolchain.flags import chip_flags

FIXTURE = Path(__file__).resolve().parent.parent / "validate" / "data" / "bias_first"
KERNEL = FIXTURE / "op_kernel" / "bias_first_add.cpp"

OWN_CONSTANTS = """namespace {
constexpr int32_t INT_MAX = 2147483647;
constexpr int32_t INT_MIN = -2147483647 - 1;
}  // namespace
static_assert(INT_MAX - 1 > INT_MIN, "the kernel's own constants");
"""
INCLUDES_CLIMITS = """#include <climits>
static_assert(INT_MAX == 2147483647, "<climits> included by the kernel itself");
"""


def compile_kernel_tu(tmp_path: Path, extra: str) -> subprocess.CompletedProcess:
    root = tmp_path / "bias_first"
    shutil.copytree(FIXTURE, root)
    kernel = root / "op_kernel" / KERNEL.name
    text = kernel.read_text()
    at = text.index('extern "C"')
    kernel.write_text(text[:at] + extra + text[at:])
    project = load_project(root)
    wrapper = tmp_path / "kernel_entry.cpp"
    wrapper.write_text(
        wrapper_source(project, {"bias": "float32", "x": "float32", "y": "float32"}, "BiasFirstAdd")
    )
    chip = get_chip()
    unit = [kernel, project.abs(project.tiling_header)]
    flags = [*chip_flags(chip), *unit_flags(project, unit, [kernel.parent])]
    return subprocess.run(
        ["g++", *flags, f"-I{kernel.parent}", "-fsyntax-only", str(wrapper)],
        capture_output=True,
        text=True,
    )


def test_kernel_declaring_its_own_int_max_compiles(tmp_path: Path) -> None:
    out = compile_kernel_tu(tmp_path, OWN_CONSTANTS)
    assert out.returncode == 0, out.stderr[-2000:]


def test_kernel_including_climits_still_gets_its_macros(tmp_path: Path) -> None:
    out = compile_kernel_tu(tmp_path, INCLUDES_CLIMITS)
    assert out.returncode == 0, out.stderr[-2000:]


def test_a_kernel_defining_ascendc_cube_only_runs_the_matmul_on_its_aic(tmp_path: Path) -> None:
    # The Matmul header is precompiled before the kernel's `#define ASCENDC_CUBE_ONLY`, so the
    # wrapper switches the pure Cube mode on at run time (lib/matmul_intf.h cube_only_mode).
    root = tmp_path / "bias_first"
    shutil.copytree(FIXTURE, root)
    kernel = root / "op_kernel" / KERNEL.name
    kernel.write_text("#define ASCENDC_CUBE_ONLY\n" + kernel.read_text())
    dtypes = {"bias": "float32", "x": "float32", "y": "float32"}
    assert "cube_only_mode() = true" in wrapper_source(load_project(root), dtypes, "BiasFirstAdd")
    assert "cube_only_mode" not in wrapper_source(load_project(FIXTURE), dtypes, "BiasFirstAdd")
