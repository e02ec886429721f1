"""Generation orchestration: the rule-based path (capture -> plan -> lower -> lint -> validate),
then the LLM path for what the rules do not cover (or when asked for it).

`backend`: `rules` (rule path only), `llm` (LLM path only, with the plan summary when the rules
can plan the op), `auto` (rules first; the LLM when the rules fail and a backend is configured).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ascend_tools.chips import DEFAULT_CHIP, get_chip
from ascend_tools.cost import CostInputError
from ascend_tools.report import ValidationReport
from kernelgen_lm.attempts import Attempt, accepted, latent_faults, report_stage
from kernelgen_lm.capture import CapturedGraph, CaptureError, capture
from kernelgen_lm.families import AnyPlan, build_family_plan, family_of, write_family_project
from kernelgen_lm.plan.build import PlanError
from kernelgen_lm.speed import SpeedReport, speed_report

BackendChoice = Literal["auto", "rules", "llm"]
Progress = Callable[[str], None]
# Validation of generated projects: the reference's shapes plus an unaligned variant.
DEFAULT_TRIALS = 2


class GenerationResult(BaseModel):
    ok: bool
    op: str | None = None
    project: Path | None = None
    backend_used: str | None = None
    attempts: list[Attempt] = []
    validation: ValidationReport | None = None
    plan: str | None = None
    error: str | None = None
    # Modelled (not measured) kernel and eager times and speed-up; None when not validated.
    speed: SpeedReport | None = None
    # The LLM path's run directory: every sample's prompt, answer and report (the trainer's
    # preference pairs come from them); None when the LLM did not run.
    llm_run: Path | None = None


def build_any_plan(graph: CapturedGraph, chip: str | None = None) -> AnyPlan:
    """The plan of the first kernel family (kernelgen_lm.families) that takes the graph."""
    return build_family_plan(graph, get_chip(chip) if chip else None)


def any_plan_text(plan: AnyPlan) -> str:
    return family_of(plan).text(plan)


def any_plan_mode(plan: AnyPlan) -> str:
    fam = family_of(plan)
    return fam.mode(plan) if fam.mode else fam.name


def plan_variants(graph: CapturedGraph, plan: AnyPlan | None) -> list[list[list[int]]]:
    """Unaligned shape variants for validation: the family's own (matrix products grow M, N and
    K consistently; sliced inputs keep their slices whole), else the generic ones of the
    graph's inputs."""
    fam = family_of(plan) if plan is not None else None
    if fam is not None and fam.variants is not None:
        own = fam.variants(plan)
        if own is not None:
            return own
    return shape_variants(graph)


def modelled_speed(
    graph: CapturedGraph, report: ValidationReport | None, chip: str
) -> SpeedReport | None:
    """The speed figures of a validated kernel (None when it did not validate)."""
    if report is None or not report.ok:
        return None
    try:
        return speed_report(graph, report.counters, get_chip(chip))
    except CostInputError:
        return None


def _lint_errors(project: Path, chip: str, shapes: list[list[int]]) -> list[str] | None:
    """Error diagnostics of the static analyzer, or None when no lint API is installed."""
    try:
        lint = importlib.import_module("ascend_tools.lint")
    except ImportError:
        return None
    fn = getattr(lint, "lint_path", None)
    if fn is None:
        return None
    diags = fn(project, chip=chip, shapes=shapes)
    return [d.compiler_style() for d in diags if d.severity.value == "error"]


def _right_aligns(shape: list[int], base: list[int]) -> bool:
    tail = base[len(base) - len(shape) :] if shape else []
    return all(s in (1, b) for s, b in zip(shape, tail, strict=True))


def shape_variants(graph: CapturedGraph) -> list[list[list[int]]]:
    """Unaligned shape variants for validation: the leading dim + 3 (odd row counts, uneven core
    split) and, when no parameter pins it, the last dim + 1 (unaligned tails). A dim is changed
    in every forward input that carries it, so broadcasting stays valid."""
    users = [t for t in graph.inputs if t.kind == "input"]
    pinned = {s for t in graph.inputs if t.kind != "input" for s in t.shape}
    # Sizes written as literals in the forward (normalized_shape, view targets) stay fixed.
    for n in graph.nodes:
        for a in [*n.args, *n.kwargs.values()]:
            if isinstance(a, list):
                pinned |= {v for v in a if isinstance(v, int) and not isinstance(v, bool)}
    if not users:
        return []
    rank = max(len(t.shape) for t in users)
    base = next(t.shape for t in users if len(t.shape) == rank)
    out: list[list[list[int]]] = []
    for dim, grow in ((0, 3), (rank - 1, 1)):
        size = base[dim]
        if size <= 1 or size in pinned:
            continue
        variant = []
        for t in users:
            shape = list(t.shape)
            # Right alignment: the last dim is shared by inputs of any rank; the leading dim by
            # full-rank inputs and by per-row inputs that only line up on the left (targets).
            lead = len(shape) == rank or not _right_aligns(shape, base)
            k = len(shape) - 1 if dim == rank - 1 else dim
            if shape and (lead or dim == rank - 1) and shape[k] == size:
                shape[k] = size + grow
            variant.append(shape)
        if variant not in out:
            out.append(variant)
    return out


