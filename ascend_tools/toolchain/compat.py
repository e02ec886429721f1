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

from ascend_tools.project import QUOTED_INCLUDE, blank
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
        for inc in QUOTED_INCLUDE.findall(text):
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
    (re.compile(r"<<<[^<>;]*>>>"), "the launch configuration of a kernel call in host code "
     "(`k<<<blockDim, nullptr, stream>>>(...)`, vllm-ascend's kernel files): the harness launches "
     "the entry itself, so the host function that holds it only has to compile"),
)


# A cast to a UB pointer, `(__ubuf__ T *)operand`, where the operand is a name or a parenthesised
# expression (one level of nested parentheses) with its postfix chain (`t.GetPhyAddr()`,
# `p->buf[i]`): on the NPU an integer there is a UB byte address (generated kernels write
# `(__ubuf__ float *)((uintptr_t)(4192))` and read it on the scalar unit). g++ would dereference
# host address 4192, so the cast becomes `kernelgen::ub_ptr<T>(operand)`, which maps it into the
# block's UB (emu/include/kernelgen/pipe.h). Lines stay where they were.
_PAREN = r"\((?:[^()]|\([^()]*\))*\)"
_UB_CAST = re.compile(
    r"\(\s*__ubuf__\s+((?:const\s+)?[A-Za-z_][\w:]*)\s*\*\s*\)\s*"
    rf"((?:[A-Za-z_][\w:]*|{_PAREN})"
    rf"(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*{_PAREN}|\s*\[[^\[\]]*\])*)"
)


def _ub_cast(m: re.Match[str]) -> str:
    operand = m.group(2)
    if not operand.startswith("("):
        operand = f"({operand})"
    return f"kernelgen::ub_ptr<{m.group(1)}>{operand}"


# Data type names in a preprocessor condition: CANN's kernel build defines `ORIG_DTYPE_<ARG>`
# as the input's ge::DataType number and the `DT_*` names as numbers on the kernel side, so
# kernels test `#if (ORIG_DTYPE_LOGITS == DT_FLOAT16)` (xllm-ops rec_constrained_top_k). In the
# emulator's one translation unit `DT_*` are ge::DataType enumerators (host code names them
# `ge::DT_FLOAT`), which the preprocessor cannot evaluate: in `#if`/`#elif` lines they become
# their numbers, from the one table of them (emu/include/graph/types.h).
_PP_CONDITION = re.compile(r"^([ \t]*#[ \t]*(?:el)?if\b)(.*)$", re.M)
_DT_NAME = re.compile(r"\b(?:ge\s*::\s*)?(DT_[A-Z0-9_]+)\b")
_ENUMERATOR = re.compile(r"\b(DT_[A-Z0-9_]+)\s*=\s*(\d+)")


@cache
def ge_dtype_numbers() -> dict[str, int]:
    """ge::DataType's enumerators and their numbers, as graph/types.h declares them."""
    text = (EMU_INCLUDE / "graph" / "types.h").read_text(encoding="utf-8")
    body = text[text.index("enum DataType") :]
    body = body[: body.index("}")]
    return {name: int(value) for name, value in _ENUMERATOR.findall(body)}


def _numbered_condition(m: re.Match[str]) -> str:
    numbers = ge_dtype_numbers()
    cond = _DT_NAME.sub(lambda d: str(numbers.get(d.group(1), d.group(0))), m.group(2))
    return m.group(1) + cond


# The `;` a statement macro's call lacks, `ASSERT(...)` or `KERNEL_TASK_TYPE_DEFAULT(...)` /
# `KERNEL_TASK_TYPE(...)`, where the NPU build (whose msopgen-template ASSERT expands to nothing,
# whose kernel-type macros to declarations for the compiler) does not need it and the emulator's
# (expressions that check, or declare the core layout) do (RecSDK in_linear_silu writes
# `KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)` and REGIST_MATMUL_OBJ on the next line):
# - before one glued to an expression (`this->n = n ASSERT(n != 0);`: three Ascend/samples
#   operator_contrib kernels by different authors); not after a keyword (`else ASSERT(...)`);
# - after one the next statement follows (`ASSERT(n != 0 && "msg")` then a new line: RecSDK
#   norm_multiply_dropout), unless what follows continues an expression (`,`, `)`, an operator,
#   or `\` inside a multi-line #define).
# Never in `#define` lines; lines stay where they were.
_STATEMENT_MACRO_CALL = re.compile(
    r"\b(?:ASSERT|KERNEL_TASK_TYPE_DEFAULT|KERNEL_TASK_TYPE)\s*\("
)
_STATEMENT_KEYWORDS = frozenset({"else", "do", "return", "case", "default", "goto"})
_CONTINUES = frozenset(";,)]?:+-*/%&|^<>=.\\")


