"""Validate an operator project against its PyTorch reference: compile, run every trial, compare.

The API other parts call (generation, LSP, bench) is `validate_project`; `kernelgen validate` is
a thin shell over it. Bad input (missing files, unknown chip, a reference or project that cannot
be bound to each other) raises `ValidationInputError` with a message meant for the user; every
outcome of the kernel itself (compile errors, rule failures, crashes, hangs, mismatches) is a
`ValidationReport` with `ok=False`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import torch
from pydantic import BaseModel

from ascend_tools.binding import (
    HARNESS_PARAMS,
    BindingError,
    OpBinding,
    ParamBinding,
    attr_value,
    bind_op,
    bind_scalars,
    bind_single,
)
from ascend_tools.chips import DEFAULT_CHIP, Chip, UnknownChipError, get_chip
from ascend_tools.config import BindingTable, ConfigError, load_project_config, project_reference
from ascend_tools.lint import LintError, vendor_internal_uses
from ascend_tools.project import (
    KernelEntry,
    KernelProject,
    ProjectError,
    ScalarValue,
    block_dim_of,
    gm_element_types,
    host_program,
    launched_by_own_main,
    load_project,
)
from ascend_tools.reference import (
    TORCH_DTYPES,
    ReferenceError,
    TrialData,
    compare,
    dtype_name,
    filled_bytes,
    from_bytes,
    load_reference,
    make_trial,
    to_bytes,
    tolerance,
)
from ascend_tools.report import CaseReport, CompileReport, RuntimeErrorReport, ValidationReport
from ascend_tools.runner.case import Case, CaseAttr, CaseParam, CaseParamKind, CaseTensor
from ascend_tools.runner.emulator import run_case
from ascend_tools.runner.models import RunResult
from ascend_tools.runner.npu import probe_npu
from ascend_tools.runner.sandbox import SandboxLimits
from ascend_tools.toolchain import emulator
from ascend_tools.toolchain.cann import cann_build, probe_cann
from ascend_tools.toolchain.dtypes import FLOAT_DTYPES, dtype_of_c_type
from ascend_tools.toolchain.models import AttrDef, OpDefinition

# Trials whose blocks take turns in reverse order (core 0 first, then the last down).
REVERSED_TRIALS = ("trial1",)

ShapeOverride = Sequence[Sequence[int]]


class ValidationInputError(ValueError):
    """The request itself is unusable; the message is meant for the user as is."""


class Binding(BaseModel):
    """How one reference binds to one project: the OpDef binding (projects) or the entry's
    tensor parameters (single-file kernels), and the dtype of every kernel tensor."""

    op: OpBinding | None
    params: list[ParamBinding] = []
    """A single-file entry's pointer parameters in entry order (`binding.bind_single`)."""
    dtypes: dict[str, str]
    scalars: dict[str, ScalarValue] = {}
    """Values of a single-file entry's by-value parameters."""
    host_program: bool = False
    """Whether the sample's host program (the kernel file's own main(), or the one beside it:
    `project.host_program`) is built in and run up to its launch, for the arguments the
    reference leaves to it; a program nothing needs is never run."""


def _list_dtype(name: str, dtypes: list[str]) -> str:
    if len(set(dtypes)) > 1:
        raise ValidationInputError(
            f"the tensors bound to {name} mix dtypes ({', '.join(dtypes)}); one OpDef input or "
            "output has one dtype"
        )
    return dtypes[0]


def _bind_op(op: OpDefinition, trial: TrialData, table: BindingTable | None) -> Binding:
    try:
        bound = bind_op(op, trial, table)
    except BindingError as exc:
        raise ValidationInputError(str(exc)) from exc
    args = {a.name: a for a in trial.args}
    given = {
        b.name: _list_dtype(b.name, [dtype_name(t) for t in args[b.arg].tensors])
        for b in bound.inputs
        if b.arg is not None
    }
    wanted_out = {
        b.name: _list_dtype(b.name, [d for r in b.results for d in trial.result(r).dtypes])
        for b in bound.outputs
    }
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
        # A DataTypeList output combines with every input combination: the caller picks its
        # dtype (fbgemm-ascend segment_sum_csr's adapter allocates y like its values), and the
        # reference's result says which.
        fits = [c for c in match if all(c.get(k) == v for k, v in wanted_out.items())]
        dtypes = (fits or match)[0]
    else:
        dtypes = {**given, **wanted_out}
    return Binding(op=bound, dtypes=dtypes)


