"""The refresh loop end to end on CPU: a tiny base built on the spot, a slice of the seed set,
an inline completion accepted through the real language server, generation samples (one
failed) in the same store; SFT, one DPO step, evaluation, promotion; a SIGKILLed run that
leaves the registry alone and resumes from its checkpoint; the promoted model answering
through a real `transformers serve` process (and vLLM under the `vllm` marker)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities, make_test_lsp_client

from kernelgen_lm.backends import (
    ChatMessage,
    OpenAICompatibleBackend,
    OpenAIConfig,
    TransformersBackend,
)
from kernelgen_lm.llm.loop import run_llm_generation
from kernelgen_lm.llm.prompt import TASK_CLOSING
from kernelgen_lm.train.formats import completion_of, preference_pairs
from kernelgen_lm.train.from_store import run_samples, store_records
from kernelgen_lm.train.records import data_hash, read_dataset
from kernelgen_lm.train.refresh import gather
from kernelgen_lm.train.registry import Registry
from kernelgen_lm.train.seed import is_held_out
from kernelgen_lm.train.store import EditStore
from kernelgen_lm.train.tiny import build_tiny
from server.cli import main
from tests.train.conftest import (
    REPO,
    SEED_STUB,
    cli_env,
    greedy_ids,
    lsp_status,
    served_ids,
)

CORPUS = REPO / "tests" / "data" / "corpus"
# Small enough for the CPU: the seed kernel's long chat is cut away, the Q/A, the accepted
# completion and the preference pair fit.
TRAIN_ARGS = ["--base", "tiny", "--max-length", "2048", "--eval-stubs", "1",
              "--eval-inline", "2", "--eval-max-tokens", "24", "--format", "json"]


def test_seed_record_reasoning_states_the_generated_projects_numbers(seed_dir: Path) -> None:
    assert not is_held_out(SEED_STUB.stem)
    records = read_dataset(seed_dir)
    gen = [r for r in records if r.instruction.kind == "generate"]
    assert len(gen) == 1 and sum(r.instruction.kind == "qa" for r in records) == 4
    rec = gen[0]
    assert rec.metadata.origin == "seed-rules" and rec.metadata.validation.ok is True
    assert rec.metadata.speedup is not None and rec.metadata.task == "act_relu_fp32"
    assert rec.instruction.text.endswith(TASK_CLOSING)
    assert "act_relu_fp32_custom" in rec.instruction.text
    host = rec.answer.files["op_host/act_relu_fp32_custom.cpp"]
    bpe = int(re.search(r"BYTES_PER_ELEM = (\d+);", host).group(1))
    # The UB arithmetic in the reasoning is the one the generated TilingFunc runs.
    assert f"= {bpe} B (" in rec.reasoning
    usable = int(re.search(r"= (\d+) B; \1 / " + str(bpe), rec.reasoning).group(1))
    assert usable == 196608 - int(re.search(r"UB_RESERVE = (\d+);", host).group(1))
    assert "DataCopyPad" in rec.reasoning and "DataCopyPad" in "".join(rec.answer.files.values())
    tail = re.search(r"Tail: 37851 = (\d+) x (\d+) \+ (\d+)", rec.reasoning)
    assert tail and int(tail[1]) * int(tail[2]) + int(tail[3]) == 37851
    card = (seed_dir / "DATACARD.md").read_text()
    assert "| seed-rules | 1 |" in card and "| catalog | 4 |" in card
    assert f"`{data_hash(records)}`" in card and "Apache-2.0" in card


async def _accept_inline_completion(root: Path) -> dict:
    """Opens a kernel with an empty CopyIn in the real server, asks for an inline completion
    there and accepts it, as the editor does."""
    text = (CORPUS / "leaky_relu_tail.cpp").read_text()
    text = re.sub(r"(void CopyIn\(uint32_t i, uint32_t len\)\n    \{\n).*?(\n    \})",
                  r"\1        \2", text, count=1, flags=re.S)
    path = root / "leaky.cpp"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.split("\n")) if "void CopyIn(" in t) + 2
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "server.cli", "serve", env=cli_env())
    try:
        await client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri()))
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
            uri=path.as_uri(), language_id="cpp", version=1, text=text)))
        got = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
            position=lsp.Position(line, 8),
            context=lsp.InlineCompletionContext(
                trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
        items = list(got.items if isinstance(got, lsp.InlineCompletionList) else got or [])
        assert items, "the server offered no inline completion"
        return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="kernelgen.acceptCompletion", arguments=items[0].command.arguments))
    finally:
        await client.shutdown_session()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, seed_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("ws")
    accepted = asyncio.run(_accept_inline_completion(root))
    assert accepted["recorded"] is True
    path = Path(accepted["store"])
    # Two samples of one task, as the generation loop records them: a validated answer (the
    # seed kernel's, short reasoning) and a failed one; together one preference pair.
    seed = next(r for r in read_dataset(seed_dir) if r.instruction.kind == "generate")
    meta = {"task": "relu", "op": "relu_custom", "chip": "ascend910b2",
            "prompt": "Write relu_custom: y = max(x, 0) over float32[37, 1023]."}
    kernel = seed.answer.files["op_kernel/act_relu_fp32_custom.cpp"]
    good = (f'<reasoning>elementwise</reasoning>\n<file path="op_kernel/relu.cpp">\n'
            f'{kernel[:600]}\n</file>')
    bad = '<reasoning>guess</reasoning>\n<file path="op_kernel/relu.cpp">\nint relu;\n</file>'
    s = EditStore(path)
    s.add("sample", "relu.cpp", good, source="llm", meta=meta,
          validation={"ok": True, "compile": {"ok": True}, "cases": [{}, {}]})
    s.add("sample", "relu.cpp", bad, source="llm", meta=meta,
          validation={"ok": False, "compile": {"ok": False}, "cases": []})
    s.close()
    return path


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory, seed_dir: Path, store: Path
              ) -> tuple[Registry, dict]:
    reg = Registry(tmp_path_factory.mktemp("registry") / "reg")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
                     "--store", str(store), "--max-steps", "3", "--dpo-steps", "1", *TRAIN_ARGS])
    assert code == 0
    return reg, json.loads(out.getvalue())


def test_refresh_trains_evaluates_and_promotes(refreshed: tuple[Registry, dict], held,
                                               seed_dir: Path, store: Path) -> None:
    reg, res = refreshed
    assert {"version", "promoted", "metrics", "base", "data_hash"} <= set(res)
    assert res["version"] == "v0001" and res["promoted"] is True and res["base"] == "tiny"
    records, _ = gather(seed_dir, store, held)
    assert res["data_hash"] == data_hash(records) and res["pairs"] == 1
    assert set(res["metrics"]) == {"gen_compile_rate", "gen_pass_rate", "inline_exact"}
    assert all(0.0 <= v <= 1.0 for v in res["metrics"].values())
    assert reg.promoted() == "v0001"
    meta = reg.meta("v0001")
    assert meta.train["sft_steps"] == 3 and meta.train["dpo_steps"] == 1
    assert meta.kind == "merged" and (reg.root / "current" / "model" / "config.json").is_file()
    for png in (reg.versions_dir / "v0001" / "loss.png", reg.root / "metrics.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The plot's numbers travel with it; DPO starts from a reference equal to the policy (a
    # frozen copy of the SFT adapter), so its first loss is ln 2.
    curve = json.loads((reg.versions_dir / "v0001" / "losses.json").read_text())
    assert [s for s, _ in curve["sft"]] == [1, 2, 3] and [s for s, _ in curve["dpo"]] == [1]
    assert curve["dpo"][0][1] == pytest.approx(math.log(2), abs=1e-5)
    assert res["final_loss"] == curve["dpo"][-1][1]
    assert not any(reg.runs_dir.iterdir())  # the run directory is gone once registered
    # The accepted completion is in the training data, as a FIM chat.
    fim = [r for r in records if r.instruction.kind == "complete"]
    assert len(fim) == 1 and "inQueue.AllocTensor" in completion_of(fim[0])


def test_status_names_the_serving_version(refreshed: tuple[Registry, dict],
                                          tmp_path: Path) -> None:
    reg, _ = refreshed
    env = {**cli_env(), "KERNELGEN_LLM_LOCAL_MODEL": str(reg.root / "current" / "model")}
    status = asyncio.run(lsp_status(tmp_path, env))
    served = status["model"]["registryVersion"]
    assert served["version"] == reg.promoted() and served["promoted"] is True
    assert served["registry"] == str(reg.root.resolve())


@pytest.mark.slow  # a second full refresh: about 30 s of CPU
def test_full_fine_tuning_with_dpo(seed_dir: Path, store: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    reg = Registry(tmp_path / "reg")
    assert main(["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
                 "--store", str(store), "--method", "full", "--max-steps", "2",
                 "--dpo-steps", "1", *TRAIN_ARGS, "--eval-stubs", "0"]) == 0
    res = json.loads(capsys.readouterr().out)
    meta = reg.meta(res["version"])
    assert meta.kind == "merged" and meta.train["method"] == "full"
    assert meta.train["dpo_steps"] == 1 and meta.train["pairs"] == 1
    assert (reg.serve_dir(res["version"]) / "config.json").is_file()


def test_model_eval_re_evaluates_a_version(refreshed: tuple[Registry, dict],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    reg, _ = refreshed
    before = reg.meta("v0001")
    assert main(["model", "eval", "v0001", "--registry", str(reg.root), "--eval-stubs", "0",
                 "--eval-inline", "1", "--eval-max-tokens", "8", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["version"] == "v0001" and set(out["metrics"]) == {"inline_exact"}
    after = reg.meta("v0001")
    assert after.metrics == {**before.metrics, **out["metrics"]}
    assert set(after.metrics) == {"gen_compile_rate", "gen_pass_rate", "inline_exact"}


def test_the_local_backend_follows_a_promotion(refreshed: tuple[Registry, dict],
                                              tmp_path: Path) -> None:
    """A long-lived in-process backend on a link (as `current/...` is) loads the new target
    at its next request."""
    reg, _ = refreshed
    other = build_tiny(tmp_path / "other", ["int x;", "DataCopy(dst, src, n);"])
    link = tmp_path / "served"
    link.symlink_to(reg.serve_dir("v0001"))
    backend = TransformersBackend(link)
    chat = [ChatMessage(role="user", content="DataCopy")]
    backend.generate(chat, max_tokens=2)
    assert backend.loaded_from == reg.serve_dir("v0001").resolve()
    tmp = tmp_path / "served.tmp"
    tmp.symlink_to(other)
    os.replace(tmp, link)  # what a promotion does to `current`
    backend.generate(chat, max_tokens=2)
    assert backend.loaded_from == other.resolve()


def _snapshot(reg: Registry) -> tuple[list[str], bytes, str]:
    return (reg.versions(), (reg.root / "PROMOTED").read_bytes(),
            os.readlink(reg.root / "current"))


@pytest.mark.slow  # a second full refresh; the multi-rank SIGKILL tests are slow too
def test_sigkill_leaves_the_registry_and_a_rerun_resumes(
        refreshed: tuple[Registry, dict], seed_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    reg, _ = refreshed
    before = _snapshot(reg)
    # Refresh from the promoted version as a local base (LoRA, kept as an adapter: the default
    # for real bases). Short examples only and no generation eval: this test is about the
    # run's life cycle.
    base = reg.serve_dir("v0001")
    args = ["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
            "--save-steps", "1", *TRAIN_ARGS, "--base", str(base), "--max-length", "1024",
            "--eval-stubs", "0"]
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", *args, "--max-steps", "500"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=cli_env(),
                            cwd=REPO, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not list(reg.runs_dir.glob("*/sft/checkpoint-2")):
            assert proc.poll() is None, "the run ended before it was killed"
            assert time.monotonic() < deadline, "no checkpoint within 300 s"
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert _snapshot(reg) == before
    assert main([*args, "--max-steps", "3"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert any(r.startswith("sft: checkpoint-") for r in res["resumed_from"]), res
    assert res["version"] == "v0002" and reg.versions() == ["v0001", "v0002"]
    assert reg.promoted() == ("v0002" if res["promoted"] else "v0001")
    meta = reg.meta("v0002")
    assert meta.kind == "adapter" and meta.base == str(base)
    assert meta.base_path == str(base.resolve())
    assert (reg.serve_dir("v0002") / "adapter_config.json").is_file()
    # Promoted, the adapter version got its merged copy: `current/model` still loads anywhere.
    assert (reg.full_dir("v0002") is not None) == res["promoted"]
    assert (reg.root / "current" / "model" / "config.json").is_file()
    assert set(meta.metrics) == {"inline_exact"}  # evaluated through the adapter


def test_llm_generation_samples_become_preference_pairs(
        refreshed: tuple[Registry, dict], seed_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The promoted tiny model writes no usable kernel: its first try and its repair are
    failed samples, stored as the server stores them and paired against the seed kernel.
    (Whitespace-only answers are not stored: a pair against nothing teaches nothing.)"""
    monkeypatch.setenv("KERNELGEN_CACHE_DIR", str(tmp_path / "cache"))
    reg, _ = refreshed
    # Sampled (greedy, the barely trained model writes only newlines: nothing to learn from).
    backend = TransformersBackend(reg.serve_dir("v0001"), seed=0)
    gen = run_llm_generation(SEED_STUB, tmp_path / "out", backend=backend, chip="ascend910b2",
                             samples=1, max_repairs=1, max_tokens=16, temperature=1.0)
    assert not gen.ok and gen.work_dir is not None
    rows = run_samples(gen.work_dir, SEED_STUB, "ascend910b2")
    assert [r.meta["round"] for r in rows] == ["round0", "round1"]
    assert all(r.validation["ok"] is False and r.validation["stage"] == "parse" for r in rows)
    # The repair's row carries the task turn, not the repair turn: both answer the same task.
    assert rows[0].meta["prompt"].endswith(TASK_CLOSING)
    assert rows[1].meta["prompt"] == rows[0].meta["prompt"]
    store = EditStore(tmp_path / "edits.sqlite")
    for r in rows:
        store.add("sample", r.file, r.suggestion, source="llm", validation=r.validation,
                  meta=r.meta)
    store.close()
    seed = [r for r in read_dataset(seed_dir) if r.instruction.kind == "generate"]
    pairs = preference_pairs(seed + store_records(tmp_path / "edits.sqlite"))
    assert len(pairs) == 2 and {p.task for p in pairs} == {SEED_STUB.stem}
    assert [p.rejected[0]["content"] for p in pairs] == [r.suggestion for r in rows]
    assert all(p.chosen[0]["content"] == completion_of(seed[0]) for p in pairs)


