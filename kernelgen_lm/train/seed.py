"""The seed set the project makes itself: the rule generator's validated kernels over the
bundled stubs, each with a chain of thought written from the plan's real decisions, and
question/answer records from the API catalog.

The reasoning states what the generator decided and the numbers behind it: the UB budget
arithmetic that sizes the tile (the same formula the generated TilingFunc runs), the core
split of the work units (checked against the block count the emulator ran with), the tail the
last tile leaves, the dtype handling, and why the copies are DataCopyPad (or why not). Nothing
is copied from vendor sources: every kernel is this project's output, validated here.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ascend_tools.chips import Chip, get_chip
from kernelgen_lm.families import AnyPlan, family_of
from kernelgen_lm.generate import GenerationResult, rules_generate
from kernelgen_lm.lower.host import MIN_SPLIT, UB_RESERVE
from kernelgen_lm.lower.kernel import DSIZE, KernelEmitter, splits_rows
from kernelgen_lm.plan.ir import KernelPlan
from kernelgen_lm.plan.matmul import DimRef, MatmulPlan
from kernelgen_lm.plan.window import WindowPlan
from kernelgen_lm.train.records import (
    Answer,
    CotRecord,
    HeldOut,
    Instruction,
    Metadata,
    Validation,
    source_fingerprint,
)

TILE_ALIGN = 64  # lower/host.py: whole 256-byte float repeats
HELD_OUT_EVERY = 8  # one stub in eight (by name hash) is the evaluation slice
ANSWER_DIRS = ("op_host", "op_kernel")  # the files a generation answer holds
Progress = Callable[[str], None]


def is_held_out(stub_name: str) -> bool:
    """Fixed by the name alone, so every machine and every run agrees on the slice."""
    return int(hashlib.sha256(stub_name.encode()).hexdigest(), 16) % HELD_OUT_EVERY == 0


def split_stubs(stubs_dir: Path) -> tuple[list[Path], list[Path]]:
    """(training stubs, held-out stubs), each sorted by name."""
    stubs = sorted(p for p in stubs_dir.glob("*.py") if not p.name.startswith("_"))
    held = [p for p in stubs if is_held_out(p.stem)]
    return [p for p in stubs if not is_held_out(p.stem)], held


def held_out_slice(stubs: list[Path]) -> HeldOut:
    return HeldOut(
        tasks={p.stem for p in stubs},
        fingerprints={source_fingerprint(p.read_text()) for p in stubs},
    )


def generation_instruction(stub: Path, chip: Chip, op_name: str) -> str:
    """The user turn the LLM path sends for this stub (no retrieved examples, no plan), so a
    model trained on the record sees at serving time the prompt it learned from."""
    from kernelgen_lm.llm.context import build_context
    from kernelgen_lm.llm.prompt import task_message
    from kernelgen_lm.llm.reference import describe_reference

    ctx = build_context(describe_reference(stub), op_name, chip, None, n_examples=0)
    return task_message(ctx).content


# -- the chain of thought --------------------------------------------------------------------


def _ceil(a: int, b: int) -> int:
    return (a + b - 1) // b


def _bytes_breakdown(plan: KernelPlan, em: KernelEmitter) -> list[str]:
    V = len(plan.axes) - 1
    parts = []
    for t in plan.inputs:
        if t.used and t.mask[V]:
            parts.append(f"input {t.name} ({t.dtype}, double-buffered): 2 x {DSIZE[t.dtype]}")
    for o in plan.outputs:
        parts.append(f"output {o.name} ({o.dtype}, double-buffered): 2 x {DSIZE[o.dtype]}")
    parts.append(f"{em.nslots} float32 work tile(s): {em.nslots} x 4")
    if em.uses_acc:
        parts.append(f"{em.acc_tiles} accumulator tile(s): {em.acc_tiles} x 4")
    if em.needs_reduce_bufs:
        parts.append("ReduceSum/Max work area: 4")
    if em.iota_v:
        parts.append("positions along the vector axis: 4")
    if em.uses_compare:
        parts.append("compare mask: 1")
    return parts


def kernel_reasoning(plan: KernelPlan, chip: Chip, block_dim: int | None) -> str:
    """The decisions behind a fused vector kernel, with their arithmetic at the example shape."""
    em = KernelEmitter(plan, chip)
    em.emit(f"{plan.op_name}TilingData")  # sizes the work tiles (nslots) as lowering does
    bpe = em.bytes_per_element()
    V = len(plan.axes) - 1
    d = [a.example for a in plan.axes]
    dv = d[V]
    cores = chip.vector_cores
    lines = [f"Task: {plan.op_name} on {chip.name} ({cores} vector cores, UB {chip.ub_bytes} B)."]
    # What the kernel computes and how the domain is walked.
    ins = ", ".join(f"{t.name} {t.dtype}{t.shape}" for t in plan.inputs)
    outs = ", ".join(f"{o.name} {o.dtype}{o.shape}" for o in plan.outputs)
    lines.append(f"Inputs {ins}; outputs {outs}.")
    reduced = [k for k, a in enumerate(plan.axes) if a.reduced]
    mode_text = {
        "elementwise": "elementwise: every output element depends on one position, no reduction",
        "row": "row reduction: the vector axis is reduced, so each row's statistics are scalars",
        "column": "column reduction: a leading axis is reduced while the vector axis is kept, "
        "so the statistics are whole tiles accumulated row by row",
    }[plan.mode]
    lines.append(
        f"Iteration domain {d} (last axis a{V} = {dv} elements is the vector axis); "
        f"mode {mode_text}" + (f"; reduced axes {reduced}" if reduced else "") + "."
    )
    if plan.stages:
        st = ", ".join(f"{s.name} = {s.op} ({s.scope})" for s in plan.stages)
        lines.append(f"Reduction stages in order: {st}; later stages and the outputs read them.")
    # dtype handling.
    low = sorted(
        {t.dtype for t in plan.inputs if t.dtype in ("float16", "bfloat16")}
        | {o.dtype for o in plan.outputs if o.dtype in ("float16", "bfloat16")}
    )
    if low:
        why = (
            " (bfloat16 has no vector arithmetic: Cast first)"
            if "bfloat16" in low
            else " (float32 keeps the accuracy of exp/log/reductions)"
        )
        lines.append(
            f"dtype: {', '.join(low)} data is Cast to float32 after each load and back "
            f"before each store; all math runs in float32{why}."
        )
    else:
        kinds = sorted({t.dtype for t in plan.inputs} | {o.dtype for o in plan.outputs})
        lines.append(f"dtype: {', '.join(kinds)}; the math runs in float32.")
    # UB budget -> tile length.
    budget = chip.ub_bytes - UB_RESERVE
    fit = budget // bpe // TILE_ALIGN * TILE_ALIGN
    need = _ceil(dv, TILE_ALIGN) * TILE_ALIGN
    tile = max(TILE_ALIGN, min(fit, need))
    lines.append(
        "UB budget per element of tile length: "
        + " + ".join(p.split(": ")[1] for p in _bytes_breakdown(plan, em))
        + f" = {bpe} B ("
        + "; ".join(_bytes_breakdown(plan, em))
        + ")."
    )
    lines.append(
        f"Usable UB = {chip.ub_bytes} - {UB_RESERVE} reserved (small fixed buffers, API "
        f"scratch) = {budget} B; {budget} / {bpe} = {budget // bpe} elements, rounded "
        f"down to whole 256-byte float repeats ({TILE_ALIGN} elements) = {fit}."
    )
    lines.append(
        f"The vector axis needs only ceil({dv} / {TILE_ALIGN}) x {TILE_ALIGN} = {need}, "
        f"so tileLen = {min(fit, need)}"
        + (" (at least one repeat)" if tile != min(fit, need) else "")
        + "."
    )
    # Core split.
    unit_axes = em.unit_axes
    outer = 1
    for k in unit_axes:
        outer *= d[k]
    if plan.mode in ("elementwise", "column"):
        if outer < cores:
            per = _ceil(cores, outer)
            cap = _ceil(_ceil(dv, per), TILE_ALIGN) * TILE_ALIGN
            if cap < tile:
                tile = max(TILE_ALIGN, cap)
                lines.append(
                    f"Only {outer} outer row(s) for {cores} cores: tiles shrink to "
                    f"ceil({dv} / {per}) rounded up to {TILE_ALIGN} = {tile} elements "
                    "so every core gets work."
                )
        tiles = _ceil(dv, tile)
        units = outer * tiles
        lines.append(
            f"Work units = outer rows x tiles per row = {outer} x ceil({dv} / {tile}) = {units}."
        )
    else:
        units = outer
        lines.append(
            f"Work units = rows (kept indices) = {units}; each row is walked in tiles of {tile}."
        )
        row_len = dv
        for k in em.reduced_nv:
            row_len *= d[k]
        if splits_rows(plan) and units < cores and row_len >= MIN_SPLIT:
            lines.append(
                f"Fewer rows than cores and a row of {row_len} >= {MIN_SPLIT} elements: "
                "several cores share each row, publish per-core partials to the "
                "workspace, SyncAll, and combine them in core order (deterministic)."
            )
        elif units < cores:
            lines.append(
                f"Fewer rows than cores, but a row of {row_len} elements is under "
                f"{MIN_SPLIT}: a SyncAll would cost more than the extra cores save, so "
                "each row stays on one core."
            )
    blocks = min(units, cores) if units else 1
    if block_dim is not None and block_dim != blocks:
        blocks = block_dim  # the emulator ran TilingFunc: its figure wins
    lines.append(
        f"blockDim = min(units, cores) = {blocks}"
        + (
            f"; big/small split: the first {units % blocks} core(s) take {units // blocks + 1} "
            f"unit(s), the rest {units // blocks}"
            if blocks and units % blocks
            else f"; every core takes {max(units // max(blocks, 1), 1)} unit(s)"
        )
        + "."
    )
    # Tail and copies.
    tail = dv % tile
    lines.append(
        f"Tail: {dv} = {dv // tile} x {tile}"
        + (
            f" + {tail}; the last tile of each row moves {tail} elements"
            if tail
            else ", no partial tile"
        )
        + "."
    )
    unaligned = [t for t in plan.inputs if (dv * DSIZE.get(t.dtype, 4)) % 32]
    if chip.has_datacopypad:
        lines.append(
            "Copies use DataCopyPad: its length is in bytes, so a tile of any length "
            "(the tail, and the validator's shape variants with the last dim + 1) moves "
            "exactly, never past the tensor"
            + (
                f"; here {dv} elements of {unaligned[0].dtype} are not a 32-byte multiple"
                if unaligned
                else ""
            )
            + "."
        )
    else:
        lines.append(
            f"{chip.name} has no DataCopyPad: DataCopy moves whole 32-byte blocks and "
            "the last len % block elements go through the scalar unit "
            "(SetValue/GetValue with S_V / V_S flags)."
        )
    lines.append(
        "Queues: one VECIN/VECOUT TQue per tensor, double-buffered so MTE2, vector "
        "and MTE3 overlap; EnQue/DeQue order the pipes."
    )
    return "\n".join(lines)


def window_reasoning(plan: WindowPlan, chip: Chip) -> str:
    lines = [
        f"Task: {plan.op_name}, {plan.op} pooling on {chip.name}: {plan.dtype}{plan.in_shape} -> "
        f"{plan.out_shape}, window {plan.kernel}, stride {plan.stride}, padding {plan.padding}, "
        f"dilation {plan.dilation}" + (", ceil mode" if plan.ceil_mode else "") + ".",
        "Each plane is independent: planes are the work units, split big/small over the "
        f"{chip.vector_cores} vector cores; the window is reduced in float32.",
        "Padding positions are skipped for max and counted "
        + ("in" if plan.count_include_pad else "out of")
        + " the divisor for avg.",
        (
            "Copies use DataCopyPad (byte lengths: unaligned rows move exactly)."
            if chip.has_datacopypad
            else f"{chip.name} has no DataCopyPad: aligned DataCopy plus scalar tails."
        ),
    ]
    return "\n".join(lines)


def matmul_reasoning(plan: MatmulPlan, chip: Chip) -> str:
    """The cube decisions with the product's sizes and the MAC arithmetic the cost model uses."""

    def size(d: DimRef) -> int:
        return plan.inputs[d.input].shape[d.dim] if d.input >= 0 else 1

    m, n, k = size(plan.m), size(plan.n), size(plan.k)
    batch = 1
    for d in plan.batch:
        batch *= size(d)
    macs = batch * m * n * k
    fp32 = plan.dtype == "float32"
    rate = chip.perf.cube_fp32_macs_per_cycle if fp32 else chip.perf.cube_macs_per_cycle
    cycles = macs / (rate * chip.cube_cores)
    lines = [
        f"Task: {plan.op_name} on {chip.name} ({chip.cube_cores} cube cores; L1 {chip.l1_bytes} B, "
        f"L0A {chip.l0a_bytes} B, L0B {chip.l0b_bytes} B, L0C {chip.l0c_bytes} B).",
        f"A matrix product: batch {batch}, M = {m}, N = {n}, K = {k}: {macs} multiply-accumulates "
        "belong on the cube unit, not the vector unit.",
        f"{plan.dtype} inputs accumulate in float32 in L0C"
        + (
            f"; float32 runs at {rate:g} MACs/cycle/core, a quarter of the 16-bit rate"
            if fp32
            else f"; {rate:g} MACs/cycle/core"
        )
        + f", so the product alone needs about {cycles:.0f} cube cycles over all cores.",
        "The Matmul high-level API moves GM -> L1 -> L0A/L0B, runs Mmad and brings L0C out; "
        "MatmulApiTiling on the host picks the base blocks so A, B and C fit L1 and each L0.",
    ]
    if plan.a.trans or plan.b.trans:
        which = " and ".join(x for x, t in (("A", plan.a.trans), ("B", plan.b.trans)) if t)
        lines.append(
            f"{which} arrive transposed: the API reads them transposed "
            "(SetTensorA/SetTensorB with the transpose flag) instead of a copy first."
        )
    if plan.folded:
        lines.append(
            "The batch axes fold into M: B is shared by every batch, so one "
            f"[{batch * m}, {k}] x [{k}, {n}] product replaces {batch} small ones."
        )
    elif plan.batch:
        lines.append(
            "Each batch is its own product; work units (batch, M block, N block) are "
            f"split big/small over at most {chip.cube_cores} cube cores."
        )
    else:
        lines.append(
            "MultiCoreMatmulTiling splits M and N over the cube cores; K is looped "
            "inside each core."
        )
    if plan.bias is not None:
        lines.append("The bias is added by the API (SetBias) as the result leaves L0C.")
    if plan.direct:
        lines.append(
            f"No epilogue and the output is {plan.out_dtype}: IterateAll writes straight to GM."
        )
    else:
        lines.append(
            f"An epilogue runs on the vector unit: each base block comes to UB as float32 "
            f"(GetTensorC), the element-wise ops run there, the result is cast to "
            f"{plan.out_dtype} and stored with DataCopyPad; the kernel is mixed "
            "(cube + vector, KERNEL_TYPE_MIX_AIC_1_1)."
        )
    lines += [f"Note: {x}" for x in plan.notes]
    return "\n".join(lines)


