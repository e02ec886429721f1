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


def write_pair_store(path: Path, seed_dir: Path, tasks: tuple[str, ...]) -> Path:
    """An edit store holding, per task, a validated and a failed generation sample as the
    generation loop records them: one preference pair per task (short enough for a tiny
    run). The validated answer is the start of the seed kernel, the failed one a stub."""
    from kernelgen_lm.train.records import read_dataset
    from kernelgen_lm.train.store import EditStore

    seed = next(r for r in read_dataset(seed_dir) if r.instruction.kind == "generate")
    kernel = seed.answer.files["op_kernel/act_relu_fp32_custom.cpp"]
    store = EditStore(path)
    for i, task in enumerate(tasks):
        meta = {"task": task, "op": f"{task}_custom", "chip": "ascend910b2",
                "prompt": f"Write {task}_custom over float32[{37 + i}, 1023]."}
        good = (f'<reasoning>elementwise {task}</reasoning>\n<file path="op_kernel/{task}.cpp">'
                f'\n{kernel[:400 + 100 * i]}\n</file>')
        bad = (f'<reasoning>guess</reasoning>\n<file path="op_kernel/{task}.cpp">\n'
               f'int {task};\n</file>')
        store.add("sample", f"{task}.cpp", good, source="llm", meta=meta,
                  validation={"ok": True, "compile": {"ok": True}, "cases": [{}, {}]})
        store.add("sample", f"{task}.cpp", bad, source="llm", meta=meta,
                  validation={"ok": False, "compile": {"ok": False}, "cases": []})
    store.close()
    return path
