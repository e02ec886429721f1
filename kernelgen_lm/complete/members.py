"""What can be typed at a cursor: members of a variable by its declared type, tiling fields
after a GET_TILING_DATA variable, enum members after `Enum::`, AscendC functions with snippet
placeholders, element types inside `<...>`. Plain data out; the language server converts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ascend_tools.catalog import ApiEntry, ApiKind, Catalog
from ascend_tools.chips import Chip
from ascend_tools.parse.facts import Chunk
from ascend_tools.parse.model import KernelModel

MAX_ITEMS = 100
ELEMENT_TYPES = (
    "half",
    "float",
    "bfloat16_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
)
_MEMBER = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(\.|->)\s*(\w*)$")
_SCOPE = re.compile(r"([A-Za-z_]\w*)\s*::\s*(\w*)$")
_TEMPLATE = re.compile(r"([A-Za-z_]\w*)\s*<\s*(\w*)$")
_WORD = re.compile(r"(\w*)$")
_CALL = re.compile(r"([A-Za-z_]\w*)\s*(?:<[^<>()]*>)?\s*\($")
# Enum aliases as kernels write them.
ENUM_ALIASES = {"QuePosition": "TPosition"}
_POINTEE = re.compile(r"[*&\s]|\bconst\b")


@dataclass
class Candidate:
    label: str
    kind: str  # "method" | "field" | "enum_member" | "function" | "type" | "macro" | "variable"
    detail: str = ""
    insert: str = ""
    snippet: bool = False
    api: str = ""  # catalog name for the docs (completionItem/resolve)
    rank: int = 0  # lower first
    unsupported: bool = False


@dataclass
class Completions:
    items: list[Candidate] = field(default_factory=list)
    incomplete: bool = False
    prefix: str = ""


def snippet_of(entry: ApiEntry) -> str:
    """`Add(${1:dst}, ${2:src0}, ${3:src1}, ${4:count})` from the first signature."""
    if not entry.signatures:
        return entry.name
    sig = entry.signatures[0]
    start = sig.find(entry.name + "(")
    if start < 0:
        return entry.name
    inner = sig[start + len(entry.name) + 1 :]
    depth, cur, params = 0, "", []
    for ch in inner:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            if depth == 0 and ch == ")":
                break
            depth -= 1
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    names = []
    for p in params:
        p = p.split("=")[0].strip()
        m = re.search(r"(\w+)\s*(?:\[\d*\])?$", p)
        if m and p != "void":
            names.append(m.group(1))
    body = ", ".join(f"${{{i}:{n}}}" for i, n in enumerate(names, 1))
    return f"{entry.name}({body})"


def declared_type(model: KernelModel, chunk: Chunk | None, name: str) -> str | None:
    """The class name a variable is declared with (`TPipe` for `TPipe* pipe`), or None."""
    if chunk is None:
        return None
    decl = model.variable_decl(chunk, name)
    if decl is not None:
        return decl.type_base or None
    ptype = model.param_type(chunk, name)
    if ptype:
        base = _POINTEE.sub(" ", ptype).split("<")[0].strip()
        return base.rsplit("::", 1)[-1] or None
    return None


def tiling_struct_of(model: KernelModel, chunk: Chunk | None, name: str) -> str | None:
    """The tiling struct a GET_TILING_DATA variable is bound to ("" for the registered one)."""
    if chunk is None:
        return None
    for var, struct, _ in chunk.tiling_macro:
        if var == name:
            return struct
    return None


def complete(
    line_prefix: str,
    model: KernelModel | None,
    file: str,
    offset: int,
    catalog: Catalog,
    chip: Chip,
) -> Completions:
    """Candidates for the cursor (`line_prefix`: the line up to it; `offset`: its byte offset)."""
    chunk = model.chunk_at(file, offset) if model is not None and file in model.documents else None
    if m := _MEMBER.search(line_prefix):
        return _members(m.group(1), m.group(3), model, chunk, catalog, chip)
    if m := _SCOPE.search(line_prefix):
        return _scoped(m.group(1), m.group(2), catalog, chip)
    if m := _TEMPLATE.search(line_prefix):
        return _template(m.group(1), m.group(2), catalog)
    word = _WORD.search(line_prefix)
    return _free(word.group(1) if word else "", model, chunk, catalog, chip)


def _keep(entry: ApiEntry, chip: Chip) -> bool:
    return entry.supports_arch(chip.arch)


def _cap(items: list[Candidate], prefix: str) -> Completions:
    low = prefix.lower()
    hits = [c for c in items if c.label.lower().startswith(low)] if prefix else items
    hits.sort(key=lambda c: (c.rank, c.label.lower()))
    seen: set[str] = set()
    unique = []
    for c in hits:
        if c.label not in seen:
            seen.add(c.label)
            unique.append(c)
    return Completions(unique[:MAX_ITEMS], len(unique) > MAX_ITEMS, prefix)


def _members(
    var: str,
    prefix: str,
    model: KernelModel | None,
    chunk: Chunk | None,
    catalog: Catalog,
    chip: Chip,
) -> Completions:
    if model is None:
        return Completions(prefix=prefix)
    struct = tiling_struct_of(model, chunk, var)
    if struct is not None:
        tiling = (
            next((s for s in model.tiling_structs if s.name == struct), None)
            if struct
            else (model.tiling_struct())
        )
        fields = tiling.fields if tiling else []
        return _cap(
            [
                Candidate(
                    f.name,
                    "field",
                    f"{f.type_text} {f.name}" + (f"[{f.count}]" if f.count else ""),
                    rank=0,
                )
                for f in fields
            ],
            prefix,
        )
    owner = declared_type(model, chunk, var)
    if owner is None:
        return Completions(prefix=prefix)
    items = []
    for e in catalog.members(owner):
        if e.kind != ApiKind.MEMBER or not _keep(e, chip):
            continue
        items.append(
            Candidate(
                e.name,
                "method",
                e.signatures[0] if e.signatures else "",
                snippet_of(e),
                True,
                e.qualified_name,
                rank=_member_rank(owner, e),
            )
        )
    if not items and model is not None:  # a user class: its own data members and methods
        for name, decl in model.members(owner).items():
            items.append(Candidate(name, "field", decl.type_text))
        for c in model.methods(owner):
            items.append(Candidate(c.name, "method", c.qualified))
    return _cap(items, prefix)


_USUAL = {
    "TPipe": ("InitBuffer",),
    "TQue": ("AllocTensor", "EnQue", "DeQue", "FreeTensor"),
    "TQueBind": ("AllocTensor", "EnQue", "DeQue", "FreeTensor"),
    "TBuf": ("Get",),
    "GlobalTensor": ("SetGlobalBuffer", "GetValue", "SetValue"),
    "LocalTensor": ("GetValue", "SetValue", "GetSize", "ReinterpretCast"),
}


def _member_rank(owner: str, e: ApiEntry) -> int:
    """Members a kernel calls on every such object first, in the order they are called."""
    usual = _USUAL.get(owner, ())
    return usual.index(e.name) if e.name in usual else len(usual) + 1


def _scoped(scope: str, prefix: str, catalog: Catalog, chip: Chip) -> Completions:
    owner = ENUM_ALIASES.get(scope, scope)
    items = [
        Candidate(e.name, "enum_member", f"{scope}::{e.name}", api=e.qualified_name)
        for e in catalog.members(owner)
        if e.kind == ApiKind.ENUM_VALUE and _keep(e, chip)
    ]
    if not items and scope == "AscendC":
        return _free(prefix, None, None, catalog, chip)
    return _cap(items, prefix)


def _template(name: str, prefix: str, catalog: Catalog) -> Completions:
    if name in ("TQue", "TBuf", "TQueBind"):
        return _cap(
            [
                Candidate(f"QuePosition::{p}", "enum_member", "queue position")
                for p in ("VECIN", "VECOUT", "VECCALC")
            ],
            prefix,
        )
    return _cap([Candidate(t, "type", "element type") for t in ELEMENT_TYPES], prefix)


def _free(
    prefix: str, model: KernelModel | None, chunk: Chunk | None, catalog: Catalog, chip: Chip
) -> Completions:
    if not prefix:
        return Completions(incomplete=True)
    items: list[Candidate] = []
    if chunk is not None:
        for d in chunk.decls:
            items.append(Candidate(d.name, "variable", d.type_text, rank=0))
        if chunk.function:
            for p in chunk.function.params:
                items.append(Candidate(p.name, "variable", p.type_text, rank=0))
    for e in catalog.entries:
        if e.side != "device" or e.is_member or not _keep(e, chip):
            continue
        if e.kind == ApiKind.FUNCTION:
            items.append(
                Candidate(
                    e.name,
                    "function",
                    e.signatures[0] if e.signatures else "",
                    snippet_of(e),
                    True,
                    e.qualified_name,
                    rank=1,
                )
            )
        elif e.kind in (
            ApiKind.CLASS,
            ApiKind.STRUCT,
            ApiKind.TYPE,
            ApiKind.TYPE_ALIAS,
            ApiKind.ENUM,
        ):
            items.append(Candidate(e.name, "type", e.kind.value, api=e.qualified_name, rank=2))
        elif e.kind in (ApiKind.MACRO, ApiKind.CONSTANT):
            items.append(Candidate(e.name, "macro", e.kind.value, api=e.qualified_name, rank=2))
    return _cap(items, prefix)


def call_at(line_prefix: str) -> tuple[str, int] | None:
    """(function name, active parameter) when the cursor is inside a call's parentheses."""
    depth = 0
    commas = 0
    for i in range(len(line_prefix) - 1, -1, -1):
        ch = line_prefix[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None
                m = _CALL.search(line_prefix[: i + 1])
                return (m.group(1), commas) if m else None
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return None
