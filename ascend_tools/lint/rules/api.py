"""Unknown APIs (a call or member the catalog does not know, with the closest known names),
undocumented helpers of CANN's headers (`vendor-internal`), and per-chip support of APIs and data
types (7.13)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.catalog.vendor import (
    vendor_call_matches,
    vendor_constants,
    vendor_header_message,
    vendor_headers,
    vendor_internal,
    vendor_use_message,
)
from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import SOURCE, LintContext
from ascend_tools.parse.facts import Call, Chunk
from ascend_tools.parse.types import expr_type
from ascend_tools.project import blank

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
        if _vendor_entry(call) is not None:
            continue  # check_vendor_internal names it
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
        # Proved only for an AscendC:: name spelled like a known one in another case (C++ is
        # case-sensitive, AscendC has no two names differing in case): the catalog may lack a
        # rarer API, and an unqualified name may come from a header outside the project.
        respelled = _respelling(call.name, close)
        severity = Severity.ERROR if qualified and respelled else Severity.WARNING
        yield ctx.diag(RuleCode.UNKNOWN_API.value, severity, call,
                       f"{call.name} is not a known API in {where}{hint}"
                       + (f" (AscendC spells it {respelled})" if severity == Severity.ERROR
                          else ""),
                       _fix(ctx, call, close[0]) if close else None,
                       start=call.abs_name_start, end=call.abs_name_end)


def _vendor_entry(call: Call) -> dict | None:
    """The vendor_internal.json entry of a call to one of CANN's undocumented helpers: a name
    the table lists, called the way the table says (vendor_call_matches)."""
    entry = vendor_internal().get(call.name)
    if entry is None or call.receiver is not None:
        return None
    return entry if vendor_call_matches(entry, call.qualifier, len(call.args)) else None


def check_vendor_internal(ctx: LintContext) -> Iterator[Diagnostic]:
    """A call to a helper CANN's kernel_operator.h defines but the API reference does not
    document (DivCeil, AlignUp, scalar Ceil, likely/unlikely, ParamOffset,
    AscendCUtils::GetBitSize): it builds on CANN and in the emulator, so a warning, naming the
    local definition that removes the dependency. A name the project defines itself (function
    or macro) is its own, not the vendor's."""
    user = _user_names(ctx)
    uses: dict[tuple[str, str, str | None], list[Call]] = {}
    for call in ctx.calls:
        entry = _vendor_entry(call)
        if entry is None or (call.name in user and not call.qualifier):
            continue
        uses.setdefault((call.chunk.file, call.name, call.qualifier), []).append(call)
    for (_, name, _), calls in uses.items():
        calls.sort(key=lambda c: c.abs_name_start)
        first = calls[0]
        yield ctx.diag(RuleCode.VENDOR_INTERNAL.value, Severity.WARNING, first,
                       vendor_use_message(vendor_internal()[name])
                       + _more_uses(ctx, first.chunk.file, [c.abs_name_start for c in calls[1:]]),
                       start=first.abs_name_start, end=first.abs_name_end)


def _more_uses(ctx: LintContext, file: str, starts: list[int]) -> str:
    """The other uses of a dependency already reported at its first: one warning a name, not
    one a call (DrivingSDK's msda.h calls AlignUp and DivCeil 53 times)."""
    if not starts:
        return ""
    lines = sorted({ctx.model.documents[file].lines.line_of(s) for s in starts})
    shown = ", ".join(map(str, lines[:8])) + (f" and {len(lines) - 8} more" if len(lines) > 8
                                              else "")
    return f" Also used at line{'s' if len(lines) > 1 else ''} {shown} of this file."


def check_vendor_constants(ctx: LintContext) -> Iterator[Diagnostic]:
    """A use of a constant CANN's headers declare (PI) that the project never declares itself
    (no #define, global, member or local of that name): it builds on CANN, and the emulator
    supplies it to a build that fails without it, so a warning naming the local definition that
    removes the dependency. Members (`x.PI`, `Foo::PI`) are other names."""
    user = _user_names(ctx)
    wanted = {n: e for n, e in vendor_constants().items() if n not in user}
    if not wanted:
        return
    token = re.compile(r"(?<![\w.>:])(?:AscendC::)?(" + "|".join(map(re.escape, wanted)) + r")\b")
    uses: dict[tuple[str, str], list[int]] = {}
    for chunk in ctx.chunks():
        raw = ctx.model.documents[chunk.file].data[chunk.base:chunk.base + chunk.length]
        text = blank(raw.decode("utf-8", "surrogateescape"))  # comments and strings out
        for m in token.finditer(text):
            start = chunk.base + len(text[:m.start(1)].encode("utf-8", "surrogateescape"))
            uses.setdefault((chunk.file, m.group(1)), []).append(start)
    for (file, name), starts in uses.items():
        starts.sort()
        r = ctx.range_of(file, starts[0], starts[0] + len(name))
        yield Diagnostic(file=file, line=r.line, column=r.column, end_line=r.end_line,
                         end_column=r.end_column, severity=Severity.WARNING,
                         code=RuleCode.VENDOR_INTERNAL.value,
                         message=vendor_use_message(wanted[name])
                         + _more_uses(ctx, file, starts[1:]), source=SOURCE)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^">]+)[">]', re.M)


