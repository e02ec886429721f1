"""The preference stages (DPO, GRPO) of `kernelgen train refresh` on two data-parallel CPU
processes (gloo), launched as the docs say (`accelerate launch --multi_gpu --num_processes 2
-m server.cli train refresh ...`):

- a launch SIGKILLed (every process at once) during DPO leaves a registry with a promoted
  version as it was; the same command resumes DPO from its last complete checkpoint, runs
  GRPO, and the main process alone registers one version. DPO gave each rank its shard of
  the pairs, and the loss the curve shows for the resumed step is the mean of both shards'
  losses (recomputed here in one process from the checkpoint it resumed from), not rank 0's
  alone. GRPO split each prompt's answers across the ranks: each validated its own, none
  twice.
- a validation worker SIGKILLed on rank 1 ends the launch on both ranks with the reason,
  instead of leaving rank 0 waiting for rank 1's rewards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from kernelgen_lm.train.formats import preference_pairs
from kernelgen_lm.train.refresh import gather
from kernelgen_lm.train.registry import Registry, VersionMeta
from kernelgen_lm.train.tiny import build_tiny
from tests.train.conftest import (
    REPO,
    kill_launch,
    launch,
    launch_env,
    rank_pid,
    write_pair_store,
)

# Q/A records and the short samples only (the seed kernel's chat is left out), inline
# evaluation only: these tests are about who trains what and who writes.
ARGS = ["--base", "tiny", "--max-length", "2048", "--max-steps", "1", "--save-steps", "1",
        "--grpo-generations", "2", "--grpo-max-tokens", "8", "--reward-workers", "1",
        "--eval-stubs", "0", "--eval-inline", "1", "--eval-max-tokens", "8", "--format", "json"]
BETA = 0.1  # TrainConfig.dpo_beta


def _snapshot(reg: Registry) -> tuple[list[str], bytes, str]:
    return (reg.versions(), (reg.root / "PROMOTED").read_bytes(),
            os.readlink(reg.root / "current"))


def _wait_for(proc: subprocess.Popen[Any], root: Path, pattern: str, what: str,
              limit_s: float = 600) -> None:
    deadline = time.monotonic() + limit_s
    while not list(root.glob(pattern)):
        assert proc.poll() is None, f"the launch ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within {limit_s:.0f} s"
        time.sleep(0.5)


def _newest_complete(stage: Path) -> Path:
    """The newest checkpoint whose trainer_state.json reads (the Trainer writes it last)."""
    for ckpt in sorted(stage.glob("checkpoint-*"), key=lambda p: -int(p.name.split("-")[1])):
        try:
            json.loads((ckpt / "trainer_state.json").read_text())
        except (OSError, ValueError):
            continue
        return ckpt
    raise AssertionError(f"no complete checkpoint under {stage}")


def _dpo_loss(base: Path, policy: Path, reference: Path, pair: dict[str, Any],
              out: Path) -> float:
    """TRL's DPO loss of one pair, in this process, before any update: the policy (the base
    with the adapter of `policy`) against the reference (the base with the SFT adapter)."""
    from datasets import Dataset
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), str(policy),
                                      is_trainable=True)
    ref = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base),
                                    str(reference)).merge_and_unload()
    args = DPOConfig(output_dir=str(out), max_steps=1, per_device_train_batch_size=1,
                     learning_rate=0.0, beta=BETA, max_length=2048, logging_steps=1,
                     save_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True)
    trainer = DPOTrainer(model=model, ref_model=ref, args=args,
                         train_dataset=Dataset.from_list([pair]),
                         processing_class=AutoTokenizer.from_pretrained(reference))
    trainer.train()
    return float(next(h["loss"] for h in trainer.state.log_history if "loss" in h))


@pytest.mark.slow  # two launches of two processes: 4-6 min on two busy shared cores
def test_dpo_and_grpo_on_two_ranks_survive_a_sigkill_and_resume(
        seed_dir: Path, held, tmp_path: Path) -> None:
    store = write_pair_store(tmp_path / "edits.sqlite", seed_dir, ("relu", "relu_tail"))
    records, _ = gather(seed_dir, store, held)
    pairs = [p.model_dump(exclude={"task"}) for p in preference_pairs(records)]
    assert len(pairs) == 2  # one per rank and step
    reg = Registry(tmp_path / "reg")
    stage = tmp_path / "stage"
    build_tiny(stage / "model", ["int x;", "DataCopy(dst, src, n);"])
    reg.promote(reg.add(stage, VersionMeta(created=0, base="tiny", kind="merged",
                                           serve_path="model", data_hash="h")))
    before = _snapshot(reg)
    args = ["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
            "--store", str(store), *ARGS]
    env = launch_env(tmp_path)
    proc = subprocess.Popen(launch(2, *args, "--dpo-steps", "500"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, cwd=REPO,
                            start_new_session=True)
    try:
        _wait_for(proc, reg.runs_dir, "*/dpo/checkpoint-2/trainer_state.json",
                  "a second DPO checkpoint")
        kill_launch(proc.pid)  # the launcher and both ranks at once
        proc.wait()
    finally:
        if proc.poll() is None:  # not reaped: the pid is still the launch's
            kill_launch(proc.pid)
            proc.wait()
    assert _snapshot(reg) == before
    [run] = list(reg.runs_dir.iterdir())
    # What the resumed step starts from, kept before the rerun deletes the run.
    last = _newest_complete(run / "dpo")
    steps = int(last.name.split("-")[1])
    kept = tmp_path / "kept"
    for part, src in (("base", run / "base"), ("sft", run / "sft" / "final"), ("ckpt", last)):
        shutil.copytree(src, kept / part)

    started = time.monotonic()
    again = subprocess.run(launch(2, *args, "--dpo-steps", str(steps + 1), "--grpo-steps", "1"),
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
    wall = time.monotonic() - started
    assert again.returncode == 0, again.stderr[-4000:]
    res = json.loads(again.stdout)  # one result document: only the main process prints
    assert res["resumed_from"][:2] == ["sft: finished", f"dpo: checkpoint-{steps}"], res
    assert res["version"] == "v0002" and res["world_size"] == 2 and res["pairs"] == 2
    assert reg.versions() == ["v0001", "v0002"] and not any(reg.runs_dir.iterdir())
    train = reg.meta("v0002").train
    assert train["dpo_steps"] == steps + 1 and train["grpo_steps"] == 1
    # DPO: one pair per rank (each dataloader holds half of the pairs), the same steps.
    assert [(s["rank"], s["steps"], s["batches_per_epoch"]) for s in train["ranks"]["dpo"]] \
        == [(0, steps + 1, 1), (1, steps + 1, 1)]
    # GRPO: the step's group of 2 answers split across the ranks, each validated once.
    grpo = train["ranks"]["grpo"]
    assert [(s["rank"], s["steps"], s["scored"], s["validated"]) for s in grpo] \
        == [(0, 1, 1, 1), (1, 1, 1, 1)]
    # The curve's point for the resumed step is the mean loss over both ranks' pairs.
    losses = json.loads((reg.versions_dir / "v0002" / "losses.json").read_text())
    assert [s for s, _ in losses["dpo"]] == list(range(1, steps + 2))
    logged = dict(losses["dpo"])[steps + 1]
    each = [_dpo_loss(kept / "base", kept / "ckpt", kept / "sft", pair, tmp_path / f"dpo{i}")
            for i, pair in enumerate(pairs)]
    assert abs(each[0] - each[1]) > 4e-3, each  # each shard alone is off by > 2e-3
    assert logged == pytest.approx(sum(each) / 2, abs=1e-3), (logged, each)
    print(f"resumed 2-rank launch (DPO step {steps + 1}, GRPO 1 step, registration): "
          f"{wall:.0f} s wall")


def _reward_workers(rank: int) -> list[int]:
    """The validation workers (spawned multiprocessing children) of the rank process."""
    import psutil

    return [c.pid for c in psutil.Process(rank).children()
            if any("spawn_main" in part for part in c.cmdline())]


@pytest.mark.slow  # one launch of two processes: 1.5-3 min on two busy shared cores
def test_a_dead_reward_worker_on_one_rank_stops_both_ranks_with_the_reason(
        seed_dir: Path, tmp_path: Path) -> None:
    store = write_pair_store(tmp_path / "edits.sqlite", seed_dir, ("relu",), validated=False)
    reg = Registry(tmp_path / "reg")
    args = ["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
            "--store", str(store), *ARGS, "--grpo-steps", "500"]
    proc = subprocess.Popen(launch(2, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=launch_env(tmp_path), cwd=REPO,
                            start_new_session=True)
    try:
        _wait_for(proc, reg.runs_dir, "*/grpo/checkpoint-1/trainer_state.json",
                  "a GRPO checkpoint")
        rank1 = rank_pid(proc.pid, 1)
        assert rank1 is not None, "no rank-1 process under the launcher"
        workers = _reward_workers(rank1)
        assert len(workers) == 1, workers  # --reward-workers 1
        os.kill(workers[0], signal.SIGKILL)
        # Both ranks must end (not wait on each other); the bound only guards the test.
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:  # not reaped: the pid is still the launch's
            kill_launch(proc.pid)
            proc.wait()
    assert proc.returncode != 0 and not out.strip()
    reason = ("kernelgen train: GRPO reward failed, the run stops on every rank (rank 1: "
              "validating the answers: a validation worker failed (BrokenProcessPool")
    assert err.count(reason) == 2, err[-4000:]  # printed by rank 0 and by rank 1
    assert reg.versions() == []
    # The run stays for a rerun to resume from.
    assert list(reg.runs_dir.glob("*/grpo/checkpoint-*"))
