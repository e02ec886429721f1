"""Shared fixtures: a session-wide build cache, and copies of the bundled examples to mutate."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from kernelgen_builds import link_builds

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "examples"


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This worker's cache; its build folders are the run's (tests/conftest.py)."""
    return link_builds(tmp_path_factory.mktemp("kernelgen-cache"))


@pytest.fixture(autouse=True)
def _isolated_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(cache_dir))


def _mutate(path: Path, old: str, new: str) -> int:
    """Replaces `old` (which must occur) by `new`; returns the 1-based line of `// BUG` (or 0)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    text = text.replace(old, new, 1)
    path.write_text(text)
    return next((i for i, line in enumerate(text.splitlines(), 1) if "// BUG" in line), 0)


@pytest.fixture(scope="session")
def examples_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("examples")


@pytest.fixture
def fresh_copy(examples_dir: Path) -> Callable[[Path], Path]:
    """A fresh copy of a project folder (tests mutate it). Every copy of one folder lives at
    the same path, so host objects of unchanged op_host files come from the cache."""

    def copy(source: Path) -> Path:
        target = examples_dir / source.name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target)
        return target

    return copy


@pytest.fixture
def example(fresh_copy: Callable[[Path], Path]) -> Callable[[str], Path]:
    """A fresh copy of a bundled example project, by name."""
    return lambda name: fresh_copy(EXAMPLES / name)


@pytest.fixture
def mutate() -> Callable[[Path, str, str], int]:
    return _mutate
