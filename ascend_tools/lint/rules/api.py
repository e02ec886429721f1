"""Unknown APIs (a call or member the catalog does not know, with the closest known names) and
per-chip support of APIs and data types (7.13)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.parse.expr import Expr
from ascend_tools.parse.facts import Call, Chunk

# Types whose members the catalog lists; a member call on one of these must be known.
_ASCEND_TYPES = {"TPipe", "TQue", "TQueBind", "TBuf", "LocalTensor", "GlobalTensor", "Matmul"}
_API_STYLE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_CPP_MEMBERS = {"size", "data", "begin", "end", "push_back", "c_str", "get", "reset"}
_CPP_NAMES = {  # free functions any C++ kernel may call without AscendC knowing them
    "min", "max", "sizeof", "static_cast", "reinterpret_cast", "const_cast", "abs", "memcpy",
    "memset", "printf", "assert", "swap", "move", "forward", "sqrt", "exp", "log", "pow",
    "ceil", "floor", "fabs", "fmin", "fmax", "std",
}


def _user_names(ctx: LintContext) -> set[str]:
    """Names the project defines itself (memoised on the model: it is the same for every unit)."""
    cached = getattr(ctx.model, "_user_names", None)
    if cached is not None:
        return cached
    names = set(ctx.model.constants)
    for c in ctx.model.chunks:
        own = c.memo.get("names")
        if own is None:
            own = c.memo["names"] = frozenset(
                [d.name for d in c.decls] + [d.name for d in c.defines]
                + (list(c.klass.template_params) if c.klass else [])
                + ([c.name] if c.kind in ("function", "class") and c.name else []))
        names |= own  # type: ignore[operator]
    ctx.model._user_names = names  # type: ignore[attr-defined]
    return names


def _clean(type_text: str) -> str:
    t = type_text.replace("const", "").replace("*", "").replace("&", "").strip()
    return t.split("<")[0].rsplit("::", 1)[-1].strip()


def expr_type(ctx: LintContext, expr: Expr | None, chunk: Chunk, order: int,
              depth: int = 0) -> str | None:
    """The class an expression evaluates to, as far as declarations and the catalog's
    signatures tell (`context->GetInputShape(0)->GetStorageShape()` -> Shape)."""
    if expr is None or depth > 12:
        return None
    tag = expr[0]
    if tag == "id":
        d = ctx.model.variable_decl(chunk, expr[1], order)
        if d is not None:
            if d.type_base == "auto":
                return expr_type(ctx, d.init, chunk, order, depth + 1)
            return _clean(d.type_base)
        p = ctx.model.param_type(chunk, expr[1])
        return _clean(p) if p is not None else None
    if tag == "f" and expr[1] == ("this",):
        d = ctx.model.members(chunk.class_name).get(expr[2]) if chunk.class_name else None
        return _clean(d.type_base) if d is not None else None
    if tag in ("u", "cast"):
        return _clean(expr[1]) if tag == "cast" and expr[1] else expr_type(
            ctx, expr[2], chunk, order, depth + 1)
    if tag == "c":
        if expr[2] is None and ctx.catalog.members(expr[1]):
            return str(expr[1])  # a constructor call: PlatformAscendC(...)
        owner = expr_type(ctx, expr[2], chunk, order, depth + 1) if expr[2] else None
        if expr[2] is not None and owner is None:
            return None
        return ctx.catalog.return_type(owner, expr[1])
    return None


def _fix(ctx: LintContext, call: Call, name: str) -> Fix:
    return Fix(title=f"Change to {name}", edits=[ctx.edit(call.chunk.file, call.abs_name_start,
                                                          call.abs_name_end, name)])


def check_unknown_api(ctx: LintContext) -> Iterator[Diagnostic]:
    cat = ctx.catalog
    user = _user_names(ctx)
    for call in ctx.calls:
        if call.receiver is not None:
            yield from _member_call(ctx, call)
            continue
        if call.name in user or call.name in _CPP_NAMES or call.name.startswith("set_"):
            continue
        qualified = call.qualifier == "AscendC"
        if call.qualifier and not qualified:
            continue  # std::, kernelgen::, the project's own namespaces
        if not qualified and not _API_STYLE.match(call.name):
            continue  # AscendC names are CamelCase; fprintf or read_bytes are someone else's
        if cat.lookup(call.name):
            continue
        close = cat.closest(call.name, 3, member=False)
        if not qualified and not close:
            continue  # an unknown helper unrelated to AscendC: the compiler will say more
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        where = "AscendC" if qualified else "the AscendC API catalog"
        yield ctx.diag(RuleCode.UNKNOWN_API.value, Severity.ERROR, call,
                       f"{call.name} is not a known API in {where}{hint}",
                       _fix(ctx, call, close[0]) if close else None,
                       start=call.abs_name_start, end=call.abs_name_end)


def _member_call(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """A member the catalog does not list for the receiver's class: an error on AscendC's own
    classes (the catalog is complete there), a warning on host framework classes."""
    cat = ctx.catalog
    owner = expr_type(ctx, call.receiver, call.chunk, call.order)
    if owner is None or not cat.members(owner) or cat.has_member(owner, call.name):
        return
    if call.name.startswith(("set_", "get_")) or call.name in _CPP_MEMBERS:
        return  # tiling-data accessors generated by the macros, std-like members
    close = cat.closest(call.name, 3, owner=owner)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    severity = Severity.ERROR if owner in _ASCEND_TYPES else Severity.WARNING
    yield ctx.diag(RuleCode.UNKNOWN_API.value, severity, call,
                   f"no member named {call.name} in {owner}{hint}",
                   _fix(ctx, call, close[0]) if close else None,
                   start=call.abs_name_start, end=call.abs_name_end)


def check_unknown_host_api(ctx: LintContext) -> Iterator[Diagnostic]:
    """Member calls in op_host code (TilingContext, shapes, platform, matmul tiling)."""
    for chunk in ctx.model.host_chunks():
        for call in chunk.calls:
            if call.receiver is not None:
                yield from _member_call(ctx, call)


def check_chip_support(ctx: LintContext) -> Iterator[Diagnostic]:
    arch = ctx.chip.arch
    for call in ctx.calls:
        entry = ctx.catalog.get(call.name)
        if entry is None or entry.side != "device" or entry.supports_arch(arch):
            continue
        if call.receiver is not None and not entry.is_member:
            continue
        yield ctx.diag(RuleCode.CHIP_SUPPORT.value, Severity.ERROR, call,
                       f"{call.name} is not supported on {ctx.chip.name} ({arch}); it needs "
                       f"{' or '.join(entry.archs)}",
                       start=call.abs_name_start, end=call.abs_name_end)
    if not ctx.chip.has_bf16:
        for chunk in ctx.chunks():
            yield from _bf16(ctx, chunk)


def _bf16(ctx: LintContext, chunk: Chunk) -> Iterator[Diagnostic]:
    for d in chunk.decls:
        if "bfloat16_t" in d.type_text or "bfloat16_t" in d.template_args:
            yield ctx.diag(RuleCode.CHIP_SUPPORT.value, Severity.ERROR, d,
                           f"bfloat16_t is not supported on {ctx.chip.name}")
            return
