"""Tiling rules: tail handling (7.5), host/kernel tiling agreement and parameter order (7.11),
blockDim range (7.10)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.parse.evaluate import Value
from ascend_tools.parse.expr import Expr, has_op, names_in, render
from ascend_tools.parse.facts import Chunk, Located
from ascend_tools.project import QUOTED_INCLUDE, kernel_name

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
    """A remainder path: `x % n`, or a subtraction of a product or of a block offset
    (`total - idx * perCore`, the last core taking what is left)."""
    if has_op(e, {"%"}):
        return True
    stack = [e]
    while stack:
        x = stack.pop()
        if not x or not isinstance(x, tuple):
            continue
        if x[0] == "b" and x[1] == "-" and (has_op(x[3], {"*"}) or "GetBlockIdx" in render(x[3])
                                            or has_op(x[2], {"*"})):
            return True
        if x[0] == "b":
            stack += [x[2], x[3]]
        elif x[0] in ("u", "cast"):
            stack.append(x[2])
        elif x[0] == "t":
            stack += [x[1], x[2], x[3]]
        elif x[0] == "c":
            stack += list(x[3])
    return False


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


def _tiling_accesses(ctx: LintContext) -> Iterator[tuple[str, str, str, Located]]:
    """(tiling variable, struct named by its macro or "", field, where) for each field the
    kernel reads directly off a GET_TILING_DATA* variable."""
    for c in ctx.model.kernel_chunks():
        structs = {t[0]: t[1] for t in c.tiling_macro}
        if not structs:
            continue
        for e, fact in _exprs(c):
            stack = [e]
            while stack:
                x = stack.pop()
                if not x:
                    continue
                if x[0] == "f" and x[1][0] == "id" and x[1][1] in structs:
                    yield x[1][1], structs[x[1][1]], x[2], fact
                for part in x[1:]:
                    if isinstance(part, tuple) and part and isinstance(part[0], str):
                        stack.append(part)
                    elif isinstance(part, tuple):
                        stack += [p for p in part if isinstance(p, tuple) and p]


def _struct_named(ctx: LintContext, name: str):
    return next((s for s in ctx.model.tiling_structs if s.name == name), None)


def check_tiling_mismatch(ctx: LintContext) -> Iterator[Diagnostic]:
    """A field the kernel reads must exist in the struct its macro binds: the one named in
    GET_TILING_DATA_WITH_STRUCT, else the struct registered for the op. A field another host
    tiling struct defines may be that struct's (registered per tiling key): no verdict."""
    default = ctx.model.tiling_struct()
    every = {f.name for st in ctx.model.tiling_structs for f in st.fields}
    seen: set[tuple[str, str]] = set()
    for _, macro_struct, name, fact in _tiling_accesses(ctx):
        struct = _struct_named(ctx, macro_struct.rsplit("::", 1)[-1]) if macro_struct else default
        if struct is None or (struct.name, name) in seen:
            continue
        fields = [f.name for f in struct.fields]
        if name in fields or (not macro_struct and name in every):
            continue
        seen.add((struct.name, name))
        close = [f for f in fields if f.lower() == name.lower()] or [
            f for f in fields if name.lower() in f.lower() or f.lower() in name.lower()]
        hint = f"; did you mean {', '.join(close[:3])}?" if close else ""
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, fact,
                       f"the kernel reads tiling field {name}, which the host tiling struct "
                       f"{struct.name} ({_where_struct(ctx, struct)}) does not define (fields: "
                       f"{', '.join(fields)}){hint}")
    yield from _host_setters(ctx)
    if default is not None:
        yield from _kernel_struct(ctx, default)
    yield from _param_order(ctx)


def _where_struct(ctx: LintContext, struct) -> str:
    doc = ctx.model.documents.get(struct.file)
    if doc is None:
        return struct.file
    line = doc.text.count("\n", 0, struct.offset) + 1
    return f"{struct.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}"


