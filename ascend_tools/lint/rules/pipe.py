"""One TPipe alive, REGIST_MATMUL_OBJ before InitBuffer, at most 4 Matmul objects (7.12; the
AscendC reference of REGIST_MATMUL_OBJ, restrictions: required before InitBuffer in separation
mode; four Matmul objects at most).

Objects count as alive together only on one path: kernel classes picked by tiling key in
sibling branches, or separate kernel functions, each have their own TPipe legitimately."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.chips import MAX_MATMUL_OBJECTS
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext, reaches
from ascend_tools.parse.facts import Call, Chunk, Decl

_POINTER_OR_REF = {t: re.compile(rf"{t}\s*(<[^;]*>)?\s*[*&]") for t in ("TPipe", "Matmul")}


def _is_object(ctx: LintContext, d: Decl, type_name: str) -> bool:
    text = ctx.source(d.chunk.file, d.start, d.end)
    return _POINTER_OR_REF[type_name].search(text) is None


def _typed_decls(c: Chunk) -> list[Decl]:
    """Declarations of TPipe and Matmul in a chunk (memoised on the chunk)."""
    memo = c.memo.get("pipe_decls")
    if memo is None:
        memo = c.memo["pipe_decls"] = [d for d in c.decls if d.type_base in ("TPipe", "Matmul")]
    return memo  # type: ignore[return-value]


def _owned(ctx: LintContext, chunks: list[Chunk], type_name: str) -> dict[str, list[Decl]]:
    """Class name -> its data members of `type_name` held by value. A class defined in more
    than one file has alternative definitions (headers an `#ifdef` picks between, Ascend/samples
    Mmad's KernelMmad per chip): one translation unit holds one, so the fullest counts."""
    by_file: dict[str, dict[str, list[Decl]]] = {}
    for c in chunks:
        if c.kind == "field":
            for d in _typed_decls(c):
                if d.type_base == type_name and _is_object(ctx, d, type_name):
                    by_file.setdefault(c.class_name, {}).setdefault(c.file, []).append(d)
    return {cls: max(files.values(), key=len) for cls, files in by_file.items()}


def _live_sets(ctx: LintContext, chunks: list[Chunk],
               type_name: str) -> Iterator[list[tuple[Decl, Decl]]]:
    """Per function, the largest set of `type_name` objects alive at once, as (the local that
    holds it, the object): the local itself, or a kernel-class object whose class holds the
    object by value. Nothing when no two are alive together."""
    held = _owned(ctx, chunks, type_name)
    for c in chunks:
        if c.kind != "function":
            continue
        holders: list[tuple[Decl, Decl]] = []
        for d in c.decls:
            if d.type_base == type_name and _is_object(ctx, d, type_name):
                holders.append((d, d))
            elif d.type_base in held and not _is_pointer(ctx, d):
                holders += [(d, m) for m in held[d.type_base]]
        best: list[tuple[Decl, Decl]] = []
        for k, (local, _) in enumerate(holders):
            live = [h for h in holders[:k + 1] if reaches(h[0], local)]
            if len(live) > len(best):
                best = live
        if len(best) > 1:
            yield best


def _is_pointer(ctx: LintContext, d: Decl) -> bool:
    text = ctx.source(d.chunk.file, d.start, d.end)
    return re.search(rf"{re.escape(d.type_base)}\s*(<[^;]*>)?\s*[*&]", text) is not None


def _describe(ctx: LintContext, live: list[tuple[Decl, Decl]]) -> str:
    return ", ".join(
        f"{o.name} ({ctx.model.where(o)})" if h is o else
        f"{h.name}.{o.name} (a {h.type_base} at {ctx.model.where(h)})" for h, o in live)


def check_pipe_and_matmul(ctx: LintContext) -> Iterator[Diagnostic]:
    chunks = ctx.model.kernel_chunks()
    for live in _live_sets(ctx, chunks, "TPipe"):
        yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.ERROR, live[-1][0],
                       f"{len(live)} TPipe objects are alive at once on one path: "
                       f"{_describe(ctx, live)}; only one TPipe may exist: create it in the "
                       "kernel entry and pass a pointer")
    yield from _matmul(ctx, chunks)


