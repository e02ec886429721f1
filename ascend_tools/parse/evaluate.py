"""Evaluate sizes as far as the code lets us: constants, sizeof for the OpDef dtypes, member
values set in Init from the kernel entry's arguments, host TilingFunc values (from constants or
the shapes of a test binding), the chip's core counts. Values are intervals with notes that say
where each number came from, so a message can show its working."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ascend_tools.chips import Chip
from ascend_tools.parse.expr import Expr, render
from ascend_tools.parse.facts import Chunk, Decl, Define, Located
from ascend_tools.parse.host import GE_DTYPES
from ascend_tools.parse.model import KernelModel
from ascend_tools.parse.preproc import MacroState, holds

TYPE_SIZES = {
    "float": 4, "float32_t": 4, "half": 2, "float16_t": 2, "__fp16": 2, "bfloat16_t": 2,
    "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
    "int64_t": 8, "uint64_t": 8, "double": 8, "bool": 1, "char": 1, "int": 4, "unsigned": 4,
    "unsigned int": 4, "size_t": 8, "short": 2, "long": 8, "int4b_t": 1,
}
_MAX_DEPTH = 40


@dataclass(frozen=True)
class Value:
    lo: float
    hi: float
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.lo == self.hi

    @property
    def value(self) -> float:
        return self.hi

    def fmt(self) -> str:
        def one(x: float) -> str:
            return str(int(x)) if float(x).is_integer() else f"{x:g}"
        return one(self.lo) if self.exact else f"{one(self.lo)}..{one(self.hi)}"

    def why(self, limit: int = 5) -> str:
        """Where the number came from, outermost facts first."""
        seen: list[str] = []
        for n in reversed(self.notes):
            if n not in seen:
                seen.append(n)
        return "; ".join(seen[:limit])


def _merge(*vals: Value) -> tuple[str, ...]:
    out: list[str] = []
    for v in vals:
        out += [n for n in v.notes if n not in out]
    return tuple(out)


def _arith(op: str, a: Value, b: Value) -> Value | None:
    notes = _merge(a, b)
    both_int = all(float(x).is_integer() for x in (a.lo, a.hi, b.lo, b.hi))
    try:
        if op == "+":
            return Value(a.lo + b.lo, a.hi + b.hi, notes)
        if op == "-":
            return Value(a.lo - b.hi, a.hi - b.lo, notes)
        if op == "*":
            c = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return Value(min(c), max(c), notes)
        if op == "/":
            if b.lo <= 0 <= b.hi:
                return None
            if both_int and a.lo >= 0 and b.lo > 0:
                return Value(a.lo // b.hi, a.hi // b.lo, notes)
            c = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
            return Value(min(c), max(c), notes)
        if op == "%":
            if not (a.exact and b.exact) or b.lo == 0:
                return Value(0, max(b.hi - 1, 0), notes) if b.lo > 0 else None
            return Value(math.fmod(a.lo, b.lo), math.fmod(a.lo, b.lo), notes)
        if op in ("<<", ">>") and a.exact and b.exact and both_int:
            r = int(a.lo) << int(b.lo) if op == "<<" else int(a.lo) >> int(b.lo)
            return Value(r, r, notes)
        if op in ("&", "|") and a.exact and b.exact and both_int:
            r = int(a.lo) & int(b.lo) if op == "&" else int(a.lo) | int(b.lo)
            return Value(r, r, notes)
    except (OverflowError, ZeroDivisionError):
        return None
    return None


def clean_type(t: str) -> str:
    t = t.replace("const ", "").replace("&", "").replace("*", "").strip()
    return t.rsplit("::", 1)[-1].strip()


class Evaluator:
    """Evaluates expressions of one KernelModel for one chip and optional input shapes."""

    def __init__(self, model: KernelModel, chip: Chip,
                 shapes: list[list[int]] | None = None,
                 overrides: dict[str, float] | None = None, combo: int | None = None) -> None:
        self.model = model
        self.overrides = overrides or {}
        self.combo = combo
        """Index of the OpDef dtype combination to evaluate DTYPE_<X> with (None: all)."""
        self.chip = chip
        self.shapes = shapes
        self._tiling: dict[str, Value] | None = None
        self._block_dim: Value | None = None
        self._host_fn: Chunk | None = None
        self._type_args: dict[str, dict[str, str]] | None = None
        self._bindings: dict[int, dict[str, tuple[Expr, Chunk, int]]] = {}
        self._busy: set[tuple[int, str, int | None]] = set()
        self._inline: dict[int, dict[str, tuple[Expr, Chunk, int | None]]] = {}
        self._memo: dict[tuple[int, int, str], Value | None] = {}

    # ------------------------------------------------------------------ types
    def type_args(self, class_name: str) -> dict[str, str]:
        if self._type_args is None:
            self._type_args = {}
            for c in self.model.kernel_chunks():
                templated = c.memo.get("templated")
                if templated is None:
                    templated = c.memo["templated"] = [d for d in c.decls if d.template_args]
                for d in templated:  # type: ignore[attr-defined]
                    cls = self.model.classes.get(d.type_base)
                    if cls and cls.klass and d.template_args and cls.klass.template_params:
                        self._type_args[d.type_base] = dict(
                            zip(cls.klass.template_params, d.template_args, strict=False))
        return self._type_args.get(class_name, {})

    def type_size(self, type_text: str, chunk: Chunk | None) -> Value | None:
        t = clean_type(type_text)
        if t in TYPE_SIZES:
            n = TYPE_SIZES[t]
            return Value(n, n, (f"sizeof({t}) = {n}",))
        if chunk is not None and chunk.class_name:
            mapped = self.type_args(chunk.class_name).get(t)
            if mapped and mapped != t:
                v = self.type_size(mapped, None)
                if v is not None:
                    return Value(v.lo, v.hi, (f"{t} = {clean_type(mapped)}", *v.notes))
        if t.startswith(("DTYPE_", "ORIG_DTYPE_")):
            pname = t.split("DTYPE_", 1)[1].lower()
            op = self.model.opdef()
            if op:
                for p in op.params:
                    if p.name.lower() == pname and p.dtypes:
                        if self.combo is not None and self.combo < len(p.dtypes) and (
                                p.dtypes[self.combo] in GE_DTYPES):
                            ctype, n = GE_DTYPES[p.dtypes[self.combo]]
                            return Value(n, n, (f"sizeof({t}) = {n} ({ctype})",))
                        sizes = [GE_DTYPES[d][1] for d in p.dtypes if d in GE_DTYPES]
                        if sizes:
                            names = ", ".join(sorted({GE_DTYPES[d][0] for d in p.dtypes
                                                      if d in GE_DTYPES}))
                            v = Value(min(sizes), max(sizes))
                            return Value(v.lo, v.hi, (f"sizeof({t}) = {v.fmt()} "
                                                      f"(OpDef dtypes {names})",))
        return None

    def combos(self) -> list[int | None]:
        """The OpDef dtype combinations (indices into each DataType list), or [None]."""
        op = self.model.opdef()
        n = max((len(p.dtypes) for p in op.params), default=0) if op else 0
        return list(range(n)) if n > 1 else [None]

    def with_combo(self, combo: int | None) -> Evaluator:
        if combo == self.combo:
            return self
        return Evaluator(self.model, self.chip, self.shapes, self.overrides, combo)

    def element_type(self, type_text: str, chunk: Chunk | None) -> str:
        """`LocalTensor<T>`'s T resolved through class template arguments."""
        t = clean_type(type_text)
        if chunk is not None and chunk.class_name:
            t = clean_type(self.type_args(chunk.class_name).get(t, t))
        return t

    # ------------------------------------------------------------------ evaluation
    def eval(self, expr: Expr | None, chunk: Chunk, order: int | None = None) -> Value | None:
        if expr is None:
            return None
        key = (id(chunk), order or 0, repr(expr)) if len(self._busy) == 0 else None
        if key is not None and key in self._memo:
            return self._memo[key]
        v = self._eval(expr, chunk, order, 0)
        if key is not None:
            self._memo[key] = v
        return v

    def _eval(self, e: Expr, chunk: Chunk, order: int | None, depth: int) -> Value | None:
        if depth > _MAX_DEPTH:
            return None
        tag = e[0]
        if tag == "n":
            return Value(float(e[1]), float(e[1]))
        if tag == "id":
            return self._name(e[1], chunk, order, depth)
        if tag == "f":
            return self._field(e, chunk, order, depth)
        if tag == "b":
            a = self._eval(e[2], chunk, order, depth + 1)
            b = self._eval(e[3], chunk, order, depth + 1)
            return _arith(e[1], a, b) if a is not None and b is not None else None
        if tag == "u":
            v = self._eval(e[2], chunk, order, depth + 1)
            if v is None:
                return None
            if e[1] == "-":
                return Value(-v.hi, -v.lo, v.notes)
            return v if e[1] == "+" else None
        if tag == "sz":
            return self.type_size(e[1], chunk)
        if tag == "cast":
            return self._eval(e[2], chunk, order, depth + 1)
        if tag == "t":
            truth = self.truth(e[1], chunk, order, depth + 1)
            if truth is not None:
                return self._eval(e[2] if truth else e[3], chunk, order, depth + 1)
            a = self._eval(e[2], chunk, order, depth + 1)
            b = self._eval(e[3], chunk, order, depth + 1)
            if a is None or b is None:
                return None
            return Value(min(a.lo, b.lo), max(a.hi, b.hi), _merge(a, b))
        if tag == "c":
            return self._call(e, chunk, order, depth)
        return None

    def truth(self, e: Expr, chunk: Chunk, order: int | None, depth: int = 0) -> bool | None:
        """Whether a comparison surely holds (True), surely fails (False), or either (None)."""
        if e[0] == "u" and e[1] == "!":
            t = self.truth(e[2], chunk, order, depth + 1)
            return None if t is None else not t
        if e[0] != "b" or e[1] not in ("<", "<=", ">", ">=", "==", "!="):
            return None
        a = self._eval(e[2], chunk, order, depth + 1)
        b = self._eval(e[3], chunk, order, depth + 1)
        if a is None or b is None:
            return None
        op = e[1]
        if op in (">", ">="):
            a, b, op = b, a, "<" if op == ">" else "<="
        if op == "<":
            return True if a.hi < b.lo else (False if a.lo >= b.hi else None)
        if op == "<=":
            return True if a.hi <= b.lo else (False if a.lo > b.hi else None)
        if a.exact and b.exact:
            return (a.lo == b.lo) == (op == "==")
        if a.hi < b.lo or b.hi < a.lo:
            return op == "!="
        return None

    def _call(self, e: Expr, chunk: Chunk, order: int | None, depth: int) -> Value | None:
        name, recv, args = e[1], e[2], e[3]
        if (name in ("min", "max", "Min", "Max") and len(args) == 2 and recv is None) or (
            name in ("min", "max") and len(args) == 2
        ):
            a = self._eval(args[0], chunk, order, depth + 1)
            b = self._eval(args[1], chunk, order, depth + 1)
            if a is not None and b is not None:
                f = min if name.lower() == "min" else max
                return Value(f(a.lo, b.lo), f(a.hi, b.hi), _merge(a, b))
            bound = a or b
            if bound is not None and name.lower() == "min":
                return Value(0, bound.hi, bound.notes)
            return None
        if name == "GetBlockNum":
            return self.block_dim()
        if name in ("GetCoreNumAiv", "GetCoreNum"):
            n = self.chip.vector_cores
            return Value(n, n, (f"{name}() = {n} on {self.chip.name}",))
        if name == "GetCoreNumAic":
            n = self.chip.cube_cores
            return Value(n, n, (f"{name}() = {n} on {self.chip.name}",))
        if name in ("GetShapeSize", "GetDim", "GetDimNum"):
            return self._shape_value(e, chunk, order, depth)
        if recv is None:
            inlined = self._inline_call(name, args, chunk, order, depth)
            if inlined is not None:
                return inlined
        if name in ("CeilDiv", "DivCeil", "CeilDivision") and len(args) == 2:
            a = self._eval(args[0], chunk, order, depth + 1)
            b = self._eval(args[1], chunk, order, depth + 1)
            if a is not None and b is not None and b.lo > 0:
                return Value(math.ceil(a.lo / b.hi), math.ceil(a.hi / b.lo), _merge(a, b))
        return None

    def _inline_call(self, name: str, args: tuple, chunk: Chunk, order: int | None,
                     depth: int) -> Value | None:
        """A small helper function of the project (one return statement) evaluated with this
        call's arguments: `Dim(context, 0, 2)` -> the shape's dimension 2."""
        fns = [c for c in self.model.functions.get(name, []) if not c.class_name]
        if len(fns) != 1 or fns[0].function is None or len(fns[0].returns) != 1:
            return None
        fn = fns[0]
        params = fn.function.params
        if len(params) != len(args) or id(fn) in self._inline:
            return None
        self._inline[id(fn)] = {p.name: (a, chunk, order) for p, a in zip(params, args,
                                                                          strict=True)}
        try:
            return self._eval(fn.returns[0], fn, None, depth + 1)
        finally:
            del self._inline[id(fn)]

    def _shape_value(self, e: Expr, chunk: Chunk, order: int | None, depth: int) -> Value | None:
        if self.shapes is None:
            return None
        index = self._shape_index(e[2], chunk, order, depth)
        if index is None or index >= len(self.shapes):
            return None
        shape = self.shapes[index]
        note = f"input {index} shape {list(shape)} from the test binding"
        if e[1] == "GetShapeSize":
            n = math.prod(shape)
        elif e[1] == "GetDimNum":
            n = len(shape)
        else:
            k = self._eval(e[3][0], chunk, order, depth + 1) if e[3] else None
            if k is None or not k.exact:
                return None
            kk = int(k.lo)
            if kk < 0:
                kk += len(shape)
            if not 0 <= kk < len(shape):
                return None
            n = shape[kk]
        return Value(n, n, (note,))

    def _shape_index(self, recv: Expr | None, chunk: Chunk, order: int | None,
                     depth: int) -> int | None:
        """Which input a shape chain starts from (`ctx->GetInputShape(0)->GetStorageShape()`,
        possibly through local variables)."""
        hops = 0
        while recv is not None and hops < 12:
            hops += 1
            if recv[0] == "c":
                if recv[1] in ("GetInputShape", "GetInputTensor", "GetDynamicInputShape"):
                    v = self._eval(recv[3][0], chunk, order, depth + 1) if recv[3] else None
                    return int(v.lo) if v is not None and v.exact else None
                recv = recv[2]
            elif recv[0] == "id":
                d = self.model.variable_decl(chunk, recv[1])
                recv = d.init if d is not None else None
            elif recv[0] == "u":
                recv = recv[2]
            else:
                return None
        return None

    def _name(self, name: str, chunk: Chunk, order: int | None, depth: int) -> Value | None:
        guard = (id(chunk), name, order)  # the same name at an earlier point is a new question
        if guard in self._busy:
            return None
        self._busy.add(guard)
        try:
            return self._name_inner(name, chunk, order, depth)
        finally:
            self._busy.discard(guard)

    def _latest_local(self, name: str, chunk: Chunk, order: int | None):
        best = None
        for d in chunk.decls:
            if d.name == name and (order is None or d.order < order) and (
                best is None or d.order > best.order
            ):
                best = d
        for a in chunk.assigns:
            if a.target == ("id", name) and (order is None or a.order < order) and (
                best is None or a.order > best.order
            ):
                best = a
        return best

    def _name_inner(self, name: str, chunk: Chunk, order: int | None,
                    depth: int) -> Value | None:
        local = self._latest_local(name, chunk, order)
        if local is not None:
            if isinstance(local, Decl):
                written = self._out_param(name, chunk, local.order, order)
                if written is not None or local.init is None:
                    return written
                v = self._eval(local.init, chunk, local.order, depth + 1)
                if local.loop_bound is not None and v is not None:
                    return self._loop_range(name, v, local, depth)
            else:
                if local.op != "=" or local.loop_depth:
                    return None
                v = self._eval(local.value, chunk, local.order, depth + 1)
                if local.in_branch and v is not None:  # may not run: join with the value before
                    taken = None
                    if local.guard is not None:
                        truth = self.truth(local.guard[0], chunk, local.order, depth + 1)
                        taken = None if truth is None else truth == local.guard[1]
                    if taken is False:
                        return self._name_inner(name, chunk, local.order, depth + 1)
                    if taken is None:
                        before = self._name_inner(name, chunk, local.order, depth + 1)
                        if before is None:
                            return None
                        v = Value(min(v.lo, before.lo), max(v.hi, before.hi), _merge(before, v))
            return self._named(name, v, local)
        inline = self._inline.get(id(chunk))
        bound = inline.get(name) if inline is not None else None
        if bound is None:
            bound = self.bindings(chunk).get(name)  # type: ignore[assignment]
        if bound is not None:
            expr, site, site_order = bound
            v = self._eval(expr, site, site_order, depth + 1)
            return v
        if self._is_param(chunk, name):
            return None  # a parameter no call site binds: it shadows any member or constant
        if chunk.class_name:
            v = self._member(name, chunk.class_name, depth)
            if v is not None:
                return v
        if name in self.overrides:
            n = self.overrides[name]
            return Value(n, n, (f"{name} = {n:g} (proposed)",))
        vals = []
        for const in self.constant_definitions(name, chunk.file):
            expr = const.value if isinstance(const, Define) else const.init
            v = self._named(name, self._eval(expr, const.chunk, None, depth + 1), const)
            if v is None:
                return None
            vals.append(v)
        if len(vals) > 1:  # #ifdef alternatives the build's macros do not decide: any of them
            note = f"{name}: one of {len(vals)} definitions under preprocessor conditions"
            return Value(min(v.lo for v in vals), max(v.hi for v in vals), (*_merge(*vals), note))
        return vals[0] if vals else None

    def constant_definitions(self, name: str, file: str) -> list[Define | Decl]:
        """The definitions of a constant this build may compile: of alternatives under
        `#ifdef`/`#else`, those whose condition is not proved false for this chip (one, when
        the macros tell; `KernelModel.macro`)."""
        alts = self.model.constant_alternatives(name, file)
        if len(alts) < 2:
            return alts
        live = [d for d in alts
                if holds(self.model.condition(d), lambda m, d=d: self._macro(m, d)) is not False]
        return live or alts

    def compiled(self, fact: Located) -> bool:
        """Whether this chip's build may compile a fact: False only where its `#if` condition
        is proved false (another chip's `__CCE_AICORE__` branch, the `#else` of a macro the
        build defines: `KernelModel.macro`)."""
        return holds(self.model.condition(fact), lambda m: self._macro(m, fact)) is not False

    def _macro(self, name: str, at: Located) -> MacroState:
        if name == "__CCE_AICORE__":
            return True, self.chip.cce_aicore
        return self.model.macro(name, at.chunk.file, at.start)

    def _loop_range(self, name: str, start: Value, decl: Decl, depth: int) -> Value | None:
        """A loop counter inside its loop: from its start up to the bound (exclusive for <)."""
        assert decl.loop_bound is not None
        op, bound_expr = decl.loop_bound
        bound = self._eval(bound_expr, decl.chunk, decl.order, depth + 1)
        if bound is None:
            return None
        hi = bound.hi - 1 if op == "<" else bound.hi
        if hi < start.lo:
            return None
        v = Value(start.lo, hi, _merge(start, bound))
        return Value(v.lo, v.hi, (*v.notes, f"{name} in [{v.fmt()}] (loop)"))

    def _out_param(self, name: str, chunk: Chunk, after: int = 0,
                   before: int | None = None) -> Value | None:
        """`GetCoreMemSize(CoreMemType::UB, ubSize)` writes the UB size into ubSize."""
        for c in chunk.calls:
            if c.order <= after or (before is not None and c.order >= before):
                continue
            if (c.name == "GetCoreMemSize" and len(c.args) == 2
                    and c.args[1].text.strip() == name and "UB" in c.args[0].text):
                n = self.chip.ub_bytes
                return Value(n, n, (f"{name} = {n} (UB size of {self.chip.name})",))
        return None

    def _named(self, name: str, v: Value | None, fact) -> Value | None:
        if v is None:
            return None
        note = f"{name} = {v.fmt()} from {self.model.where(fact)}"
        return Value(v.lo, v.hi, (*v.notes, note))

    def _member(self, name: str, class_name: str, depth: int) -> Value | None:
        assigns = []
        for m in self.model.methods(class_name):
            for a in m.assigns:
                t = a.target
                if (t == ("id", name) and not any(d.name == name for d in m.decls)
                        and not self._is_param(m, name)) or (
                        t[0] == "f" and t[1] == ("this",) and t[2] == name):
                    assigns.append((m, a))
        member = self.model.members(class_name).get(name)
        if not assigns:
            if member is not None and member.init is not None:
                v = self._eval(member.init, member.chunk, None, depth + 1)
                return self._named(name, v, member)
            return None
        if any(a.op != "=" or a.loop_depth for _, a in assigns):
            return None
        vals = []
        for m, a in assigns:
            v = self._eval(a.value, m, a.order, depth + 1)
            if v is None:
                return None
            vals.append((v, a))
        lo = min(v.lo for v, _ in vals)
        hi = max(v.hi for v, _ in vals)
        merged = Value(lo, hi, _merge(*(v for v, _ in vals)))
        return self._named(name, merged, vals[-1][1])

    @staticmethod
    def _is_param(chunk: Chunk, name: str) -> bool:
        return bool(chunk.function and any(p.name == name for p in chunk.function.params))

    def _field(self, e: Expr, chunk: Chunk, order: int | None, depth: int) -> Value | None:
        base, name = e[1], e[2]
        if base == ("this",):
            if chunk.class_name:
                return self._member(name, chunk.class_name, depth)
            return None
        if self.is_tiling_field(e, chunk):
            return self.tiling_values().get(name)
        return None

    def is_tiling_field(self, e: Expr, chunk: Chunk) -> bool:
        """`td.x` or `td->x` where td holds the op's tiling data: the GET_TILING_DATA variable,
        a parameter bound to it (`Init(..., td)`, `Init(..., &td)`), or a variable declared with
        the tiling struct's type (`HypotTilingData* tiling_data`)."""
        if e[0] != "f" or e[1][0] != "id":
            return False
        var = e[1][1]
        if self._is_tiling_var(var, chunk):
            return True
        inline = self._inline.get(id(chunk))
        bound = (inline or {}).get(var) or self.bindings(chunk).get(var)
        if bound is not None:
            arg = bound[0][2] if bound[0][0] == "u" and bound[0][1] == "&" else bound[0]
            if arg[0] == "id" and self._is_tiling_var(arg[1], bound[1]):
                return True
        struct = self.model.tiling_struct()
        typed = self.model.param_type(chunk, var) or (
            d.type_text if (d := self.model.variable_decl(chunk, var)) is not None else None)
        return struct is not None and typed is not None and re.search(
            rf"\b{re.escape(struct.name)}\b", typed) is not None

    def _is_tiling_var(self, var: str, chunk: Chunk) -> bool:
        return any(t[0] == var for t in chunk.tiling_macro)

    # ------------------------------------------------------------------ bindings
    def bindings(self, chunk: Chunk) -> dict[str, tuple[Expr, Chunk, int]]:
        """Parameters of a method bound to the arguments of its single call site in the kernel
        (`op.Init(x, y, td.totalLength)` in the entry binds Init's third parameter)."""
        key = id(chunk)
        if key in self._bindings:
            return self._bindings[key]
        out: dict[str, tuple[Expr, Chunk, int]] = {}
        self._bindings[key] = out
        fn = chunk.function
        if fn is None or not fn.params:
            return out
        sites = []
        for call in self.model.calls_by_name.get(chunk.name, []):
            c = call.chunk
            if len(call.args) != len(fn.params):
                continue
            if chunk.class_name:
                recv = call.receiver_name
                if recv is None and call.receiver is None and c.class_name == chunk.class_name:
                    sites.append((c, call))  # a method calling a sibling method
                    continue
                d = self.model.variable_decl(c, recv) if recv else None
                if d is None or d.type_base != chunk.class_name:
                    continue
            elif call.receiver is not None:
                continue
            sites.append((c, call))
        if len(sites) == 1:
            c, call = sites[0]
            for p, a in zip(fn.params, call.args, strict=False):
                if p.name:
                    out[p.name] = (a.expr, c, call.order)
        return out

    # ------------------------------------------------------------------ host
    def host_tiling_function(self) -> Chunk | None:
        if self._host_fn is not None:
            return self._host_fn
        host = self.model.host_chunks()
        name = "TilingFunc"
        for c in host:
            for call in c.calls:
                if call.name == "SetTiling" and call.args:
                    name = call.args[0].text.strip().rsplit("::", 1)[-1]
        for c in host:
            if c.kind == "function" and c.name == name:
                self._host_fn = c
        return self._host_fn

    def tiling_values(self) -> dict[str, Value]:
        """Tiling fields the host TilingFunc sets, where their values can be computed."""
        if self._tiling is not None:
            return self._tiling
        self._tiling = {}
        fn = self.host_tiling_function()
        for field, expr, order, node in self.tiling_definitions():
            v = self.eval(expr, fn, order)
            if v is not None:
                self._tiling[field] = Value(v.lo, v.hi, (
                    *v.notes, f"{field} = {v.fmt()} from {self.model.where(node)}"))
        return self._tiling

    def tiling_definitions(self) -> list[tuple[str, Expr, int, object]]:
        """(field, expression, order, call or assignment) for each value the host TilingFunc
        gives a tiling field (`tiling.set_x(e)`, `tiling->x = e`), in source order per kind."""
        fn = self.host_tiling_function()
        if fn is None:
            return []
        struct = self.model.tiling_struct()
        fields = {f.name for f in struct.fields} if struct else set()
        out: list[tuple[str, Expr, int, object]] = [
            (call.name[4:], call.args[0].expr, call.order, call) for call in fn.calls
            if call.name.startswith("set_") and len(call.args) == 1]
        out += [(a.target[2], a.value, a.order, a) for a in fn.assigns
                if a.target[0] == "f" and a.target[2] in fields and a.op == "="]
        return out

    def block_dim(self) -> Value | None:
        """blockDim: the host's SetBlockDim, or `// kernelgen: block_dim=N` of a single file."""
        if self._block_dim is not None:
            return self._block_dim
        fn = self.host_tiling_function()
        if fn is not None and any(c.name == "SetBlockDim" for c in fn.calls):
            self._block_dim = self.block_dim_in(fn)
            return self._block_dim
        for path in self.model.kernel_files:
            doc = self.model.documents[path]
            idx = doc.text.find("kernelgen: block_dim=")
            if idx >= 0:
                digits = ""
                for ch in doc.text[idx + len("kernelgen: block_dim="):]:
                    if not ch.isdigit():
                        break
                    digits += ch
                if digits:
                    n = int(digits)
                    self._block_dim = Value(n, n, (f"block_dim = {n} from the "
                                                   f"`kernelgen: block_dim` comment",))
        return self._block_dim

    def block_dim_in(self, fn: Chunk) -> Value | None:
        """The blockDim the host function `fn` sets with SetBlockDim, where it can be computed."""
        for call in fn.calls:
            if call.name == "SetBlockDim" and call.args:
                v = self.eval(call.args[0].expr, fn, call.order)
                if v is None:
                    return None
                return Value(v.lo, v.hi, (
                    *v.notes, f"blockDim = {v.fmt()} from {self.model.where(call)}"))
        return None

    def describe(self, expr: Expr, v: Value) -> str:
        """`TILE * sizeof(float) = 65536 B (TILE = 16384 from k.cpp:3; sizeof(float) = 4)`."""
        why = v.why()
        return f"{render(expr)} = {v.fmt()}" + (f" ({why})" if why else "")