def check_vendor_headers(ctx: LintContext) -> Iterator[Diagnostic]:
    """An #include of one of CANN's internal headers that kernel_operator.h already includes
    (catalog/tables/vendor_headers.json, kernel_tpipe_impl.h): it builds on CANN and in the
    emulator (an empty stand-in), so a warning naming the header."""
    table = vendor_headers()
    for file in ctx.model.kernel_files:
        source = ctx.model.documents[file].data.decode("utf-8", "surrogateescape")
        text = blank(source, strings=False)  # one space per character: indices hold in source
        for m in _INCLUDE.finditer(text):
            entry = table.get(m.group(1))
            if entry is None:
                continue
            start = len(source[: m.start(1)].encode("utf-8", "surrogateescape"))
            r = ctx.range_of(file, start, start + len(m.group(1).encode("utf-8")))
            yield Diagnostic(file=file, line=r.line, column=r.column, end_line=r.end_line,
                             end_column=r.end_column, severity=Severity.WARNING,
                             code=RuleCode.VENDOR_INTERNAL.value,
                             message=vendor_header_message(entry), source=SOURCE)


def _respelling(name: str, known: list[str]) -> str | None:
    """The known name that differs from `name` only in letter case."""
    return next((k for k in known if k.lower() == name.lower() and k != name), None)


def _member_call(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """A member the catalog does not list for the receiver's class. An error only on
    AscendC's own classes and when the member is a known one in another letter case (proof
    it does not exist as written); otherwise a warning, as the catalog may lack it. Members of
    the project's own classes are never checked."""
    cat = ctx.catalog
    owner = expr_type(ctx.model, ctx.catalog, call.receiver, call.chunk, call.order)
    if owner is None or owner in ctx.model.classes or not cat.members(owner) or (
            cat.has_member(owner, call.name)):
        return
    if call.name.startswith(("set_", "get_")) or call.name in _CPP_MEMBERS:
        return  # tiling-data accessors generated by the macros, std-like members
    close = cat.closest(call.name, 3, owner=owner)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    respelled = _respelling(call.name, close)
    severity = Severity.ERROR if owner in _ASCEND_TYPES and respelled else Severity.WARNING
    yield ctx.diag(RuleCode.UNKNOWN_API.value, severity, call,
                   f"no member named {call.name} in {owner}{hint}"
                   + (f" ({owner} spells it {respelled})" if severity == Severity.ERROR else ""),
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
        if call.name in ctx.model.functions and not call.qualifier:
            continue  # the project's own function of that name
        guard = ctx.guard(call.chunk.file, call.start)
        yield ctx.diag(RuleCode.CHIP_SUPPORT.value,
                       Severity.WARNING if guard else Severity.ERROR, call,
                       f"{call.name} is not supported on {ctx.chip.name} ({arch}); it needs "
                       f"{' or '.join(entry.archs)}"
                       + (f" (it sits under `{guard}`, which may exclude {ctx.chip.name})"
                          if guard else ""),
                       start=call.abs_name_start, end=call.abs_name_end)
    if not ctx.chip.has_bf16:
        for chunk in ctx.chunks():
            yield from _bf16(ctx, chunk)


def _bf16(ctx: LintContext, chunk: Chunk) -> Iterator[Diagnostic]:
    """A bfloat16_t declaration: an error on every path of the code; a warning under a
    preprocessor condition or inside a nested block (an `if constexpr` on the dtype)."""
    top = chunk.function.body_end if chunk.function else -1
    for d in chunk.decls:
        if "bfloat16_t" in d.type_text or "bfloat16_t" in d.template_args:
            guard = ctx.guard(chunk.file, d.start)
            nested = chunk.function is not None and d.block != (-1, -1) and (
                d.block[1] != top + 1)
            sure = not guard and not nested
            yield ctx.diag(RuleCode.CHIP_SUPPORT.value,
                           Severity.ERROR if sure else Severity.WARNING, d,
                           f"bfloat16_t is not supported on {ctx.chip.name}"
                           + (f" (under `{guard}`)" if guard else "")
                           + (" (in a nested block that may not be compiled for this dtype)"
                              if nested and not guard else ""))
            return