def rules_generate(
    ref: Path,
    out: Path,
    *,
    chip: str,
    trials: int = DEFAULT_TRIALS,
    progress: Progress | None = None,
) -> tuple[GenerationResult, AnyPlan | None]:
    from ascend_tools.validate import ValidationInputError, validate_project

    say = progress or (lambda _m: None)
    res = GenerationResult(ok=False, backend_used="rules")
    say("capture: exporting the reference with torch.export")
    try:
        graph = capture(ref)
    except CaptureError as e:
        res.attempts.append(Attempt(backend="rules", ok=False, stage="capture", message=str(e)))
        res.error = str(e)
        return res, None
    res.op = graph.op_name
    say(f"plan: {len(graph.nodes)} core-ATen ops")
    try:
        plan = build_any_plan(graph, chip)
    except PlanError as e:
        res.attempts.append(Attempt(backend="rules", ok=False, stage="plan", message=str(e)))
        res.error = str(e)
        return res, None
    res.plan = any_plan_text(plan)
    say(f"lower: {any_plan_mode(plan)} kernel")
    chip_info = get_chip(chip)
    try:
        project = write_family_project(plan, chip_info, out, ref)
    except (ValueError, OSError) as e:
        res.attempts.append(Attempt(backend="rules", ok=False, stage="lower", message=str(e)))
        res.error = str(e)
        return res, plan
    res.project = project.root
    errors = _lint_errors(project.root, chip_info.name, [t.shape for t in graph.inputs])
    if errors:
        msg = "; ".join(errors[:5])
        res.attempts.append(Attempt(backend="rules", ok=False, stage="lint", message=msg))
        res.error = f"lint errors: {msg}"
        return res, plan
    say(f"validate: {trials} trial(s) on the emulator ({chip_info.name})")
    try:
        report = validate_project(
            project.root, ref, chip=chip_info.name, trials=trials, shapes=plan_variants(graph, plan)
        )
    except ValidationInputError as e:
        res.attempts.append(Attempt(backend="rules", ok=False, stage="compile", message=str(e)))
        res.error = str(e)
        return res, plan
    res.validation = report
    if accepted(report):
        res.ok = True
        res.speed = modelled_speed(graph, report, chip_info.name)
        res.attempts.append(Attempt(backend="rules", ok=True, stage="done", message="validated"))
    else:
        stage = report_stage(report)
        msg = _failure_text(report)
        res.attempts.append(Attempt(backend="rules", ok=False, stage=stage, message=msg))
        res.error = msg
    return res, plan


def _failure_text(report: ValidationReport) -> str:
    if report.ok:  # passed, but only with latent faults (attempts.LATENT_FAULTS)
        return "; ".join(f"{w.code}: {w.message}" for w in latent_faults(report)[:3])
    if not report.compile.ok:
        return "; ".join(d.compiler_style() for d in report.compile.diagnostics[:3])
    if report.runtime_errors:
        return "; ".join(f"{e.code}: {e.message}" for e in report.runtime_errors[:3])
    bad = [c for c in report.cases if not c.ok]
    return "; ".join(f"{c.name}: {getattr(c, 'message', '') or 'mismatch'}" for c in bad[:3])


def generate(
    ref: Path,
    out: Path,
    *,
    chip: str = DEFAULT_CHIP,
    backend: BackendChoice = "auto",
    samples: int = 1,
    max_repairs: int = 2,
    trials: int = DEFAULT_TRIALS,
    progress: Progress | None = None,
) -> GenerationResult:
    """Runs the configured path(s); the result says which produced the kept project."""
    attempts: list[Attempt] = []
    plan: AnyPlan | None = None
    graph: CapturedGraph | None = None
    result: GenerationResult | None = None
    if backend in ("auto", "rules"):
        result, plan = rules_generate(ref, out, chip=chip, trials=trials, progress=progress)
        attempts += result.attempts
        if result.ok or backend == "rules":
            return result
    elif backend == "llm":
        try:
            graph = capture(ref)
            plan = build_any_plan(graph, chip)
        except (CaptureError, PlanError):
            plan = None
    from kernelgen_lm.backends import BackendConfigError, configured_backend

    try:
        llm = configured_backend()
    except BackendConfigError as e:
        llm = None
        config_error = str(e)
    else:
        config_error = ""
    if llm is None:
        why = (result.error if result is not None else None) or "the rule path was not run"
        msg = "LLM backend not available: " + (
            config_error
            or "set KERNELGEN_LLM_BASE_URL and KERNELGEN_LLM_MODEL (an OpenAI-compatible server "
            "such as vLLM) or KERNELGEN_LLM_LOCAL_MODEL (a local transformers model)"
        )
        attempts.append(Attempt(backend="llm", ok=False, stage="llm", message=msg))
        return GenerationResult(
            ok=False,
            op=result.op if result else None,
            project=result.project if result else None,
            attempts=attempts,
            validation=result.validation if result else None,
            plan=any_plan_text(plan) if plan else None,
            error=f"{why}; {msg}",
        )
    from kernelgen_lm.llm.loop import run_llm_generation

    # The LLM's kernel passes the rule path's gate: the same trials and unaligned shapes.
    if graph is None:
        try:
            graph = capture(ref)
        except CaptureError:
            graph = None
    gen = run_llm_generation(
        ref,
        out,
        backend=llm,
        chip=chip,
        samples=samples,
        max_repairs=max_repairs,
        plan_summary=any_plan_text(plan) if plan else None,
        progress=progress,
        trials=trials,
        shapes=plan_variants(graph, plan) if graph is not None else None,
    )
    attempts += gen.attempts
    speed = None
    if gen.ok:
        try:
            speed = modelled_speed(graph or capture(ref), gen.validation, chip)
        except CaptureError:
            speed = None
    return GenerationResult(
        ok=gen.ok,
        op=result.op if result else None,
        project=gen.project,
        backend_used="llm",
        attempts=attempts,
        validation=gen.validation,
        plan=any_plan_text(plan) if plan else None,
        error=gen.error,
        speed=speed,
        llm_run=gen.work_dir,
    )
