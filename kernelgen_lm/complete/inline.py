"""The embedded inline-completion engine: with no model, it writes the body of a kernel
class's CopyIn / Compute / CopyOut / Init / Process from what the class declares (its queues,
global tensors, tile length member and stage methods). The cursor must sit in an empty body.

LSP-free: the server asks `suggest` and shows the text as ghost text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascend_tools.parse.facts import Chunk, Decl
from ascend_tools.parse.model import KernelModel, QueueInfo

STAGES = ("CopyIn", "Compute", "CopyOut", "Init", "Process")
_TILE_NAMES = ("tileLength", "tileLen", "TILE_LENGTH", "tile_length")
_TILE_COUNT_NAMES = ("tileNum", "tileCount", "loopCount", "TILE_NUM")


@dataclass
class Suggestion:
    text: str
    source: str  # "embedded" here; backends name themselves


@dataclass
class _Class:
    name: str
    queues: list[QueueInfo]
    globals_: list[Decl]
    elem: str
    tile: str
    count: str
    stages: list[str]


def _describe(model: KernelModel, class_name: str) -> _Class:
    queues = [q for (scope, _), q in model.queues().items() if scope == class_name]
    members = model.members(class_name)
    globals_ = [d for d in members.values() if d.type_base == "GlobalTensor"]
    elem = globals_[0].template_args[0] if globals_ and globals_[0].template_args else "float"
    names = set(members) | set(model.constants)
    tile = next((n for n in _TILE_NAMES if n in names), "tileLength")
    count = next((n for n in _TILE_COUNT_NAMES if n in names), "tileNum")
    stages = [c.name for c in model.methods(class_name)]
    return _Class(class_name, queues, globals_, elem, tile, count, stages)


def _local(q: QueueInfo) -> str:
    base = re.sub(r"^(in|out)?Queue", "", q.name, flags=re.I) or q.name
    return base[0].lower() + base[1:] + "Local"


def _gm_for(k: _Class, i: int, inputs: bool) -> str:
    n_in = len([q for q in k.queues if q.position == "VECIN"])
    pool = k.globals_[:n_in] if inputs else k.globals_[n_in:]
    if i < len(pool):
        return pool[i].name
    return k.globals_[i].name if i < len(k.globals_) else f"gm{i}"


def _body(stage: str, k: _Class, param: str | None, indent: str) -> list[str]:
    ins = [q for q in k.queues if q.position == "VECIN"]
    outs = [q for q in k.queues if q.position == "VECOUT"]
    t, tile = k.elem, k.tile
    at = f"{param} * {tile}" if param else "0"
    lines: list[str] = []
    if stage == "CopyIn":
        for i, q in enumerate(ins):
            lines.append(f"LocalTensor<{t}> {_local(q)} = {q.name}.AllocTensor<{t}>();")
            lines.append(f"DataCopy({_local(q)}, {_gm_for(k, i, True)}[{at}], {tile});")
            lines.append(f"{q.name}.EnQue({_local(q)});")
    elif stage == "Compute":
        for q in ins:
            lines.append(f"LocalTensor<{t}> {_local(q)} = {q.name}.DeQue<{t}>();")
        for q in outs:
            lines.append(f"LocalTensor<{t}> {_local(q)} = {q.name}.AllocTensor<{t}>();")
        if ins and outs:
            src = ", ".join(_local(q) for q in ins[:2])
            op = "Add" if len(ins) >= 2 else "Adds"
            extra = "" if len(ins) >= 2 else f", ({t})0"
            lines.append(f"{op}({_local(outs[0])}, {src}{extra}, {tile});")
        for q in outs:
            lines.append(f"{q.name}.EnQue<{t}>({_local(q)});")
        for q in ins:
            lines.append(f"{q.name}.FreeTensor({_local(q)});")
    elif stage == "CopyOut":
        for i, q in enumerate(outs):
            lines.append(f"LocalTensor<{t}> {_local(q)} = {q.name}.DeQue<{t}>();")
            lines.append(f"DataCopy({_gm_for(k, i, False)}[{at}], {_local(q)}, {tile});")
            lines.append(f"{q.name}.FreeTensor({_local(q)});")
    elif stage == "Process":
        calls = [s for s in ("CopyIn", "Compute", "CopyOut") if s in k.stages]
        if not calls:
            return []
        lines.append(f"for (int32_t i = 0; i < {k.count}; i++) {{")
        lines += [f"    {c}(i);" for c in calls]
        lines.append("}")
    elif stage == "Init":
        for g in k.globals_:
            lines.append(
                f"{g.name}.SetGlobalBuffer((__gm__ {t}*){g.name.removesuffix('Gm')}"
                f" + {tile} * GetBlockIdx(), {tile});"
            )
        for q in k.queues:
            depth = q.depth_text or "1"
            if q.kind == "TBuf":
                lines.append(f"pipe.InitBuffer({q.name}, {tile} * sizeof({t}));")
            else:
                lines.append(f"pipe.InitBuffer({q.name}, {depth}, {tile} * sizeof({t}));")
    return [indent + line for line in lines]


def _empty_body(text: str, chunk: Chunk, offset: int, data: bytes) -> str | None:
    """The indentation for the body when the cursor is inside an empty function body."""
    fn = chunk.function
    if fn is None:
        return None
    body_end = chunk.base + fn.body_end
    open_brace = data.rfind(b"{", chunk.base, offset + 1)
    if open_brace < 0 or not (open_brace < offset <= body_end):
        return None
    if data[open_brace + 1 : body_end].strip():
        return None
    line_start = data.rfind(b"\n", 0, open_brace) + 1
    brace_line = data[line_start:open_brace]
    indent = brace_line[: len(brace_line) - len(brace_line.lstrip())].decode()
    return indent + "    "


def suggest(model: KernelModel, file: str, offset: int) -> Suggestion | None:
    """Ghost text for the cursor at byte `offset` of `file`, or None."""
    if file not in model.documents:
        return None
    chunk = model.chunk_at(file, offset)
    if chunk is None or chunk.kind != "function" or chunk.name not in STAGES:
        return None
    if not chunk.class_name:
        return None
    doc = model.documents[file]
    indent = _empty_body(doc.text, chunk, offset, doc.data)
    if indent is None:
        return None
    k = _describe(model, chunk.class_name)
    params = chunk.function.params if chunk.function else []
    param = params[0].name if params and chunk.name in ("CopyIn", "CopyOut") else None
    lines = _body(chunk.name, k, param, indent)
    if not lines:
        return None
    line_start = doc.data.rfind(b"\n", 0, offset) + 1
    at_line_start = not doc.data[line_start:offset].strip()
    first = (
        lines[0][len(doc.data[line_start:offset].decode("utf-8", "replace")) :]
        if (at_line_start)
        else "\n" + lines[0]
    )
    text = "\n".join([first, *lines[1:]])
    return Suggestion(text=text, source="embedded")
