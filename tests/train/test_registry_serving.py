"""Promoting an adapter version makes it servable by every server: the registry merges the
adapter into its base (a full-weights copy at `versions/vN/model`, so `current/model` always
loads), and the merged copy computes what base + adapter compute."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from kernelgen_lm.train.registry import (
    Registry,
    RegistryError,
    VersionMeta,
    served_version,
)
from kernelgen_lm.train.tiny import build_tiny

CORPUS = ["DataCopy(dst, src, n);", "int x = 1;", "What does DataCopyPad do?"]


def adapter_version(reg: Registry, root: Path, rank: int = 4, base: Path | None = None,
                    seed: int = 0) -> tuple[str, Path]:
    """A registered adapter version over a tiny base (built unless given); the adapter's B
    matrices are random (peft's default zeros would make the merge a no-op that no test could
    tell apart), drawn from `seed`."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = base or build_tiny(root / "base", CORPUS)
    torch.manual_seed(seed)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(base),
                           LoraConfig(r=rank, target_modules="all-linear",
                                      init_lora_weights=False, task_type="CAUSAL_LM"))
    stage = root / f"stage{seed}"
    model.save_pretrained(stage / "adapter")
    AutoTokenizer.from_pretrained(base).save_pretrained(stage / "adapter")
    meta = VersionMeta(created=0, base=str(base), kind="adapter", serve_path="adapter",
                       base_path=str(base.resolve()), data_hash="h")
    return reg.add(stage, meta), base


def _logits(model: object, ids: object) -> object:
    import torch

    with torch.no_grad():
        return model(ids).logits  # type: ignore[operator]


def test_promoting_an_adapter_version_writes_a_merged_copy_that_serves(tmp_path: Path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    reg = Registry(tmp_path / "reg")
    version, base = adapter_version(reg, tmp_path)
    assert reg.full_dir(version) is None  # not promoted yet: no copy made
    reg.promote(version)
    full = reg.root / "current" / "model"
    assert (full / "config.json").is_file() and not (full / "adapter_config.json").exists()
    assert reg.full_dir(version) == reg.versions_dir / version / "model"
    assert reg.meta(version).full_path == "model" and reg.meta(version).kind == "adapter"
    assert not (reg.versions_dir / version / ".model.tmp").exists()
    served = served_version(str(full))
    assert served is not None and (served.version, served.kind) == (version, "adapter")

    ids = AutoTokenizer.from_pretrained(full)("DataCopy(dst, src, n);",
                                              return_tensors="pt")["input_ids"]
    merged = _logits(AutoModelForCausalLM.from_pretrained(full), ids)
    adapted = _logits(PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base),
                                                str(reg.serve_dir(version))), ids)
    plain = _logits(AutoModelForCausalLM.from_pretrained(base), ids)
    assert torch.allclose(merged, adapted, atol=1e-4)
    assert not torch.allclose(merged, plain, atol=1e-3)  # the adapter changed something
    # Promoting again (a rollback to it, a repeated promote) keeps the copy it has.
    stamp = (full / "model.safetensors").stat().st_mtime_ns
    reg.promote(version)
    assert (full / "model.safetensors").stat().st_mtime_ns == stamp


def test_the_in_process_backend_on_current_follows_a_promotion_to_an_adapter(
        tmp_path: Path) -> None:
    """`KERNELGEN_LLM_LOCAL_MODEL=REGISTRY/current/model` in a long-lived server: after a
    promotion of an adapter version (and a rollback) its next request runs the new weights."""
    from kernelgen_lm.backends import ChatMessage, TransformersBackend

    reg = Registry(tmp_path / "reg")
    stage = tmp_path / "stage"
    build_tiny(stage / "model", CORPUS)
    merged = reg.add(stage, VersionMeta(created=0, base="tiny", kind="merged",
                                        serve_path="model", data_hash="h"))
    reg.promote(merged)
    adapter, _ = adapter_version(reg, tmp_path, base=reg.serve_dir(merged))
    backend = TransformersBackend(reg.root / "current" / "model")
    chat = [ChatMessage(role="user", content="DataCopy")]
    backend.generate(chat, max_tokens=2)
    assert backend.loaded_from == (reg.versions_dir / merged / "model").resolve()
    reg.promote(adapter)
    backend.generate(chat, max_tokens=2)
    assert backend.loaded_from == (reg.versions_dir / adapter / "model").resolve()
    reg.rollback()
    backend.generate(chat, max_tokens=2)
    assert backend.loaded_from == (reg.versions_dir / merged / "model").resolve()


def test_an_adapter_whose_base_is_gone_is_not_promoted(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "reg")
    first, _ = adapter_version(reg, tmp_path / "a")
    reg.promote(first)
    second, base = adapter_version(reg, tmp_path / "b")
    shutil.rmtree(base)
    with pytest.raises(RegistryError, match="cannot merge adapter"):
        reg.promote(second)
    assert reg.promoted() == first and (reg.root / "current").resolve().name == first
    assert reg.full_dir(second) is None
    assert not (reg.versions_dir / second / "model").exists()


