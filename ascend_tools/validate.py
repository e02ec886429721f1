"""Validate an operator project against its PyTorch reference: compile, run every trial, compare.

The API other parts call (generation, LSP, bench) is `validate_project`; `kernelgen validate` is
a thin shell over it. Bad input (missing files, unknown chip, a reference or project that cannot
be bound to each other) raises `ValidationInputError` with a message meant for the user; every
outcome of the kernel itself (compile errors, rule failures, crashes, hangs, mismatches) is a
`ValidationReport` with `ok=False`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import torch
from pydantic import BaseModel

from ascend_tools.chips import DEFAULT_CHIP, Chip, UnknownChipError, get_chip
from ascend_tools.project import KernelProject, ProjectError, load_project
from ascend_tools.reference import (
    ReferenceError,
    TrialData,
    compare,
    dtype_name,
    from_bytes,
    load_reference,
    make_trial,
    to_bytes,
    tolerance,
)
from ascend_tools.report import CaseReport, CompileReport, RuntimeErrorReport, ValidationReport
from ascend_tools.runner.case import AttrValue, Case, CaseAttr, CaseTensor
from ascend_tools.runner.emulator import run_case
from ascend_tools.runner.models import RunResult
from ascend_tools.runner.npu import probe_npu
from ascend_tools.runner.sandbox import SandboxLimits
from ascend_tools.toolchain import emulator
from ascend_tools.toolchain.cann import cann_build, probe_cann
from ascend_tools.toolchain.dtypes import FLOAT_DTYPES
from ascend_tools.toolchain.models import OpDefinition

# Trials whose blocks take turns in reverse order (core 0 first, then the last down).
REVERSED_TRIALS = ("trial1",)

# Entry parameters of single-file kernels that the harness fills itself (emu/README.md).
HARNESS_PARAMS = ("workspace", "tiling")

ShapeOverride = Sequence[Sequence[int]]


class ValidationInputError(ValueError):
    """The request itself is unusable; the message is meant for the user as is."""


class Binding(BaseModel):
    """How one reference binds to one project: names and dtypes of kernel tensors, attributes."""

    op: str | None
    inputs: list[str]
    outputs: list[str]
    dtypes: dict[str, str]
    attrs: list[CaseAttr]


def _attr_value(attr_type: str, value: object, name: str) -> AttrValue:
    """An init input converted to the OpDef attribute's type (the case file's value)."""
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if attr_type == "str" and (not str(value) or any(c.isspace() for c in str(value))):
        raise ValidationInputError(
            f"attribute {name}: string value {value!r} must be non-empty and without spaces "
            "(the case file cannot carry it)"
        )
    convert = {"int": int, "float": float, "bool": bool, "str": str}
    try:
        if attr_type in convert:
            return convert[attr_type](value)  # type: ignore[no-any-return]
        if attr_type in ("list_int", "list_float"):
            item = int if attr_type == "list_int" else float
            return [item(v) for v in value]  # type: ignore[attr-defined]
    except (TypeError, ValueError) as exc:
        raise ValidationInputError(f"attribute {name} ({attr_type}): cannot use {value!r}") from exc
    raise ValidationInputError(f"attribute {name}: unsupported attribute type {attr_type!r}")


def _default_value(text: str) -> object:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return json.loads(text)
    except ValueError:
        return text


def _bind_op(op: OpDefinition, trial: TrialData, init: list[object]) -> Binding:
    if len(op.inputs) != len(trial.inputs):
        raise ValidationInputError(
            f"OpDef {op.name} has {len(op.inputs)} inputs ({', '.join(t.name for t in op.inputs)}) "
            f"but the reference provides {len(trial.inputs)} ({', '.join(trial.input_names)}: "
            "get_inputs(), then parameters and buffers)"
        )
    if len(op.outputs) != len(trial.expected):
        raise ValidationInputError(
            f"OpDef {op.name} has {len(op.outputs)} outputs but Model.forward returns "
            f"{len(trial.expected)}"
        )
    given = {d.name: dtype_name(t) for d, t in zip(op.inputs, trial.inputs, strict=True)}
    wanted_out = {d.name: dt for d, dt in zip(op.outputs, trial.output_dtypes, strict=True)}
    combos = op.combinations()
    if combos:
        match = [c for c in combos if all(c[k] == v for k, v in given.items())]
        if not match:
            listed = " | ".join(", ".join(f"{k}: {v}" for k, v in c.items()) for c in combos)
            have = ", ".join(f"{k}: {v}" for k, v in given.items())
            raise ValidationInputError(
                f"OpDef {op.name} declares no dtype combination for the inputs ({have}); declared: "
                f"{listed}. Pick one with --dtype or declare the combination in the OpDef."
            )
        dtypes = match[0]
    else:
        dtypes = {**given, **wanted_out}
    attrs = []
    for i, a in enumerate(op.attrs):
        if i < len(init):
            value = init[i]
        elif a.default is not None:
            value = _default_value(a.default)
        else:
            raise ValidationInputError(
                f"attribute {a.name} of {op.name} is required but get_init_inputs() gives only "
                f"{len(init)} values"
            )
        attrs.append(CaseAttr(name=a.name, type=a.type, value=_attr_value(a.type, value, a.name)))
    return Binding(
        op=op.name,
        inputs=[t.name for t in op.inputs],
        outputs=[t.name for t in op.outputs],
        dtypes=dtypes,
        attrs=attrs,
    )


def _bind_single(project: KernelProject, trial: TrialData) -> Binding:
    params = list(project.entry.params)
    while params and params[-1] in HARNESS_PARAMS:
        params.pop()
    n_in, n_out = len(trial.inputs), len(trial.expected)
    if len(params) != n_in + n_out:
        raise ValidationInputError(
            f"kernel {project.entry.name} takes {len(params)} tensors ({', '.join(params)}) "
            "but the "
            f"reference has {n_in} inputs and {n_out} outputs"
        )
    dtypes = {p: dtype_name(t) for p, t in zip(params, trial.inputs, strict=False)}
    dtypes.update(dict(zip(params[n_in:], trial.output_dtypes, strict=True)))
    return Binding(op=None, inputs=params[:n_in], outputs=params[n_in:], dtypes=dtypes, attrs=[])


def _relative(project: KernelProject, file: str, wrapper_line: int) -> tuple[str, int | None]:
    p = Path(file)
    if p.name == emulator.WRAPPER:
        return str(project.kernel_file), wrapper_line
    try:
        return str(p.resolve().relative_to(project.root)), None
    except (ValueError, OSError):
        return file, None


def _runtime_errors(project: KernelProject, run: RunResult) -> list[RuntimeErrorReport]:
    out = []
    for e in run.errors:
        file, line = _relative(project, e.file, project.entry.line) if e.file else ("", None)
        out.append(
            RuntimeErrorReport(
                code=e.code,
                message=e.message,
                file=file,
                line=line if line is not None else e.line,
                block=e.block,
            )
        )
    return out


def _check_case(
    name: str,
    run: RunResult,
    case: Case,
    trial: TrialData,
    atol: float | None,
    rtol: float | None,
) -> CaseReport:
    if not run.ok:
        return CaseReport(name=name, ok=False, message=f"{run.status}: {run.message}")
    worst = CaseReport(name=name, ok=True, max_abs_err=0.0, max_rel_err=0.0, rel_l2_err=0.0)
    messages = []
    for tensor, expected in zip(case.outputs, trial.expected, strict=True):
        actual = from_bytes(run.outputs[tensor.name], tensor.dtype, tensor.shape)
        a, r = tolerance(tensor.dtype, atol, rtol)
        cmp = compare(actual, expected, a, r)
        worst.max_abs_err = max(worst.max_abs_err or 0.0, cmp.max_abs_err)
        worst.max_rel_err = max(worst.max_rel_err or 0.0, cmp.max_rel_err)
        worst.rel_l2_err = max(worst.rel_l2_err or 0.0, cmp.rel_l2_err)
        worst.mismatches += cmp.mismatches
        if not cmp.ok:
            worst.ok = False
            worst.first_mismatch = worst.first_mismatch or cmp.first_mismatch
            messages.append(f"output {tensor.name}: {cmp.message}")
    worst.message = "; ".join(messages)
    return worst


def _backend_notes(project: KernelProject) -> tuple[list[str], CompileReport | None]:
    """Notes on the real toolchain and device, and the CANN compile check where it can run."""
    notes = []
    cann = probe_cann()
    cann_compile = None
    if cann.root is not None and not cann.complete:
        notes.append(cann.summary() + "; compiled with the emulator instead")
    elif cann.complete:
        if (project.root / "build.sh").exists():
            step = cann_build(project, cann)
            cann_compile = CompileReport(
                ok=step.ok, seconds=step.seconds, cached=False, diagnostics=step.diagnostics
            )
        else:
            notes.append(
                f"{cann.summary()}: the project has no build.sh (not a full msopgen "
                "project), so only the emulator build was checked"
            )
    npu = probe_npu()
    if npu.available:
        notes.append(
            "an NPU is present, but launching custom ops through torch_npu is not "
            "implemented yet: the cases ran on the emulator"
        )
    return notes, cann_compile


def validate_project(
    project: Path,
    ref: Path,
    *,
    chip: str = DEFAULT_CHIP,
    trials: int = 1,
    dtype: str | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    shapes: Sequence[ShapeOverride] | None = None,
    limits: SandboxLimits | None = None,
) -> ValidationReport:
    """Compiles `project` for `chip`, runs `trials` seeded trials and compares with `ref`.

    `dtype` casts floating inputs, parameters and buffers (the reference then runs in float32 on
    the cast values; tolerances follow the kernel output dtype unless `atol`/`rtol` are given).
    `shapes` adds shape variants: each item is one alternative list of input shapes (one shape
    per `get_inputs()` tensor); its inputs are resampled from that trial's own inputs, so value
    ranges carry over. Each trial runs the default shapes (case `trial<t>`) and then every
    variant (case `trial<t>-shape<k>`, k from 1). `limits` overrides the sandbox limits of a run
    (default `runner.emulator.RUN_LIMITS`: 60 s wall and CPU, 4 GiB address space).
    """
    chip_info = _chip(chip)
    if trials < 1:
        raise ValidationInputError(f"--trials must be at least 1, got {trials}")
    if dtype is not None and dtype not in FLOAT_DTYPES:
        raise ValidationInputError(
            f"--dtype must be one of {', '.join(FLOAT_DTYPES)}, got {dtype!r}"
        )
    if dtype == "bfloat16" and not chip_info.has_bf16:
        raise ValidationInputError(f"chip {chip_info.name} has no bfloat16 support")
    try:
        proj = load_project(project)
        reference = load_reference(ref)
        # Seeding must not disturb the caller's random stream (generation samples with it).
        with torch.random.fork_rng(devices=[]):
            model = reference.build_model()
            variants: list[ShapeOverride | None] = [None, *(shapes or [])]
            trial_data = [
                (
                    f"trial{t}" + (f"-shape{k}" if k else ""),
                    make_trial(reference, model, t, dtype, v),
                )
                for t in range(trials)
                for k, v in enumerate(variants)
            ]
        init = reference.init_inputs()
    except (ProjectError, ReferenceError) as exc:
        raise ValidationInputError(str(exc)) from exc
    notes, cann_compile = _backend_notes(proj)
    start = time.monotonic()
    desc = emulator.describe(proj, chip_info)
    if not desc.ok:
        return _compile_failed(
            chip_info, desc.diagnostics, time.monotonic() - start, desc.cached, notes
        )
    first = trial_data[0][1]
    try:
        binding = _bind_op(desc.op, first, init) if desc.op else _bind_single(proj, first)
    except ReferenceError as exc:
        raise ValidationInputError(str(exc)) from exc
    built = emulator.build(proj, chip_info, binding.dtypes)
    seconds = time.monotonic() - start
    if not built.ok or built.binary is None:
        return _compile_failed(chip_info, built.diagnostics, seconds, built.cached, notes)
    compile_report = CompileReport(
        ok=True, seconds=seconds, cached=built.cached and desc.cached, diagnostics=built.diagnostics
    )
    if cann_compile is not None and not cann_compile.ok:
        return ValidationReport(
            ok=False, chip=chip_info.name, backend="cann", compile=cann_compile, notes=notes
        )
    cases: list[CaseReport] = []
    runtime: list[RuntimeErrorReport] = []
    counters: dict = {}
    for name, trial in trial_data:
        case = Case(
            chip=chip_info,
            op=binding.op,
            kernel=proj.entry.name,
            block_dim=(proj.block_dim or 1) if binding.op is None else None,
            inputs=[
                CaseTensor(name=n, dtype=binding.dtypes[n], shape=list(t.shape))
                for n, t in zip(binding.inputs, trial.inputs, strict=True)
            ],
            outputs=[
                CaseTensor(name=n, dtype=binding.dtypes[n], shape=list(e.shape))
                for n, e in zip(binding.outputs, trial.expected, strict=True)
            ],
            attrs=binding.attrs,
        )
        data = {n: to_bytes(t) for n, t in zip(binding.inputs, trial.inputs, strict=True)}
        # Odd trials run the blocks in another order: a kernel whose result depends on the
        # order blocks happen to run in (a race the GM model does not see) differs there.
        env = {"KERNELGEN_BLOCK_ORDER": "reverse"} if name.startswith(REVERSED_TRIALS) else None
        run = run_case(built.binary, case, data, limits, env)
        cases.append(_check_case(name, run, case, trial, atol, rtol))
        for err in _runtime_errors(proj, run):
            if all((e.code, e.file, e.line) != (err.code, err.file, err.line) for e in runtime):
                runtime.append(err)
        if run.ok and not counters:
            counters = _counters(run.report)
        for w in run.report.get("warnings", []):
            if not isinstance(w, dict):
                continue
            note = f"emulator warning [{w.get('code', '?')}]: {w.get('message', '')}"
            if note not in notes:
                notes.append(note)
    return ValidationReport(
        ok=all(c.ok for c in cases),
        chip=chip_info.name,
        backend="emulator",
        compile=compile_report,
        cases=cases,
        runtime_errors=runtime,
        counters=counters,
        notes=notes,
    )


def _counters(report: dict) -> dict:
    """The harness's counters of the first passing run: `block_dim`, `tiling_key`, `total`
    (summed over blocks) and `per_block` (load balance), as in its report."""
    counters = report.get("counters", {})
    return {
        "block_dim": report.get("block_dim"),
        "tiling_key": report.get("tiling_key"),
        "total": {k: v for k, v in counters.get("total", {}).items() if k != "block"},
        "per_block": counters.get("per_block", []),
    }


def _compile_failed(
    chip: Chip, diagnostics: list, seconds: float, cached: bool, notes: list[str]
) -> ValidationReport:
    return ValidationReport(
        ok=False,
        chip=chip.name,
        backend="emulator",
        compile=CompileReport(ok=False, seconds=seconds, cached=cached, diagnostics=diagnostics),
        notes=notes,
    )


def _chip(name: str) -> Chip:
    try:
        return get_chip(name)
    except UnknownChipError as exc:
        raise ValidationInputError(str(exc)) from exc