def plan_reasoning(plan: AnyPlan, chip: Chip, block_dim: int | None) -> str:
    """The plan family's own reasoning; families without one state the task and the chip (the
    plan text that follows every reasoning holds their decisions)."""
    if isinstance(plan, WindowPlan):
        return window_reasoning(plan, chip)
    if isinstance(plan, MatmulPlan):
        return matmul_reasoning(plan, chip)
    if isinstance(plan, KernelPlan):
        return kernel_reasoning(plan, chip, block_dim)
    return (
        f"Task: {plan.op_name} on {chip.name} ({chip.vector_cores} vector cores, UB "
        f"{chip.ub_bytes} B, DataCopyPad {'available' if chip.has_datacopypad else 'absent'}"
        f"), a {family_of(plan).name} kernel: the decisions are the plan's, below."
    )


# -- records ---------------------------------------------------------------------------------


def project_files(root: Path) -> dict[str, str]:
    files = {}
    for d in ANSWER_DIRS:
        for p in sorted((root / d).rglob("*")):
            if p.is_file():
                files[p.relative_to(root).as_posix()] = p.read_text(encoding="utf-8")
    return files


def seed_record(stub: Path, chip: Chip, res: GenerationResult, plan: AnyPlan) -> CotRecord:
    assert res.project is not None and res.validation is not None
    if isinstance(plan, WindowPlan):
        shapes, dtypes = [plan.in_shape], [plan.dtype]
    else:
        shapes = [t.shape for t in plan.inputs]
        dtypes = sorted({t.dtype for t in plan.inputs})
    text = family_of(plan).text(plan)
    speed = res.speed
    return CotRecord(
        instruction=Instruction(
            kind="generate",
            text=generation_instruction(stub, chip, plan.kernel_name),
            op=plan.kernel_name,
            chip=chip.name,
            shapes=shapes,
            dtypes=dtypes,
            reference=stub.read_text(encoding="utf-8"),
        ),
        reasoning=plan_reasoning(plan, chip, speed.kernel.block_dim if speed else None)
        + "\n\nPlan:\n"
        + text,
        answer=Answer(files=project_files(res.project)),
        metadata=Metadata(
            origin="seed-rules",
            source=f"bench/stubs/{stub.name}",
            task=stub.stem,
            validation=Validation(
                ok=True, stage="done", compiled=True, cases=len(res.validation.cases)
            ),
            speedup=round(speed.speedup, 4) if speed else None,
            kernel_us=round(speed.kernel.total_us, 3) if speed else None,
        ),
    )


