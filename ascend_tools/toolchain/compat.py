"""What real operator projects need from a build beyond the emulator's stand-in headers.

Code written for the vendor toolchain leans on it in ways g++ and plain headers do not follow:
bisheng-only syntax in device code, host macros that the framework defines and that projects
also define themselves, tiling structs that kernels name at global scope while the host header
declares them in `namespace optiling`, and includes rooted at the folder above the project.
Each function here turns one of those into compiler flags, wrapper lines or a rewritten
translation unit, from the project's text alone, so builds stay cached by content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from ascend_tools.project import blank
from ascend_tools.toolchain.flags import EMU_INCLUDE

# ------------------------------------------------------------------ host logging/check macros
LOG_MACROS_HEADER = "kernelgen/ops_log_macros.h"
_GUARD = re.compile(r"KERNELGEN_PROJECT_DEFINES_(\w+)")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


@cache
def log_macro_names() -> tuple[str, ...]:
    """The macros ops_log_macros.h defines: read from its guards (one list, in the header)."""
    text = (EMU_INCLUDE / LOG_MACROS_HEADER).read_text(encoding="utf-8")
    return tuple(dict.fromkeys(_GUARD.findall(text)))


def _code(text: str) -> str:
    return blank(text)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def include_closure(start: Iterable[Path], dirs: Iterable[Path], root: Path) -> list[Path]:
    """The project files (under `root`) a translation unit made of `start` reads: its quoted
    includes followed through the including file's folder, then `dirs`."""
    search = [d.resolve() for d in dirs]
    root = root.resolve()
    seen: list[Path] = []
    todo = [p.resolve() for p in start]
    while todo:
        f = todo.pop()
        if f in seen or not f.is_file():
            continue
        seen.append(f)
        text = blank(f.read_text(encoding="utf-8", errors="replace"), strings=False)
        for inc in _INCLUDE.findall(text):
            for d in (f.parent, *search):
                cand = (d / inc).resolve()
                if cand.is_file() and cand.is_relative_to(root):
                    todo.append(cand)
                    break
    return seen


def log_macro_flags(texts: Iterable[str]) -> list[str]:
    """`-DKERNELGEN_PROJECT_DEFINES_<NAME>` for each logging macro a translation unit (the texts
    of its project files) defines itself, so ours never meets it whatever the include order, and
    `-include ops_log_macros.h` when it uses one that it never defines (the vendor's headers
    would bring it)."""
    code = [_code(t) for t in texts]
    defined = {name for c in code for name in _DEFINE.findall(c)}
    names = log_macro_names()
    own = [n for n in names if n in defined]
    used = {n for c in code for n in names if re.search(rf"\b{n}\b", c)}
    flags = [f"-DKERNELGEN_PROJECT_DEFINES_{n}" for n in own]
    if used - defined:
        flags += ["-include", LOG_MACROS_HEADER]
    return flags


# ------------------------------------------------------------------ device-side syntax
# bisheng syntax g++ cannot parse, blanked to spaces of the same length so every line and column
# stays where it was: (pattern, what it is).
SOURCE_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\[\s*aicore\s*\]"), "bisheng function attribute `[aicore]` "
     "(`__forceinline__ [aicore] void f()`), a no-op on the CPU"),
)


def rewrite_source(text: str) -> str | None:
    """The text with every SOURCE_REWRITES match blanked, or None when nothing matched."""
    out = text
    for pattern, _ in SOURCE_REWRITES:
        out = pattern.sub(lambda m: " " * len(m.group(0)), out)
    return None if out == text else out


def line_marked(text: str, original: Path) -> str:
    """A rewritten copy that reports (errors, __FILE__) as the original file, line for line."""
    return f'#line 1 "{original}"\n{text}'


# ------------------------------------------------------------------ tiling struct names
_NAMESPACE = re.compile(r"\bnamespace\s+([\w:]+)\s*\{|[{}]")
_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)")


def _namespaced_structs(text: str) -> list[tuple[str, str]]:
    """(namespace, struct) for each BEGIN_TILING_DATA_DEF inside a namespace."""
    code = _code(text)
    stack: list[str | None] = []
    marks = sorted(
        [(m.start(), "brace", m) for m in _NAMESPACE.finditer(code)]
        + [(m.start(), "def", m) for m in _TILING_DEF.finditer(code)],
        key=lambda t: t[0],
    )
    found = []
    for _, kind, m in marks:
        if kind == "def":
            ns = "::".join(s for s in stack if s)
            if ns:
                found.append((ns, m.group(1)))
        elif m.group(1):
            stack.append(m.group(1))
        elif m.group(0) == "{":
            stack.append(None)
        elif stack:
            stack.pop()
    return found


def global_tiling_aliases(tiling_text: str, kernel_texts: Iterable[str]) -> list[str]:
    """`using ::optiling::S;` for each tiling struct the host header declares in a namespace and
    the kernel does not declare itself: vendor kernels name the struct at global scope
    (`GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, t, tiling)`, `REGISTER_TILING_DEFAULT`)."""
    kernel = "\n".join(_code(t) for t in kernel_texts)
    lines = []
    for ns, name in _namespaced_structs(tiling_text):
        own = re.search(
            rf"\b(?:struct|class)\s+{name}\b|\busing\s+{name}\s*=|\btypedef\b[^;]*\b{name}\s*;",
            kernel,
        )
        if not own:
            lines.append(f"using ::{ns}::{name};")
    return list(dict.fromkeys(lines))


# ------------------------------------------------------------------ include paths
def include_root(root: Path) -> Path:
    """The folder multi-op repositories root their includes at (`"<op>/op_host/<op>_tiling.h"`):
    the one holding the project."""
    return root.resolve().parent


def include_flags(root: Path) -> list[str]:
    """`include_root` searched after everything else."""
    return ["-idirafter", str(include_root(root))]
