"""The LLM generation loop: prompt -> k samples -> parse -> validate -> repair -> best of.

Each of the k samples is a chain: its answer is parsed, written to its own directory and
validated; a failed chain gets a repair turn with its own feedback, up to `max_repairs` times.
The first round in which any chain validates ends the loop; of its correct samples the one
with the least modelled work is kept, copied to `out_dir` and added to the store of validated
generations that later prompts retrieve examples from. Every try is an `Attempt`.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.chips import UnknownChipError, get_chip
from ascend_tools.reference import ReferenceError
from ascend_tools.report import ValidationReport
from ascend_tools.toolchain.cache import cache_root
from ascend_tools.validate import ValidationInputError, validate_project
from kernelgen_lm.attempts import Attempt, report_stage
from kernelgen_lm.backends import Backend, BackendError, ChatMessage
from kernelgen_lm.generate import DEFAULT_TRIALS
from kernelgen_lm.llm.context import build_context
from kernelgen_lm.llm.examples import store_validated
from kernelgen_lm.llm.feedback import parse_feedback, report_feedback
from kernelgen_lm.llm.prompt import initial_messages, repair_messages
from kernelgen_lm.llm.reference import describe_reference
from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer

DEFAULT_MAX_TOKENS = 4096
SAMPLING_TEMPERATURE = 0.8  # k > 1 samples need diversity; a single sample is greedy


class LlmGeneration(BaseModel):
    """The outcome: the kept project (in out_dir) and its report, or why there is none."""

    ok: bool
    project: Path | None = None
    attempts: list[Attempt] = []
    validation: ValidationReport | None = None
    error: str | None = None  # a one-line reason when not ok, for status messages
    work_dir: Path | None = None  # every sample's prompt, answer, files and feedback


class _Chain(BaseModel):
    index: int
    answer: str = ""
    feedback: str = ""


class SampleOutcome(BaseModel):
    """One answer after parsing and validation, with the feedback a repair turn would get."""

    attempt: Attempt
    feedback: str = ""
    report: ValidationReport | None = None
    project: Path | None = None


def default_op_name(ref_path: Path) -> str:
    """`19_ReLU.py` -> `relu_custom` (msopgen's snake-case op name convention)."""
    stem = ref_path.stem.lstrip("0123456789_").lower() or "op"
    words = "".join(c if c.isalnum() else "_" for c in stem).strip("_")
    return f"{words or 'op'}_custom"


def _modelled_work(report: ValidationReport) -> float:
    """A figure to prefer one correct sample over another: total GM traffic and vector repeats."""
    total = report.counters.get("total", {}) if isinstance(report.counters, dict) else {}
    repeats = total.get("vector_repeats", {})
    traffic = sum(float(total.get(k, 0)) for k in ("gm_to_ub_bytes", "ub_to_gm_bytes"))
    return traffic + 256.0 * sum(float(v) for v in (repeats.values() if repeats else []))


def _write_project(files: dict[str, str], dest: Path) -> None:
    for rel, text in files.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def validate_answer(
    answer: str,
    sample_dir: Path,
    ref_path: Path,
    chip: str,
    backend: str,
    *,
    trials: int = DEFAULT_TRIALS,
    shapes: list[list[list[int]]] | None = None,
) -> SampleOutcome:
    """Parses `answer`, writes its files under `sample_dir/project` and validates them with the
    rule path's gate: `trials` trials, each at the reference shapes and at `shapes`."""
    (sample_dir / "answer.txt").write_text(answer, encoding="utf-8")
    try:
        parsed = parse_answer(answer)
    except AnswerFormatError as exc:
        msg = f"unusable answer: {exc}"
        return SampleOutcome(
            attempt=Attempt(backend=backend, ok=False, stage="parse", message=msg),
            feedback=parse_feedback(str(exc)),
        )
    project = sample_dir / "project"
    _write_project(parsed.files, project)
    try:
        report = validate_project(project, ref_path, chip=chip, trials=trials, shapes=shapes)
    except ValidationInputError as exc:  # files that do not form a project bound to the reference
        return SampleOutcome(
            attempt=Attempt(backend=backend, ok=False, stage="parse", message=str(exc)),
            feedback=parse_feedback(str(exc)),
        )
    (sample_dir / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    stage = report_stage(report)
    if stage == "done":
        msg = f"validated ({len(report.cases)} cases)"
        return SampleOutcome(
            attempt=Attempt(backend=backend, ok=True, stage="done", message=msg),
            report=report,
            project=project,
        )
    feedback = report_feedback(report, project)
    first = feedback.splitlines()[1] if "\n" in feedback else feedback
    return SampleOutcome(
        attempt=Attempt(backend=backend, ok=False, stage=stage, message=first[:300]),
        feedback=feedback,
        report=report,
    )


def _new_run_dir(op_name: str) -> Path:
    base = cache_root() / "llm" / "runs"
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for i in range(1000):
        path = base / f"{stamp}-{op_name}-{i}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise OSError(f"cannot create a run directory under {base}")


def _dump_prompt(path: Path, messages: list[ChatMessage]) -> None:
    path.write_text(json.dumps([m.model_dump() for m in messages], indent=1), encoding="utf-8")


def run_llm_generation(
    ref_path: Path,
    out_dir: Path,
    *,
    backend: Backend,
    chip: str,
    samples: int,
    max_repairs: int,
    plan_summary: str | None = None,
    progress: Callable[[str], None] | None = None,
    op_name: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float | None = None,
    trials: int = DEFAULT_TRIALS,
    shapes: list[list[list[int]]] | None = None,
) -> LlmGeneration:
    """Generates, validates and repairs with an LLM; never raises for bad model output or an
    unreachable backend (they come back as attempts and `error`)."""
    say = progress or (lambda _msg: None)
    name = backend.name
    attempts: list[Attempt] = []

    def failed(stage: str, message: str, work: Path | None = None) -> LlmGeneration:
        attempts.append(Attempt(backend=name, ok=False, stage=stage, message=message))  # type: ignore[arg-type]
        say(message)
        return LlmGeneration(ok=False, attempts=attempts, error=message, work_dir=work)

    if samples < 1 or max_repairs < 0:
        raise ValueError(
            f"samples must be >= 1 and max_repairs >= 0 (got {samples}, {max_repairs})"
        )
    try:
        chip_spec = get_chip(chip)
        task = describe_reference(Path(ref_path))
    except (UnknownChipError, ReferenceError) as exc:
        return failed("capture", str(exc))
    op = op_name or default_op_name(Path(ref_path))
    context = build_context(task, op, chip_spec, plan_summary)
    base = initial_messages(context, chip_spec)
    run_dir = _new_run_dir(op)
    temp = (
        temperature if temperature is not None else (0.0 if samples == 1 else SAMPLING_TEMPERATURE)
    )
    chains = [_Chain(index=i) for i in range(samples)]

    say(f"asking {name} for {samples} sample(s)")
    try:
        answers = [
            c.text
            for c in backend.generate(base, n=samples, max_tokens=max_tokens, temperature=temp)
        ]
    except BackendError as exc:
        return failed("llm", f"LLM backend {name} failed: {exc}", run_dir)

    winners: list[SampleOutcome] = []
    for round_no in range(max_repairs + 1):
        for chain, answer in zip(chains, answers, strict=True):
            sample_dir = run_dir / f"round{round_no}" / f"sample{chain.index}"
            sample_dir.mkdir(parents=True)
            prompt = base if round_no == 0 else repair_messages(base, chain.answer, chain.feedback)
            _dump_prompt(sample_dir / "prompt.json", prompt)
            outcome = validate_answer(
                answer,
                sample_dir,
                Path(ref_path),
                chip_spec.name,
                name,
                trials=trials,
                shapes=shapes,
            )
            attempts.append(outcome.attempt)
            label = "repair" if round_no else "sample"
            say(
                f"{label} {chain.index + 1}/{samples} round {round_no}: "
                f"{outcome.attempt.stage}: {outcome.attempt.message}"
            )
            chain.answer, chain.feedback = answer, outcome.feedback
            if outcome.attempt.ok:
                winners.append(outcome)
        if winners or round_no == max_repairs:
            break
        answers = []
        for chain in chains:
            messages = repair_messages(base, chain.answer, chain.feedback)
            try:
                reply = backend.generate(messages, n=1, max_tokens=max_tokens, temperature=temp)
            except BackendError as exc:
                return failed("llm", f"LLM backend {name} failed during repair: {exc}", run_dir)
            answers.append(reply[0].text)

    if not winners:
        stages = ", ".join(a.stage for a in attempts)
        message = (
            f"no LLM sample validated after {max_repairs} repair round(s) "
            f"(stages: {stages}); details in {run_dir}"
        )
        say(message)
        return LlmGeneration(ok=False, attempts=attempts, error=message, work_dir=run_dir)

    best = min(winners, key=lambda o: _modelled_work(o.report))  # type: ignore[arg-type]
    assert best.project is not None
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(best.project, out_dir, dirs_exist_ok=True)
    store_validated(Path(ref_path), best.project, {"backend": name, "chip": chip_spec.name})
    say(f"kept a validated LLM sample in {out_dir}")
    return LlmGeneration(
        ok=True, project=out_dir, attempts=attempts, validation=best.report, work_dir=run_dir
    )
