"""Builds the small C++ programs of tests/runner/data once per session."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("programs")
    built = {}
    for src in sorted(DATA.glob("*.cpp")):
        exe = out / src.stem
        subprocess.run(["g++", "-O1", "-o", str(exe), str(src)], check=True)
        built[src.stem] = exe
    return built
