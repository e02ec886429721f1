"""One TPipe alive, REGIST_MATMUL_OBJ before InitBuffer, at most 4 Matmul objects (7.12).

Objects count as alive together only on one path: kernel classes picked by tiling key in
sibling branches, or separate kernel functions, each have their own TPipe legitimately."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext, reaches
from ascend_tools.parse.facts import Call, Chunk, Decl

MAX_MATMUL_OBJECTS = 4


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
    """Class name -> its data members of `type_name` held by value."""
    out: dict[str, list[Decl]] = {}
    for c in chunks:
        if c.kind == "field":
            for d in _typed_decls(c):
                if d.type_base == type_name and _is_object(ctx, d, type_name):
                    out.setdefault(c.class_name, []).append(d)
    return out


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
            yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR,
                           members[MAX_MATMUL_OBJECTS],
                           f"class {cls} holds {len(members)} Matmul objects "
                           f"({', '.join(m.name for m in members)}); a kernel may have at most "
                           f"{MAX_MATMUL_OBJECTS}")
    for live in _live_sets(ctx, chunks, "Matmul"):
        holders = {id(h) for h, _ in live}
        if len(live) > MAX_MATMUL_OBJECTS and len(holders) > 1:
            yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, live[-1][0],
                           f"{len(live)} Matmul objects are alive at once on one path: "
                           f"{_describe(ctx, live)}; a kernel may have at most "
                           f"{MAX_MATMUL_OBJECTS}")
    for call in model.calls_by_name.get("REGIST_MATMUL_OBJ", []):
        before = [c for c in call.chunk.calls if c.order < call.order
                  and reaches(c, call) and _calls_init_buffer(ctx, c)]
        if before:  # the documented order; kernels that break it still run on 910B
            yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.WARNING, call,
                           f"REGIST_MATMUL_OBJ comes after {before[0].name} "
                           f"({model.where(before[0])}), which already calls InitBuffer on the "
                           "same path; the documented order registers the Matmul objects "
                           "before any InitBuffer")


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
