"""The precompiled device header: g++ takes it for real kernel units, a damaged one costs only
time (the unit compiles from the header text), and its key names the compiler."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from kernelgen_builds import run_builds

from ascend_tools.chips import get_chip
from ascend_tools.diagnostics import Severity
from ascend_tools.project import load_project
from ascend_tools.toolchain import emulator
from ascend_tools.toolchain.cache import compiler_id

Example = Callable[[str], Path]
ADD = {"x": "float32", "y": "float32", "z": "float32"}


def test_kernel_unit_takes_the_precompiled_header(example: Example) -> None:
    project = load_project(example("add_unaligned"))
    built = emulator.build(project, get_chip(), ADD)
    assert built.ok and built.binary, built.diagnostics
    argv = json.loads((built.binary.parent / emulator.COMPILE_ARGV).read_text())
    pch = Path(argv[argv.index("-include") + 1])
    # -H lists the headers g++ reads; "! X.gch" means it loaded the precompiled one, and a
    # rejected one (flags drifted from the PCH's) would list kernel_operator.h instead.
    out = subprocess.run(
        [*argv, "-fsyntax-only", "-H"],
        cwd=built.binary.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert f"! {pch}.gch" in out.stderr.splitlines()
    assert "kernel_operator.h" not in out.stderr


@pytest.mark.slow  # builds a private precompiled header, then a plain compile
def test_unreadable_precompiled_header_falls_back_to_a_plain_compile(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A private precompiled header and kernels: other workers read the run's shared one.
    cache = tmp_path / "cache"
    cache.mkdir()
    for kind in ("harness", "host"):
        (cache / kind).symlink_to(run_builds() / kind, target_is_directory=True)
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(cache))
    chip = get_chip()
    project = load_project(example("add_unaligned"))
    assert emulator.build(project, chip, ADD).ok
    entry = emulator._pch_entry(chip)
    gch = entry.path / f"{emulator.PCH_HEADER}.gch"
    # A truncated file keeps its valid stamp, so g++ tries it and fails hard while reading.
    gch.write_bytes(gch.read_bytes()[:10000])
    half = {"x": "float16", "y": "float16", "z": "float16"}
    built = emulator.build(project, chip, half)
    assert built.ok, built.diagnostics
    assert not [d for d in built.diagnostics if d.severity == Severity.ERROR]
    argv = json.loads((built.binary.parent / emulator.COMPILE_ARGV).read_text())
    assert "-include" not in argv
    assert not entry.ready  # discarded: the next build makes a fresh one


def test_compiler_identity_names_binary_and_version() -> None:
    gxx = compiler_id("g++")
    version = subprocess.run(
        ["g++", "-dumpfullversion"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version in gxx and str(Path(shutil.which("g++") or "").resolve()) in gxx
    assert compiler_id("gcc") != gxx  # another driver binary: another key
    assert compiler_id("kernelgen-no-such-compiler").endswith("not found")
