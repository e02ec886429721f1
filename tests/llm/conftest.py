"""Fixtures for the LLM path: tiny models made on the spot and real OpenAI-compatible servers.

`transformers serve` (the `transformers[serving]` extra) runs in the default test run; a vLLM
server runs only for `-m vllm` tests when KERNELGEN_VLLM_PYTHON names a Python with vllm
installed. Models are cached by content under KERNELGEN_TEST_MODEL_DIR (default
~/.cache/kernelgen-test-models) because teaching one takes about a minute of CPU.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from kernelgen_builds import link_builds
from tiny_model import Lesson, build_model

from ascend_tools.chips import get_chip
from kernelgen_lm.llm.context import build_context
from kernelgen_lm.llm.loop import default_op_name, validate_answer
from kernelgen_lm.llm.prompt import initial_messages, repair_messages
from kernelgen_lm.llm.reference import describe_reference

DATA = Path(__file__).parent / "data"
ADD_REF = DATA / "add_ref.py"
CHIP = "ascend910b2"
BROKEN = (DATA / "answer_broken.txt").read_text()
FIXED = (DATA / "answer_fixed.txt").read_text()


def model_cache() -> Path:
    env = os.environ.get("KERNELGEN_TEST_MODEL_DIR")
    path = Path(env) if env else Path.home() / ".cache" / "kernelgen-test-models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def fresh_cache(cache: Path) -> Path:
    """A cache folder with an empty `llm/` whose build folders are the run's shared ones
    (build artifacts are keyed by content; only the LLM's own state must start empty)."""
    return link_builds(cache)


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs and the validated store go to a fresh cache, so prompts never see other runs."""
    cache = fresh_cache(tmp_path / "cache")
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(cache))
    return cache


def scripted_lessons() -> list[Lesson]:
    """The exact conversations the loop will hold for ADD_REF: task -> BROKEN, repair -> FIXED.

    The repair turn carries the real validation feedback of BROKEN, computed here with the
    same code the loop uses, so the taught model sees at test time what it was taught on.
    """
    chip = get_chip(CHIP)
    with tempfile.TemporaryDirectory() as tmp:
        # an empty validated store, as in the tests
        os.environ["KERNELGEN_CACHE_DIR"] = str(fresh_cache(Path(tmp) / "cache"))
        try:
            task = describe_reference(ADD_REF)
            context = build_context(task, default_op_name(ADD_REF), chip, None)
            base = initial_messages(context, chip)
            outcome = validate_answer(BROKEN, Path(tmp), ADD_REF, chip.name, "lesson")
        finally:
            del os.environ["KERNELGEN_CACHE_DIR"]
    repair = repair_messages(base, BROKEN.strip(), outcome.feedback)
    as_dicts = [[m.model_dump() for m in msgs] for msgs in (base, repair)]
    return [(as_dicts[0], BROKEN.strip()), (as_dicts[1], FIXED.strip())]


@pytest.fixture(scope="session")
def scripted_model() -> Path:
    lessons = scripted_lessons()
    corpus = [m["content"] for msgs, _ in lessons for m in msgs]
    return build_model(model_cache(), corpus, lessons)


@pytest.fixture(scope="session")
def random_model() -> Path:
    corpus = [ADD_REF.read_text(), BROKEN, FIXED, '<file path="x.cpp">\n</file>\n']
    return build_model(model_cache(), corpus, [])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout_s: float, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    raise RuntimeError(f"server not healthy after {timeout_s} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start_server(cmd: list[str], port: int, log: Path, timeout_s: float) -> Iterator[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["nice", "-n", "10", *cmd],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        wait_healthy(f"http://127.0.0.1:{port}/health", proc, timeout_s, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def transformers_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `transformers serve` process; models are chosen per request by their path."""
    exe = shutil.which("transformers", path=str(Path(sys.executable).parent))
    assert exe, "the `transformers` CLI is missing: pip install 'transformers[serving]'"
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "transformers-serve.log"
    cmd = [exe, "serve", "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    yield from start_server(cmd, port, log, timeout_s=120)


@pytest.fixture(scope="session")
def vllm_server(scripted_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real vLLM (CPU) OpenAI-compatible server serving the scripted model."""
    python = os.environ.get("KERNELGEN_VLLM_PYTHON")
    if not python:
        pytest.skip("KERNELGEN_VLLM_PYTHON is not set (a Python with vllm installed)")
    port = free_port()
    log = tmp_path_factory.mktemp("vllm") / "vllm.log"
    cmd = [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(scripted_model),
        "--served-model-name",
        "tiny-scripted",
        "--dtype",
        "float32",
        "--gpu-memory-utilization",
        "0.2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--max-model-len",
        "16384",
    ]
    yield from start_server(cmd, port, log, timeout_s=600)