def _bind_single(project: KernelProject, trial: TrialData, table: BindingTable | None) -> Binding:
    host = bool(host_program(project)) or launched_by_own_main(project)
    try:
        params = bind_single(project.entry.tensors, trial, table, host=host)
        scalars = bind_scalars(project.entry.scalars, trial, table, from_host=host)
    except BindingError as exc:
        raise ValidationInputError(str(exc)) from exc
    args = {a.name: a for a in trial.tensor_args}
    results = {o.name: o for o in trial.outputs}
    # The reference runs in float32, so a floating output's width is a guess; the kernel's own
    # SetGlobalBuffer cast of that parameter, where it states one, is what it writes. An
    # in-place parameter keeps its input's dtype: one buffer.
    stated = gm_element_types(project)
    dtypes = {}
    for p in params:
        if p.role == "absent":
            continue
        if p.arg is not None:
            dtypes[p.name] = dtype_name(args[p.arg].tensors[p.arg_index])
        elif p.result is not None:
            d = results[p.result].dtypes[p.result_index]
            c = dtype_of_c_type(stated.get(p.name, ""))
            dtypes[p.name] = c.name if c is not None and c.floating and d in FLOAT_DTYPES else d
    needs = any(p.role == "host" for p in params) or set(project.entry.scalars) - set(scalars)
    return Binding(op=None, params=params, dtypes=dtypes, scalars=scalars,
                   host_program=host and bool(needs))


CaseValues = tuple[list[tuple[str, torch.Tensor]], list[tuple[str, torch.Tensor]], list[CaseAttr]]


def _case_values(binding: Binding, trial: TrialData) -> CaseValues:
    """(kernel name, tensor) of every input and every expected output of `trial`, in case
    order (a dynamic name repeated per list element), and the attribute values."""
    if binding.op is None:
        values = {a.name: a.tensors for a in trial.tensor_args}
        expected = {o.name: o.tensors for o in trial.outputs}
        return (
            [(p.name, t) for p in binding.params if p.arg and p.role != "absent"
             for t in (values[p.arg] if p.whole_list else [values[p.arg][p.arg_index]])],
            [(p.name, expected[p.result][p.result_index]) for p in binding.params if p.result],
            [],
        )
    args = {a.name: a for a in trial.args}
    ins = [(b.name, t) for b in binding.op.inputs if b.arg for t in args[b.arg].tensors]
    outs = [
        (b.name, t) for b in binding.op.outputs for r in b.results for t in trial.result(r).tensors
    ]
    attrs = [
        CaseAttr(
            name=a.name,
            type=a.type,
            value=attr_value(AttrDef(name=a.name, type=a.type), args[a.arg].value)
            if a.arg
            else a.constant,
        )
        for a in binding.op.attrs
    ]
    return ins, outs, attrs


def _block_dim(project: KernelProject, binding: Binding) -> int | None:
    """A single-file kernel's block count as its launch states it; None (the count the host
    program passes at its launch, which the harness records) where that program runs: it has
    the preprocessor's answer where a static reading of `blockDim = ...` may take another
    chip's branch."""
    if binding.host_program:
        return None
    return block_dim_of(project, binding.scalars)


def _case_params(params: list[ParamBinding], entry: KernelEntry) -> list[CaseParam]:
    """The case's `params` line: each pointer parameter's case tensor in entry order (an
    in-place one is its output, which the harness starts as a copy of the input of its name;
    a `host` one names its place among the entry's parameters)."""
    def kind(p: ParamBinding) -> CaseParamKind:
        if p.role == "harness":
            return "workspace" if p.name == "workspace" else "tiling"
        if p.role == "input":
            return "input_list" if p.whole_list else "input"
        if p.role == "absent":
            return "null"
        return "host" if p.role == "host" else "output"

    def name(p: ParamBinding) -> str:
        if p.role == "host":
            return str(entry.params.index(p.name))
        return "" if p.role in ("harness", "absent") else p.name

    def fallback(p: ParamBinding) -> Literal["tiling"] | None:
        return "tiling" if p.role == "host" and p.name == "tiling" else None

    return [CaseParam(kind=kind(p), name=name(p), fallback=fallback(p)) for p in params]


