"""GRPO from execution feedback (`train refresh --grpo-steps N`): the policy writes kernels for
the training set's generation tasks, several answers per prompt; each answer is validated like
a generated kernel (parse, compile, every trial on the emulator in the sandbox, then the
modelled speed), and GRPO pushes the policy towards the answers that got further than their
siblings. Validation runs in worker processes, in parallel (`--reward-workers`).

The reward is where the validation stopped (REWARD_BY_STAGE), plus, for a validated kernel, a
bonus for its modelled speed-up over PyTorch eager (capped: the model is a model).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import tempfile
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelgen_lm.train.dist import RankFailed, Ranks
from kernelgen_lm.train.formats import prompt_of
from kernelgen_lm.train.records import CotRecord

# Reward by the stage at which validation stopped (kernelgen_lm.attempts.report_stage;
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
        rows.setdefault(
            (task, ins.chip),
            {"prompt": prompt_of(r), "task": task, "chip": ins.chip, "reference": ins.reference},
        )
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
        outcome = validate_answer(
            answer, sample, ref, chip, "grpo", shapes=shape_variants(graph) if graph else None
        )
        stage = outcome.attempt.stage
        reward = REWARD_BY_STAGE[stage]
        speed = modelled_speed(graph, outcome.report, chip) if graph else None
        if speed is not None:
            reward += SPEED_BONUS * min(speed.speedup, SPEED_CAP) / SPEED_CAP
        return Reward(
            reward=reward,
            stage=stage,
            message=outcome.attempt.message,
            speedup=speed.speedup if speed else None,
        )


def _worker_reward(answer: str, task: str, chip: str, reference: str) -> Reward:
    """A reward must come back for every sample: an answer that breaks the validator itself
    (a bug there, not the model's fault) scores as unusable, with the reason kept."""
    try:
        return kernel_reward(answer, task, chip, reference)
    except Exception as exc:  # one bad sample must not end the training run
        return Reward(reward=0.0, stage="error", message=f"{type(exc).__name__}: {exc}")


class RewardFailed(RankFailed):
    """The reward could not be computed on some rank (a validation worker died or did not
    finish in time): every rank of the launch stops with this message instead of waiting
    for the rewards of that rank forever."""


def _started() -> int:
    return os.getpid()


class ValidatorReward:
    """TRL reward function: every completion validated in a pool of worker processes
    (spawned, not forked: the trainer's process holds torch threads).

    Under a data-parallel launch TRL hands each rank only its own completions (its share of
    every prompt's group), so each rank validates a disjoint share; identical answers to the
    same task within a call are validated once. After its validations every rank reports to
    the others whether they succeeded (`ranks.gather`): a worker that died, or a batch that
    did not finish within `timeout_s` per answer and worker, ends the run on every rank with
    `RewardFailed`, rather than leaving the others blocked in TRL's gather of the rewards."""

    def __init__(self, workers: int, ranks: Ranks | None = None, timeout_s: float = 900.0) -> None:
        if workers < 1:
            raise ValueError(f"reward workers must be >= 1, not {workers}")
        if timeout_s <= 0:
            raise ValueError(f"the reward timeout must be > 0 s, not {timeout_s}")
        self.__name__ = "validator"  # TRL names the reward column after it
        self._ranks = ranks or Ranks()
        self._workers = workers
        self.timeout_s = timeout_s
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        )
        self.last: list[Reward] = []
        self.validated = 0  # validations this process ran (distinct answers)
        self.scored = 0  # answers it scored
        # Start every worker now: one that cannot start fails the run before training, and
        # the first step does not pay for the spawns.
        jobs = [self._submit(_started) for _ in range(workers)]
        self.worker_pids: list[int] = sorted(set(self._collect(jobs, "starting the workers")))

    def _submit(self, fn: Any, *args: Any) -> Future[Any]:
        """A job for the pool; a pool already broken (a worker died since the last batch)
        gives a failed job, so that this rank still reports to the others."""
        try:
            return self._pool.submit(fn, *args)
        except RuntimeError as exc:  # BrokenProcessPool, or a pool shut down
            failed: Future[Any] = Future()
            failed.set_exception(exc)
            return failed

    def _collect(self, jobs: list[Future[Any]], what: str) -> list[Any]:
        """The jobs' results, or RewardFailed on every rank when one of them (on any rank)
        failed or the batch ran past its time."""
        budget = self.timeout_s * math.ceil(len(jobs) / self._workers)
        done, pending = wait(jobs, timeout=budget, return_when=FIRST_EXCEPTION)
        error = None
        if pending and not any(j.exception() for j in done):
            error = (
                f"{what}: {len(pending)} of {len(jobs)} validation(s) did not finish "
                f"within {budget:.0f} s ({self.timeout_s:.0f} s per answer and worker)"
            )
        for j in done:
            if (exc := j.exception()) is not None:
                error = f"{what}: a validation worker failed ({type(exc).__name__}: {exc})"
                break
        errors = self._ranks.gather(error)
        if any(errors):
            self.close(kill=True)
            where = "; ".join(f"rank {r}: {e}" for r, e in enumerate(errors) if e)
            raise RewardFailed(
                f"GRPO reward failed, the run stops on every rank ({where}); "
                "run the same command again to resume from the last checkpoint"
            )
        return [j.result() for j in jobs]

    def __call__(
        self,
        prompts: list[Any],
        completions: list[Any],
        task: list[str],
        chip: list[str],
        reference: list[str],
        **_: Any,
    ) -> list[float]:
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        keys = list(zip(texts, task, chip, reference, strict=True))
        unique = list(dict.fromkeys(keys))
        jobs = [self._submit(_worker_reward, *k) for k in unique]
        got = dict(zip(unique, self._collect(jobs, "validating the answers"), strict=True))
        self.validated += len(unique)
        self.scored += len(keys)
        self.last = [got[k] for k in keys]
        return [r.reward for r in self.last]

    def close(self, kill: bool = False) -> None:
        """Stops the workers; `kill` ends those still validating (after a failure or a
        timeout, waiting for them could take as long as the hang that caused it)."""
        if kill:
            # ProcessPoolExecutor has no public way to end running workers before 3.14.
            processes = dict(getattr(self._pool, "_processes", None) or {})
            for proc in processes.values():
                if proc.is_alive():
                    proc.kill()
        self._pool.shutdown(wait=not kill, cancel_futures=True)
