"""One emulator build cache for the whole test run.

Build artifacts (harness, precompiled header, host objects, kernels) are keyed by content, so
every test and every xdist worker of one run may share them: the harness and the precompiled
header are then compiled once per run, not once per worker and test folder. Tests that need an
empty cache for other state (LLM runs, the validated store) link its build folders here with
`kernelgen_builds.link_builds`. A run starts cold, as CI does; the user's cache is not touched.
KERNELGEN_TEST_BUILD_CACHE names a folder to keep them in across runs instead (a loaded machine:
the language server tests give a cold validation 120 s).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kernelgen_builds import link_builds, run_dir, set_run_builds


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The run's shared build folders; KERNELGEN_CACHE_DIR for tests that set none is this
    worker's own folder (other state stays per worker) linked to them."""
    env = os.environ.get("KERNELGEN_TEST_BUILD_CACHE")
    builds = Path(env) if env else run_dir(tmp_path_factory) / "kernelgen-builds"
    builds.mkdir(parents=True, exist_ok=True)
    set_run_builds(builds)
    cache = link_builds(tmp_path_factory.mktemp("kernelgen-cache"), builds)
    old = os.environ.get("KERNELGEN_CACHE_DIR")
    os.environ["KERNELGEN_CACHE_DIR"] = str(cache)
    yield builds
    if old is None:
        os.environ.pop("KERNELGEN_CACHE_DIR", None)
    else:
        os.environ["KERNELGEN_CACHE_DIR"] = old


# The longest files of the default run (CI profile: the trainer's end-to-end refresh with its
# model server, the LLM loop, the validation-heavy contract and sync files). `--dist loadfile`
# hands files to workers in collection order, so these go first: collected last (tests/train,
# tests/validate sort late), one of them ran alone on one core for the run's last minutes.
LONG_FILES = (
    "tests/train/test_refresh.py",
    "tests/llm/test_llm_loop.py",
    "tests/lsp/test_validation.py",
    "tests/validate/test_sync_models.py",
    "tests/validate/test_binding.py",
    "tests/validate/test_api_contracts.py",
    "tests/validate/test_validate_api.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long files first (a stable sort: every file's tests stay together and in order)."""
    first = {name: rank for rank, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: first.get(item.nodeid.split("::", 1)[0], len(first)))