def _call_end(text: str, open_paren: int) -> int | None:
    """The index after the `)` that closes the parenthesis at `open_paren` (string and char
    literals skipped), or None when it does not close."""
    depth, i, n = 0, open_paren, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _statement_macros(text: str) -> str:
    out, last = [], 0
    for m in _STATEMENT_MACRO_CALL.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if m.start() < last or text[line_start : m.start()].lstrip().startswith("#"):
            continue
        head = text[: m.start()].rstrip()  # glued: whitespace, then the end of an expression
        head_line = head[head.rfind("\n") + 1 :].lstrip()  # not a preprocessor line (`#if X == 2`)
        glued = (len(head) < m.start() and re.search(r"[\w\]]$", head) is not None
                 and not head_line.startswith("#"))
        if glued and re.search(r"\w*$", head).group(0) not in _STATEMENT_KEYWORDS:
            out.append(text[last : len(head)] + ";")
            last = len(head)
        end = _call_end(text, m.end() - 1)
        if end is None:
            continue
        rest = text[end:].lstrip(" \t\r\n")
        if rest and rest[0] not in _CONTINUES:
            out.append(text[last:end] + ";")
            last = end
    return "".join(out) + text[last:]


def _captured_launches(text: str, entry: str) -> str:
    """Each `entry<<<config>>>` launch made `kernelgen_launch(entry, config)`, which records the
    launch's block count and arguments for the harness (kernelgen/host_launch.h); the line
    keeps its number (its columns past the launch move)."""
    launch = re.compile(rf"\b{re.escape(entry)}\s*<<<([^<>;]*)>>>")
    return launch.sub(lambda m: f"kernelgen_launch({entry}, {m.group(1).strip()})", text)


# ------------------------------------------------------------------ torch glue in a kernel file
# A kernel file that carries its PyTorch extension too (op-plugin's cpp_extension `.asc` samples:
# the kernel, then an `at::Tensor` function that launches it, and its pybind11 / TORCH_LIBRARY
# registration). Torch's headers are not part of a kernel build and the harness launches the
# entry itself, so the glue's includes and every top-level declaration that names torch's
# namespaces are blanked (lines kept); namespaces are searched declaration by declaration.
_GLUE_INCLUDE_LINE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:torch/|pybind11/|ATen/|torch_npu/|c10/)[^\n]*', re.M
)
_GLUE_NAMES = re.compile(
    r"\b(?:at|torch|c10|c10_npu|at_npu|py|pybind11)\s*::|\bPYBIND11_MODULE\b|\bTORCH_LIBRARY\w*"
)
_DEVICE_CODE = re.compile(r"\b(?:__aicore__|__global__)\b")
_NAMESPACE_HEAD = re.compile(r"(?:\binline\s+)?\bnamespace\b[\w:\s]*$")
# A macro invocation on lines of its own, with no `;` (`DECLARE(half)`, which expands to an
# entry): a declaration of its own, never part of the glue after it.
_MACRO_LINE = re.compile(r"^[ \t]*[A-Z_][A-Z0-9_]*[ \t]*\([^;{}]*\)[ \t]*\n", re.M)


