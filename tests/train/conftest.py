"""Fixtures for the trainer: a slice of the real seed set and an edit store with rows the
real language server wrote. Both are session-scoped: the seed kernel is generated and
validated on the emulator once (tens of seconds), and every test reads copies."""

from __future__ import annotations

import contextlib
import os
import shutil
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


async def lsp_status(root: Path, env: dict[str, str]) -> dict:
    """`kernelgen.status` from a real language server started with `env`."""
    from lsprotocol import types as lsp
    from pytest_lsp import client_capabilities, make_test_lsp_client

    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "server.cli", "serve", env=env)
    try:
        await client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri()))
        return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="kernelgen.status", arguments=[{}]))
    finally:
        await client.shutdown_session()


def greedy_ids(model_dir: Path, chat: list[dict[str, str]], n: int) -> tuple[list[int], list[int]]:
    """The prompt's token ids (the model's chat template) and the first `n` greedy answer ids
    of the model in `model_dir`, in-process."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    prompt = tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True,
                                           return_dict=True)["input_ids"]
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    with torch.no_grad():
        out = model.generate(torch.tensor([prompt]), max_new_tokens=n, do_sample=False)
    return list(prompt), out[0, len(prompt):].tolist()


def served_ids(url: str, model: str, chat: list[dict[str, str]], n: int
               ) -> tuple[list[int], list[int]]:
    """The same from a vLLM server (`return_token_ids`): compared as ids, since vLLM holds
    back text that ends inside a multi-byte character and a barely trained model writes
    such bytes."""
    import httpx

    r = httpx.post(f"{url}/v1/chat/completions", timeout=120, json={
        "model": model, "messages": chat, "max_tokens": n, "temperature": 0,
        "return_token_ids": True})
    r.raise_for_status()
    body = r.json()
    return body["prompt_token_ids"], body["choices"][0]["token_ids"]


def kernelgen(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], capture_output=True,
                          text=True, env=cli_env(), cwd=REPO, timeout=timeout)


def launch(nproc: int, *args: str) -> list[str]:
    """The documented command: `accelerate launch --multi_gpu --num_processes N -m server.cli
    ...` (torch.distributed.run underneath; with no GPU visible each process trains on the
    CPU over gloo)."""
    from tests.llm.conftest import free_port

    exe = shutil.which("accelerate", path=str(Path(sys.executable).parent))
    assert exe, "the `accelerate` CLI is missing: pip install -e '.[train]'"
    return [exe, "launch", "--multi_gpu", "--num_processes", str(nproc), "--num_machines", "1",
            "--mixed_precision", "no", "--dynamo_backend", "no",
            "--main_process_port", str(free_port()), "-m", "server.cli", *args]


def launch_env(tmp: Path) -> dict[str, str]:
    # The CPU whatever the machine has; no user accelerate config: the flags are the launch.
    return {**cli_env(), "HF_HOME": str(tmp / "hf"), "OMP_NUM_THREADS": "1",
            "CUDA_VISIBLE_DEVICES": ""}


def rank_pid(launcher: int, rank: int) -> int | None:
    """The pid of rank `rank` of the launch under `launcher` (None until it started)."""
    import psutil

    for child in psutil.Process(launcher).children(recursive=True):
        try:
            if child.environ().get("RANK") == str(rank) and "server.cli" in child.cmdline():
                return int(child.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return None


def kill_launch(launcher: int) -> None:
    """SIGKILLs the launcher and every process under it at once. The ranks run in sessions
    of their own (torch.distributed.run starts them so), so killing the launcher's process
    group would leave them running."""
    import psutil

    try:
        root = psutil.Process(launcher)
        procs = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    psutil.wait_procs(procs, timeout=30)


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


def write_pair_store(path: Path, seed_dir: Path, tasks: tuple[str, ...],
                     validated: bool = True) -> Path:
    """An edit store holding, per task, a validated and a failed generation sample as the
    generation loop records them (with the PyTorch reference: GRPO tasks too): one
    preference pair per task, short enough for a tiny run. The validated answer is the
    start of the seed kernel, the failed one a stub; `validated=False` leaves the validated
    ones out (GRPO tasks, no pair)."""
    from kernelgen_lm.train.records import read_dataset
    from kernelgen_lm.train.store import EditStore

    seed = next(r for r in read_dataset(seed_dir) if r.instruction.kind == "generate")
    kernel = seed.answer.files["op_kernel/act_relu_fp32_custom.cpp"]
    store = EditStore(path)
    for i, task in enumerate(tasks):
        meta = {"task": task, "op": f"{task}_custom", "chip": "ascend910b2",
                "prompt": f"Write {task}_custom over float32[{37 + i}, 1023].",
                "reference": SEED_STUB.read_text()}
        good = (f'<reasoning>elementwise {task}</reasoning>\n<file path="op_kernel/{task}.cpp">'
                f'\n{kernel[:400 + 100 * i]}\n</file>')
        bad = (f'<reasoning>guess</reasoning>\n<file path="op_kernel/{task}.cpp">\n'
               f'int {task};\n</file>')
        if validated:
            store.add("sample", f"{task}.cpp", good, source="llm", meta=meta,
                      validation={"ok": True, "compile": {"ok": True}, "cases": [{}, {}]})
        store.add("sample", f"{task}.cpp", bad, source="llm", meta=meta,
                  validation={"ok": False, "compile": {"ok": False}, "cases": []})
    store.close()
    return path