def _matmul(ctx: LintContext, chunks: list[Chunk]) -> Iterator[Diagnostic]:
    model = ctx.model
    for cls, members in _owned(ctx, chunks, "Matmul").items():
        if len(members) > MAX_MATMUL_OBJECTS:
            yield ctx.diag(RuleCode.MATMUL_OBJECT_COUNT.value, Severity.ERROR,
                           members[MAX_MATMUL_OBJECTS],
                           f"class {cls} holds {len(members)} Matmul objects "
                           f"({', '.join(m.name for m in members)}); a kernel may have at most "
                           f"{MAX_MATMUL_OBJECTS}")
    for live in _live_sets(ctx, chunks, "Matmul"):
        holders = {id(h) for h, _ in live}
        if len(live) > MAX_MATMUL_OBJECTS and len(holders) > 1:
            yield ctx.diag(RuleCode.MATMUL_OBJECT_COUNT.value, Severity.ERROR, live[-1][0],
                           f"{len(live)} Matmul objects are alive at once on one path: "
                           f"{_describe(ctx, live)}; a kernel may have at most "
                           f"{MAX_MATMUL_OBJECTS}")
    for call in model.calls_by_name.get("REGIST_MATMUL_OBJ", []):
        yield from _registered_count(ctx, call)
        if not ctx.chip.split_cores:  # the order is a rule of the separated (split-core) chips
            continue
        before = [c for c in call.chunk.calls if c.order < call.order
                  and reaches(c, call) and _calls_init_buffer(ctx, c)]
        if not before:
            continue
        # Proven: an InitBuffer of the very TPipe the call registers with, on every path to it,
        # of a buffer in the cube core's memories, where the Matmul object takes its share. UB
        # queues before it only break the documented order (a warning: Ascend/samples' matmul
        # + LeakyRelu samples pass on the NPU that way; emu README).
        pipe = _pipe_name(call)
        direct = next((c for c in before if c.name == "InitBuffer" and pipe is not None
                       and c.receiver_name == pipe and not _in_ub(ctx, c)), None)
        first = direct or before[0]
        via = "" if first.name == "InitBuffer" else ", which already calls InitBuffer"
        yield ctx.diag(
            RuleCode.MATMUL_REGISTER_ORDER.value,
            Severity.ERROR if direct is not None else Severity.WARNING, call,
            f"REGIST_MATMUL_OBJ comes after {first.name} ({model.where(first)}){via} on the "
            f"same path; on {ctx.chip.name} (separated cube and vector cores) REGIST_MATMUL_OBJ "
            "must be called before InitBuffer (AscendC REGIST_MATMUL_OBJ restrictions)")


def _in_ub(ctx: LintContext, init: Call) -> bool:
    """Whether InitBuffer call `init` sets up a queue or TBuf known to be in UB."""
    if not init.args:
        return False
    q = ctx.model.queue_for(init.chunk, init.args[0].text.strip())
    return q is not None and q.in_ub


def _pipe_name(call: Call) -> str | None:
    """`pipe` of `REGIST_MATMUL_OBJ(&pipe, ...)` or `REGIST_MATMUL_OBJ(pipe, ...)`."""
    if not call.args:
        return None
    m = re.fullmatch(r"&?\s*(?:this\s*->\s*)?([A-Za-z_]\w*)", call.args[0].text.strip())
    return m.group(1) if m else None


def _registered_count(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1, mm2, &tiling2, ...): objects and their
    tilings in pairs (one object alone may leave its tiling to Init)."""
    objects = max(0, len(call.args) - 2)
    count = (objects + 1) // 2
    if count > MAX_MATMUL_OBJECTS:
        names = [a.text.strip() for a in call.args[2::2]]
        yield ctx.diag(RuleCode.MATMUL_OBJECT_COUNT.value, Severity.ERROR, call,
                       f"REGIST_MATMUL_OBJ registers {count} Matmul objects "
                       f"({', '.join(names)}); a program may define at most "
                       f"{MAX_MATMUL_OBJECTS}")


def _calls_init_buffer(ctx: LintContext, call: Call) -> bool:
    """InitBuffer itself, or a method of the receiver object's class that calls it."""
    if call.name == "InitBuffer":
        return True
    name = call.receiver_name
    d = ctx.model.variable_decl(call.chunk, name, call.order) if name else None
    if d is None:
        return False
    return any(c.name == "InitBuffer" for m in ctx.model.methods(d.type_base)
               if m.name == call.name for c in m.calls)