def _glue_spans(code: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The top-level declarations in code[lo:hi] (a file, or a namespace's body) that name
    torch's namespaces and hold no device code, as (start, end) offsets."""
    spans: list[tuple[int, int]] = []

    def declaration(a: int, b: int) -> None:
        for m in _MACRO_LINE.finditer(code, a, b):
            a = m.end()
        decl = code[a:b]
        if _GLUE_NAMES.search(decl) and not _DEVICE_CODE.search(decl):
            spans.append((a, b))

    start, depth, opened, i = lo, 0, lo, lo
    while i < hi:
        c = code[i]
        if c == "#" and depth == 0 and not code[code.rfind("\n", 0, i) + 1:i].strip():
            while True:  # the directive, with its continuation lines
                i = code.find("\n", i)
                if i < 0 or code[:i].rstrip(" \t")[-1:] != "\\":
                    break
                i += 1
            i = hi if i < 0 else i
            start = i + 1
        elif c == ";" and depth == 0:
            declaration(start, i + 1)
            start = i + 1
        elif c == "{":
            opened = i if depth == 0 else opened
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                head = _NAMESPACE_HEAD.search(code, start, opened)
                if head and head.end() == opened:
                    declaration(start, head.start())
                    spans += _glue_spans(code, opened + 1, i)
                else:
                    declaration(start, i + 1)
                start = i + 1
        i += 1
    return spans


def _without_torch_glue(text: str) -> str:
    if not _GLUE_INCLUDE_LINE.search(text):
        return text
    out = list(text)
    spans = [(m.start(), m.end()) for m in _GLUE_INCLUDE_LINE.finditer(text)]
    code = blank(text)
    for a, b in spans + _glue_spans(code, 0, len(code)):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def rewrite_source(text: str, launched: str | None = None) -> str | None:
    """The text with every SOURCE_REWRITES match blanked (but launches of entry `launched`,
    made captures: `_captured_launches`), every `(__ubuf__ T *)` cast made a
    `kernelgen::ub_ptr<T>` call, data type names in preprocessor conditions made numbers,
    the `;` a statement macro's call (ASSERT, KERNEL_TASK_TYPE_DEFAULT) lacks put in (before one
    glued to an expression, after one the next statement follows) and PyTorch extension glue
    blanked (`_without_torch_glue`), or None when nothing matched."""
    out = _without_torch_glue(text)
    out = _captured_launches(out, launched) if launched else out
    for pattern, _ in SOURCE_REWRITES:
        out = pattern.sub(lambda m: " " * len(m.group(0)), out)
    out = _UB_CAST.sub(_ub_cast, out)
    out = _PP_CONDITION.sub(_numbered_condition, out)
    out = _statement_macros(out)
    return None if out == text else out


def line_marked(text: str, original: Path) -> str:
    """A rewritten copy that reports (errors, __FILE__) as the original file, line for line."""
    return f'#line 1 "{original}"\n{text}'


# ------------------------------------------------------------------ core passes
# The device compiler builds a 910B (cce_aicore 220) kernel once per core type and defines
# `__DAV_C220_VEC__` in the vector-core pass, `__DAV_C220_CUBE__` in the cube pass; a kernel
# written only for the vector cores may wrap its whole body in `#ifdef __DAV_C220_VEC__`
# (ms_custom_ops' reshape_and_cache_npd). The emulator builds one translation unit, so a kernel
# that tests only the vector pass's macro gets it; one that tests both keeps neither (its two
# halves would need two builds).
_CORE_PASS = {220: ("__DAV_C220_VEC__", "__DAV_C220_CUBE__")}


def core_pass_flags(cce_aicore: int, texts: Iterable[str]) -> list[str]:
    vec_cube = _CORE_PASS.get(cce_aicore)
    if vec_cube is None:
        return []
    code = [_code(t) for t in texts]
    vec, cube = (any(re.search(rf"\b{m}\b", c) for c in code) for m in vec_cube)
    return [f"-D{vec_cube[0]}"] if vec and not cube else []


# ------------------------------------------------------------------ tiling struct names
_NAMESPACE = re.compile(r"\bnamespace\s+([\w:]+)\s*\{|[{}]")
_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)")


def namespaced_tiling_structs(text: str) -> list[tuple[str, str]]:
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
    for ns, name in namespaced_tiling_structs(tiling_text):
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


# ------------------------------------------------------------------ CANN's internal headers
VENDOR_HEADERS_DIR = "kernelgen_vendor_headers"
_ANY_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^">]+)[">]', re.M)


def vendor_header_includes(files: Iterable[Path]) -> list[tuple[str, Path, int]]:
    """(header, file, line) of each `#include` of one of CANN's internal headers that
    kernel_operator.h already includes (catalog/tables/vendor_headers.json), in these files;
    a project that has a file of that name next to the including one includes its own."""
    from ascend_tools.catalog.vendor import vendor_headers

    table = vendor_headers()
    found = []
    for f in files:
        try:
            text = blank(f.read_text(encoding="utf-8", errors="replace"), strings=False)
        except OSError:
            continue
        for m in _ANY_INCLUDE.finditer(text):
            if m.group(1) in table and not (f.parent / m.group(1)).is_file():
                found.append((m.group(1), f, text.count("\n", 0, m.start()) + 1))
    return found


def write_vendor_header_stand_ins(headers: Iterable[str], folder: Path) -> Path:
    """An empty stand-in for each header (it includes kernel_operator.h, which on CANN includes
    the real one) in `folder`, to be searched with -idirafter; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for h in dict.fromkeys(headers):
        (folder / h).write_text(
            f"// Stand-in for CANN's internal {h} (catalog/tables/vendor_headers.json): "
            "kernel_operator.h brings what a kernel may use from it.\n"
            "#pragma once\n#include \"kernel_operator.h\"\n"
        )
    return folder
