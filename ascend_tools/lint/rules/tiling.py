"""Tiling rules: tail handling (7.5), host/kernel tiling agreement and parameter order (7.11),
blockDim range (7.10)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.parse.expr import Expr, has_op, names_in, render
from ascend_tools.parse.facts import Chunk, Located

_COUNT_NAME = re.compile(r"(block|core|tile|loop)_?(num|dim|count|cnt)|^(block_dim|BLOCK_DIM)$",
                         re.I)
_TAIL_NAME = re.compile(r"tail|remain|former|latter|last|big|small|rest|left", re.I)
_MAX_BLOCK_DIM = 65535


def _exprs(chunk: Chunk) -> Iterator[tuple[Expr, Located]]:
    for d in chunk.decls:
        if d.init is not None:
            yield d.init, d
    for a in chunk.assigns:
        yield a.value, a
    for c in chunk.calls:
        for arg in c.args:
            yield arg.expr, arg


def _divisions(e: Expr) -> Iterator[Expr]:
    stack = [e]
    while stack:
        x = stack.pop()
        if not x:
            continue
        if x[0] == "b":
            if x[1] == "/":
                yield x
            stack += [x[2], x[3]]
        elif x[0] in ("u", "cast"):
            stack.append(x[2])
        elif x[0] == "c":
            stack += list(x[3])
        elif x[0] == "t":
            stack += [x[1], x[2], x[3]]


def _splits_work(div: Expr) -> bool:
    divisor = div[3]
    if divisor[0] == "c" and divisor[1] in ("GetBlockNum", "GetCoreNumAiv", "GetCoreNum"):
        return True
    return any(_COUNT_NAME.search(n) for n in names_in(divisor))


def _relevant_chunks(ctx: LintContext) -> list[Chunk]:
    chunks = ctx.model.kernel_chunks()
    fn = ctx.ev.host_tiling_function()
    return chunks + ([fn] if fn is not None else [])


def _chunk_tail_facts(c: Chunk) -> tuple[list, bool]:
    """(work splits, has a tail path) of one chunk, memoised on the chunk."""
    memo = c.memo.get("tail")
    if memo is None:
        splits = []
        tail = False
        for e, fact in _exprs(c):
            splits += [(d, fact) for d in _divisions(e) if _splits_work(d)]
            tail = tail or _has_mod(e)
        names = [d.name for d in c.decls] + [render(a.target) for a in c.assigns]
        names += [call.name for call in c.calls]
        tail = tail or any(_TAIL_NAME.search(n) for n in names) or any(
            call.name in ("CeilDiv", "DivCeil", "AlignUp", "SetTail") for call in c.calls)
        memo = c.memo["tail"] = (splits, tail)
    return memo  # type: ignore[return-value]


def _has_tail_path(ctx: LintContext, chunks: list[Chunk]) -> bool:
    if any(_chunk_tail_facts(c)[1] for c in chunks):
        return True
    struct = ctx.model.tiling_struct()
    return bool(struct and any(_TAIL_NAME.search(f.name) for f in struct.fields))


def _has_mod(e: Expr) -> bool:
    return has_op(e, {"%"})


def check_missing_tail(ctx: LintContext) -> Iterator[Diagnostic]:
    chunks = _relevant_chunks(ctx)
    splits = [s for c in chunks for s in _chunk_tail_facts(c)[0]]
    if not splits or _has_tail_path(ctx, chunks):
        return
    for div, fact in splits:
        num = ctx.ev.eval(div[2], fact.chunk, getattr(fact, "order", None))
        den = ctx.ev.eval(div[3], fact.chunk, getattr(fact, "order", None))
        if num is not None and den is not None and num.exact and den.exact and den.lo > 0:
            if num.lo % den.lo == 0:
                continue
            why = "; ".join(x for x in (num.why(2), den.why(2)) if x)
            yield ctx.diag(
                RuleCode.MISSING_TAIL.value, Severity.ERROR, fact,
                f"{render(div)} = {num.fmt()} / {den.fmt()} leaves {num.lo % den.lo:g} elements "
                f"that no core or tile processes: there is no tail path (no remainder, tail tile "
                f"or big/small core split)" + (f" ({why})" if why else ""))
        else:
            yield ctx.diag(
                RuleCode.MISSING_TAIL.value, Severity.WARNING, fact,
                f"{render(div)} splits the work without a remainder path (no %, tail tile or "
                "big/small core split): shapes that do not divide evenly lose or over-read data")
        return


def _tiling_accesses(ctx: LintContext) -> Iterator[tuple[str, Located]]:
    for c in ctx.model.kernel_chunks():
        vars_ = {t[0] for t in c.tiling_macro}
        if not vars_:
            continue
        for e, fact in _exprs(c):
            stack = [e]
            while stack:
                x = stack.pop()
                if not x:
                    continue
                if x[0] == "f" and x[1][0] == "id" and x[1][1] in vars_:
                    yield x[2], fact
                for part in x[1:]:
                    if isinstance(part, tuple) and part and isinstance(part[0], str):
                        stack.append(part)
                    elif isinstance(part, tuple):
                        stack += [p for p in part if isinstance(p, tuple) and p]


def check_tiling_mismatch(ctx: LintContext) -> Iterator[Diagnostic]:
    struct = ctx.model.tiling_struct()
    if struct is not None:
        fields = [f.name for f in struct.fields]
        seen: set[str] = set()
        for name, fact in _tiling_accesses(ctx):
            if name not in fields and name not in seen:
                seen.add(name)
                close = [f for f in fields if f.lower() == name.lower()] or [
                    f for f in fields if name.lower() in f.lower() or f.lower() in name.lower()]
                hint = f"; did you mean {', '.join(close[:3])}?" if close else ""
                yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, fact,
                               f"the kernel reads tiling field {name}, which the host tiling "
                               f"struct {struct.name} does not define (fields: "
                               f"{', '.join(fields)}){hint}")
        fn = ctx.ev.host_tiling_function()
        if fn is not None:
            for call in fn.calls:
                if call.name.startswith("set_") and call.name[4:] not in fields:
                    yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, call,
                                   f"TilingFunc sets {call.name[4:]}, which {struct.name} does not "
                                   f"define (fields: {', '.join(fields)})")
        yield from _kernel_struct(ctx, struct)
    yield from _param_order(ctx)


def _kernel_struct(ctx: LintContext, struct) -> Iterator[Diagnostic]:
    """A kernel-side struct of the same name must match the host fields, order and types."""
    cls = ctx.model.classes.get(struct.name)
    if cls is None or cls.file not in ctx.model.kernel_files:
        return
    kernel = [(d.name, d.type_text) for d in ctx.model.members(struct.name).values()
              if not d.is_const]
    host = [(f.name, f.type_text) for f in struct.fields]
    if kernel != host:
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, cls.klass,
                       f"kernel struct {struct.name} has fields "
                       f"{', '.join(f'{t} {n}' for n, t in kernel)} but the host defines "
                       f"{', '.join(f'{t} {n}' for n, t in host)}; the kernel would read the "
                       "tiling buffer at the wrong offsets",
                       start=cls.base, end=cls.base + len(f"struct {struct.name}"))


def _param_order(ctx: LintContext) -> Iterator[Diagnostic]:
    entry = ctx.model.entry
    if entry is None or entry.function is None:
        return
    params = [p.name for p in entry.function.params]
    fn = entry.function
    tail = [p for p in params if p in ("workspace", "tiling")]
    if tail and params[-len(tail):] != [p for p in ("workspace", "tiling") if p in tail]:
        order = [p for p in params if p not in tail] + [
            p for p in ("workspace", "tiling") if p in tail]
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, fn,
                       f"kernel parameters ({', '.join(params)}) must end with workspace, tiling; "
                       "a reordered list reads the tiling as zeros",
                       _reorder_fix(ctx, entry, order), start=entry.base,
                       end=entry.base + len(ctx.source(
                           entry.file, entry.base, entry.base + 200).split("(")[0]))
        return
    op = ctx.model.opdef()
    if op is None:
        return
    expected = [p.name.lower() for p in op.inputs + op.outputs]
    got = [p.lower() for p in params if p not in ("workspace", "tiling")]
    if sorted(expected) == sorted(got) and expected != got:
        by_lower = {p.lower(): p for p in params}
        order = [by_lower[e] for e in expected] + [p for p in params if p in ("workspace",
                                                                              "tiling")]
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, fn,
                       f"kernel parameters ({', '.join(got)}) are not in OpDef order "
                       f"({', '.join(expected)}: inputs, then outputs); arguments bind by position",
                       _reorder_fix(ctx, entry, order), start=entry.base, end=entry.base + 1)
    elif len(expected) != len(got) and expected:
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.WARNING, fn,
                       f"kernel takes {len(got)} tensor parameters ({', '.join(got)}) but the "
                       f"OpDef declares {len(expected)} ({', '.join(expected)})",
                       start=entry.base, end=entry.base + 1)


def _reorder_fix(ctx: LintContext, entry: Chunk, order: list[str]) -> Fix | None:
    """Rewrites the entry's parameter list in the given order (each declaration kept as
    written). The body is unchanged: it uses the parameters by name."""
    fn = entry.function
    if fn is None or fn.params_start < 0:
        return None
    by_name = {p.name: p.source for p in fn.params}
    if set(order) != set(by_name):
        return None
    new = "(" + ", ".join(by_name[n] for n in order) + ")"
    return Fix(title=f"Reorder the parameters: {', '.join(order)}",
               edits=[ctx.edit(entry.file, entry.base + fn.params_start,
                               entry.base + fn.params_end, new)])


_MIX_MARKERS = ("Matmul", "CrossCoreSetFlag", "CrossCoreWaitFlag", "REGIST_MATMUL_OBJ")


def check_block_dim(ctx: LintContext) -> Iterator[Diagnostic]:
    bd = ctx.ev.block_dim()
    if bd is None:
        return
    fn = ctx.ev.host_tiling_function()
    anchor = None
    if fn is not None:
        anchor = next((c for c in fn.calls if c.name == "SetBlockDim"), None)
    if anchor is None and ctx.model.entry is not None and ctx.model.entry.function is not None:
        anchor = ctx.model.entry.function
    if anchor is None:
        return
    why = bd.why(3)
    if bd.hi < 1 or bd.lo > _MAX_BLOCK_DIM:
        yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.ERROR, anchor,
                       f"blockDim {bd.fmt()} is outside [1, {_MAX_BLOCK_DIM}] ({why})")
        return
    kernel_text = " ".join(ctx.model.documents[f].text for f in ctx.model.kernel_files)
    mix = any(m in kernel_text for m in _MIX_MARKERS) or "KERNEL_TYPE_MIX" in kernel_text
    sync = "SyncAll" in kernel_text
    cores = ctx.chip.cube_cores if mix and ctx.chip.split_cores else ctx.chip.vector_cores
    if bd.lo > cores:
        if mix or sync:
            yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.ERROR, anchor,
                           f"blockDim {bd.fmt()} exceeds the {cores} cores of {ctx.chip.name}; "
                           f"{'SyncAll' if sync else 'a mix kernel'} needs every block resident "
                           f"at once and deadlocks ({why})")
        else:
            yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.WARNING, anchor,
                           f"blockDim {bd.fmt()} exceeds the {cores} vector cores of "
                           f"{ctx.chip.name}; blocks run in waves ({why})")