def _served(base_url: str, model_dir: Path) -> None:
    """The promoted model answers through the server exactly as it does in-process."""
    chat = [ChatMessage(role="user", content="What does the AscendC API DataCopyPad do?")]
    remote = OpenAICompatibleBackend(OpenAIConfig(base_url=base_url, model=str(model_dir),
                                                  timeout_s=120))
    local = TransformersBackend(model_dir)
    got = remote.generate(chat, max_tokens=12)[0].text
    assert got and got == local.generate(chat, max_tokens=12)[0].text


@pytest.fixture
def promoted_model(refreshed: tuple[Registry, dict]) -> Path:
    """`current/model`, the path the docs give servers: full weights whatever the promoted
    version is (in a whole-file run, the SIGKILL test's adapter version, merged on promotion)."""
    reg, _ = refreshed
    full = reg.full_dir(reg.promoted() or "")
    assert full is not None and (reg.root / "current" / "model").resolve() == full.resolve()
    return reg.root / "current" / "model"


def _server(cmd: list[str], port: int, log: Path, timeout_s: float) -> Iterator[str]:
    from tests.llm.conftest import start_server

    yield from start_server(cmd, port, log, timeout_s)


def test_promoted_model_answers_through_transformers_serve(
        promoted_model: Path, tmp_path: Path) -> None:
    import shutil

    from tests.llm.conftest import free_port

    exe = shutil.which("transformers", path=str(Path(sys.executable).parent))
    assert exe, "the `transformers` CLI is missing: pip install 'transformers[serving]'"
    port = free_port()
    cmd = [exe, "serve", "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    for url in _server(cmd, port, tmp_path / "serve.log", 120):
        _served(url, promoted_model)


@pytest.mark.vllm
def test_promoted_model_answers_through_vllm(promoted_model: Path, tmp_path: Path) -> None:
    from tests.llm.conftest import free_port

    python = os.environ.get("KERNELGEN_VLLM_PYTHON")
    if not python:
        pytest.skip("KERNELGEN_VLLM_PYTHON is not set (a Python with vllm installed)")
    port = free_port()
    cmd = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(promoted_model),
           "--served-model-name", str(promoted_model), "--dtype", "float32",
           "--gpu-memory-utilization", "0.2",
           "--host", "127.0.0.1", "--port", str(port), "--max-model-len", "16384"]
    chat = [{"role": "user", "content": "What does the AscendC API DataCopyPad do?"}]
    for url in _server(cmd, port, tmp_path / "vllm.log", 600):
        got = served_ids(url, str(promoted_model), chat, 12)
        assert got[1] and got == greedy_ids(promoted_model, chat, 12)
