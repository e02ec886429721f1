"""Host-side facts read with patterns: tiling-data definitions and OpDef declarations.

These are macro-heavy (`BEGIN_TILING_DATA_DEF`, builder chains) where tree-sitter sees little
structure, while their textual shape is fixed by the framework.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ascend_tools.toolchain.dtypes import DTYPES

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_BEGIN = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)")
_END = re.compile(r"END_TILING_DATA_DEF")
# An _ARR field's size is an expression (`MAX_SLICE_SIZE + 1`, `(2048 + 1)`: RecSDK
# concat_jagged_tensor), anything up to the next top-level comma, one level of parentheses deep.
_FIELD = re.compile(
    r"TILING_DATA_FIELD_DEF(_ARR|_STRUCT)?\s*\(\s*([\w:]+(?:\s+[\w:]+)*)\s*,\s*"
    r"(?:([^,()]*(?:\([^()]*\)[^,()]*)*?)\s*,\s*)?(\w+)\s*\)"
)
_REGISTER = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_OP_CLASS = re.compile(r"class\s+(\w+)\s*:\s*public\s+(?:ge::)?OpDef")
_PARAM = re.compile(r"this\s*->\s*(Input|Output)\s*\(\s*\"(\w+)\"\s*\)([^;]*);", re.S)
_DTYPES = re.compile(r"\.DataType(?:List)?\s*\(\s*\{([^}]*)\}")
_ATTR = re.compile(r"this\s*->\s*Attr\s*\(\s*\"(\w+)\"\s*\)")
_CONFIG = re.compile(r"AddConfig\s*\(\s*\"(\w+)\"")
_SET_TILING = re.compile(r"SetTiling\s*\(\s*&?\s*([\w:]+)\s*\)")

# ge::DataType -> (C type in kernels, bytes): the toolchain's dtype table, plus DT_DOUBLE, which
# an OpDef may declare though no case file can carry it.
GE_DTYPES = {d.ge_type.removeprefix("ge::"): (d.c_type, d.size) for d in DTYPES.values()} | {
    "DT_DOUBLE": ("double", 8)
}


def _int_expr(text: str) -> int | None:
    """The value of an integer-literal arithmetic expression (`2048 + 1`), else None (a name
    whose value this pattern reader does not know)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv}

    def value(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = value(node.left), value(node.right)
            if a is None or b is None or (b == 0 and type(node.op) in (ast.FloorDiv, ast.Div)):
                return None
            return ops[type(node.op)](a, b)
        return None

    return value(tree.body)


def blank_comments(text: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


@dataclass
class TilingField:
    type_text: str
    name: str
    count: int | None  # array length for _ARR fields
    file: str
    offset: int
    kind: str = ""
    """The macro's suffix: "" (a scalar), "_ARR" or "_STRUCT"."""
    size_text: str = ""
    """An _ARR field's size as written (`MAX_OFFSETS_CNT`), for a reader that knows the names
    `count` could not evaluate."""


@dataclass
class TilingStruct:
    name: str
    fields: list[TilingField]
    file: str
    offset: int


@dataclass
class OpParam:
    name: str
    direction: str  # "input" | "output"
    dtypes: list[str]  # ge names, e.g. DT_FLOAT16


@dataclass
class OpDefFacts:
    name: str
    params: list[OpParam] = field(default_factory=list)
    attrs: list[str] = field(default_factory=list)
    configs: list[str] = field(default_factory=list)
    file: str = ""
    tiling_func: str = ""
    """The host function its `SetTiling` registers (unqualified), "" when none."""

    @property
    def inputs(self) -> list[OpParam]:
        return [p for p in self.params if p.direction == "input"]

    @property
    def outputs(self) -> list[OpParam]:
        return [p for p in self.params if p.direction == "output"]


def tiling_structs(text: str, file: str) -> tuple[list[TilingStruct], dict[str, str]]:
    """Tiling-data classes defined with the host macros, and op type -> class registrations."""
    clean = blank_comments(text)
    structs = []
    for m in _BEGIN.finditer(clean):
        end = _END.search(clean, m.end())
        body_end = end.start() if end else len(clean)
        fields = []
        for f in _FIELD.finditer(clean, m.end(), body_end):
            kind, ty, count, name = f.groups()
            n = _int_expr(count) if kind == "_ARR" and count else None
            fields.append(TilingField(ty, name, n, file, f.start(), kind or "",
                                      (count or "").strip()))
        structs.append(TilingStruct(m.group(1), fields, file, m.start()))
    registered = {m.group(1): m.group(2) for m in _REGISTER.finditer(clean)}
    return structs, registered


def opdefs(text: str, file: str,
           compiled: Callable[[int], bool] = lambda offset: True) -> list[OpDefFacts]:
    """The OpDef classes of a host file; `compiled(offset)` says whether the build compiles the
    text at a character offset (an Input in an `#ifdef SUPPORT_950` branch is another chip's)."""
    clean = blank_comments(text)
    out = []
    for m in _OP_CLASS.finditer(clean):
        nxt = _OP_CLASS.search(clean, m.end())
        body = clean[m.end(): nxt.start() if nxt else len(clean)]
        op = OpDefFacts(m.group(1), file=file)
        for p in _PARAM.finditer(body):
            if not compiled(m.end() + p.start()):
                continue
            kind, name, chain = p.groups()
            d = _DTYPES.search(chain)
            dts = re.findall(r"DT_\w+", d.group(1)) if d else []
            op.params.append(OpParam(name, kind.lower() + "", dts))
        op.attrs = [a.group(1) for a in _ATTR.finditer(body)]
        op.configs = _CONFIG.findall(body)
        tiling = _SET_TILING.search(body)
        op.tiling_func = tiling.group(1).rsplit("::", 1)[-1] if tiling else ""
        out.append(op)
    return out