def _initial_values(binding: Binding, dtypes: dict[str, str]) -> dict[str, float]:
    """Output -> the value `[binding.initial]` fills it with before the launch."""
    given = binding.op.outputs if binding.op is not None else binding.params
    out = {b.name: b.initial for b in given if b.initial is not None}
    for name, value in out.items():
        try:
            filled_bytes(dtypes[name], [1], value)
        except ValueError as exc:
            raise ValidationInputError(f"[binding] initial.{name}: {exc}") from None
    return out


def _prefill_bytes(binding: Binding, trial: TrialData, dtypes: dict[str, str]) -> dict[str, bytes]:
    """Output -> the bytes it holds before the launch, where a reference argument fills it."""
    args = {a.name: a for a in trial.args}
    return {
        o.name: to_bytes(args[o.prefill].tensors[0].to(TORCH_DTYPES[dtypes[o.name]]))
        for o in (binding.op.outputs if binding.op is not None else [])
        if o.prefill is not None
    }


# The value a caller fills an output with before a kernel accumulates into it, by atomic mode.
ATOMIC_IDENTITY = {"add": "0.0", "max": "-inf", "min": "inf"}


def _atomic_hint(name: str, report: dict, actual: torch.Tensor) -> str:
    """For a mismatched output the kernel accumulated into with atomic writes while it started
    as poison: the `[binding.initial]` entry that states what the caller pre-fills it with. A
    floating output summed into poison is NaN throughout; one with a number anywhere went wrong
    some other way, so it gets no hint."""
    modes = [
        t[1]
        for t in report.get("atomic_targets", [])
        if isinstance(t, list) and len(t) == 2 and t[0] == name
    ]
    if not modes or modes[0] not in ATOMIC_IDENTITY:
        return ""
    if modes[0] == "add" and actual.is_floating_point() and not bool(actual.isnan().all()):
        return ""
    return (
        f" (the kernel accumulates into {name} with SetAtomic{modes[0].capitalize()}, but here "
        "it started as poison: if its caller creates it filled, as at::zeros before "
        "SetAtomicAdd, say so in kernelgen.toml's [binding] table: "
        f"initial = {{{name} = {ATOMIC_IDENTITY[modes[0]]}}})"
    )


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
    expected_outputs: list[torch.Tensor],
    atol: float | None,
    rtol: float | None,
    unchecked: frozenset[str] = frozenset(),
) -> CaseReport:
    """The case's outcome: every output compared with its expected tensor except those in
    `unchecked` (`[binding] unchecked`), which ran but are not judged."""
    if not run.ok:
        return CaseReport(name=name, ok=False, message=f"{run.status}: {run.message}")
    worst = CaseReport(name=name, ok=True, max_abs_err=0.0, max_rel_err=0.0, rel_l2_err=0.0)
    messages = []
    names = [t.name for t in case.outputs]
    for i, (tensor, expected) in enumerate(zip(case.outputs, expected_outputs, strict=True)):
        if tensor.name in unchecked:
            continue
        label = tensor.name
        if names.count(tensor.name) > 1:
            label += f"[{names[:i].count(tensor.name)}]"
        actual = from_bytes(run.outputs[tensor.stem], tensor.dtype, tensor.shape)
        a, r = tolerance(tensor.dtype, atol, rtol)
        cmp = compare(actual, expected, a, r)
        worst.max_abs_err = max(worst.max_abs_err or 0.0, cmp.max_abs_err)
        worst.max_rel_err = max(worst.max_rel_err or 0.0, cmp.max_rel_err)
        worst.rel_l2_err = max(worst.rel_l2_err or 0.0, cmp.rel_l2_err)
        worst.mismatches += cmp.mismatches
        if not cmp.ok:
            worst.ok = False
            worst.first_mismatch = worst.first_mismatch or cmp.first_mismatch
            hint = (
                "" if tensor.initial is not None else _atomic_hint(tensor.name, run.report, actual)
            )
            messages.append(f"output {label}: {cmp.message}{hint}")
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


