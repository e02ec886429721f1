"""`kernelgen train refresh` as two data-parallel processes on the CPU (gloo), started as the
docs say: `accelerate launch --multi_gpu --num_processes 2 -m server.cli train refresh ...`
with no GPU visible (accelerate's `--cpu` flag alone starts one process; several CPU
processes need its MPI path). Both ranks train, each on half of every epoch, for the same
optimizer steps; the main process alone registers and promotes one version and prints the one
result; a rank killed mid-training fails the launch and leaves the registry as it was. And the
DeepSpeed options' checks (a malformed config is refused before anything trains)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from kernelgen_lm.train.registry import Registry
from kernelgen_lm.train.zero import ZeroConfigError, check_config, load_config, zero_config
from server.cli import main
from tests.train.conftest import REPO, kill_launch, launch, launch_env, rank_pid

# Q/A records only (the seed kernel's chat is longer than 1024 tokens and left out), no
# generation evaluation: this is about who trains and who writes.
ARGS = ["--base", "tiny", "--max-length", "1024", "--eval-stubs", "0", "--eval-inline", "1",
        "--eval-max-tokens", "8", "--format", "json"]


@pytest.mark.slow  # two processes: 45 s of CPU, 2.5-3.5 min on two busy shared cores
def test_two_ranks_train_half_each_and_register_one_version(seed_dir: Path,
                                                            tmp_path: Path) -> None:
    reg = Registry(tmp_path / "reg")
    proc = subprocess.run(
        launch(2, "train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
               "--max-steps", "2", *ARGS),
        capture_output=True, text=True, env=launch_env(tmp_path), cwd=REPO, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads(proc.stdout)  # one result document: only the main process prints
    assert res["version"] == "v0001" and res["promoted"] is True and res["world_size"] == 2
    assert reg.versions() == ["v0001"] and reg.promoted() == "v0001"
    assert not any(reg.runs_dir.iterdir())
    train = reg.meta("v0001").train
    assert train["world_size"] == 2
    shares = train["ranks"]["sft"]
    assert [s["rank"] for s in shares] == [0, 1]
    assert all(s["world_size"] == 2 and s["steps"] == 2 for s in shares)
    # Each rank's dataloader holds half of an epoch (batch 1): data parallel, not two
    # copies of the same single-process run.
    examples = train["examples"]
    assert examples >= 2
    assert all(s["batches_per_epoch"] == math.ceil(examples / 2) for s in shares)


def _snapshot(reg: Registry) -> tuple[list[str], bytes | None]:
    pointer = reg.root / "PROMOTED"
    return reg.versions(), pointer.read_bytes() if pointer.is_file() else None


@pytest.mark.slow  # two launches of two processes: 6 min on two busy shared cores
def test_a_killed_rank_fails_the_launch_and_leaves_the_registry(
        seed_dir: Path, tmp_path: Path) -> None:
    reg = Registry(tmp_path / "reg")
    args = ["train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
            "--save-steps", "1", *ARGS]
    before = _snapshot(reg)
    proc = subprocess.Popen(launch(2, *args, "--max-steps", "500"), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=launch_env(tmp_path), cwd=REPO,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while not list(reg.runs_dir.glob("*/sft/checkpoint-2/trainer_state.json")):
            assert proc.poll() is None, "the launch ended before a rank was killed"
            assert time.monotonic() < deadline, "no checkpoint within 600 s"
            time.sleep(0.5)
        pid = rank_pid(proc.pid, 1)
        assert pid is not None, "no rank-1 process under the launcher"
        os.kill(pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:  # not reaped: the pid is still the launch's
            kill_launch(proc.pid)  # the ranks too, should the test stop early
            proc.wait()
    assert proc.returncode != 0 and not out.strip()
    assert _snapshot(reg) == before and reg.versions() == []
    # The same launch again resumes from the last complete checkpoint and registers.
    again = subprocess.run(launch(2, *args, "--max-steps", "3"), capture_output=True, text=True,
                           env=launch_env(tmp_path), cwd=REPO, timeout=900)
    assert again.returncode == 0, again.stderr[-4000:]
    res = json.loads(again.stdout)
    assert any(r.startswith("sft: checkpoint-") for r in res["resumed_from"]), res
    assert reg.versions() == ["v0001"] and res["world_size"] == 2


def test_zero_configs_are_checked(tmp_path: Path) -> None:
    for stage in (2, 3):
        config = zero_config(stage)
        check_config(config, "--zero")
        assert config["zero_optimization"]["stage"] == stage
    with pytest.raises(ZeroConfigError, match="use 2"):
        zero_config(1)
    bad = tmp_path / "ds.json"
    bad.write_text(json.dumps({"zero_optimization": {"stage": 3}}))
    with pytest.raises(ZeroConfigError, match="stage3_gather_16bit_weights_on_model_save"):
        load_config(bad)
    bad.write_text(json.dumps({"zero_optimization": {"stage": 5}}))
    with pytest.raises(ZeroConfigError, match="stage 5"):
        load_config(bad)
    bad.write_text("{not json")
    with pytest.raises(ZeroConfigError, match="not JSON"):
        load_config(bad)
    with pytest.raises(ZeroConfigError, match="No such file"):
        load_config(tmp_path / "missing.json")


def test_refresh_refuses_a_bad_deepspeed_config_before_training(
        seed_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "ds.json"
    bad.write_text(json.dumps({"zero_optimization": {"stage": 3}}))
    reg = tmp_path / "reg"
    assert main(["train", "refresh", "--registry", str(reg), "--data", str(seed_dir),
                 "--deepspeed", str(bad), *ARGS]) == 2
    assert "stage3_gather_16bit_weights_on_model_save" in capsys.readouterr().err
    assert not reg.exists()  # nothing was created


@pytest.mark.slow  # 3.5 min each on two busy cores (DeepSpeed JIT-builds a CPU op once)
@pytest.mark.parametrize("stage", [2, 3])
def test_zero_trains_on_two_cpu_ranks(seed_dir: Path, tmp_path: Path, stage: int) -> None:
    pytest.importorskip("deepspeed")
    reg = Registry(tmp_path / "reg")
    proc = subprocess.run(
        launch(2, "train", "refresh", "--registry", str(reg.root), "--data", str(seed_dir),
               "--max-steps", "2", "--zero", str(stage), *ARGS),
        capture_output=True, text=True, env=launch_env(tmp_path), cwd=REPO, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads(proc.stdout)
    assert res["promoted"] is True and res["world_size"] == 2
    train = reg.meta(res["version"]).train
    assert train["deepspeed"]["zero_optimization"]["stage"] == stage
    assert (reg.serve_dir(res["version"]) / "config.json").is_file()  # full weights saved
    assert all(s["steps"] == 2 and s["world_size"] == 2 for s in train["ranks"]["sft"])


def test_a_malformed_world_size_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgen_lm.train.dist import join

    monkeypatch.setenv("WORLD_SIZE", "two")
    with pytest.raises(ValueError, match="WORLD_SIZE='two' is not a number"):
        join(use_cpu=True)
