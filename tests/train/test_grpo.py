"""GRPO from execution feedback: the validator's reward ranks answers by how far validation
got (and a validated kernel's modelled speed), computed in parallel worker processes; one
GRPO step of a tiny model on CPU, rewarded by those workers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import pytest

from kernelgen_lm.train.formats import completion_of
from kernelgen_lm.train.grpo import (
    REWARD_BY_STAGE,
    SPEED_BONUS,
    RewardFailed,
    ValidatorReward,
    grpo_tasks,
)
from kernelgen_lm.train.records import (
    Answer,
    CotRecord,
    Instruction,
    Metadata,
    Validation,
    read_dataset,
)
from kernelgen_lm.train.trainer import TrainConfig, grpo_batch, train
from tests.train.conftest import SEED_STUB

CHIP = "ascend910b2"


@pytest.mark.slow  # two kernel compiles and the emulator's trials: about a minute of CPU
def test_the_validator_reward_ranks_answers_in_parallel_workers(seed_dir: Path) -> None:
    seed = next(r for r in read_dataset(seed_dir) if r.instruction.kind == "generate")
    [task] = grpo_tasks([seed])
    assert task["task"] == SEED_STUB.stem and task["reference"] == SEED_STUB.read_text()
    good = completion_of(seed)
    kernel = next(p for p in seed.answer.files if p.startswith("op_kernel/"))
    broken = good.replace(seed.answer.files[kernel],
                          seed.answer.files[kernel].replace(";", "", 3), 1)
    assert broken != good
    answers = [good, broken, "no files here"]
    reward = ValidatorReward(workers=2)
    try:
        got = reward([task["prompt"]] * 3, [[{"role": "assistant", "content": a}]
                                            for a in answers],
                     task=[task["task"]] * 3, chip=[task["chip"]] * 3,
                     reference=[task["reference"]] * 3)
    finally:
        reward.close()
    stages = [r.stage for r in reward.last]
    assert stages == ["done", "compile", "parse"], [r.message for r in reward.last]
    speedup = reward.last[0].speedup
    assert speedup is not None and speedup > 0
    assert got[0] == pytest.approx(REWARD_BY_STAGE["done"] + SPEED_BONUS * min(speedup, 4.0) / 4)
    assert got[1:] == [REWARD_BY_STAGE["compile"], REWARD_BY_STAGE["parse"]]


# slow: about 35 s of CPU (SFT, two sampled answers, spawned reward workers, one GRPO step)
@pytest.mark.slow
def test_one_grpo_step_of_a_tiny_model_rewarded_by_the_validator(tmp_path: Path) -> None:
    """A failed sample of a generation task (with its reference) makes the GRPO task; a
    question makes the SFT example. The tiny model writes no project, so every answer is
    rewarded as unusable, by the worker processes, and the step still trains and saves."""
    task = CotRecord(
        instruction=Instruction(kind="generate", chip=CHIP, op="act_relu_fp32_custom",
                                text="Write act_relu_fp32_custom: y = relu(x), float32.",
                                reference=SEED_STUB.read_text()),
        answer=Answer(text="int relu;"),
        metadata=Metadata(origin="store-sample", task=SEED_STUB.stem,
                          validation=Validation(ok=False, stage="parse")))
    qa = CotRecord(instruction=Instruction(kind="qa", text="What does DataCopyPad do?"),
                   answer=Answer(text="It copies with padding for unaligned lengths."),
                   metadata=Metadata(origin="catalog"))
    cfg = TrainConfig(base="tiny", max_steps=1, grpo_steps=1, grpo_generations=2,
                      grpo_max_tokens=8, reward_workers=2, max_length=1024,
                      progress_bars=False)
    out = train([task, qa], [], tmp_path / "run", cfg)
    assert out.grpo_steps == 1 and out.grpo_tasks == 1 and out.kind == "merged"
    assert (tmp_path / "run" / "grpo" / "final" / "losses.json").is_file()
    state = json.loads(next((tmp_path / "run" / "grpo").glob("checkpoint-*"))
                       .joinpath("trainer_state.json").read_text())
    logged = [h for h in state["log_history"] if "rewards/validator/mean" in h]
    assert logged and logged[0]["rewards/validator/mean"] == REWARD_BY_STAGE["parse"]
    assert (out.model_dir / "config.json").is_file()


def test_a_group_of_answers_is_split_across_the_ranks_where_it_divides() -> None:
    # generations 4 on 2 ranks: 2 answers each, one prompt per step; 3 on 2 ranks cannot be
    # split, so each rank takes a whole group (two prompts per step).
    assert [grpo_batch(4, 1), grpo_batch(4, 2), grpo_batch(2, 2), grpo_batch(3, 2),
            grpo_batch(4, 8)] == [4, 2, 1, 3, 1]
    with pytest.raises(ValueError, match="must be >= 1"):
        grpo_batch(0, 2)


def _answer(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def test_a_dead_validation_worker_stops_the_reward_with_its_reason() -> None:
    reward = ValidatorReward(workers=1)
    try:
        [pid] = reward.worker_pids
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(RewardFailed, match=r"rank 0: validating the answers: a validation "
                                               r"worker failed \(BrokenProcessPool"):
            reward(["p"], [_answer("no files here")], task=["t"], chip=[CHIP],
                   reference=["x = 1"])
    finally:
        reward.close(kill=True)


def test_a_hung_validation_stops_the_reward_and_its_worker() -> None:
    """The reference module sleeps at import (capture runs it in the worker): that validation
    hangs, the batch runs past its budget (1 s per answer and worker, two distinct answers)
    and the worker is killed rather than waited for."""
    import psutil

    reward = ValidatorReward(workers=1)
    [pid] = reward.worker_pids
    reward.timeout_s = 1.0
    try:
        with pytest.raises(RewardFailed, match=r"validation\(s\) did not finish within 2 s "
                                               r"\(1 s per answer and worker\)"):
            reward(["p"] * 3, [_answer("no files here"), _answer("no files here"),
                               _answer('<file path="op_kernel/k.cpp">\nint k;\n</file>')],
                   task=["t"] * 3, chip=[CHIP] * 3,
                   reference=["import time\ntime.sleep(3600)\n"] * 3)
    finally:
        reward.close(kill=True)
    with contextlib.suppress(psutil.NoSuchProcess):  # raises TimeoutExpired while it runs
        psutil.Process(pid).wait(timeout=30)
