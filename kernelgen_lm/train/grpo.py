"""GRPO from execution feedback (`train refresh --grpo-steps N`): the policy writes kernels for
the training set's generation tasks, several answers per prompt; each answer is validated like
a generated kernel (parse, compile, every trial on the emulator in the sandbox, then the
modelled speed), and GRPO pushes the policy towards the answers that got further than their
siblings. Validation runs in worker processes, in parallel (`--reward-workers`).

The reward is where the validation stopped (REWARD_BY_STAGE), plus, for a validated kernel, a
bonus for its modelled speed-up over PyTorch eager (capped: the model is a model).
"""

from __future__ import annotations

import multiprocessing
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelgen_lm.train.formats import prompt_of
from kernelgen_lm.train.records import CotRecord

# Reward by the stage at which validation stopped (kernelgen_lm.llm.feedback.report_stage;
# "parse" also covers files that do not form a project bound to the reference).
REWARD_BY_STAGE: dict[str, float] = {
    "parse": 0.0,  # no usable project in the answer
    "compile": 0.1,  # a project that does not compile
    "run": 0.3,  # compiles; crashes, times out or breaks a rule on the emulator
    "compare": 0.5,  # runs; wrong results
    "done": 1.0,  # validated: every trial and shape variant matches the reference
}
SPEED_BONUS = 0.5  # added to a validated kernel's reward at a modelled speed-up of SPEED_CAP
SPEED_CAP = 4.0


class Reward(BaseModel):
    reward: float
    stage: str
    speedup: float | None = None
    message: str = ""


def grpo_tasks(records: list[CotRecord]) -> list[dict[str, Any]]:
    """One GRPO row per generation task (and chip) that has its PyTorch reference: the
    product's generation chat as the prompt, and what the reward needs to validate."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        ins = r.instruction
        if ins.kind != "generate" or not ins.reference or not ins.chip:
            continue
        task = r.metadata.task or ins.op or "task"
        rows.setdefault((task, ins.chip), {"prompt": prompt_of(r), "task": task,
                                           "chip": ins.chip, "reference": ins.reference})
    return list(rows.values())


def kernel_reward(answer: str, task: str, chip: str, reference: str) -> Reward:
    """Validates one answer against the reference (in a scratch directory) and scores it."""
    from kernelgen_lm.capture import CaptureError, capture
    from kernelgen_lm.generate import modelled_speed, shape_variants
    from kernelgen_lm.llm.loop import validate_answer
    from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer

    try:
        parse_answer(answer)
    except AnswerFormatError as exc:  # no compile needed to know
        return Reward(reward=REWARD_BY_STAGE["parse"], stage="parse", message=str(exc))
    with tempfile.TemporaryDirectory(prefix="kernelgen-grpo-") as tmp:
        ref = Path(tmp) / f"{task}.py"
        ref.write_text(reference, encoding="utf-8")
        try:
            graph = capture(ref)
        except CaptureError:
            graph = None
        sample = Path(tmp) / "sample"
        sample.mkdir()
        outcome = validate_answer(answer, sample, ref, chip, "grpo",
                                  shapes=shape_variants(graph) if graph else None)
        stage = outcome.attempt.stage
        reward = REWARD_BY_STAGE[stage]
        speed = modelled_speed(graph, outcome.report, chip) if graph else None
        if speed is not None:
            reward += SPEED_BONUS * min(speed.speedup, SPEED_CAP) / SPEED_CAP
        return Reward(reward=reward, stage=stage, message=outcome.attempt.message,
                      speedup=speed.speedup if speed else None)


def _worker_reward(answer: str, task: str, chip: str, reference: str) -> Reward:
    """A reward must come back for every sample: an answer that breaks the validator itself
    (a bug there, not the model's fault) scores as unusable, with the reason kept."""
    try:
        return kernel_reward(answer, task, chip, reference)
    except Exception as exc:  # one bad sample must not end the training run
        return Reward(reward=0.0, stage="error", message=f"{type(exc).__name__}: {exc}")


class ValidatorReward:
    """TRL reward function: every completion validated in a pool of worker processes
    (spawned, not forked: the trainer's process holds torch threads)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"reward workers must be >= 1, not {workers}")
        self.__name__ = "validator"  # TRL names the reward column after it
        self._pool = ProcessPoolExecutor(max_workers=workers,
                                         mp_context=multiprocessing.get_context("spawn"))
        self.last: list[Reward] = []

    def __call__(self, prompts: list[Any], completions: list[Any], task: list[str],
                 chip: list[str], reference: list[str], **_: Any) -> list[float]:
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        jobs = [self._pool.submit(_worker_reward, t, k, c, r)
                for t, k, c, r in zip(texts, task, chip, reference, strict=True)]
        self.last = [j.result() for j in jobs]
        return [r.reward for r in self.last]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
