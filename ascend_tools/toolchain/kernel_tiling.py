"""The tiling structs of the kernel's translation unit, generated as CANN's build generates them.

CANN never compiles op_host/<op>_tiling.h into the kernel: its build writes the kernel a header
of the tiling structs from the fields the host registers (BEGIN_TILING_DATA_DEF ...
REGISTER_TILING_DATA_CLASS). The kernel therefore never sees op_host's own includes, constants or
helpers, which may share a file name or include guard with the kernel's own headers (fbgemm-ascend
jagged_to_padded_dense_v2: op_host/constant.h and op_kernel/constant.h under one guard). This
module writes those structs from the parsed definitions (`parse.host.tiling_structs`), with the
array sizes evaluated from the host headers' constants, in the namespaces the host declares them
in (the wrapper then aliases them at global scope, `compat.global_tiling_aliases`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from ascend_tools.parse.host import TilingStruct, blank_comments, tiling_structs
from ascend_tools.parse.preproc import MacroState, value
from ascend_tools.project import KernelProject
from ascend_tools.toolchain import compat
from ascend_tools.toolchain.flags import EMU_INCLUDE

# Field types the kernel's translation unit knows without any project header.
_SCALARS = frozenset(
    f"{s}int{n}_t" for s in ("", "u") for n in (8, 16, 32, 64)
) | {"float", "double", "bool", "char", "signed char", "unsigned char", "short",
     "unsigned short", "int", "unsigned int", "unsigned", "long", "unsigned long", "long long",
     "unsigned long long", "size_t"}
_DEFINE_VALUE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n\\]+)$", re.M)
_CONST_VALUE = re.compile(
    r"\b(?:constexpr|const)\b[\w:\s]*?\b(\w+)\s*(?:=\s*([^;{}]+?)|\{([^;{}]*)\})\s*;")
_API_STRUCT = re.compile(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)|\bstruct\s+(\w+)\s*\{")
# The emulator's headers that declare the high-level APIs' tiling structs for the kernel.
_API_HEADERS = ("kernel_tiling/kernel_tiling.h", "kernelgen/topk_tiling.h")


def generated_tiling(project: KernelProject) -> str | None:
    """The kernel's tiling declarations for `project`, or None where the kernel is to see the
    host's tiling header itself: it has none, the kernel includes it (CANN's kernel build then
    compiles the real file too), it declares no struct with the tiling macros (a plain struct
    the kernel reads through its own copy), or a field's array size or type is one this reader
    cannot carry over (a size it cannot evaluate, a type no kernel header declares)."""
    if project.tiling_header is None:
        return None
    header = project.abs(project.tiling_header).resolve()
    kernel = project.abs(project.kernel_file)
    above = compat.include_root(project.root)
    if header in compat.include_closure([kernel], [kernel.parent, above], project.root):
        return None
    # The host build searches op_host/, then op_kernel/ (and the folder above the project).
    search = [project.abs(project.host_dir), kernel.parent, above]
    files = compat.include_closure([header], search, project.root)
    texts = [(f, blank_comments(f.read_text(encoding="utf-8", errors="replace"))) for f in files]
    structs: list[tuple[str, TilingStruct]] = []
    registered: dict[str, str] = {}
    for f, text in texts:
        found, regs = tiling_structs(text, str(f))
        spaces = dict((name, ns) for ns, name in compat.namespaced_tiling_structs(text))
        structs += [(spaces.get(s.name, ""), s) for s in found]
        registered.update(regs)
    if not structs:
        return None
    return _render(structs, registered, _constants(t for _, t in texts), project.tiling_header)


def _render(structs: list[tuple[str, TilingStruct]], registered: dict[str, str],
            consts: dict[str, str], origin: Path) -> str | None:
    """The declarations: each struct in its namespace, nested ones first, then the op types'
    registrations for GET_TILING_DATA (`kernel_tiling.h`'s lookup, by ADL in optiling)."""
    space = dict((s.name, ns) for ns, s in reversed(structs))
    qualified = {name: f"::{ns}::{name}" if ns else f"::{name}" for name, ns in space.items()}
    out = [f"// The tiling structs CANN's build generates for the kernel from {origin}"]
    for ns, s in _nested_first(structs):
        body = [f"BEGIN_TILING_DATA_DEF({s.name})"]
        for f in s.fields:
            base = f.type_text.split("::")[-1]
            if f.kind == "_STRUCT":
                if base not in qualified and base not in _api_structs():
                    return None
                body.append(f"TILING_DATA_FIELD_DEF_STRUCT({qualified.get(base, f.type_text)}, "
                            f"{f.name})")
                continue
            if " ".join(f.type_text.removeprefix("std::").split()) not in _SCALARS:
                return None
            if f.kind == "_ARR":
                n = f.count if f.count is not None else _evaluate(f.size_text, consts)
                if n is None or n <= 0:
                    return None
                body.append(f"TILING_DATA_FIELD_DEF_ARR({f.type_text}, {n}, {f.name})")
            else:
                body.append(f"TILING_DATA_FIELD_DEF({f.type_text}, {f.name})")
        body.append("END_TILING_DATA_DEF")
        out += [f"namespace {ns} {{", *body, "}"] if ns else body
    for op, name in registered.items():
        if name not in qualified:
            return None
        out.append(f"namespace optiling {{ {qualified[name]} kernelgen_tiling_for("
                   f'::optiling::KernelgenOpKey<::kernelgen::op_key("{op}")>); }}')
    return "\n".join(out) + "\n"


def _nested_first(structs: list[tuple[str, TilingStruct]]) -> list[tuple[str, TilingStruct]]:
    """The structs in an order that defines each before a struct holding it (a header may
    include the one defining its nested struct after its own definitions are read here)."""
    by_name = {s.name: (ns, s) for ns, s in reversed(structs)}
    done: dict[str, tuple[str, TilingStruct]] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done or name in path or name not in by_name:
            return
        for f in by_name[name][1].fields:
            if f.kind == "_STRUCT":
                visit(f.type_text.split("::")[-1], (*path, name))
        done[name] = by_name[name]

    for _, s in structs:
        visit(s.name, ())
    return list(done.values())


def _constants(texts: Iterable[str]) -> dict[str, str]:
    """Name -> value text of the object-like macros and const/constexpr variables of the host
    headers (the first definition of a name wins, as the host build's include order has it)."""
    out: dict[str, str] = {}
    for text in texts:
        for m in _DEFINE_VALUE.finditer(text):
            out.setdefault(m.group(1), m.group(2).strip())
        for m in _CONST_VALUE.finditer(text):
            out.setdefault(m.group(1), (m.group(2) or m.group(3) or "").strip())
    return out


def _evaluate(text: str, consts: dict[str, str], seen: frozenset[str] = frozenset()) -> int | None:
    """The integer value of an array size over the host constants; None when it cannot tell."""

    def macro(name: str) -> MacroState:
        if name in seen or name not in consts:
            return None, None
        return True, _evaluate(consts[name], consts, seen | {name})

    return value(text, macro)


@cache
def _api_structs() -> frozenset[str]:
    """The tiling structs the emulator's kernel headers declare (TCubeTiling, SoftMaxTiling,
    ...): a nested field of one of those types compiles in any kernel."""
    names: set[str] = set()
    for rel in _API_HEADERS:
        text = (EMU_INCLUDE / rel).read_text(encoding="utf-8")
        names |= {a or b for a, b in _API_STRUCT.findall(blank_comments(text))}
    return frozenset(names)
