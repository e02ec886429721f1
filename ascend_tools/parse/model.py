"""KernelModel: the facts of a kernel project (kernel file plus op_host files when present),
indexed for the lint rules, completion and the evaluator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ascend_tools.parse.document import Document
from ascend_tools.parse.facts import Call, Chunk, Decl, Define, Located
from ascend_tools.parse.host import OpDefFacts, TilingStruct, opdefs, tiling_structs
from ascend_tools.parse.preproc import (
    Condition,
    MacroState,
    Region,
    condition_at,
    defines,
    holds,
    regions,
    value,
)
from ascend_tools.project import is_host_source, kernel_name

QUEUE_TYPES = {"TQue", "TQueBind", "TBuf"}
UB_POSITIONS = {"VECIN", "VECOUT", "VECCALC"}
# Macros a kernel build may define without the project saying so: the compiler's and toolchain's
# reserved names (`__DAV_C220_CUBE__`, set per core pass), CANN's per-OpDef dtype and format
# macros, and what sample CMake files pass (SOC_VERSION, CUSTOM_ASCEND310P).
_BUILD_MACRO_PREFIXES = ("_", "DTYPE_", "ORIG_DTYPE_", "FORMAT_", "ORIG_FORMAT_")
_BUILD_MACROS = {"SOC_VERSION", "CUSTOM_ASCEND310P", "ASCENDC_CPU_DEBUG"}


@dataclass
class QueueInfo:
    """A TQue/TQueBind/TBuf member or variable, with its position and depth."""

    name: str
    kind: str
    position: str
    depth_text: str
    decl: Decl
    bound_to: str = ""
    """A TQueBind's destination position (its tensors are read there: VECIN -> VECOUT)."""

    @property
    def in_ub(self) -> bool:
        return self.position in UB_POSITIONS

    @property
    def positions(self) -> set[str]:
        """Every position the queue's tensors occupy (both ends of a TQueBind)."""
        return {self.position, self.bound_to} - {""}


def _position(arg: str) -> str:
    return arg.replace(" ", "").rsplit("::", 1)[-1]


