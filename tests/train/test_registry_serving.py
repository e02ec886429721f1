"""Promoting an adapter version makes it servable by every server: the registry merges the
adapter into its base (a full-weights copy at `versions/vN/model`, so `current/model` always
loads), and the merged copy computes what base + adapter compute."""

from __future__ import annotations

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


def adapter_version(reg: Registry, root: Path, rank: int = 4) -> tuple[str, Path]:
    """A registered adapter version over a tiny base; the adapter's B matrices are random
    (peft's default zeros would make the merge a no-op that no test could tell apart)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = build_tiny(root / "base", CORPUS)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(base),
                           LoraConfig(r=rank, target_modules="all-linear",
                                      init_lora_weights=False, task_type="CAUSAL_LM"))
    stage = root / "stage"
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