def test_a_server_that_cannot_load_the_version_gets_the_exact_restart_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With no vLLM listening, promotion still happens and says how to start the server:
    an adapter version on its base with runtime LoRA updates on (so the next adapter loads
    live), by resolved versioned paths (so the server's `root` tells which version serves)."""
    import shlex

    from server.cli import main
    from tests.llm.conftest import free_port

    reg = Registry(tmp_path / "reg")
    version, base = adapter_version(reg, tmp_path, rank=32)
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["model", "promote", version, "--registry", str(reg.root), "--vllm-url", url,
                 "--vllm-model", "kg", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["promoted"] == version
    [update] = out["servers"]
    assert (update["server"], update["action"], update["model"]) == (url, "unreachable", "kg")
    env, *argv = shlex.split(update["command"])
    adapter = (reg.versions_dir / version / "adapter").resolve()
    assert env == "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True"
    assert argv == ["vllm", "serve", str(base.resolve()), "--enable-lora", "--lora-modules",
                    f"kg={adapter}", "--max-lora-rank", "32"]
    assert main(["model", "rollback", "--registry", str(reg.root), "--vllm-url",
                 "localhost:8000"]) == 2
    assert "must start with http://" in capsys.readouterr().err


def test_restart_command_for_a_merged_version_serves_its_full_weights(tmp_path: Path) -> None:
    from kernelgen_lm.train.serving import restart_command

    reg = Registry(tmp_path / "reg")
    stage = tmp_path / "stage"
    build_tiny(stage / "model", CORPUS)
    version = reg.add(stage, VersionMeta(created=0, base="tiny", kind="merged",
                                         serve_path="model", data_hash="h"))
    full = (reg.versions_dir / version / "model").resolve()
    assert restart_command(reg, version) == f"vllm serve {full} --served-model-name kernelgen"


def _promote(reg: Registry, url: str, *args: str) -> dict:
    import contextlib
    import io

    from server.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["model", *args, "--registry", str(reg.root), "--vllm-url", url,
                     "--format", "json"]) == 0
    [update] = json.loads(out.getvalue())["servers"]
    return update


@pytest.mark.vllm
def test_promotion_swaps_the_adapter_of_a_running_vllm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A vLLM serving the base with runtime LoRA updates: each promotion of an adapter version
    (and a rollback) loads it under the clients' name, the server then answers as the merged
    copy does in-process, and `kernelgen.status` names the version the server reports; a
    merged version asks for a restart."""
    from tests.llm.conftest import free_port, start_server
    from tests.train.conftest import cli_env, greedy_ids, lsp_status, served_ids

    python = os.environ.get("KERNELGEN_VLLM_PYTHON")
    if not python:
        pytest.skip("KERNELGEN_VLLM_PYTHON is not set (a Python with vllm installed)")
    reg = Registry(tmp_path / "reg")
    first, base = adapter_version(reg, tmp_path, seed=1)
    second, _ = adapter_version(reg, tmp_path, base=base, seed=2)
    chat = [{"role": "user", "content": "What does DataCopyPad do?"}]

    def check(url: str, version: str) -> None:
        full = reg.full_dir(version)
        assert full is not None
        assert served_ids(url, "kernelgen", chat, 12) == greedy_ids(full, chat, 12)
        env = {**cli_env(), "KERNELGEN_LLM_BASE_URL": url, "KERNELGEN_LLM_MODEL": "kernelgen"}
        model = asyncio.run(lsp_status(tmp_path, env))["model"]
        assert model["source"] == "server"
        assert model["registryVersion"]["version"] == version

    monkeypatch.setenv("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True")
    port = free_port()
    cmd = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(base.resolve()),
           "--enable-lora", "--max-lora-rank", "16", "--dtype", "float32",
           "--gpu-memory-utilization", "0.2", "--host", "127.0.0.1", "--port", str(port),
           "--max-model-len", "4096"]
    for url in start_server(cmd, port, tmp_path / "vllm.log", 600):
        assert _promote(reg, url, "promote", first)["action"] == "loaded"
        check(url, first)
        assert _promote(reg, url, "promote", second)["action"] == "loaded"
        check(url, second)
        assert _promote(reg, url, "promote", second)["action"] == "already-serving"
        assert _promote(reg, url, "rollback")["action"] == "loaded"
        check(url, first)
        stage = tmp_path / "merged"
        shutil.copytree(base, stage / "model")
        merged = reg.add(stage, VersionMeta(created=0, base="tiny", kind="merged",
                                            serve_path="model", data_hash="h"))
        update = _promote(reg, url, "promote", merged)
        assert update["action"] == "restart-needed"
        assert update["command"].startswith("vllm serve ")
        check(url, first)  # the server keeps answering with what it had