class KernelModel:
    """Indexes over every document of a project. Cheap to rebuild: it only walks chunks."""

    def __init__(self, documents: dict[str, Document], kernel_files: list[str] | None = None,
                 defines: list[str] | None = None):
        self.documents = documents
        # Macros the project's build defines beyond its sources (`NAME` or `NAME=VALUE`).
        self.predefined: dict[str, int | None] = {}
        for d in defines or []:
            name, _, text = d.partition("=")
            self.predefined[name] = value(text, lambda _: (None, None)) if text else None
        self.kernel_files = kernel_files if kernel_files is not None else [
            p for p, d in documents.items()
            if not is_host_source(p.replace("\\", "/"), d.text)]
        self.chunks: list[Chunk] = [c for d in documents.values() for c in d.chunks]
        self.functions: dict[str, list[Chunk]] = {}
        self.classes: dict[str, Chunk] = {}
        self.constants: dict[str, Define | Decl] = {}
        self._file_constants: dict[tuple[str, str], Define | Decl] = {}
        self._alternatives: dict[tuple[str, str], list[Define | Decl]] = {}
        self._regions: dict[str, list[Region]] = {}
        self.calls: list[Call] = []
        self.tiling_structs: list[TilingStruct] = []
        self.tiling_registrations: dict[str, str] = {}
        self.opdefs: list[OpDefFacts] = []
        self.entry: Chunk | None = None
        self._members: dict[str, dict[str, Decl]] = {}
        self._methods: dict[str, list[Chunk]] = {}
        kernel_set = set(self.kernel_files)
        self._kernel_chunks = [c for c in self.chunks if c.file in kernel_set]
        self._host_chunks = [c for c in self.chunks if c.file not in kernel_set]
        for c in self.chunks:
            kernel = c.file in kernel_set
            if c.kind == "function":
                self.functions.setdefault(c.qualified, []).append(c)
                if c.class_name:
                    self.functions.setdefault(c.name, []).append(c)
                    self._methods.setdefault(c.class_name, []).append(c)
                if c.function and c.function.is_entry and kernel and self.entry is None:
                    self.entry = c
            elif c.kind == "class" and c.name:
                self.classes.setdefault(c.name, c)
            elif c.kind == "field":
                members = self._members.setdefault(c.class_name, {})
                for decl in c.decls:
                    members.setdefault(decl.name, decl)
            for d in c.defines:
                self._add_constant(d)
            if c.kind in ("other", "field"):
                for decl in c.decls:
                    if decl.is_const and decl.init is not None:
                        self._add_constant(decl)
            if kernel:
                self.calls.extend(c.calls)
        for path, doc in documents.items():
            if "TILING_DATA" in doc.text:
                structs, reg = tiling_structs(doc.text, path)
                self.tiling_structs += structs
                self.tiling_registrations.update(reg)
            if "OpDef" in doc.text:
                self.opdefs += opdefs(doc.text, path, self._compiled_at(path))

    def _add_constant(self, d: Define | Decl) -> None:
        self.constants.setdefault(d.name, d)
        self._file_constants.setdefault((d.chunk.file, d.name), d)
        self._alternatives.setdefault((d.chunk.file, d.name), []).append(d)

    @cached_property
    def calls_by_name(self) -> dict[str, list[Call]]:
        """Kernel calls by callee name."""
        out: dict[str, list[Call]] = {}
        for call in self.calls:
            out.setdefault(call.name, []).append(call)
        return out

    # -------------------------------------------------------------- lookups
    def host_chunks(self) -> list[Chunk]:
        return self._host_chunks

    def kernel_chunks(self) -> list[Chunk]:
        return self._kernel_chunks

    def constant(self, name: str, file: str) -> Define | Decl | None:
        """A constant by name, preferring the one defined in `file` (host and kernel sources
        often both define BLOCK_DIM or TILE_NUM)."""
        return self._file_constants.get((file, name)) or self.constants.get(name)

    def constant_alternatives(self, name: str, file: str) -> list[Define | Decl]:
        """Every definition of a constant in the file `constant` picks it from: several where
        `#ifdef`/`#else` branches define it each their way."""
        first = self.constant(name, file)
        return self._alternatives.get((first.chunk.file, name), []) if first else []

    def regions(self, file: str) -> list[Region]:
        """The preprocessor conditionals of a file."""
        found = self._regions.get(file)
        if found is None:
            found = self._regions[file] = regions(self.documents[file].data)
        return found

    def _compiled_at(self, file: str) -> Callable[[int], bool]:
        """Whether the build compiles a character offset of `file`: False only where its `#if`
        condition is proved false by what the project and the build define."""
        text = self.documents[file].text

        def compiled(offset: int) -> bool:
            at = len(text[:offset].encode("utf-8", "surrogateescape"))
            cond = condition_at(self.regions(file), at)
            return not cond or holds(cond, lambda m: self.macro(m, file, at)) is not False

        return compiled

    def condition(self, fact: Located) -> Condition:
        """The preprocessor condition a fact is compiled under (() when none)."""
        return condition_at(self.regions(fact.chunk.file), fact.start)

    @cached_property
    def _macro_definitions(self) -> dict[str, list[tuple[str, int, bool]]]:
        out: dict[str, list[tuple[str, int, bool]]] = {}
        for path, doc in self.documents.items():
            spans = self.regions(path)
            for name, at in defines(doc.data):
                out.setdefault(name, []).append((path, at, not condition_at(spans, at)))
        return out

    def macro(self, name: str, file: str, offset: int) -> MacroState:
        """Whether a macro is defined at a point of a file, as far as the project tells: defined
        by the build (`defines`) or by an unconditional `#define` above it in the file; not
        defined when nothing in the project defines it and it is no name a build defines by
        itself; else not known."""
        if name in self.predefined:
            return True, self.predefined[name]
        found = self._macro_definitions.get(name)
        if not found:
            build = name.startswith(_BUILD_MACRO_PREFIXES) or name in _BUILD_MACROS
            return (None, None) if build else (False, None)
        if not any(f == file and at < offset and plain for f, at, plain in found):
            return None, None
        d = self.constants.get(name)
        value = d.value[1] if isinstance(d, Define) and d.value[0] == "n" else None
        return True, int(value) if isinstance(value, int | float) else None

    def where(self, fact: Located | Chunk) -> str:
        """`file:line` of a fact, for messages."""
        chunk = fact.chunk if isinstance(fact, Located) else fact
        start = fact.start if isinstance(fact, Located) else fact.base
        doc = self.documents[chunk.file]
        line, _ = doc.lines.position(start)
        return f"{_short(chunk.file)}:{line}"

    def members(self, class_name: str) -> dict[str, Decl]:
        """Data members of a class, in declaration order."""
        return self._members.get(class_name, {})

    def methods(self, class_name: str) -> list[Chunk]:
        return self._methods.get(class_name, [])

    def chunk_at(self, file: str, offset: int) -> Chunk | None:
        """The innermost chunk containing a byte offset (the cursor, for completion)."""
        best = None
        for c in self.documents[file].chunks if file in self.documents else []:
            if c.base <= offset <= c.base + c.length and (best is None or c.length < best.length):
                best = c
        return best

    def pipeline(self, class_name: str, method: str = "Process") -> list[tuple[str, bool]]:
        """The stage methods `Process` calls on its own class, in order, each with whether it
        runs inside a loop: [("CopyIn", True), ("Compute", True), ("CopyOut", True)]."""
        own = {c.name for c in self.methods(class_name)}
        for c in self.methods(class_name):
            if c.name == method:
                return [(call.name, call.loop_depth > 0) for call in sorted(
                    c.calls, key=lambda k: k.order)
                    if call.name in own and (call.receiver is None or call.receiver == ("this",))]
        return []

    def unit_of(self, chunk: Chunk) -> str:
        """The analysis unit a chunk belongs to: its class, else the function itself."""
        return chunk.class_name or chunk.qualified

    def variable_decl(self, chunk: Chunk, name: str, before: int | None = None) -> Decl | None:
        """The declaration a name refers to inside `chunk`: a local, then a member of the class."""
        best = None
        for d in chunk.decls:
            if d.name == name and (before is None or d.order <= before):
                best = d
        if best is not None:
            return best
        if chunk.class_name:
            return self.members(chunk.class_name).get(name)
        return None

    def param_type(self, chunk: Chunk, name: str) -> str | None:
        if chunk.function:
            for p in chunk.function.params:
                if p.name == name:
                    return p.type_text
        return None

    def queues(self) -> dict[tuple[str, str], QueueInfo]:
        """(class or function qualified name, variable) -> queue info, for kernel files."""
        out: dict[tuple[str, str], QueueInfo] = {}
        for c in self.kernel_chunks():
            qdecls = c.memo.get("queues")
            if qdecls is None:
                qdecls = c.memo["queues"] = [d for d in c.decls if d.type_base in QUEUE_TYPES]
            for d in qdecls:  # type: ignore[attr-defined]
                if d.type_base in QUEUE_TYPES:
                    bound = ""
                    if d.type_base == "TBuf":
                        pos = _position(d.template_args[0]) if d.template_args else "VECCALC"
                        depth = ""
                    elif d.type_base == "TQueBind":
                        pos = _position(d.template_args[0]) if d.template_args else "?"
                        bound = _position(d.template_args[1]) if len(d.template_args) > 1 else ""
                        depth = d.template_args[2] if len(d.template_args) > 2 else "1"
                    else:
                        pos = _position(d.template_args[0]) if d.template_args else "?"
                        depth = d.template_args[1] if len(d.template_args) > 1 else "1"
                    scope = c.class_name if c.kind == "field" else c.qualified
                    out[(scope, d.name)] = QueueInfo(d.name, d.type_base, pos, depth, d,
                                                     bound if d.type_base == "TQueBind" else "")
        return out

    def queue_for(self, chunk: Chunk, receiver: str | None) -> QueueInfo | None:
        if receiver is None:
            return None
        qs = self._queue_cache if hasattr(self, "_queue_cache") else None
        if qs is None:
            qs = self._queue_cache = self.queues()
        return qs.get((chunk.qualified, receiver)) or qs.get((chunk.class_name, receiver))

    def opdef(self) -> OpDefFacts | None:
        """The OpDef of the kernel entry: the one whose kernel name (snake case of its OpType)
        the entry bears. A folder holding several ops (DrivingSDK's scatter_add beside its
        grad) pairs each kernel with its own; with one OpDef, that one; else none is assumed."""
        if self.entry is not None:
            for op in self.opdefs:
                if kernel_name(op.name) == self.entry.name:
                    return op
        return self.opdefs[0] if len(self.opdefs) == 1 else None

    def tiling_struct(self) -> TilingStruct | None:
        """The host tiling-data class of this op (registered for the OpDef, else the first)."""
        if not self.tiling_structs:
            return None
        op = self.opdef()
        if op and op.name in self.tiling_registrations:
            want = self.tiling_registrations[op.name]
            for s in self.tiling_structs:
                if s.name == want:
                    return s
        return self.tiling_structs[0]


def _short(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:]) if len(parts) >= 2 and parts[-2] in ("op_host", "op_kernel") else (
        parts[-1])
