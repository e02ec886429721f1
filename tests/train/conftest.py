"""Fixtures for the trainer: a slice of the real seed set and an edit store with rows the
real language server wrote. Both are session-scoped: the seed kernel is generated and
validated on the emulator once (tens of seconds), and every test reads copies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelgen_lm.train.data import DataRequest, build_dataset
from kernelgen_lm.train.seed import held_out_slice, split_stubs

REPO = Path(__file__).resolve().parents[2]
STUBS = REPO / "bench" / "stubs"
SEED_STUB = STUBS / "act_relu_fp32.py"  # not in the held-out slice (checked in a test)


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELGEN_LLM_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def kernelgen(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], capture_output=True,
                          text=True, env=cli_env(), cwd=REPO, timeout=timeout)


@pytest.fixture(scope="session")
def held():
    return held_out_slice(split_stubs(STUBS)[1])


@pytest.fixture(scope="session")
def seed_dir(tmp_path_factory: pytest.TempPathFactory, held) -> Path:
    """One validated seed kernel and a few catalog Q/A records, written as a dataset."""
    out = tmp_path_factory.mktemp("seed")
    build_dataset(DataRequest(out=out, stubs=[SEED_STUB], chips=["ascend910b2"], limit=1,
                              catalog_limit=4), held)
    return out
