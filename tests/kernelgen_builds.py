"""The test run's shared emulator build folders (see tests/conftest.py), importable by the
folder-level conftests that give tests a cache of their own for other state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BUILD_KINDS = ("pch", "harness", "host", "kernel")
_RUN_BUILDS: list[Path] = []


def run_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder shared by the workers of this run (xdist gives each a subfolder of the
    controller's base temp), else this process's base temp."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def set_run_builds(path: Path) -> None:
    _RUN_BUILDS[:] = [path]


def run_builds() -> Path:
    """The run's build folders; the root conftest's session fixture sets them first."""
    if not _RUN_BUILDS:
        raise RuntimeError("tests/conftest.py's build_cache fixture has not run")
    return _RUN_BUILDS[0]


def link_builds(cache: Path, builds: Path | None = None) -> Path:
    """`cache` with its build folders pointing into `builds` (default: the run's); returns
    `cache`."""
    builds = builds or run_builds()
    cache.mkdir(parents=True, exist_ok=True)
    for kind in BUILD_KINDS:
        (builds / kind).mkdir(parents=True, exist_ok=True)
        link = cache / kind
        if not link.is_symlink():
            link.symlink_to(builds / kind, target_is_directory=True)
    return cache
