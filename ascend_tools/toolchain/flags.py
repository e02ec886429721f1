"""Where the emulator lives and the compiler flags every emulator translation unit gets
(the build steps of `ascend_tools/emu/README.md`)."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.chips import Chip

EMU_DIR = Path(__file__).resolve().parent.parent / "emu"
EMU_INCLUDE = EMU_DIR / "include"
HARNESS_SOURCE = EMU_DIR / "harness" / "harness_main.cpp"
DEVICE_HEADER = "kernel_operator.h"

CXX = "g++"
# -O1: kernel TU of the add example (with the precompiled header) compiles in 0.9 s at -O0,
# 1.2 s at -O1, 1.7 s at -O2; a 16M-element add runs at 42, 66 and 66 M elements/s. Diagnostics
# without colour or caret so they parse line by line.
BASE_FLAGS = (
    "-std=c++17",
    "-pthread",
    "-O1",
    "-g0",
    "-fdiagnostics-color=never",
    "-fno-diagnostics-show-caret",
    "-fmax-errors=20",
    "-Winvalid-pch",
    # The kernel file is #included into the generated entry unit, so g++ reads it as a header
    # and warns of class members typed from its anonymous namespace: a warning the device
    # compiler, building that file itself, never gives (DrivingSDK deformable_conv2d).
    "-Wno-subobject-linkage",
)


def emulator_flags(chip: Chip) -> list[str]:
    """The include path and macros that make a translation unit see the emulator for `chip`
    (README "How a run is built"); also used by the emulator's own test programs."""
    return [
        f"-I{EMU_INCLUDE}",
        f"-D__CCE_AICORE__={chip.cce_aicore}",
        "-D__CCE_KT_TEST__=1",
        "-DASCENDC_CPU_DEBUG=1",
    ]


def chip_flags(chip: Chip) -> list[str]:
    return [*BASE_FLAGS, *emulator_flags(chip)]