def _host_setters(ctx: LintContext) -> Iterator[Diagnostic]:
    """`t.set_x(...)` in TilingFunc on a variable declared as a host tiling struct that has no
    field x (setters on other objects are someone else's)."""
    fn = ctx.ev.host_tiling_function()
    if fn is None:
        return
    for call in fn.calls:
        if not call.name.startswith("set_") or call.receiver_name is None:
            continue
        d = ctx.model.variable_decl(fn, call.receiver_name, call.order)
        struct = _struct_named(ctx, d.type_base) if d is not None else None
        if struct is None:
            continue
        fields = [f.name for f in struct.fields]
        if call.name[4:] not in fields:
            yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, call,
                           f"TilingFunc sets {call.name[4:]} on {call.receiver_name}, a "
                           f"{struct.name}, which does not define it (fields: {', '.join(fields)})")


def _layout(ctx: LintContext, fields: list[tuple[str, str]], chunk) -> list[tuple[str, int]] | None:
    """(name, byte size) per field, or None when a size is not known."""
    out = []
    for name, type_text in fields:
        v = ctx.ev.type_size(type_text, chunk)
        if v is None or not v.exact:
            return None
        out.append((name, int(v.lo)))
    return out


def _kernel_struct(ctx: LintContext, struct) -> Iterator[Diagnostic]:
    """A kernel-side struct of the same name must lay out the host fields: same names, order
    and sizes (`unsigned int` for `uint32_t` is the same layout)."""
    cls = ctx.model.classes.get(struct.name)
    if cls is None or cls.file not in ctx.model.kernel_files:
        return
    kernel_f = [(d.name, d.type_text) for d in ctx.model.members(struct.name).values()
                if not d.is_const]
    host_f = [(f.name, f.type_text) for f in struct.fields]
    if any(f.count is not None for f in struct.fields):
        return  # arrays: the layout needs more than names and sizes
    kernel, host = _layout(ctx, kernel_f, cls), _layout(ctx, host_f, None)
    if kernel is None or host is None or kernel == host:
        return
    yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, cls.klass,
                   f"kernel struct {struct.name} lays out "
                   f"{', '.join(f'{n} ({b} B)' for n, b in kernel)} but the host "
                   f"({_where_struct(ctx, struct)}) defines "
                   f"{', '.join(f'{n} ({b} B)' for n, b in host)}; the kernel would read the "
                   "tiling buffer at the wrong offsets",
                   start=cls.base, end=cls.base + len(f"struct {struct.name}"))