def _vendor_internal_notes(project: KernelProject, chip: Chip) -> list[str]:
    """One note per call to an undocumented helper of CANN's headers (lint's `vendor-internal`):
    the build passed because CANN and the emulator define it, which a later release may not."""
    try:
        found = vendor_internal_uses(project.root, chip.name)
    except LintError:
        return []  # an unreadable file: the build has already said what it could
    return [
        f"lint warning [{d.code}]: {_relative(project, d.file, d.line)[0]}:{d.line}: {d.message}"
        for d in found
    ]


def validate_project(
    project: Path,
    ref: Path | None = None,
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

    `ref` None: the project's reference (`ascend_tools.config.project_reference`: `reference`
    in kernelgen.toml, else `ref.py` at the project root); with none, the project is only
    compiled. The binding of reference and OpDef follows `ascend_tools.binding`, with the
    project's `[binding]` table.

    `dtype` casts floating inputs, parameters and buffers (the reference then runs in float32 on
    the cast values; tolerances follow the kernel output dtype unless `atol`/`rtol` are given,
    here or as the project's `atol`/`rtol` settings).
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
        config = load_project_config(proj.root)
        atol = atol if atol is not None else config.atol
        rtol = rtol if rtol is not None else config.rtol
        ref = ref if ref is not None else project_reference(proj.root, config)
        trial_data = _trials(ref, trials, dtype, shapes) if ref is not None else []
    except (ProjectError, ReferenceError, ConfigError) as exc:
        raise ValidationInputError(str(exc)) from exc
    notes, cann_compile = _backend_notes(proj)
    if proj.other_ops and config.op is None:
        notes.append(
            f"op_kernel/ holds the kernels of several ops: checked {proj.op_name}, not "
            f"{', '.join(proj.other_ops)}; name the op to check with op = \"<name>\" at the top "
            "of kernelgen.toml"
        )
    start = time.monotonic()
    desc = emulator.describe(proj, chip_info)
    if not desc.ok:
        return _compile_failed(
            chip_info, desc.diagnostics, time.monotonic() - start, desc.cached, notes
        )
    if trial_data:
        first = trial_data[0][1]
        try:
            binding = (
                _bind_op(desc.op, first, config.binding) if desc.op
                else _bind_single(proj, first, config.binding)
            )
        except ReferenceError as exc:
            raise ValidationInputError(str(exc)) from exc
        notes += binding.op.notes if binding.op else []
        dtypes = binding.dtypes
    else:
        dtypes = compile_only_dtypes(proj, desc.op)
        notes.append(
            "no reference (no --ref, no `reference` in kernelgen.toml, no ref.py at the "
            f"project root): only compiled, for {', '.join(f'{k}: {v}' for k, v in dtypes.items())}"
        )
    built = emulator.build(proj, chip_info, dtypes, binding.scalars if trial_data else {},
                           host_program=bool(trial_data) and binding.host_program)
    seconds = time.monotonic() - start
    if not built.ok or built.binary is None:
        return _compile_failed(chip_info, built.diagnostics, seconds, built.cached, notes)
    compile_report = CompileReport(
        ok=True, seconds=seconds, cached=built.cached and desc.cached, diagnostics=built.diagnostics
    )
    notes += _vendor_internal_notes(proj, chip_info)
    if cann_compile is not None and not cann_compile.ok:
        return ValidationReport(
            ok=False, chip=chip_info.name, backend="cann", compile=cann_compile, notes=notes
        )
    initial = _initial_values(binding, dtypes) if trial_data else {}
    aliases = {
        o.name: o.alias for o in (binding.op.outputs if trial_data and binding.op else [])
        if o.alias
    }
    unchecked = (
        [o.name for o in (binding.op.outputs if binding.op else binding.params) if not o.checked]
        if trial_data
        else []
    )
    cases: list[CaseReport] = []
    runtime: list[RuntimeErrorReport] = []
    warnings: list[RuntimeErrorReport] = []
    counters: dict = {}
    for name, trial in trial_data:
        ins, outs, attrs = _case_values(binding, trial)
        prefills = _prefill_bytes(binding, trial, dtypes)
        case = Case(
            chip=chip_info,
            op=binding.op.op if binding.op else None,
            kernel=proj.entry.name,
            block_dim=_block_dim(proj, binding) if binding.op is None else None,
            inputs=[CaseTensor(name=n, dtype=dtypes[n], shape=list(t.shape)) for n, t in ins],
            outputs=[
                CaseTensor(
                    name=n, dtype=dtypes[n], shape=list(t.shape),
                    initial=prefills[n] if n in prefills else initial.get(n),
                    alias=aliases.get(n, ""),
                )
                for n, t in outs
            ],
            attrs=attrs,
            params=_case_params(binding.params, proj.entry) if binding.op is None else None,
        )
        data = {c.stem: to_bytes(t) for c, (_, t) in zip(case.inputs, ins, strict=True)}
        # Odd trials run the blocks in another order: a kernel whose result depends on the
        # order blocks happen to run in (a race the GM model does not see) differs there.
        env = {"KERNELGEN_BLOCK_ORDER": "reverse"} if name.startswith(REVERSED_TRIALS) else {}
        if not config.auto_sync:  # built without --cce-auto-sync: every pipe pair needs a flag
            env["KERNELGEN_AUTO_SYNC"] = "0"
        run = run_case(built.binary, case, data, limits, env or None)
        expected = [t for _, t in outs]
        cases.append(_check_case(name, run, case, expected, atol, rtol, frozenset(unchecked)))
        for err in _runtime_errors(proj, run):
            if all((e.code, e.file, e.line) != (err.code, err.file, err.line) for e in runtime):
                runtime.append(err)
        if run.ok and not counters:
            counters = _counters(run.report)
        for w in run.report.get("warnings", []):
            if not isinstance(w, dict):
                continue
            where, file, at = "", "", 0
            if w.get("file"):
                file, line = _relative(proj, str(w["file"]), proj.entry.line)
                at = line if line is not None else int(w.get("line", 0))
                where = f"{file}:{at}: "
            code, message = str(w.get("code", "?")), str(w.get("message", ""))
            note = f"emulator warning [{code}]: {where}{message}"
            if note not in notes:
                notes.append(note)
            if all((x.code, x.file, x.line) != (code, file, at) for x in warnings):
                warnings.append(RuntimeErrorReport(code=code, message=message, file=file, line=at,
                                                   block=int(w.get("block", -1))))
    return ValidationReport(
        ok=all(c.ok for c in cases),
        chip=chip_info.name,
        backend="emulator",
        compile=compile_report,
        cases=cases,
        runtime_errors=runtime,
        counters=counters,
        notes=notes,
        warnings=warnings,
        unchecked=unchecked,
    )


def _trials(
    ref: Path, trials: int, dtype: str | None, shapes: Sequence[ShapeOverride] | None
) -> list[tuple[str, TrialData]]:
    """The named trials: every seed with the default shapes, then each shape variant."""
    reference = load_reference(ref)
    # Seeding must not disturb the caller's random stream (generation samples with it).
    with torch.random.fork_rng(devices=[]):
        model = reference.build_model()
        variants: list[ShapeOverride | None] = [None, *(shapes or [])]
        return [
            (f"trial{t}" + (f"-shape{k}" if k else ""), make_trial(reference, model, t, dtype, v))
            for t in range(trials)
            for k, v in enumerate(variants)
        ]


def compile_only_dtypes(project: KernelProject, op: OpDefinition | None) -> dict[str, str]:
    """With no reference: the OpDef's first dtype combination, else float32 for every tensor of
    the entry (a single file, or an OpDef that declares no dtypes; by-value parameters take 0)."""
    combos = op.combinations() if op is not None else []
    return combos[0] if combos else {
        p: "float32" for p in project.entry.tensors if p not in HARNESS_PARAMS}


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
