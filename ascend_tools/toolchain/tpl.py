"""Tiling templates: the combinations of template arguments a tiling-template kernel is built for.

CANN's tiling-template programming (`ascendc/host_api/tiling/template_argument.h`) declares an
op's template arguments once (`ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_DTYPE_DECL(D_T_X, A, B),
ASCENDC_TPL_UINT_DECL(N, bits, mode, ...), ASCENDC_TPL_BOOL_DECL(S, 0, 1))`) and lists the
combinations to build (`ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(...), ...)`, each group narrowing
some arguments; an argument a group leaves out takes every declared value). The emulator builds
one instantiation of the kernel entry per combination and calls the one the tiling key names
(emu/include/ascendc/host_api/tiling/template_argument.h). Values stay C++ expressions
(`ADD_TPL_FP16`) except where a UINT range has to be expanded, which takes integer literals.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from ascend_tools.project import call_args

_KINDS = ("DTYPE", "FORMAT", "UINT", "BOOL")
# UINT modes (template_argument.h's values, or the macro names as written).
_RANGE, _LIST, _MIX = ("0", "ASCENDC_TPL_UI_RANGE"), ("1", "ASCENDC_TPL_UI_LIST"), (
    "2", "ASCENDC_TPL_UI_MIX")


class TemplateError(ValueError):
    """The declarations cannot be read into combinations; the message says which."""


def _calls(text: str, name: str) -> list[list[str]]:
    """The arguments of every `name(...)` in `text`, nesting kept (`project.call_args`)."""
    return [call_args(text, m.end() - 1) for m in re.finditer(rf"\b{name}\s*\(", text)]


def _uint_values(spec: list[str], what: str) -> list[str]:
    """Values of a UINT declaration or selection after its name (and, for DECL, bit width)."""
    if not spec:
        raise TemplateError(f"{what}: no mode")
    mode, rest = spec[0], spec[1:]
    if mode in _LIST:
        return rest
    if mode not in _RANGE + _MIX:
        raise TemplateError(f"{what}: unknown UINT mode {mode}")
    try:
        n = int(rest[0], 0)
        bounds = [int(v, 0) for v in rest[1: 1 + 2 * n]]
    except (IndexError, ValueError):
        raise TemplateError(f"{what}: a UINT range needs integer literals") from None
    values = [str(v) for lo, hi in zip(bounds[::2], bounds[1::2], strict=True)
              for v in range(lo, hi + 1)]
    return values + (rest[1 + 2 * n:] if mode in _MIX else [])


def _params(group: str, suffix: str) -> dict[str, list[str]]:
    """name -> values of every `ASCENDC_TPL_<KIND>_<suffix>(name, ...)` in `group`."""
    out: dict[str, list[str]] = {}
    for kind in _KINDS:
        for a in _calls(group, f"ASCENDC_TPL_{kind}_{suffix}"):
            if not a[0]:
                continue
            name, spec = a[0], a[1:]
            if kind == "UINT":
                what = f"{kind}_{suffix}({name})"
                spec = _uint_values(spec[1:] if suffix == "DECL" else spec, what)
            out[name] = spec
    return out


def combinations(texts: Iterable[str], names: list[str]) -> list[tuple[str, ...]]:
    """Every combination of values of the template parameters `names` (in that order) that the
    sources' ASCENDC_TPL_SEL lists, duplicates dropped; without a selection, the product of the
    declared values."""
    text = "\n".join(texts)
    decls = _calls(text, "ASCENDC_TPL_ARGS_DECL")
    if not decls:
        raise TemplateError("no ASCENDC_TPL_ARGS_DECL declares the kernel's template arguments")
    declared = _params(", ".join(decls[0]), "DECL")
    missing = [n for n in names if n not in declared]
    if missing:
        raise TemplateError(
            f"ASCENDC_TPL_ARGS_DECL declares no {', '.join(missing)} (declared: "
            f"{', '.join(declared) or 'none'})")
    groups = [g for sel in _calls(text, "ASCENDC_TPL_SEL") for g in sel
              if g.startswith("ASCENDC_TPL_ARGS_SEL")] or [""]
    out: list[tuple[str, ...]] = []
    for group in groups:
        chosen = _params(group, "SEL")
        for combo in itertools.product(*(chosen.get(n, declared[n]) for n in names)):
            if combo not in out:
                out.append(combo)
    return out
