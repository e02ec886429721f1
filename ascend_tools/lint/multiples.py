"""What a copy count is surely a multiple of, and whether it is a tail, by following its
definitions (locals, every call site of a parameter, member assignments, constants, tiling
fields through what the host TilingFunc sets them to). The datacopy-align rule uses it when the
count has no single value: a tail such as `length - i * tile` from runtime shapes may be
unaligned (a warning); a count built as `x / block * block` or `CeilAlign(x, 8)` is aligned
whatever x is (no warning)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ascend_tools.lint.context import LintContext
from ascend_tools.parse.expr import Expr, render
from ascend_tools.parse.facts import Chunk, Define

_TAIL_NAME = re.compile(r"tail|remain|last|rest", re.I)
_ALIGN_CALL = re.compile(r"align|roundup|round_up", re.I)
_ALIGNED_NAME = re.compile(r"alig", re.I)  # ...Aligned, ..._align, and the common "Aliged"
_MAX_DEPTH = 16  # a kernel count through members, tiling fields and host locals
_ANY = 1 << 40  # the multiple of 0: every number divides it


@dataclass(frozen=True)
class Multiple:
    """`elems` elements times, when `block`, the elements of one 32-byte block of the copied
    type (`32 / sizeof(T)`, whatever T is)."""

    elems: int
    block: bool = False

    def times(self, other: Multiple) -> Multiple:
        return Multiple(min(self.elems * other.elems, _ANY), self.block or other.block)

    def common(self, other: Multiple) -> Multiple:
        return Multiple(math.gcd(self.elems, other.elems), self.block and other.block)

    def aligned(self, elem_bytes: int) -> bool:
        return self.block or (self.elems * elem_bytes) % 32 == 0


_ONE = Multiple(1)


def _rounds(quotient: Expr, factor: Expr) -> bool:
    """`(x ...) / A` times the same A whose value is not known: the author rounds to A, an
    alignment the host chose (a wrong A is another bug; an exact A is checked by value)."""
    return quotient[0] == "b" and quotient[1] == "/" and render(quotient[3]) == render(factor) \
        and factor[0] in ("id", "f")


class CountFacts:
    """Multiples and tail evidence of count expressions in one lint context."""

    def __init__(self, ctx: LintContext) -> None:
        self.ctx = ctx
        self._busy: set[tuple[int, str]] = set()

    # ---------------------------------------------------------------- definitions
    def definitions(self, name: str, chunk: Chunk) -> list[tuple[Expr, Chunk]]:
        """Every expression `name` may hold in `chunk`: its local definitions, else the
        arguments of every call site of the function (a parameter), else its member
        assignments, else a constant's value. Empty when none is known."""
        model = self.ctx.model
        local = [(d.init, chunk) for d in chunk.decls if d.name == name and d.init is not None]
        local += [(a.value, chunk) for a in chunk.assigns
                  if a.target == ("id", name) and a.op == "="]
        declared = any(d.name == name for d in chunk.decls)
        if local or declared:
            return local if all(a.op == "=" for a in chunk.assigns
                                if a.target == ("id", name)) else []
        fn = chunk.function
        params = [p.name for p in fn.params] if fn is not None else []
        if name in params:
            i = params.index(name)
            sites = [c for c in model.calls_by_name.get(chunk.name, [])
                     if len(c.args) == len(params)]
            return [(c.args[i].expr, c.chunk) for c in sites]
        if chunk.class_name:
            member = self.member_definitions(name, chunk.class_name)
            if member:
                return member
        consts = self.ctx.ev.constant_definitions(name, chunk.file)
        exprs = [(c.value if isinstance(c, Define) else c.init, c.chunk) for c in consts]
        return [(e, c) for e, c in exprs if e is not None]

    def member_definitions(self, name: str, class_name: str) -> list[tuple[Expr, Chunk]]:
        out: list[tuple[Expr, Chunk]] = []
        for m in self.ctx.model.methods(class_name):
            if any(d.name == name for d in m.decls):
                continue
            for a in m.assigns:
                if a.target in (("id", name), ("f", ("this",), name)):
                    if a.op != "=":
                        return []
                    out.append((a.value, m))
        member = self.ctx.model.members(class_name).get(name)
        if not out and member is not None and member.init is not None:
            out.append((member.init, member.chunk))
        return out

    def _follow(self, name: str, chunk: Chunk) -> list[tuple[Expr, Chunk]] | None:
        key = (id(chunk), name)
        if key in self._busy:
            return None
        return self.definitions(name, chunk)

    # ---------------------------------------------------------------- multiples
    def multiple(self, e: Expr, chunk: Chunk, depth: int = 0) -> Multiple:
        """A number `e` is surely a multiple of (1 when nothing is known)."""
        if depth > _MAX_DEPTH or not e:
            return _ONE
        tag = e[0]
        if tag == "n":
            v = e[1]
            if isinstance(v, float) and not v.is_integer():
                return _ONE
            return Multiple(abs(int(v)) or _ANY)
        v = self.ctx.ev.eval(e, chunk)
        if v is not None and v.exact and float(v.lo).is_integer():
            return Multiple(abs(int(v.lo)) or _ANY)
        if self._is_block(e, chunk, depth):
            return Multiple(1, True)
        if tag in ("cast", "u"):
            return self.multiple(e[2], chunk, depth + 1) if tag == "cast" or e[1] in "+-" else (
                _ONE)
        if tag == "b":
            op, a, b = e[1], e[2], e[3]
            if op == "*":
                if _rounds(a, b) or _rounds(b, a):  # x / A * A: rounded to A on purpose
                    known = self.multiple(b if _rounds(a, b) else a, chunk, depth + 1)
                    return known if known.elems > 1 else Multiple(1, True)
                return self.multiple(a, chunk, depth + 1).times(self.multiple(b, chunk, depth + 1))
            if op in ("+", "-", "%"):
                return self.multiple(a, chunk, depth + 1).common(
                    self.multiple(b, chunk, depth + 1))
            if op == "<<":
                s = self.ctx.ev.eval(b, chunk)
                if s is not None and s.exact and 0 <= s.lo < 32:
                    return self.multiple(a, chunk, depth + 1).times(Multiple(1 << int(s.lo)))
            return _ONE
        if tag == "t":
            return self.multiple(e[2], chunk, depth + 1).common(self.multiple(e[3], chunk,
                                                                              depth + 1))
        if tag == "c":
            name, args = e[1], e[3]
            if name.lower() in ("min", "max") and len(args) == 2:
                return self.multiple(args[0], chunk, depth + 1).common(
                    self.multiple(args[1], chunk, depth + 1))
            if _ALIGN_CALL.search(name) and len(args) == 2:
                return self.multiple(args[1], chunk, depth + 1)
            return _ONE
        if tag in ("id", "f"):
            defs = self._defs_of(e, chunk)
            if not defs:
                return _ONE
            key = (id(chunk), render(e))
            self._busy.add(key)
            try:
                out: Multiple | None = None
                for expr, where in defs:
                    m = self.multiple(expr, where, depth + 1)
                    out = m if out is None else out.common(m)
                return out or _ONE
            finally:
                self._busy.discard(key)
        return _ONE

    def _defs_of(self, e: Expr, chunk: Chunk) -> list[tuple[Expr, Chunk]] | None:
        if e[0] == "id":
            return self._follow(e[1], chunk)
        ev = self.ctx.ev
        if e[0] == "f" and ev.is_tiling_field(e, chunk):  # what the host TilingFunc sets it to
            fn = ev.host_tiling_function()
            defs = [(x, fn) for field, x, _, _ in ev.tiling_definitions() if field == e[2]]
            return defs if fn is not None and defs else None
        if e[0] == "f" and e[1] == ("this",) and chunk.class_name:
            key = (id(chunk), render(e))
            return None if key in self._busy else self.member_definitions(e[2], chunk.class_name)
        return None

    def _is_block(self, e: Expr, chunk: Chunk, depth: int) -> bool:
        """`32 / sizeof(T)` (or a name defined as that): the elements of one block."""
        if e[0] == "b" and e[1] == "/" and e[3] and e[3][0] == "sz":
            v = self.ctx.ev.eval(e[2], chunk)
            return v is not None and v.exact and v.lo % 32 == 0 and v.lo > 0
        if e[0] == "id" and depth < _MAX_DEPTH:
            defs = self._follow(e[1], chunk) or []
            return bool(defs) and all(self._is_block(x, c, depth + 1) for x, c in defs)
        return False

    # ---------------------------------------------------------------- tails
    def tail(self, e: Expr, chunk: Chunk, depth: int = 0) -> str | None:
        """How the count comes from a remainder (`length - i * tile`, `len % tile`, a field
        named tail...), as text for the message; None when it does not."""
        if depth > _MAX_DEPTH or not e:
            return None
        tag = e[0]
        if tag == "b" and e[1] in ("-", "%"):
            return render(e)
        if tag in ("id", "f"):
            name = e[1] if tag == "id" else e[2]
            if isinstance(name, str) and _ALIGNED_NAME.search(name):
                return None  # the author names it aligned: the rounding is theirs to keep
            if isinstance(name, str) and _TAIL_NAME.search(name):
                return render(e)
            defs = self._defs_of(e, chunk) or []
            key = (id(chunk), render(e))
            self._busy.add(key)
            try:
                for expr, where in defs:
                    found = self.tail(expr, where, depth + 1)
                    if found is not None:
                        own = render(e)
                        return found if found == own or found.startswith(f"{own} = ") else (
                            f"{own} = {found}")
            finally:
                self._busy.discard(key)
            return None
        parts: list[Expr] = []
        if tag == "b":
            parts = [e[2], e[3]]
        elif tag in ("u", "cast"):
            parts = [e[2]]
        elif tag == "t":
            parts = [e[2], e[3]]
        elif tag == "c" and e[1].lower() in ("min", "max"):
            parts = list(e[3])
        for p in parts:
            found = self.tail(p, chunk, depth + 1)
            if found is not None:
                return found
        return None
