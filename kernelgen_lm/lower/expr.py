"""Lowers a set of plan nodes to AscendC statements over float32 UB tiles or scalars.

An operand is either a scalar (a C++ float expression: constants, per-row stats, values read
once per row) or a tile (a LocalTensor<float>). Scalars fold into the tensor-scalar APIs
(Adds, Muls, Maxs, Mins); only what truly varies along the vector axis costs a tile. Tiles come
from a pool with liveness-based reuse, so long activation chains stay within a few tiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from kernelgen_lm.plan.ir import COMPARE_OPS, LEAF_OPS, KernelPlan

UNARY_API = {
    "exp": "Exp",
    "log": "Ln",
    "sqrt": "Sqrt",
    "rsqrt": "Rsqrt",
    "recip": "Reciprocal",
    "relu": "Relu",
    "abs": "Abs",
}
BINARY_API = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min"}
CMP_MODE = {"lt": "LT", "le": "LE", "gt": "GT", "ge": "GE", "eq": "EQ", "ne": "NE"}
SCALAR_BIN = {
    "add": "({a} + {b})",
    "sub": "({a} - {b})",
    "mul": "({a} * {b})",
    "div": "({a} / {b})",
    "max": "({a} > {b} ? {a} : {b})",
    "min": "({a} < {b} ? {a} : {b})",
}
# Rounding: float -> int32 with the mode, then back (exact); the plan keeps |x| < 2^23 here.
ROUND_MODE = {
    "floor": "CAST_FLOOR",
    "ceil": "CAST_CEIL",
    "trunc": "CAST_TRUNC",
    "rint": "CAST_RINT",
}
SCALAR_UN = {
    "trunc": "static_cast<float>(static_cast<int32_t>({a}))",
    "neg": "(-{a})",
    "abs": "({a} < 0.0f ? -{a} : {a})",
    "relu": "({a} > 0.0f ? {a} : 0.0f)",
    "recip": "(1.0f / {a})",
}
SCALAR_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def flit(v: float) -> str:
    if math.isinf(v):
        return "(3.402823466e+38f)" if v > 0 else "(-3.402823466e+38f)"
    if v != v:
        return "(0.0f / 0.0f)"
    s = repr(float(v))
    if "e" not in s and "." not in s:
        s += ".0"
    return f"({s}f)" if v < 0 else f"{s}f"


@dataclass
class Operand:
    kind: str  # "S" scalar or "T" tile
    text: str
    slot: int | None = None  # pool slot (tiles that may be reused)


@dataclass
class Program:
    """Straight-line code computing `targets`; leaves resolved by the caller's `leaf` callback."""

    plan: KernelPlan
    count: str  # element count variable of this program
    count64: str  # count rounded up to 64 (Compare works on whole 256-byte repeats)
    pool: str  # LocalTensor<float> holding the slots
    cap: str  # slot capacity in elements
    leaf: Callable[[int], Operand]
    lines: list[str] = field(default_factory=list)
    free: list[int] = field(default_factory=list)
    nslots: int = 0
    _tmp: int = 0

    def slot(self) -> tuple[int, str]:
        s = self.free.pop(0) if self.free else self._new()
        return s, f"{self.pool}[{s} * {self.cap}]"

    def _new(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def release(self, op: Operand) -> None:
        if op.slot is not None and op.slot not in self.free:
            self.free.append(op.slot)
            self.free.sort()

    def var(self, text: str) -> Operand:
        self._tmp += 1
        name = f"f{self._tmp}"
        self.lines.append(f"float {name} = {text};")
        return Operand("S", name)

    def tile_of(self, op: Operand) -> tuple[Operand, bool]:
        """A tile holding `op` (a fresh scratch tile for a scalar); True when it is scratch."""
        if op.kind == "T":
            return op, False
        s, t = self.slot()
        self.lines.append(f"Duplicate({t}, {op.text}, {self.count});")
        return Operand("T", t, s), True

    def run(self, targets: list[int]) -> list[Operand]:
        nodes = self.plan.nodes
        need: set[int] = set()
        stack = list(targets)
        while stack:
            i = stack.pop()
            if i in need:
                continue
            need.add(i)
            if nodes[i].op not in LEAF_OPS:
                stack.extend(nodes[i].args)
        order = sorted(need)
        last: dict[int, int] = {}
        for i in order:
            for a in nodes[i].args:
                last[a] = max(last.get(a, -1), i)
        for t in targets:
            last[t] = 1 << 30
        val: dict[int, Operand] = {}
        for i in order:
            n = nodes[i]
            if n.op in LEAF_OPS:
                val[i] = self.leaf(i)
                continue
            args = [val[a] for a in n.args]
            dying = [val[a] for a in set(n.args) if last.get(a) == i]
            val[i] = self.emit(n.op, args, dying)
            for a in set(n.args):
                if last.get(a) == i and (val[a].slot is None or val[a].slot != val[i].slot):
                    self.release(val[a])
        return [val[t] for t in targets]

    # ---------------------------------------------------------------- one node
    def emit(self, op: str, args: list[Operand], dying: list[Operand]) -> Operand:
        c = self.count
        if all(a.kind == "S" for a in args) and self._scalar_ok(op):
            return self.var(self._scalar(op, [a.text for a in args]))
        if op in ("exp", "log", "sqrt", "rsqrt", *ROUND_MODE) and args[0].kind == "S":
            s, t = self.slot()
            self.lines.append(f"Duplicate({t}, {args[0].text}, {c});")
            self._unary(op, t, t)
            return Operand("T", t, s)
        # Destination: reuse the slot of an argument that dies here (full overlap is allowed).
        reuse = next((a for a in dying if a.slot is not None and a.kind == "T"), None)
        if reuse is not None and op not in ("div", *COMPARE_OPS):
            s, t = reuse.slot, reuse.text
            self.free = [f for f in self.free if f != s]
            dst = Operand("T", t, s)
        else:
            s2, t2 = self.slot()
            dst = Operand("T", t2, s2)
        d = dst.text
        if op in UNARY_API or op in ROUND_MODE:
            self._unary(op, d, args[0].text)
        elif op == "neg":
            self.lines.append(f"Muls({d}, {args[0].text}, -1.0f, {c});")
        elif op in BINARY_API:
            self._binary(op, d, args[0], args[1])
        elif op in COMPARE_OPS:
            a, sa = self.tile_of(args[0])
            b, sb = self.tile_of(args[1])
            self.lines.append(
                f"Compare(cmpMask, {a.text}, {b.text}, CMPMODE::{CMP_MODE[op]}, {self.count64});"
            )
            self.lines.append(f"Duplicate({d}, 1.0f, {c});")
            self.lines.append(
                f"Select({d}, cmpMask, {d}, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, {c});"
            )
            for t, scratch in ((a, sa), (b, sb)):
                if scratch:
                    self.release(t)
        elif op == "where":
            cond, sc = self.tile_of(args[0])
            zero_s, zero = self.slot()
            self.lines.append(f"Duplicate({zero}, 0.0f, {c});")
            self.lines.append(
                f"Compare(cmpMask, {cond.text}, {zero}, CMPMODE::NE, {self.count64});"
            )
            self.release(Operand("T", zero, zero_s))
            if sc:
                self.release(cond)
            a, sa = self.tile_of(args[1])
            b, sb = self.tile_of(args[2])
            self.lines.append(
                f"Select({d}, cmpMask, {a.text}, {b.text}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {c});"
            )
            for t, scratch in ((a, sa), (b, sb)):
                if scratch:
                    self.release(t)
        else:
            raise ValueError(f"no lowering for plan op {op}")
        return dst

    def _unary(self, op: str, d: str, a: str) -> None:
        c = self.count
        if op in ROUND_MODE:
            as_int = f"{d}.ReinterpretCast<int32_t>()"
            self.lines.append(f"Cast({as_int}, {a}, RoundMode::{ROUND_MODE[op]}, {c});")
            self.lines.append(f"Cast({d}, {as_int}, RoundMode::CAST_NONE, {c});")
        else:
            self.lines.append(f"{UNARY_API[op]}({d}, {a}, {c});")

    def _binary(self, op: str, d: str, a: Operand, b: Operand) -> None:
        c = self.count
        if a.kind == "T" and b.kind == "T":
            self.lines.append(f"{BINARY_API[op]}({d}, {a.text}, {b.text}, {c});")
            return
        if a.kind == "T":  # tile op scalar
            t, s = a.text, b.text
            form = {
                "add": f"Adds({d}, {t}, {s}, {c});",
                "sub": f"Adds({d}, {t}, -{s}, {c});",
                "mul": f"Muls({d}, {t}, {s}, {c});",
                "div": f"Muls({d}, {t}, 1.0f / {s}, {c});",
                "max": f"Maxs({d}, {t}, {s}, {c});",
                "min": f"Mins({d}, {t}, {s}, {c});",
            }
            self.lines.append(form[op])
            return
        t, s = b.text, a.text  # scalar op tile
        if op in ("add", "mul", "max", "min"):
            api = {"add": "Adds", "mul": "Muls", "max": "Maxs", "min": "Mins"}[op]
            self.lines.append(f"{api}({d}, {t}, {s}, {c});")
        elif op == "sub":
            self.lines.append(f"Muls({d}, {t}, -1.0f, {c});")
            self.lines.append(f"Adds({d}, {d}, {s}, {c});")
        else:  # div: d is never an argument's slot here
            self.lines.append(f"Duplicate({d}, {s}, {c});")
            self.lines.append(f"Div({d}, {d}, {t}, {c});")

    @staticmethod
    def _scalar_ok(op: str) -> bool:
        return op in SCALAR_BIN or op in SCALAR_UN or op in SCALAR_CMP or op == "where"

    @staticmethod
    def _scalar(op: str, a: list[str]) -> str:
        if op in SCALAR_BIN:
            return SCALAR_BIN[op].format(a=a[0], b=a[1])
        if op in SCALAR_UN:
            return SCALAR_UN[op].format(a=a[0])
        if op in SCALAR_CMP:
            return f"({a[0]} {SCALAR_CMP[op]} {a[1]} ? 1.0f : 0.0f)"
        return f"({a[0]} != 0.0f ? {a[1]} : {a[2]})"