def _param_order(ctx: LintContext) -> Iterator[Diagnostic]:
    """Only an operator project (an OpDef) fixes the argument order: the framework passes
    inputs, outputs, workspace, tiling by position. A kernel launched directly takes
    whatever order its caller uses."""
    entry = ctx.model.entry
    op = ctx.model.opdef()
    if entry is None or entry.function is None or op is None:
        return
    params = [p.name for p in entry.function.params]
    fn = entry.function
    tail = [p for p in params if p in ("workspace", "tiling")]
    if len(tail) == 2 and params[-2:] != ["workspace", "tiling"]:
        order = [p for p in params if p not in tail] + ["workspace", "tiling"]
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.ERROR, fn,
                       f"kernel parameters ({', '.join(params)}) must end with workspace, tiling "
                       f"for the OpDef {op.name}: the framework passes them by position, so "
                       "`tiling` here receives another pointer and the tiling reads as garbage",
                       _reorder_fix(ctx, entry, order), start=entry.base,
                       end=entry.base + len(ctx.source(
                           entry.file, entry.base, entry.base + 200).split("(")[0]))
        return
    expected = [p.name.lower() for p in op.inputs + op.outputs]
    system = [p for p in params if p in ("workspace", "tiling")]
    if len(system) < 2:
        system = params[-2:]  # by position, whatever their names (`tiling_data`, `usrWorkspace`)
    got = [p.lower() for p in params if p not in system]
    if sorted(expected) == sorted(got) and expected != got:
        by_lower = {p.lower(): p for p in params}
        order = [by_lower[e] for e in expected] + [p for p in params if p in system]
        pairs = ", ".join(f"{g} receives {e}" for g, e in zip(got, expected, strict=True) if g != e)
        yield ctx.diag(RuleCode.TILING_MISMATCH.value, Severity.WARNING, fn,
                       f"kernel parameters ({', '.join(got)}) are not in OpDef order "
                       f"({', '.join(expected)}: inputs, then outputs); arguments bind by "
                       f"position, so {pairs}",
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


@dataclass
class _LaunchScope:
    """One op's launch: the host function that sets its blockDim, the value, and the kernel
    files its entry builds from (where SyncAll and the task type are looked for)."""

    fn: Chunk | None
    block_dim: Value
    kernel_files: list[str]


def _kernel_closure(ctx: LintContext, start: str) -> list[str]:
    """`start` and the kernel files it includes, transitively (matched by file name)."""
    by_name: dict[str, list[str]] = {}
    for f in ctx.model.kernel_files:
        by_name.setdefault(f.replace("\\", "/").rsplit("/", 1)[-1], []).append(f)
    seen, todo = [start], [start]
    while todo:
        for inc in QUOTED_INCLUDE.findall(ctx.model.documents[todo.pop()].text):
            for f in by_name.get(inc.rsplit("/", 1)[-1], []):
                if f not in seen:
                    seen.append(f)
                    todo.append(f)
    return seen


def _launch_scopes(ctx: LintContext) -> list[_LaunchScope]:
    """Per op of a folder that holds several (a forward and its grad, DrivingSDK), the blockDim
    its own tiling function sets and the files of its own kernel entry; otherwise the one
    launch of the project (blockDim from the host, or a single file's comment)."""
    if len(ctx.model.opdefs) > 1:
        scopes = []
        for op in ctx.model.opdefs:
            fn = next((c for c in ctx.model.host_chunks()
                       if c.kind == "function" and c.name == op.tiling_func), None)
            entry = next((c for c in ctx.model.kernel_chunks() if c.kind == "function"
                          and c.function is not None and c.function.is_entry
                          and c.name == kernel_name(op.name)), None)
            bd = ctx.ev.block_dim_in(fn) if fn is not None else None
            if bd is not None and entry is not None:
                scopes.append(_LaunchScope(fn, bd, _kernel_closure(ctx, entry.file)))
        if scopes:
            return scopes
    bd = ctx.ev.block_dim()
    return [_LaunchScope(ctx.ev.host_tiling_function(), bd, ctx.model.kernel_files)] if bd else []


def check_block_dim(ctx: LintContext) -> Iterator[Diagnostic]:
    for scope in _launch_scopes(ctx):
        yield from _check_launch(ctx, scope)


def _check_launch(ctx: LintContext, scope: _LaunchScope) -> Iterator[Diagnostic]:
    bd, fn = scope.block_dim, scope.fn
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
    files = set(scope.kernel_files)
    calls: dict[str, list] = {}
    for call in ctx.model.calls:
        if call.chunk.file in files:
            calls.setdefault(call.name, []).append(call)
    # A declared mix task type (KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_*), `__mix__(c, v)`):
    # each block is an AIC + AIV group that must be resident at once (ASCENDC_SPEC 7.10; the
    # emulator fails such a launch with block-dim).
    declared_mix = any(marker in ctx.model.documents[f].text for f in scope.kernel_files
                       for marker in ("KERNEL_TYPE_MIX", "__mix__"))
    mix = declared_mix or any(m in calls for m in _MIX_MARKERS) or any(
        d.type_base == "Matmul" for c in ctx.model.kernel_chunks() if c.file in files
        for d in c.decls)
    sync = calls.get("SyncAll", [])
    cores = ctx.chip.cube_cores if mix and ctx.chip.split_cores else ctx.chip.vector_cores
    if bd.lo > cores:
        if declared_mix and ctx.chip.split_cores and not sync:
            yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.ERROR, anchor,
                           f"blockDim {bd.fmt()} exceeds the {cores} cube cores of "
                           f"{ctx.chip.name}; the kernel declares a mix task type, whose blocks "
                           f"(one AIC with its AIV cores each) must all be resident ({why})")
        elif sync:
            yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.ERROR, anchor,
                           f"blockDim {bd.fmt()} exceeds the {cores} cores of {ctx.chip.name}; "
                           f"SyncAll ({ctx.model.where(sync[0])}) needs every block resident at "
                           f"once and deadlocks ({why})")
        else:
            kind = "AI cores (a mix kernel)" if mix and ctx.chip.split_cores else "vector cores"
            yield ctx.diag(RuleCode.BLOCK_DIM.value, Severity.WARNING, anchor,
                           f"blockDim {bd.fmt()} exceeds the {cores} {kind} of "
                           f"{ctx.chip.name}; blocks run in waves ({why})")
