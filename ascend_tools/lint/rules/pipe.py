"""One TPipe alive, REGIST_MATMUL_OBJ before InitBuffer, at most 4 Matmul objects (7.12)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.parse.facts import Decl

MAX_MATMUL_OBJECTS = 4


def _is_object(ctx: LintContext, d: Decl, type_name: str) -> bool:
    text = ctx.source(d.chunk.file, d.start, d.end)
    return re.search(rf"{type_name}\s*(<[^;]*>)?\s*[*&]", text) is None


def check_pipe_and_matmul(ctx: LintContext) -> Iterator[Diagnostic]:
    model = ctx.model
    chunks = model.kernel_chunks()
    instances: dict[str, int] = {}
    for c in chunks:
        for d in c.decls:
            if c.kind == "function":
                instances[d.type_base] = instances.get(d.type_base, 0) + 1
    pipes: list[Decl] = []
    for c in chunks:
        for d in c.decls:
            if d.type_base != "TPipe" or not _is_object(ctx, d, "TPipe"):
                continue
            copies = max(instances.get(c.class_name, 1), 1) if c.kind == "class" else 1
            pipes += [d] * copies
    if len(pipes) > 1:
        yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.ERROR, pipes[-1],
                       f"{len(pipes)} TPipe objects are alive at once "
                       f"({', '.join(sorted({p.name for p in pipes}))}); "
                       "only one TPipe may exist: create it in the kernel entry and pass a pointer")
    matmuls = [d for c in chunks for d in c.decls
               if d.type_base == "Matmul" and _is_object(ctx, d, "Matmul")]
    if len(matmuls) > MAX_MATMUL_OBJECTS:
        yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, matmuls[MAX_MATMUL_OBJECTS],
                       f"{len(matmuls)} Matmul objects; a kernel may have at most "
                       f"{MAX_MATMUL_OBJECTS}")
    init_chunks = {id(c.chunk) for c in model.calls if c.name == "InitBuffer"}
    for call in model.calls:
        if call.name != "REGIST_MATMUL_OBJ":
            continue
        before = [c for c in call.chunk.calls if c.order < call.order and (
            c.name == "InitBuffer" or any(id(m) in init_chunks for m in model.functions.get(
                c.name, []) if m.kind == "function" and m.class_name))]
        if before:
            yield ctx.diag(RuleCode.SINGLE_TPIPE.value, Severity.ERROR, call,
                           f"REGIST_MATMUL_OBJ comes after {before[0].name} "
                           f"({model.where(before[0])}), which already calls InitBuffer; "
                           "register the Matmul objects before any InitBuffer")
