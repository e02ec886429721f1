"""One TPipe alive, REGIST_MATMUL_OBJ before InitBuffer, at most 4 Matmul objects (7.12)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.parse.facts import Chunk, Decl

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


def check_pipe_and_matmul(ctx: LintContext) -> Iterator[Diagnostic]:
    model = ctx.model
    chunks = model.kernel_chunks()
    pipe_decls = [d for c in chunks for d in _typed_decls(c)
                  if d.type_base == "TPipe" and _is_object(ctx, d, "TPipe")]
    # Classes holding a TPipe member: each object of one is a live TPipe.
    holders = {d.chunk.class_name: d for d in pipe_decls if d.chunk.kind == "field"}
    per_function: dict[int, list[Decl]] = {}
    for d in pipe_decls:
        if d.chunk.kind == "function":
            per_function.setdefault(id(d.chunk), []).append(d)
    if holders:
        for c in chunks:
            if c.kind == "function":
                for d in c.decls:
                    if d.type_base in holders:
                        per_function.setdefault(id(c), []).append(holders[d.type_base])
    for pipes in per_function.values():
        yield from _too_many(ctx, pipes)
    yield from _matmul(ctx, chunks)


def _too_many(ctx: LintContext, pipes: list[Decl]) -> Iterator[Diagnostic]:
    """TPipes alive at once in one function: its own plus those inside its kernel objects."""
    if len(pipes) > 1:
        yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.ERROR, pipes[-1],
                       f"{len(pipes)} TPipe objects are alive at once "
                       f"({', '.join(sorted({p.name for p in pipes}))}); "
                       "only one TPipe may exist: create it in the kernel entry and pass a pointer")


def _matmul(ctx: LintContext, chunks: list[Chunk]) -> Iterator[Diagnostic]:
    model = ctx.model
    matmuls = [d for c in chunks for d in _typed_decls(c)
               if d.type_base == "Matmul" and _is_object(ctx, d, "Matmul")]
    if len(matmuls) > MAX_MATMUL_OBJECTS:
        yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, matmuls[MAX_MATMUL_OBJECTS],
                       f"{len(matmuls)} Matmul objects; a kernel may have at most "
                       f"{MAX_MATMUL_OBJECTS}")
    init_chunks = {id(c.chunk) for c in model.calls_by_name.get("InitBuffer", [])}
    for call in model.calls_by_name.get("REGIST_MATMUL_OBJ", []):
        before = [c for c in call.chunk.calls if c.order < call.order and (
            c.name == "InitBuffer" or any(id(m) in init_chunks for m in model.functions.get(
                c.name, []) if m.kind == "function" and m.class_name))]
        if before:
            yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.ERROR, call,
                           f"REGIST_MATMUL_OBJ comes after {before[0].name} "
                           f"({model.where(before[0])}), which already calls InitBuffer; "
                           "register the Matmul objects before any InitBuffer")
