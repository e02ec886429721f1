"""Fixtures for the emulator device-side tests: compile C++ test programs against the emulator
headers (cached by a hash of the source and every header, so reruns skip g++), run them, and
move tensors between numpy and the raw files the programs read and write."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from emu_device_support import to_bytes

from ascend_tools.chips import get_chip
from ascend_tools.toolchain.flags import EMU_INCLUDE, emulator_flags

REPO = Path(__file__).resolve().parents[2]
CPP = Path(__file__).resolve().parent / "cpp"
CACHE = Path(tempfile.gettempdir()) / "kernelgen-emu-test-cache"
FLAGS = [
    "-std=c++17",
    "-O1",
    "-pthread",
    *emulator_flags(get_chip()),
    f"-I{CPP}",
]


def _inputs_digest(source: Path) -> str:
    h = hashlib.sha256()
    for part in [source, *sorted(EMU_INCLUDE.rglob("*.h")), *sorted(CPP.glob("*.h"))]:
        h.update(str(part.relative_to(REPO)).encode())
        h.update(part.read_bytes())
    h.update(" ".join(FLAGS).encode())
    return h.hexdigest()[:20]


def build(name: str) -> Path:
    """Compiled binary of tests/emu/cpp/<name>.cpp, from the cache when nothing changed."""
    source = CPP / f"{name}.cpp"
    CACHE.mkdir(parents=True, exist_ok=True)
    binary = CACHE / f"{name}-{_inputs_digest(source)}"
    if binary.exists():
        return binary
    tmp = binary.with_suffix(f".tmp{os.getpid()}")
    proc = subprocess.run(
        ["nice", "g++", *FLAGS, str(source), "-o", str(tmp)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise AssertionError(f"g++ failed for {source.name}:\n{proc.stderr[-6000:]}")
    tmp.replace(binary)
    return binary


@pytest.fixture(scope="session")
def emu_build() -> Callable[[str], Path]:
    return build


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    report: dict | None
    outputs: dict[str, bytes]


@pytest.fixture
def run_program(tmp_path: Path) -> Callable[..., Run]:
    """Runs a test program: tensors are written as files, `{name}` placeholders in args become
    their paths, `{out:NAME}` an output file, `{report}` the report path."""

    def _run(binary: Path, args: list[str], inputs: dict[str, torch.Tensor] | None = None) -> Run:
        files: dict[str, Path] = {}
        for name, t in (inputs or {}).items():
            p = tmp_path / f"{name}.bin"
            p.write_bytes(to_bytes(t))
            files[name] = p
        report = tmp_path / "report.json"
        if report.exists():
            report.unlink()
        outs: dict[str, Path] = {}
        argv: list[str] = []
        for a in args:
            if a == "{report}":
                argv.append(str(report))
            elif a.startswith("{out:"):
                name = a[5:-1]
                outs[name] = tmp_path / f"out_{name}.bin"
                argv.append(str(outs[name]))
            elif a.startswith("{") and a.endswith("}"):
                argv.append(str(files[a[1:-1]]))
            else:
                argv.append(a)
        proc = subprocess.run([str(binary), *argv], capture_output=True, text=True, timeout=120)
        rep = json.loads(report.read_text()) if report.exists() else None
        return Run(
            proc.returncode,
            proc.stdout,
            proc.stderr,
            rep,
            {k: v.read_bytes() for k, v in outs.items() if v.exists()},
        )

    return _run