def seed_records(
    stubs: list[Path],
    chips: list[str],
    *,
    limit: int | None = None,
    progress: Progress | None = None,
    failures: dict[str, str] | None = None,
) -> Iterator[CotRecord]:
    """Validated rule-generator kernels, one record per (stub, chip); stubs the rules cannot
    do are skipped (their reason goes to `failures`)."""
    say = progress or (lambda _m: None)
    made = 0
    with tempfile.TemporaryDirectory(prefix="kernelgen-seed-") as tmp:
        for stub in stubs:
            for name in chips:
                if limit is not None and made >= limit:
                    return
                chip = get_chip(name)
                out = Path(tmp) / f"{stub.stem}-{chip.name}"
                res, plan = rules_generate(stub, out, chip=chip.name)
                if res.ok and plan is not None:
                    made += 1
                    say(f"seed: {stub.stem} on {chip.name}: validated")
                    yield seed_record(stub, chip, res, plan)
                else:
                    say(f"seed: {stub.stem} on {chip.name}: skipped ({res.error})")
                    if failures is not None:
                        failures[f"{stub.stem}@{chip.name}"] = str(res.error)[:200]
                shutil.rmtree(out, ignore_errors=True)


def catalog_records(limit: int | None = None) -> list[CotRecord]:
    """Question/answer records from the API catalog: what an API does, its signature, the
    units of its sizes, where it is supported and which dtypes it takes."""
    from ascend_tools.catalog import load_catalog

    out = []
    for e in load_catalog().entries:
        if not e.signatures or e.kind.value not in ("function", "member"):
            continue
        if limit is not None and len(out) >= limit:
            break
        sizes = [p for p in e.params if p.unit.value != "none"]
        reasoning = [f"{e.qualified_name} is in the {e.group or 'AscendC'} group ({e.side} side)."]
        if sizes:
            reasoning.append(
                "Sizes: "
                + "; ".join(f"{p.name} counts {p.unit.value} ({p.meaning})" for p in sizes)
                + "."
            )
        if e.archs:
            reasoning.append(f"Supported only on {', '.join(e.archs)}.")
        if e.dtypes:
            reasoning.append(
                "Element types: "
                + "; ".join(f"{arch}: {', '.join(ts)}" for arch, ts in sorted(e.dtypes.items()))
                + "."
            )
        answer = [e.doc.strip(), "", *e.signatures[:3]]
        answer += [f"Constraint: {c}" for c in e.constraints]
        out.append(
            CotRecord(
                instruction=Instruction(
                    kind="qa",
                    text=f"What does the AscendC API {e.qualified_name} do, and how is it called?",
                    op=e.name,
                ),
                reasoning=" ".join(reasoning),
                answer=Answer(text="\n".join(answer).strip()),
                metadata=Metadata(
                    origin="catalog",
                    source=f"ascend_tools/catalog: {e.name}",
                    task=f"api:{e.qualified_name}",
                ),
            )
        )
    return out
