"""What every rule sees: the model, the evaluator, the chip, the catalog, and helpers that turn
facts into diagnostics and resolve tensors and buffer sizes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ascend_tools.catalog import Catalog
from ascend_tools.chips import Chip
from ascend_tools.diagnostics import Diagnostic, Fix, Severity, TextEdit, TextRange
from ascend_tools.parse.evaluate import Evaluator, Value, clean_type
from ascend_tools.parse.expr import Expr
from ascend_tools.parse.facts import Call, Chunk, Decl, Located
from ascend_tools.parse.model import KernelModel, QueueInfo

SOURCE = "kernelgen-lint"
_TENSOR_MAKERS = {"AllocTensor", "DeQue", "Get", "GetWithOffset"}
_QUEUE_SETUP = {"InitBuffer"}  # calls that take a queue as an argument without driving it


@dataclass
class InitBuf:
    """One InitBuffer call with its evaluated block count and length."""

    call: Call
    queue: QueueInfo | None
    num: Value | None
    length: Value | None
    num_expr: Expr | None
    len_expr: Expr

    @property
    def bytes(self) -> Value | None:
        if self.length is None or self.num is None:
            return None
        lo = self.num.lo * align32(self.length.lo)
        hi = self.num.hi * align32(self.length.hi)
        return Value(lo, hi, self.length.notes + self.num.notes)


def align32(x: float) -> int:
    """Bytes InitBuffer reserves for a length of x bytes (rounded up to 32)."""
    return ((int(x) + 31) // 32) * 32


@dataclass
class TensorRef:
    """What an operand expression refers to."""

    kind: str  # "local" | "global" | "unknown"
    elem_type: str
    queue: QueueInfo | None
    offset: Expr | None
    maker: str  # the call that produced a LocalTensor (AllocTensor, DeQue, Get) or ""
    maker_args: tuple


class LintContext:
    """`scope` limits the per-unit rules to some analysis units (a class with its methods, or
    a free function); None means the whole project. `auto_sync`: the compiler inserts the
    S <-> V/MTE2/MTE3 flags (rules/sync.py)."""

    def __init__(self, model: KernelModel, evaluator: Evaluator, chip: Chip,
                 catalog: Catalog, scope: set[str] | None = None, *,
                 auto_sync: bool = True) -> None:
        self.model = model
        self.ev = evaluator
        self.chip = chip
        self.catalog = catalog
        self.scope = scope
        self.auto_sync = auto_sync
        """Whether the project builds with --cce-auto-sync (ascend_tools.config)."""

    def in_scope(self, chunk: Chunk) -> bool:
        return self.scope is None or self.model.unit_of(chunk) in self.scope

    @cached_property
    def calls(self) -> list[Call]:
        """Kernel calls inside the scope that this chip's build may compile (not those under
        an `#if` proved false: Evaluator.compiled)."""
        if self.scope is None:
            found = self.model.calls
        else:
            unit_of, scope = self.model.unit_of, self.scope
            found = [call for c in self.model.kernel_chunks() if c.calls and unit_of(c) in scope
                     for call in c.calls]
        return [call for call in found if self.ev.compiled(call)]

    def chunks(self) -> list[Chunk]:
        return [c for c in self.model.kernel_chunks() if self.in_scope(c)]

    # ------------------------------------------------------------------ diagnostics
    def range_of(self, file: str, start: int, end: int) -> TextRange:
        lines = self.model.documents[file].lines
        line, col = lines.position(start)
        end_line, end_col = lines.position(end)
        return TextRange(line=line, column=col, end_line=end_line, end_column=end_col)

    def diag(self, code: str, severity: Severity, fact: Located, message: str,
             fix: Fix | None = None, *, start: int | None = None,
             end: int | None = None) -> Diagnostic:
        r = self.range_of(fact.chunk.file, fact.start if start is None else start,
                          fact.end if end is None else end)
        return Diagnostic(file=fact.chunk.file, line=r.line, column=r.column, end_line=r.end_line,
                          end_column=r.end_column, severity=severity, code=code, message=message,
                          source=SOURCE, fix=fix)

    def edit(self, file: str, start: int, end: int, new_text: str) -> TextEdit:
        return TextEdit(file=file, range=self.range_of(file, start, end), new_text=new_text)

    def guard(self, file: str, offset: int) -> str | None:
        """The preprocessor condition around a byte offset (`#if __CCE_AICORE__ == 220`), or
        None. Rules asking this do not evaluate it: code under one may be for another chip
        (constants are chosen by their conditions in `Evaluator.constant_definitions`)."""
        return next((r.text for r in self.model.regions(file) if r.start <= offset < r.end),
                    None)

    def source(self, file: str, start: int, end: int) -> str:
        return self.model.documents[file].data[start:end].decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ buffers
    @cached_property
    def init_buffers(self) -> list[InitBuf]:
        out = []
        for call in self.calls:
            if call.name != "InitBuffer" or len(call.args) < 2:
                continue
            qname = _var_name(call.args[0].expr)
            queue = self.model.queue_for(call.chunk, qname)
            if len(call.args) >= 3:
                num_expr: Expr | None = call.args[1].expr
                len_expr = call.args[2].expr
                num = self.ev.eval(num_expr, call.chunk, call.order)
            else:
                num_expr, len_expr = None, call.args[1].expr
                num = Value(1, 1)
            length = self.ev.eval(len_expr, call.chunk, call.order)
            out.append(InitBuf(call, queue, num, length, num_expr, len_expr))
        return out

    def buffer_of(self, queue: QueueInfo) -> InitBuf | None:
        """The queue's InitBuffer; of several (one per branch or tiling key), the largest, so
        that a count checked against it is too large for every layout."""
        found = [ib for ib in self.init_buffers
                 if ib.queue is queue or (ib.queue is not None and ib.queue.decl is queue.decl)]
        if len(found) > 1:
            if any(ib.length is None for ib in found):
                return None
            return max(found, key=lambda ib: ib.length.hi if ib.length else 0)
        return found[0] if found else None

    # ------------------------------------------------------------------ tensors
    def tensor(self, expr: Expr, chunk: Chunk, order: int) -> TensorRef:
        offset = None
        if expr[0] == "ix":
            offset = expr[2]
            expr = expr[1]
        name = _var_name(expr)
        unknown = TensorRef("unknown", "", None, offset, "", ())
        if name is None:
            return unknown
        decl = self.model.variable_decl(chunk, name, order)
        type_base, targs, init = "", [], None
        if decl is not None:
            type_base, targs, init = decl.type_base, decl.template_args, decl.init
        else:
            ptype = self.model.param_type(chunk, name)
            if ptype is None:
                return unknown
            base = ptype.replace("const", "").replace("&", "").strip()
            type_base = base.split("<")[0].rsplit("::", 1)[-1].strip()
            targs = [base.split("<", 1)[1].rstrip(">").strip()] if "<" in base else []
        if type_base == "GlobalTensor":
            elem = self.ev.element_type(targs[0], chunk) if targs else ""
            return TensorRef("global", elem, None, offset, "", ())
        maker, queue, margs = "", None, ()
        if init is not None and init[0] == "c" and init[1] in _TENSOR_MAKERS:
            maker = init[1]
            queue = self.model.queue_for(chunk, _var_name(init[2]) if init[2] else None)
            margs = init[3]
            if not targs and init[4]:
                targs = list(init[4])
        if type_base == "LocalTensor" or (type_base == "auto" and maker):
            elem = self.ev.element_type(targs[0], chunk) if targs else ""
            return TensorRef("local", elem, queue, offset, maker, margs)
        return unknown

    def tensor_size(self, t: TensorRef, chunk: Chunk, order: int) -> Value | None:
        """Elements a LocalTensor holds (from its buffer's InitBuffer length or Get(len))."""
        if t.kind != "local" or t.queue is None:
            return None
        size = self.ev.type_size(t.elem_type, chunk)
        if t.maker in ("Get",) and t.maker_args:
            return self.ev.eval(t.maker_args[0], chunk, order)
        if t.maker == "GetWithOffset" and t.maker_args:
            return self.ev.eval(t.maker_args[0], chunk, order)
        ib = self.buffer_of(t.queue)
        if ib is None or ib.length is None or size is None or size.lo <= 0:
            return None
        # What InitBuffer reserves: "a len not 32-byte aligned is rounded up to 32 bytes inside
        # the API" (InitBuffer, AscendC API reference, atlasascendc_api_07_0110), as the emulator
        # sizes the buffer; a count past the length but inside that block overruns nothing.
        lo = align32(ib.length.lo) // size.hi
        hi = align32(ib.length.hi) // size.lo
        notes = ib.length.notes + size.notes
        if align32(ib.length.hi) != ib.length.hi:
            notes = (*notes, f"InitBuffer length {ib.length.fmt()} B rounded up to 32 B")
        return Value(lo, hi, notes)


def reaches(first: Call | Decl, later: Call | Decl) -> bool:
    """Whether `first` has run (a declaration: is still alive) when `later` runs: one function,
    `first` earlier, and `later` inside `first`'s block. Two objects in sibling branches such
    as `if (TILING_KEY_IS(1)) {...} else {...}` never reach each other."""
    if first is later:
        return True
    if first.chunk is not later.chunk or first.rel_start > later.rel_start:
        return False
    lo, hi = first.block
    return (lo, hi) == (-1, -1) or lo <= later.rel_start <= hi


def repeats(model: KernelModel, call: Call, depth: int = 0) -> Call | None:
    """The loop site that makes `call` run more than once: the call itself inside a loop, or a
    call inside a loop of the method (of the same class) or function that contains it, found
    up to three calls up. None when every path runs it once."""
    if call.loop_depth:
        return call
    chunk = call.chunk
    if depth >= 3 or chunk.kind != "function":
        return None
    for site in model.calls_by_name.get(chunk.name, []):
        same_class = site.chunk.class_name == chunk.class_name and site.receiver is None
        via_object = site.receiver is not None and chunk.class_name and _receiver_class(
            model, site) == chunk.class_name
        plain = not chunk.class_name and site.receiver is None
        if same_class or via_object or plain:
            found = repeats(model, site, depth + 1)
            if found is not None:
                return found
    return None


def _receiver_class(model: KernelModel, call: Call) -> str | None:
    name = call.receiver_name
    d = model.variable_decl(call.chunk, name) if name else None
    return d.type_base if d is not None else None


def shared_queue(model: KernelModel, queue: QueueInfo) -> str | None:
    """Why a queue's protocol is not all visible in its own class, or None: it is a pointer or a
    reference (another object drives it too), it is handed to a function as an argument, or
    its class has a base or derived classes (they may use it through inheritance)."""
    decl = queue.decl
    src = model.documents[decl.chunk.file].data[decl.start:decl.end].decode("utf-8", "replace")
    if any(ch in src.split(queue.name)[0] for ch in "*&"):
        return f"{queue.name} is a pointer or reference"
    owner = decl.chunk.class_name
    for call in model.calls:
        if call.name in _QUEUE_SETUP:
            continue
        for arg in call.args:
            if _var_name(arg.expr) == queue.name and model.queue_for(call.chunk,
                                                                     queue.name) is queue:
                return f"{queue.name} is passed to {call.name} ({model.where(call)})"
    if owner:
        cls = model.classes.get(owner)
        if cls is not None and cls.klass is not None and cls.klass.bases:
            return f"{owner} derives from {', '.join(cls.klass.bases)}"
        for other in model.classes.values():
            bases = [b.split("<")[0].rsplit("::", 1)[-1].strip()
                     for b in (other.klass.bases if other.klass is not None else [])]
            if owner in bases:
                return f"{other.name} derives from {owner}"
    return None


def _var_name(expr: Expr | None) -> str | None:
    while expr is not None:
        if expr[0] == "id":
            return str(expr[1])
        if expr[0] == "f":
            return str(expr[2])
        if expr[0] in ("u", "cast"):
            expr = expr[2]
            continue
        return None
    return None


def elem_size(ctx: LintContext, t: TensorRef, chunk: Chunk) -> Value | None:
    return ctx.ev.type_size(clean_type(t.elem_type), chunk) if t.elem_type else None
