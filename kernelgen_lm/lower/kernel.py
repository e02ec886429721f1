"""Plan -> `op_kernel/<op>.cpp`: one AscendC vector kernel for the whole fused plan.

Layout of the generated kernel (the plan's mode picks the loop nest):

- work units: elementwise and column mode take (outer index, vector tile); row mode takes a
  row (kept indices). Units are split over cores big/small (the first `bigCores` cores take
  one unit more), so any shape balances within one unit;
- row mode with fewer rows than cores: each row's tiles are split over `coresPerRow` cores
  (big/small again); every stage publishes its per-core partial to a 64-byte workspace slot,
  `SyncAll()`, and each core combines its row's partials in core order (same result on every
  core: deterministic). Global stages (over all rows) publish per-core partials the same way
  after the row loop; core 0 combines them and writes the whole-tensor results;
- per unit: reduction stages walk the reduced axes (segments) and the vector axis in tiles,
  then the outputs are written; row-mode stats are scalars, column-mode stats are tiles;
- data movement: TQue VECIN/VECOUT per tensor (double buffered), TBuf pools for float math;
  tails use DataCopyPad on chips that have it, else a 32-byte-aligned DataCopy plus scalar
  stores for the last few elements.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ascend_tools.catalog import load_catalog
from ascend_tools.catalog.cast_table import cast_problem
from ascend_tools.chips import Chip
from kernelgen_lm.lower.expr import Operand, Program, flit
from kernelgen_lm.plan.ir import (
    GATHER_STEP_PATTERN,
    DimExpr,
    KernelPlan,
    OutWindow,
    PlanOutput,
    Read,
)

CTYPE = {
    "float32": "float",
    "float16": "half",
    "bfloat16": "bfloat16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "bool": "uint8_t",
}
DSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8, "bool": 1}
SMALL = 64  # elements of a small tile (one 256-byte repeat of float)
PART = 16  # floats per cross-core partial slot: value x8, then index x8 (32-byte halves)
# Stage op -> vector API folding a tile into a tile accumulator / reducing a tile to one value.
ACC_API = {"sum": "Add", "prod": "Mul", "max": "Max", "min": "Min"}
REDUCE_API = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}
# Continuous-form vector APIs whose destination (first argument) may be an output tile directly.
DIRECT_API = frozenset(
    {
        *("Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "Exp"),
        *("Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "LeakyRelu", "Duplicate"),
    }
)
# Stage op -> scalar expression folding a part `{p}` into a running value `{a}`.
COMBINE = {
    "sum": "{a} + {p}",
    "prod": "{a} * {p}",
    "max": "({p} > {a} ? {p} : {a})",
    "min": "({p} < {a} ? {p} : {a})",
}


@dataclass
class Tensor:
    var: str  # C++ identifier stem
    dtype: str
    mask: list[bool]
    span: frozenset[int] = frozenset()  # axes it is longer than the domain on (read by slices)
    # axis -> its extent as C++ where a multiple of the domain's (a cat of computed tensors)
    ext: dict[int, str] = field(default_factory=dict)


def view_fields(plan: KernelPlan) -> list[tuple[str, DimExpr, str]]:
    """Runtime sizes of the sliced reads, as tiling fields (name, size, comment): each sliced
    input's extent along the axes it is longer than the domain on, each read's offset."""
    names = [t.name for t in plan.inputs]
    out = []
    for i, t in enumerate(plan.inputs):
        if t.used:
            for k, e in sorted(t.span.items()):
                out.append((f"span{i}_{k}", e, f"{t.name}'s extent along a{k}: {e.text(names)}"))
    for n in plan.nodes:
        r = n.read
        if r is not None and plan.inputs[n.index or 0].used:
            name = names[n.index or 0]
            text = r.offset.text(names)
            out.append(
                (
                    f"off{n.id}",
                    r.offset,
                    f"offset of a read of {name} along a{r.axis}: {'-' if r.back else '+'}{text}",
                )
            )
            for k, e in sorted(r.shifts.items()):
                out.append(
                    (f"sh{n.id}_{k}", e, f"offset of that read along a{k}: +{e.text(names)}")
                )
            for side, e in (("lo", r.lo), ("hi", r.hi)):
                if e is not None and r.fill is not None:
                    what = "before" if side == "lo" else "from"
                    out.append(
                        (
                            f"{side}{n.id}",
                            e,
                            f"the read of {name} along a{r.axis} is the fill {what} "
                            f"position {e.text(names)}",
                        )
                    )
    return out


def narrowing_mode(chip: Chip, src: str, dst: str) -> str:
    """RoundMode for a narrowing Cast: CAST_RINT where the chip documents it for the pair, else
    CAST_NONE (round to nearest even when inexact; 310P/910 float -> half has no CAST_RINT)."""
    return "CAST_RINT" if cast_problem(chip.arch, src, dst, "CAST_RINT") is None else "CAST_NONE"


def tiling_fields(plan: KernelPlan) -> list[tuple[str, str]]:
    """(name, comment) of the tiling struct's uint32 fields, in order."""
    fields = [
        (f"dim{k}", f"domain axis a{k} ({'reduced' if a.reduced else 'kept'})")
        for k, a in enumerate(plan.axes)
    ]
    fields += [(name, comment) for name, _, comment in view_fields(plan)]
    fields += [
        ("tileLen", "elements per UB tile of the vector axis (multiple of 64)"),
        ("unitsPerCore", "work units of a small core"),
        ("bigCores", "cores that take one unit more"),
    ]
    if splits_rows(plan):
        fields += [
            ("coresPerRow", "cores sharing one row (1: whole rows per core)"),
            ("tilesPerPart", "(segment, tile) steps of a row each of its cores walks"),
            ("bigParts", "cores of a row that walk one step more"),
        ]
    return fields


def splits_rows(plan: KernelPlan) -> bool:
    """Row mode can split a row over cores (scans are sequential along the row: never)."""
    return plan.mode == "row" and not plan.has_scan


def syncs_cores(plan: KernelPlan) -> bool:
    """The kernel exchanges partials through the workspace (and calls SyncAll)."""
    return splits_rows(plan) or any(st.scope == "global" for st in plan.stages)


class KernelEmitter:
    def __init__(self, plan: KernelPlan, chip: Chip) -> None:
        self.plan = plan
        self.chip = chip
        self.K = len(plan.axes)
        self.V = self.K - 1
        self.mode = plan.mode
        self.ins = [
            Tensor(f"in{i}", t.dtype, t.mask, frozenset(t.span)) for i, t in enumerate(plan.inputs)
        ]
        # Sliced reads along the vector axis get a queue each (two halves of one input are
        # two tiles in flight); the plain read of an input keeps q_<var>.
        self.view_queues = {
            n.id: f"q_in{n.index}_n{n.id}"
            for n in plan.nodes
            if n.op == "input" and n.read is not None and plan.inputs[n.index or 0].mask[-1]
        }
        self.plain_reads = {n.index or 0 for n in plan.nodes if n.op == "input" and n.read is None}
        self.ranged = any(
            n.read is not None and n.read.fill is not None and n.read.axis == len(plan.axes) - 1
            for n in plan.nodes
        )
        kept = [not a.reduced for a in plan.axes]
        masks = {"full": [True] * self.K, "reduced": kept, "scalar": [False] * self.K}
        self.outs = [
            Tensor(f"out{j}", o.dtype, masks[o.level], ext=self.cat_extent(o))
            for j, o in enumerate(plan.outputs)
        ]
        self.reduced_nv = [k for k in range(self.V) if plan.axes[k].reduced]
        if self.mode == "elementwise":
            self.unit_axes = list(range(self.V))
        else:
            self.unit_axes = [k for k in range(self.V) if not plan.axes[k].reduced]
        self.nslots = 1
        self.nsmall = 1
        self.scan = next((st for st in plan.stages if st.scope == "scan"), None)
        self.uses_acc = self.mode == "column" or self.scan is not None
        self.col_arg = self.mode == "column" and any(
            st.op in ("argmax", "argmin") for st in plan.stages
        )
        self.acc_tiles = len(plan.stages) * (2 if self.col_arg else 1)
        self.has_global = any(st.scope == "global" for st in plan.stages)
        self.split = splits_rows(plan)
        self.resident = False  # row inputs held in UB for every stage (one GM read)
        self.sync = syncs_cores(plan)
        self.needs_reduce_bufs = self.mode == "row" or self.has_global
        self.iota_v = any(n.op == "iota" and n.index == self.V for n in plan.nodes)
        self.uses_compare = self.col_arg or any(
            n.op in ("lt", "le", "gt", "ge", "eq", "ne", "where") for n in plan.nodes
        )

    # ---------------------------------------------------------------- static facts for the host
    def bytes_per_element(self) -> int:
        """UB bytes one element of tile length costs (queues are double buffered)."""
        b = 0
        for i, (t, used) in enumerate(zip(self.ins, self.plan.inputs, strict=True)):
            if used.used and t.mask[self.V] and i in self.plain_reads:
                b += 2 * DSIZE[t.dtype]
        for nid in self.view_queues:
            n = self.plan.nodes[nid]
            step = n.read.step if n.read is not None else 1  # a stepped read loads step x
            b += 2 * step * DSIZE[self.ins[n.index or 0].dtype]
        for t in self.outs:
            b += 2 * DSIZE[t.dtype]
        b += 4 * self.nslots
        if self.uses_acc:
            b += 4 * self.acc_tiles
        if self.needs_reduce_bufs:
            b += 4  # ReduceSum/Max work area
        if self.iota_v:
            b += 4  # positions along the vector axis
        if self.uses_compare:
            b += 1
        return b

    @staticmethod
    def cat_extent(o: PlanOutput) -> dict[int, str]:
        """A cat of computed parts is as long as all its parts along the cat axis; a slice of
        a computed value as its stored range."""
        if o.window is not None:  # a slice of a computed value: as long as its range
            return {o.window.axis: str(o.window.hi - o.window.lo)}
        if not o.parts or o.cat_axis is None:
            return {}
        return {o.cat_axis: f"(d{o.cat_axis} * {len(o.parts)})"}

    # ---------------------------------------------------------------- helpers
    def extent(self, t: Tensor, j: int) -> str:
        """The tensor's size along axis j: the domain's, or its own where slices read it."""
        if j in t.ext:
            return t.ext[j]
        return f"e_{t.var}_{j}" if j in t.span else f"d{j}"

    def stride(self, t: Tensor, k: int) -> str:
        later = [self.extent(t, j) for j in range(k + 1, self.K) if t.mask[j]]
        return " * ".join(later) if later else "1"

    def numel(self, t: Tensor) -> str:
        dims = [self.extent(t, j) for j in range(self.K) if t.mask[j]]
        return " * ".join(dims) if dims else "1"

    def offset(self, t: Tensor, axes: list[int], idx: str) -> str:
        terms = [f"{idx}{k} * st_{t.var}_{k}" for k in axes if t.mask[k]]
        return " + ".join(terms) if terms else "0"

    def all_tensors(self) -> list[Tensor]:
        return [t for t, p in zip(self.ins, self.plan.inputs, strict=True) if p.used] + self.outs

    # ---------------------------------------------------------------- programs
    def program(
        self,
        targets: list[int],
        *,
        small: bool,
        chunk: str,
        seg: bool,
        lines: list[str],
        indent: str,
    ) -> tuple[list[Operand], list[str]]:
        """Emits loads + math for `targets`; returns their operands and the cleanup lines."""
        plan = self.plan
        loaded: dict[int, Operand] = {}
        cleanup: list[str] = []
        count = "1" if small else "len"
        pool, cap = ("smallPool", str(SMALL)) if small else ("pool", "tileLen")

        def leaf(i: int) -> Operand:
            n = plan.nodes[i]
            if n.op == "const":
                return Operand("S", flit(n.value or 0.0))
            if n.op == "count":
                return Operand("S", "cntF")
            if n.op == "gcount":
                return Operand("S", "gcntF")
            if n.op == "iota":
                k = n.index or 0
                if k != self.V:
                    return Operand(
                        "S", f"static_cast<float>({'r' if k in self.reduced_nv else 'o'}{k})"
                    )
                s, tile = prog.slot()
                prog.lines.append(f"Adds({tile}, iotaBase, static_cast<float>({chunk}), len);")
                return Operand("T", tile, s)
            if n.op == "stat" and plan.stages[n.index or 0].scope == "global":
                return Operand("S", f"gstat{n.index}")
            if n.op == "stat" and plan.stages[n.index or 0].scope == "scan":
                return Operand("T", f"acc{n.index}")
            if n.op == "stat":
                if self.mode == "row" or small:
                    return Operand("S", f"stat{n.index}")
                return Operand("T", f"acc{n.index}")
            idx = n.index or 0
            t = self.ins[idx]
            off = f"base_{t.var}" + (f" + seg_{t.var}" if seg and self.reduced_nv else "")
            r = n.read
            # A sliced read: its own tile name, the offset along its axis, and (shifted reads
            # of a cat with a constant block) the condition of reading the fill instead.
            lv = f"l_{t.var}" if r is None else f"l_{t.var}_n{i}"
            outside = None if r is None else self.outside(r, i, self.position(r.axis))
            for k in sorted(r.shifts) if r is not None else []:
                off += f" + sh{i}_{k} * st_{t.var}_{k}"  # plain offsets along other axes
            if r is not None and r.axis != self.V:
                pos = self.position(r.axis)
                st = f"st_{t.var}_{r.axis}"
                if outside is None:
                    off += f" {'-' if r.back else '+'} off{i} * {st}"
                elif r.back:
                    # outside the input's range: read its first row, then fill the tile
                    off += f" - ({outside} ? {pos} : off{i}) * {st}"
                else:
                    off += f" + ({outside} ? 0 : off{i}) * {st} - ({outside} ? {pos} : 0) * {st}"
            vchunk = chunk
            if r is not None and r.axis == self.V and not r.back:
                vchunk = f"{chunk} + off{i}" if r.step == 1 else f"{chunk} * {r.step} + off{i}"
            if not t.mask[self.V] or small:
                name = f"v_{t.var}" if r is None else f"v_{t.var}_n{i}"
                at = off
                if r is not None and r.axis == self.V:
                    outside = self.outside(r, i, chunk)
                    sign = "-" if r.back else "+"
                    at = f"{off} + {chunk} {sign} off{i}"
                    if r.step != 1:
                        at = f"{off} + {vchunk}"
                    if outside is not None:
                        at = f"{outside} ? {off} : {at}"
                value = f"static_cast<float>(gm_{t.var}.GetValue({at}))"
                if outside is not None:
                    value = f"({outside}) ? {flit(r.fill or 0.0)} : {value}"  # type: ignore[union-attr]
                prog.lines.append(f"float {name} = {value};")
                return Operand("S", name)
            if i in loaded:
                return loaded[i]
            ct = CTYPE[t.dtype]
            q = self.view_queues.get(i, f"q_{t.var}")
            pre = prog.lines
            resident = self.resident and r is None
            src = f"r_{t.var}" if resident else lv  # r_: held for the row
            if not resident:
                pre.append(f"LocalTensor<{ct}> {lv} = {q}.AllocTensor<{ct}>();")
                if r is not None and r.axis == self.V and outside is not None:
                    ranged = self.ranged_copy(i, t, lv, off, chunk)
                    pre += ranged
                elif r is not None and r.step != 1:
                    span = f"{r.step} * (len - 1) + 1"  # the tile's elements and those between
                    pre.append(f"CopyInTile({lv}, gm_{t.var}[{off} + {vchunk}], {span});")
                else:
                    pre.append(f"CopyInTile({lv}, gm_{t.var}[{off} + {vchunk}], len);")
                pre.append(f"{q}.EnQue({lv});")
                pre.append(f"{lv} = {q}.DeQue<{ct}>();")
            free = [] if resident else [f"{q}.FreeTensor({lv});"]
            if r is not None and r.step != 1:
                op = self.gathered(prog, i, t, lv, free)
            elif t.dtype == "float32":
                op = Operand("T", src)
                cleanup.extend(free)
            elif t.dtype == "bool":
                # bool masks: uint8 -> half -> float (no direct uint8 -> float cast)
                sh, th = prog.slot()
                s, tile = prog.slot()
                pre.append(f"LocalTensor<half> h_{t.var} = {th}.ReinterpretCast<half>();")
                pre.append(f"Cast(h_{t.var}, {src}, RoundMode::CAST_NONE, len);")
                pre.extend(free)
                pre.append(f"Cast({tile}, h_{t.var}, RoundMode::CAST_NONE, len);")
                prog.release(Operand("T", th, sh))
                op = Operand("T", tile, s)
            else:
                s, tile = prog.slot()
                # int64_t -> float documents only the rounding modes (no CAST_NONE); the values
                # here are exact small integers, so RINT is exact
                mode = "CAST_RINT" if t.dtype == "int64" else "CAST_NONE"
                pre.append(f"Cast({tile}, {src}, RoundMode::{mode}, len);")
                pre.extend(free)
                op = Operand("T", tile, s)
            if outside is not None and r is not None and r.axis != self.V:
                fv = flit(r.fill or 0.0)
                pre.append(f"if ({outside}) {{  // outside the input's range: the cat's constant")
                pre.append(f"    Duplicate({op.text}, {fv}, len);")
                pre.append("}")
            elif outside is not None and r is not None:
                fv = flit(r.fill or 0.0)
                pre.append(f"if (h{i} > 0) {{  // whole blocks before the input's range")
                pre.append(f"    Duplicate({op.text}, {fv}, h{i});")
                pre.append("}")
                pre.append(f"if (e{i} < len) {{  // whole blocks after it")
                pre.append(f"    Duplicate({op.text}[e{i}], {fv}, len - e{i});")
                pre.append("}")
            loaded[i] = op
            return op

        prog = Program(
            plan=plan,
            count=count,
            count64="len64" if not small else str(SMALL),
            pool=pool,
            cap=cap,
            leaf=leaf,
        )
        res = prog.run(targets)
        self._prog = prog
        self.note_slots(small)
        lines += [indent + x for x in prog.lines]
        return res, cleanup

    def note_slots(self, small: bool) -> None:
        """Grows the small or the tile pool to the slots the last program has used."""
        if small:
            self.nsmall = max(self.nsmall, self._prog.nslots)
        else:
            self.nslots = max(self.nslots, self._prog.nslots)

    def as_tile(self, op: Operand, lines: list[str], indent: str, small: bool) -> str:
        if op.kind == "T":
            return op.text
        _, t = self._prog.slot()
        self.note_slots(small)
        lines.append(f"{indent}Duplicate({t}, {op.text}, {'1' if small else 'len'});")
        return t

    def store(
        self,
        j: int,
        op: Operand,
        off: str,
        count: str,
        lines: list[str],
        ind: str,
        small: bool,
        redirect: bool = False,
    ) -> None:
        """Writes `op` to output `j` at GM offset `off`. A float32 result whose last
        instruction wrote a work tile is written straight into the output tile instead (no
        UB -> UB copy) when `redirect` (no other output reads that work tile)."""
        t = self.outs[j]
        ct = CTYPE[t.dtype]
        tile = self.as_tile(op, lines, ind, small)
        q = f"q_{t.var}"
        alloc = f"{ind}LocalTensor<{ct}> o_{t.var} = {q}.AllocTensor<{ct}>();"
        last = lines[-1] if lines else ""
        call = re.match(rf"\s*(\w+)(<float>)?\({re.escape(tile)}, ", last)
        if (
            redirect
            and t.dtype == "float32"
            and tile.startswith(("pool[", "smallPool["))
            and call is not None
            and call.group(1) in DIRECT_API
        ):
            lines[-1] = last.replace(f"({tile}, ", f"(o_{t.var}, ", 1)
            lines.insert(len(lines) - 1, alloc)
        elif t.dtype == "float32":
            lines.append(alloc)
            lines.append(f"{ind}DataCopy(o_{t.var}, {tile}, CeilAlign({count}, 8));")
        else:
            lines.append(alloc)
        chip = self.chip
        if t.dtype in ("int32", "int64"):  # indices: exact small integers held in float
            mode = narrowing_mode(chip, "float", CTYPE[t.dtype])
            lines.append(f"{ind}Cast(o_{t.var}, {tile}, RoundMode::{mode}, {count});")
        elif t.dtype == "bool":  # 0/1 comparison results: float -> half -> uint8
            _, th = self._prog.slot()
            self.note_slots(small)
            to_half, to_u8 = (
                narrowing_mode(chip, "float", "half"),
                narrowing_mode(chip, "half", "uint8_t"),
            )
            lines.append(f"{ind}LocalTensor<half> b_{t.var} = {th}.ReinterpretCast<half>();")
            lines.append(f"{ind}Cast(b_{t.var}, {tile}, RoundMode::{to_half}, {count});")
            lines.append(f"{ind}Cast(o_{t.var}, b_{t.var}, RoundMode::{to_u8}, {count});")
        elif t.dtype != "float32":
            mode = narrowing_mode(chip, "float", CTYPE[t.dtype])
            lines.append(f"{ind}Cast(o_{t.var}, {tile}, RoundMode::{mode}, {count});")
        lines.append(f"{ind}{q}.EnQue(o_{t.var});")
        lines.append(f"{ind}o_{t.var} = {q}.DeQue<{ct}>();")
        lines.append(f"{ind}CopyOutTile(gm_{t.var}[{off}], o_{t.var}, {count});")
        lines.append(f"{ind}{q}.FreeTensor(o_{t.var});")

    def position(self, k: int) -> str:
        """The index variable of a non-vector axis inside a unit: kept axes come from the unit
        (o), reduced ones from the segment walk (r)."""
        return f"r{k}" if k in self.reduced_nv else f"o{k}"

    # ---------------------------------------------------------------- loop nests
    def decompose(self, var: str, axes: list[int], idx: str, lines: list[str], ind: str) -> None:
        if not axes:
            return
        lines.append(f"{ind}uint64_t rest_{idx} = {var};")
        for k in reversed(axes):
            lines.append(f"{ind}uint64_t {idx}{k} = rest_{idx} % d{k};")
            lines.append(f"{ind}rest_{idx} /= d{k};")

    def seg(self, t: Tensor) -> str:
        return f" + seg_{t.var}" if self.reduced_nv else ""

    def seg_loop_open(self, lines: list[str], ind: str) -> str:
        if not self.reduced_nv:
            return ind
        n = " * ".join(f"d{k}" for k in self.reduced_nv)
        lines.append(f"{ind}for (uint64_t seg = 0; seg < {n}; ++seg) {{")
        ind2 = ind + "    "
        self.decompose("seg", self.reduced_nv, "r", lines, ind2)
        self.seg_offsets(lines, ind2)
        return ind2

    def seg_offsets(self, lines: list[str], ind: str) -> None:
        for t in self.all_tensors():
            lines.append(f"{ind}uint64_t seg_{t.var} = {self.offset(t, self.reduced_nv, 'r')};")

    def seg_loop_close(self, lines: list[str], ind: str) -> None:
        """Closes the loop `seg_loop_open` opened at `ind` (none without reduced axes)."""
        if self.reduced_nv:
            lines.append(f"{ind}}}")

    def tile_len(self, lines: list[str], ind: str) -> None:
        """`len` (and `len64` for comparisons): the elements of the tile starting at `c0`."""
        V = self.V
        lines.append(
            f"{ind}uint32_t len = static_cast<uint32_t>(d{V} - c0 < tileLen ? d{V} - c0 : tileLen);"
        )
        if self.uses_compare:
            lines.append(f"{ind}uint32_t len64 = CeilAlign(len, 64);")

    def row_tiles_open(self, lines: list[str], ind: str) -> str:
        """Opens the walk over this core's share of a row: the flat (segment, tile) steps
        [tBeg, tEnd); returns the indent inside it."""
        lines.append(f"{ind}for (uint64_t t = tBeg; t < tEnd; ++t) {{")
        self.step_vars(lines, ind + "    ")
        return ind + "    "

    def row_step(self, lines: list[str], ind: str) -> str:
        """Opens a block for the single step `tBeg` of this core's share (see row_tiles_open)."""
        lines.append(f"{ind}{{")
        lines.append(f"{ind}    uint64_t t = tBeg;")
        self.step_vars(lines, ind + "    ")
        return ind + "    "

    def step_vars(self, lines: list[str], ind: str) -> None:
        """Step `t` of a row -> its tile start `c0`, `len`, and the segment's offsets."""
        lines.append(f"{ind}uint64_t c0 = (t % nChunks) * tileLen;")
        self.tile_len(lines, ind)
        if self.reduced_nv:
            lines.append(f"{ind}uint64_t seg = t / nChunks;")
            self.decompose("seg", self.reduced_nv, "r", lines, ind)
            self.seg_offsets(lines, ind)

    def publish(self, L: list[str], ind: str, slot: int, value: str, index: str) -> None:
        """This core's partial of stage `slot` (value, index) -> its workspace slot, through a
        VECOUT tile (a vector write, then MTE3), complete in GM before the core goes on."""
        L.append(f"{ind}LocalTensor<float> pw = q_partOut.AllocTensor<float>();")
        L.append(f"{ind}Duplicate(pw, {value}, PART_LEN / 2);")
        L.append(f"{ind}Duplicate(pw[PART_LEN / 2], {index}, PART_LEN / 2);")
        L.append(f"{ind}q_partOut.EnQue(pw);")
        L.append(f"{ind}pw = q_partOut.DeQue<float>();")
        L.append(
            f"{ind}DataCopy(gm_ws[({slot} * GetBlockNum() + GetBlockIdx()) * PART_LEN], "
            "pw, PART_LEN);"
        )
        L.append(f"{ind}q_partOut.FreeTensor(pw);")
        L.append(f"{ind}SetFlag<HardEvent::MTE3_S>(EVENT_ID0);")
        L.append(f"{ind}WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);")

    def gather(self, L: list[str], ind: str, slot: int, first: str, n: str) -> None:
        """`pr`: the partials of stage `slot` of cores [first, first + n), copied GM -> UB (never
        scalar GM reads of data other cores wrote), ready for scalar reads."""
        L.append(f"{ind}LocalTensor<float> pr = q_partIn.AllocTensor<float>();")
        L.append(
            f"{ind}DataCopy(pr, gm_ws[({slot} * GetBlockNum() + {first}) * PART_LEN], "
            f"static_cast<uint32_t>({n} * PART_LEN));"
        )
        L.append(f"{ind}q_partIn.EnQue(pr);")
        L.append(f"{ind}pr = q_partIn.DeQue<float>();")
        L.append(f"{ind}SetFlag<HardEvent::MTE2_S>(EVENT_ID0);")
        L.append(f"{ind}WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);")

    @staticmethod
    def fold(L: list[str], ind: str, var: str, op: str, loop: str) -> None:
        """`var` = the gathered partials (`pr`) folded in core order: the first slot, then the
        slots `loop` walks (`k = ...; k < ...; ...`)."""
        L.append(f"{ind}{var} = pr.GetValue(0);")
        L.append(f"{ind}for (uint64_t {loop}) {{")
        L.append(f"{ind}    float part = pr.GetValue(k * PART_LEN);")
        L.append(f"{ind}    {var} = {COMBINE[op].format(a=var, p='part')};")
        L.append(f"{ind}}}")

    def combine_row(self, L: list[str], ind: str, s: int, op: str) -> None:
        """After stage `s` on a split row: every core of the row gets the row's stat, folded
        from its cores' partials in core order (identical on each of them)."""
        arg = op in ("argmax", "argmin")
        L.append(f"{ind}if (coresPerRow > 1) {{  // partials of the row's cores, folded in order")
        i2 = ind + "    "
        self.publish(L, i2, s, f"best{s}" if arg else f"stat{s}", f"stat{s}" if arg else "0.0f")
        L.append(f"{i2}SyncAll();")
        self.gather(L, i2, s, "rowCore0", "coresPerRow")
        if arg:
            cmp = ">" if op == "argmax" else "<"
            L.append(f"{i2}best{s} = pr.GetValue(0);")
            L.append(f"{i2}stat{s} = pr.GetValue(PART_LEN / 2);")
            L.append(f"{i2}for (uint64_t k = 1; k < coresPerRow; ++k) {{")
            L.append(f"{i2}    float part = pr.GetValue(k * PART_LEN);")
            L.append(f"{i2}    if (part {cmp} best{s}) {{  // strictly better: first chunk wins")
            L.append(f"{i2}        best{s} = part;")
            L.append(f"{i2}        stat{s} = pr.GetValue(k * PART_LEN + PART_LEN / 2);")
            L.append(f"{i2}    }}")
            L.append(f"{i2}}}")
        else:
            self.fold(L, i2, f"stat{s}", op, "k = 1; k < coresPerRow; ++k")
        L.append(f"{i2}q_partIn.FreeTensor(pr);")
        L.append(f"{ind}}}")

    def outputs(
        self,
        js: list[int],
        lines: list[str],
        ind: str,
        *,
        small: bool,
        seg: bool,
        at: Callable[[Tensor], str],
    ) -> None:
        """Computes outputs `js` and stores each at `at(tensor)`: one element when `small`,
        else the tile at `c0`."""
        # (output, node, GM offset): a cat of computed parts stores each part's tile at its
        # own offset along the cat axis
        stores: list[tuple[int, int, str]] = []
        for j in js:
            o, t = self.plan.outputs[j], self.outs[j]
            if not o.parts:
                stores.append((j, o.node, at(t)))
                continue
            k = o.cat_axis
            for p, node in enumerate(o.parts):
                shift = f" + {p} * d{k} * st_{t.var}_{k}" if p else ""
                stores.append((j, node, at(t) + shift))
        outs, clean = self.program(
            [node for _, node, _ in stores],
            small=small,
            chunk="0" if small else "c0",
            seg=seg,
            lines=lines,
            indent=ind,
        )
        count = "1" if small else "len"
        texts = [op.text for op in outs]
        seen: set[int] = set()
        for (j, _, off), op in zip(stores, outs, strict=True):
            alone = texts.count(op.text) == 1
            w = self.plan.outputs[j].window
            if w is not None and w.axis == self.V and w.lo:
                self.shifted_store(j, op, w, off, count, lines, ind)
            elif w is not None:  # a slice of a computed value: only its range is stored
                cond, off, n = self.window_store(w, self.outs[j], off, count)
                lines.append(f"{ind}if ({cond}) {{")
                self.store(j, op, off, n, lines, ind + "    ", small)
                lines.append(f"{ind}}}")
            elif j in seen:  # a later part of a cat: its own block (o_<out> declared again)
                lines.append(f"{ind}{{")
                self.store(j, op, off, count, lines, ind + "    ", small)
                lines.append(f"{ind}}}")
            else:
                self.store(j, op, off, count, lines, ind, small, redirect=alone)
            seen.add(j)
        lines += [ind + c for c in clean]

    def window_store(self, w: OutWindow, t: Tensor, off: str, count: str) -> tuple[str, str, str]:
        """(condition, GM offset, count) of a store of the range [lo, hi) of axis `w.axis`:
        along the vector axis (lo = 0) the tile's elements before hi; along another axis the
        rows inside the range, shifted back by lo."""
        if w.axis == self.V:
            n = f"(c0 + {count} <= {w.hi} ? {count} : static_cast<uint32_t>({w.hi} - c0))"
            return f"c0 < {w.hi}", off, n
        pos = self.position(w.axis)
        back = f" - {w.lo} * st_{t.var}_{w.axis}" if w.lo else ""
        return f"{pos} >= {w.lo} && {pos} < {w.hi}", off + back, count

    def shifted_store(
        self, j: int, op: Operand, w: OutWindow, off: str, count: str, L: list[str], ind: str
    ) -> None:
        """Stores positions [lo, hi) of the vector axis, lo > 0: a tile past lo goes out as it
        is, one back by lo; the tile holding lo starts its store at an unaligned UB position,
        so its elements from lo are gathered to the front of a work tile first (a byte-offset
        table, as the transpose tiles do)."""
        tile = self.as_tile(op, L, ind, False)
        _, g = self._prog.slot()
        _, tb = self._prog.slot()
        self.note_slots(False)
        lo, hi = w.lo, w.hi
        L.append(f"{ind}if (c0 + {count} > {lo} && c0 < {hi}) {{")
        i2 = ind + "    "
        L.append(f"{i2}uint32_t sh{j} = static_cast<uint32_t>(c0 < {lo} ? {lo} - c0 : 0);")
        L.append(
            f"{i2}uint32_t n{j} = static_cast<uint32_t>((c0 + {count} < {hi} ? c0 + {count} : "
            f"{hi}) - (c0 < {lo} ? {lo} : c0));"
        )
        L.append(f"{i2}if (sh{j} > 0) {{")
        i3 = i2 + "    "
        L.append(f"{i3}LocalTensor<int32_t> tab{j} = {tb}.ReinterpretCast<int32_t>();")
        if load_catalog().get("CreateVecIndex").supports_arch(self.chip.arch):
            L.append(f"{i3}CreateVecIndex(tab{j}, static_cast<int32_t>(sh{j}), n{j});")
            L.append(f"{i3}Muls(tab{j}, tab{j}, static_cast<int32_t>(sizeof(float)), n{j});")
        else:
            L.append(f"{i3}for (uint32_t k = 0; k < n{j}; ++k) {{")
            L.append(
                f"{i3}    tab{j}.SetValue(k, static_cast<int32_t>((k + sh{j}) * sizeof(float)));"
            )
            L.append(f"{i3}}}")
        L.append(f"{i3}Gather({g}, {tile}, tab{j}.ReinterpretCast<uint32_t>(), 0, n{j});")
        L.append(f"{i2}}} else {{")
        L.append(f"{i3}DataCopy({g}, {tile}, CeilAlign(n{j}, 8));")
        L.append(f"{i2}}}")
        self.store(j, Operand("T", g), f"{off} + sh{j} - {lo}", f"n{j}", L, i2, False)
        L.append(f"{ind}}}")

    def tile_at(self, seg: bool) -> Callable[[Tensor], str]:
        """Where a tile of an output goes: its unit base (+ segment) + `c0`."""
        return lambda t: f"base_{t.var}{self.seg(t) if seg else ''} + c0"

    def accumulate(self, L: list[str], ind: str, s: int, op: str, tile: str, first: str) -> None:
        """Folds `tile` into the tile accumulator of stage `s` (a copy on the first step)."""
        L.append(f"{ind}if ({first}) {{")
        L.append(f"{ind}    DataCopy(acc{s}, {tile}, CeilAlign(len, 8));")
        L.append(f"{ind}}} else {{")
        L.append(f"{ind}    {ACC_API[op]}(acc{s}, acc{s}, {tile}, len);")
        L.append(f"{ind}}}")

    def tile_part(self, L: list[str], ind: str, op: str, tile: str, var: str) -> None:
        """`float var`: the `op` reduction of the `len` elements of `tile` (no vector
        product reduction: prod multiplies them on the scalar unit)."""
        if op == "prod":
            self.sync_vs(L, ind)
            L.append(f"{ind}float {var} = 1.0f;")
            L.append(f"{ind}for (uint32_t k = 0; k < len; ++k) {{")
            L.append(f"{ind}    {var} *= {tile}.GetValue(k);")
            L.append(f"{ind}}}")
        else:
            L.append(f"{ind}{REDUCE_API[op]}<float>(redOut, {tile}, redWork, len);")
            self.sync_vs(L, ind)
            L.append(f"{ind}float {var} = redOut.GetValue(0);")

    @staticmethod
    def sync_vs(L: list[str], ind: str) -> None:
        """Vector results become visible to scalar reads."""
        L.append(f"{ind}SetFlag<HardEvent::V_S>(EVENT_ID0);")
        L.append(f"{ind}WaitFlag<HardEvent::V_S>(EVENT_ID0);")

    def body(self) -> list[str]:
        plan = self.plan
        L: list[str] = []
        ind = "        "
        L.append("    __aicore__ inline void Process()")
        L.append("    {")
        L.append(f"{ind}for (uint64_t u = unitStart; u < unitEnd; ++u) {{")
        i2 = ind + "    "
        vec_units = self.mode in ("elementwise", "column")
        if vec_units:
            L.append(f"{i2}uint64_t c0 = (u % nChunks) * tileLen;")
            L.append(f"{i2}uint64_t outer = u / nChunks;")
            self.tile_len(L, i2)
            self.decompose("outer", self.unit_axes, "o", L, i2)
        else:
            self.decompose("u", self.unit_axes, "o", L, i2)
        for t in self.all_tensors():
            L.append(f"{i2}uint64_t base_{t.var} = {self.offset(t, self.unit_axes, 'o')};")
        stages = plan.stages
        if self.scan is not None:
            self.scan_body(L, i2)
        elif self.mode == "elementwise":
            every = list(range(len(plan.outputs)))
            self.outputs(every, L, i2, small=False, seg=False, at=self.tile_at(False))
        elif self.mode == "column":
            for s, st in enumerate(stages):
                if st.scope == "global":
                    continue
                L.append(f"{i2}// stage {st.name}: {st.op} over the reduced axes, one tile wide")
                i3 = self.seg_loop_open(L, i2)
                first = "seg == 0" if self.reduced_nv else "true"
                (v,), clean = self.program(
                    [st.value], small=False, chunk="c0", seg=True, lines=L, indent=i3
                )
                tile = self.as_tile(v, L, i3, False)
                if st.op in ("argmax", "argmin"):
                    self.column_arg(L, i3, s, st.op, tile, first)
                else:
                    self.accumulate(L, i3, s, st.op, tile, first)
                L += [i3 + c for c in clean]
                self.seg_loop_close(L, i2)
            self.outputs_column(L, i2)
        else:
            self.row_body(L, i2)
        self.global_stages(L, i2)
        L.append(f"{ind}}}")
        self.global_combine(L, ind)
        L.append("    }")
        return L

    def column_arg(self, L: list[str], ind: str, s: int, op: str, tile: str, first: str) -> None:
        """Running arg-extreme over the reduced axes: best value tile + index tile (acc)."""
        keep = "LE" if op == "argmax" else "GE"  # mask 1: not strictly better, keep the old
        L.append(f"{ind}if ({first}) {{")
        L.append(f"{ind}    DataCopy(best{s}, {tile}, CeilAlign(len, 8));")
        L.append(f"{ind}    Duplicate(acc{s}, 0.0f, len);")
        L.append(f"{ind}}} else {{  // strictly better only: the first occurrence wins")
        L.append(f"{ind}    Compare(cmpMask, {tile}, best{s}, CMPMODE::{keep}, len64);")
        L.append(
            f"{ind}    Select(acc{s}, cmpMask, acc{s}, static_cast<float>(seg), "
            "SELMODE::VSEL_TENSOR_SCALAR_MODE, len);"
        )
        L.append(
            f"{ind}    Select(best{s}, cmpMask, best{s}, {tile}, "
            "SELMODE::VSEL_TENSOR_TENSOR_MODE, len);"
        )
        L.append(f"{ind}}}")

    def scan_body(self, L: list[str], i2: str) -> None:
        """Cumulative ops: a running accumulator along the scan axis, outputs at every step."""
        plan = self.plan
        st = self.scan
        assert st is not None
        s = plan.stages.index(st)
        full = [j for j, o in enumerate(plan.outputs) if o.level == "full"]
        if self.mode == "column":
            # Scan axis walked (reversed when asked); the accumulator is one tile wide.
            n = " * ".join(f"d{k}" for k in self.reduced_nv)
            if st.reverse:
                L.append(f"{i2}for (int64_t segr = {n} - 1; segr >= 0; --segr) {{")
                L.append(f"{i2}    uint64_t seg = static_cast<uint64_t>(segr);")
            else:
                L.append(f"{i2}for (uint64_t seg = 0; seg < {n}; ++seg) {{")
            i3 = i2 + "    "
            self.decompose("seg", self.reduced_nv, "r", L, i3)
            self.seg_offsets(L, i3)
            first = f"seg == {n} - 1" if st.reverse else "seg == 0"
            L.append(f"{i3}{{  // accumulate this step")
            i3 += "    "
            (v,), clean = self.program(
                [st.value], small=False, chunk="c0", seg=True, lines=L, indent=i3
            )
            tile = self.as_tile(v, L, i3, False)
            self.accumulate(L, i3, s, st.op, tile, first)
            L += [i3 + c for c in clean]
            i3 = i3[:-4]
            L.append(f"{i3}}}")
            self.outputs(full, L, i3, small=False, seg=True, at=self.tile_at(True))
            L.append(f"{i2}}}")
            return
        # Scan along the vector axis: tiles in order, a scalar running value inside each tile.
        V = self.V
        L.append(f"{i2}float run = 0.0f;")
        if st.reverse:
            L.append(f"{i2}for (int64_t ci = static_cast<int64_t>(nChunks) - 1; ci >= 0; --ci) {{")
        else:
            L.append(f"{i2}for (uint64_t ci = 0; ci < nChunks; ++ci) {{")
        i4 = i2 + "    "
        L.append(f"{i4}uint64_t c0 = static_cast<uint64_t>(ci) * tileLen;")
        self.tile_len(L, i4)
        L.append(f"{i4}{{  // running value through this tile")
        i4 += "    "
        (v,), clean = self.program(
            [st.value], small=False, chunk="c0", seg=False, lines=L, indent=i4
        )
        tile = self.as_tile(v, L, i4, False)
        combine = COMBINE[st.op].format(a="run", p="e")
        self.sync_vs(L, i4)
        first_tile = f"c0 + tileLen >= d{V}" if st.reverse else "c0 == 0"
        if st.reverse:
            L.append(f"{i4}for (int32_t k = static_cast<int32_t>(len) - 1; k >= 0; --k) {{")
            first = f"({first_tile} && k == static_cast<int32_t>(len) - 1)"
        else:
            L.append(f"{i4}for (uint32_t k = 0; k < len; ++k) {{")
            first = f"({first_tile} && k == 0)"
        L.append(f"{i4}    float e = {tile}.GetValue(k);")
        L.append(f"{i4}    run = {first} ? e : {combine};")
        L.append(f"{i4}    acc{s}.SetValue(k, run);")
        L.append(f"{i4}}}")
        L.append(f"{i4}SetFlag<HardEvent::S_V>(EVENT_ID0);")
        L.append(f"{i4}WaitFlag<HardEvent::S_V>(EVENT_ID0);")
        L += [i4 + c for c in clean]
        i4 = i4[:-4]
        L.append(f"{i4}}}")
        self.outputs(full, L, i4, small=False, seg=False, at=self.tile_at(False))
        L.append(f"{i2}}}")

    def global_stages(self, L: list[str], i2: str) -> None:
        """Second-level reductions: a per-row value folded over this core's rows (the
        partials meet in `global_combine`)."""
        for s, st in enumerate(self.plan.stages):
            if st.scope != "global":
                continue
            L.append(f"{i2}// global stage {st.name}: {st.op} over all rows")
            L.append(f"{i2}{{")
            i2 = i2 + "    "
            small = self.mode == "row"
            (v,), clean = self.program(
                [st.value],
                small=small,
                chunk="c0" if not small else "0",
                seg=False,
                lines=L,
                indent=i2,
            )
            if v.kind == "S":
                L.append(f"{i2}float gpart{s} = {v.text};")
            elif small:
                self.sync_vs(L, i2)
                L.append(f"{i2}float gpart{s} = {v.text}.GetValue(0);")
            else:
                self.tile_part(L, i2, st.op, v.text, f"gpart{s}")
            combine = COMBINE[st.op].format(a=f"gstat{s}", p=f"gpart{s}")
            L.append(f"{i2}gstat{s} = (u == unitStart) ? gpart{s} : {combine};")
            L += [i2 + c for c in clean]
            i2 = i2[:-4]
            L.append(f"{i2}}}")

    def global_combine(self, L: list[str], ind: str) -> None:
        """After the unit loop: each core's partials of the global stages -> workspace,
        SyncAll, then core 0 folds them in core order (one per row: the row's first core on
        split rows) and writes the whole-tensor results."""
        glob = [(s, st) for s, st in enumerate(self.plan.stages) if st.scope == "global"]
        if not glob:
            return
        L.append(f"{ind}// global stages: per-core partials of this core's units, folded on core 0")
        L.append(f"{ind}// (one core alone already holds the whole-tensor values: no barrier)")
        L.append(f"{ind}if (GetBlockNum() > 1) {{")
        for s, _ in glob:
            L.append(f"{ind}    {{")
            self.publish(L, ind + "        ", s, f"gstat{s}", "0.0f")
            L.append(f"{ind}    }}")
        L.append(f"{ind}    SyncAll();")
        L.append(f"{ind}}}")
        L.append(f"{ind}if (GetBlockIdx() == 0) {{")
        i2 = ind + "    "
        L.append(f"{i2}if (GetBlockNum() > 1) {{")
        for s, st in glob:
            i3 = i2 + "    "
            L.append(f"{i3}{{")
            i4 = i3 + "    "
            self.gather(L, i4, s, "0", "GetBlockNum()")
            self.fold(
                L, i4, f"gstat{s}", st.op, "k = coresPerRow; k < GetBlockNum(); k += coresPerRow"
            )
            L.append(f"{i4}q_partIn.FreeTensor(pr);")
            L.append(f"{i3}}}")
        L.append(f"{i2}}}")
        scal = [j for j, o in enumerate(self.plan.outputs) if o.level == "scalar"]
        if scal:
            L.append(f"{i2}// whole-tensor results: one element each")
            self.outputs(scal, L, i2, small=True, seg=False, at=lambda _t: "0")
        L.append(f"{ind}}}")

    def outputs_column(self, L: list[str], i2: str) -> None:
        plan = self.plan
        full = [j for j, o in enumerate(plan.outputs) if o.level == "full"]
        red = [j for j, o in enumerate(plan.outputs) if o.level == "reduced"]
        if red:
            L.append(f"{i2}{{  // per-position results over the kept axes")
            self.outputs(red, L, i2 + "    ", small=False, seg=False, at=self.tile_at(False))
            L.append(f"{i2}}}")
        if full:
            L.append(f"{i2}// epilogue: full-domain outputs")
            i3 = self.seg_loop_open(L, i2)
            self.outputs(full, L, i3, small=False, seg=True, at=self.tile_at(True))
            self.seg_loop_close(L, i2)

    def row_body(self, L: list[str], i2: str) -> None:
        """Row mode: the stages over this core's share of the row, the combine with the row's
        other cores, then the outputs. When the share is one tile and the row is read more than
        once (several stages, or stages then full outputs), a second version of the passes holds
        the inputs in UB: one GM read per element instead of one per pass."""
        plan = self.plan
        V = self.V
        domain = [s for s, st in enumerate(plan.stages) if st.scope != "global"]
        for s in domain:
            L.append(f"{i2}float stat{s} = 0.0f;")
            if plan.stages[s].op in ("argmax", "argmin"):
                L.append(f"{i2}float best{s} = 0.0f;  // the extreme value; stat{s} its index")
        full = [j for j, o in enumerate(plan.outputs) if o.level == "full"]
        passes = len(domain) + (1 if full else 0)
        held = sum(1 for t, p in zip(self.ins, plan.inputs, strict=True) if p.used and t.mask[V])
        # held VECIN tiles + the partials' tile stay within the chip's tensors per position
        # (sliced reads stream: a held tile is one per input, they read several windows)
        views = any(n.read is not None for n in plan.nodes)
        if passes > 1 and held + 1 <= self.chip.max_tensors_per_position and not views:
            L.append(f"{i2}if (tEnd - tBeg == 1) {{")
            L.append(f"{i2}    // this core's share of the row is one tile: each input is read")
            L.append(f"{i2}    // from GM once and held in UB through every stage and the epilogue")
            self.resident = True
            self.row_passes(L, i2 + "    ")
            self.resident = False
            L.append(f"{i2}}} else {{  // several tiles: each stage streams them from GM again")
            self.row_passes(L, i2 + "    ")
            L.append(f"{i2}}}")
        else:
            self.row_passes(L, i2)
        red = [j for j, o in enumerate(plan.outputs) if o.level == "reduced"]
        if red:
            L.append(f"{i2}if (rowPart == 0) {{  // per-row results, by the row's first core")
            self.outputs(red, L, i2 + "    ", small=True, seg=False, at=lambda t: f"base_{t.var}")
            L.append(f"{i2}}}")

    def row_passes(self, L: list[str], i2: str) -> None:
        """The stages and the full-row outputs, streamed in tiles or (resident) on one tile."""
        plan = self.plan
        V = self.V
        held: list[str] = []
        if self.resident:
            i4 = self.row_step(L, i2)
            for t, p in zip(self.ins, plan.inputs, strict=True):
                if p.used and t.mask[V]:
                    ct = CTYPE[t.dtype]
                    off = f"base_{t.var}{self.seg(t)} + c0"
                    L.append(f"{i4}LocalTensor<{ct}> r_{t.var} = q_{t.var}.AllocTensor<{ct}>();")
                    L.append(f"{i4}CopyInTile(r_{t.var}, gm_{t.var}[{off}], len);")
                    L.append(f"{i4}q_{t.var}.EnQue(r_{t.var});")
                    L.append(f"{i4}r_{t.var} = q_{t.var}.DeQue<{ct}>();")
                    held.append(f"q_{t.var}.FreeTensor(r_{t.var});")
        for s, st in enumerate(plan.stages):
            if st.scope == "global":
                continue
            if self.resident:  # a block per stage: its temporaries' names are reused
                L.append(f"{i4}{{  // stage {st.name}: {st.op} over the held tile")
                i4 += "    "
            else:
                L.append(f"{i2}// stage {st.name}: {st.op} over this core's share of the row")
                i4 = self.row_tiles_open(L, i2)
            first = "true" if self.resident else "t == tBeg"
            (v,), clean = self.program(
                [st.value], small=False, chunk="c0", seg=True, lines=L, indent=i4
            )
            tile = self.as_tile(v, L, i4, False)
            if st.op in ("argmax", "argmin"):
                api = "ReduceMax" if st.op == "argmax" else "ReduceMin"
                cmp = ">" if st.op == "argmax" else "<"
                pos = f"seg * d{V} + c0" if self.reduced_nv else "c0"
                L.append(f"{i4}{api}<float>(redOut, {tile}, redWork, len, true);")
                self.sync_vs(L, i4)
                L.append(f"{i4}float part = redOut.GetValue(0);")
                L.append(f"{i4}uint32_t at = redOut.ReinterpretCast<uint32_t>().GetValue(1);")
                L.append(f"{i4}if (({first}) || part {cmp} best{s}) {{  // first occurrence wins")
                L.append(f"{i4}    best{s} = part;")
                L.append(f"{i4}    stat{s} = static_cast<float>({pos} + at);")
                L.append(f"{i4}}}")
            else:
                self.tile_part(L, i4, st.op, tile, "part")
                combine = COMBINE[st.op].format(a=f"stat{s}", p="part")
                if self.resident:
                    L.append(f"{i4}stat{s} = part;")
                else:
                    L.append(f"{i4}stat{s} = ({first}) ? part : {combine};")
            L += [i4 + c for c in clean]
            if self.resident:
                self.combine_row(L, i4, s, st.op)
                i4 = i4[:-4]
                L.append(f"{i4}}}")
            else:
                L.append(f"{i2}}}")
                self.combine_row(L, i2, s, st.op)
        full = [j for j, o in enumerate(plan.outputs) if o.level == "full"]
        if full:
            at_ind = i4 if self.resident else i2
            L.append(f"{at_ind}// epilogue: full-row outputs, this core's share")
            if self.resident:
                L.append(f"{i4}{{")
                self.outputs(full, L, i4 + "    ", small=False, seg=True, at=self.tile_at(True))
                L.append(f"{i4}}}")
            else:
                i4 = self.row_tiles_open(L, i2)
                self.outputs(full, L, i4, small=False, seg=True, at=self.tile_at(True))
                L.append(f"{i2}}}")
        if self.resident:
            L += [i4 + c for c in held]
            L.append(f"{i2}}}")

    # ---------------------------------------------------------------- whole file
    @staticmethod
    def iota_by_adds(ind: str) -> list[str]:
        """Positions 0..tileLen-1 without CreateVecIndex (first-generation Ascend 910)."""
        L: list[str] = []
        L.append(f"{ind}// positions 0..tileLen-1: one 32-byte block by the scalar unit, then")
        L.append(f"{ind}// doubled by vector adds (log2(tileLen / 8) Adds, not tileLen SetValue)")
        L.append(f"{ind}for (uint32_t k = 0; k < 8; ++k) {{")
        L.append(f"{ind}    iotaBase.SetValue(k, static_cast<float>(k));")
        L.append(f"{ind}}}")
        L.append(f"{ind}SetFlag<HardEvent::S_V>(EVENT_ID0);")
        L.append(f"{ind}WaitFlag<HardEvent::S_V>(EVENT_ID0);")
        L.append(f"{ind}for (uint64_t n = 8; n < tileLen; n *= 2) {{")
        L.append(f"{ind}    int32_t m = static_cast<int32_t>(tileLen - n < n ? tileLen - n : n);")
        L.append(f"{ind}    Adds(iotaBase[n], iotaBase, static_cast<float>(n), m);")
        L.append(f"{ind}    PipeBarrier<PIPE_V>();  // the next add reads what this one wrote")
        L.append(f"{ind}}}")
        return L

    def input_queues(self) -> list[tuple[str, Tensor]]:
        """The VECIN queues: one per input read plainly along the vector axis, one per sliced
        read of an input along it."""
        out = [
            (f"q_{t.var}", t)
            for i, (t, p) in enumerate(zip(self.ins, self.plan.inputs, strict=True))
            if p.used and t.mask[self.V] and i in self.plain_reads
        ]
        for nid, q in self.view_queues.items():
            out.append((q, self.ins[self.plan.nodes[nid].index or 0]))
        return out

    def queue_len(self, q: str) -> str:
        """Elements of one buffer of a VECIN queue: a tile, or step tiles for a stepped read."""
        for nid, name in self.view_queues.items():
            r = self.plan.nodes[nid].read
            if name == q and r is not None and r.step != 1:
                return f"{r.step} * tileLen"
        return "tileLen"

    def gathered(self, prog: Program, i: int, t: Tensor, lv: str, free: list[str]) -> Operand:
        """Every step-th element of a loaded span, packed into a float tile: GatherMask with
        the built-in pattern keeping lane 0 of every `step` (repeats of 256 bytes, at most
        255 per call), then a Cast for half/bfloat16."""
        r = self.plan.nodes[i].read
        assert r is not None
        ct = CTYPE[t.dtype]
        per = 256 // DSIZE[t.dtype]  # elements of one repeat
        pattern = GATHER_STEP_PATTERN[r.step]
        s, tile = prog.slot()
        dst, half = tile, None
        if t.dtype != "float32":
            half = prog.slot()
            dst = f"g_{t.var}_n{i}"
            prog.lines.append(f"LocalTensor<{ct}> {dst} = {half[1]}.ReinterpretCast<{ct}>();")
        prog.lines += [
            f"// every {r.step}th element of the span: GatherMask pattern {pattern}",
            f"uint64_t kept{i} = 0;",
            f"uint32_t reps{i} = ({r.step} * len * sizeof({ct}) + 255) / 256;",
            f"for (uint32_t r0 = 0; r0 < reps{i}; r0 += 255) {{",
            f"    uint16_t n0 = static_cast<uint16_t>(reps{i} - r0 < 255 ? reps{i} - r0 : 255);",
            f"    GatherMask({dst}[r0 * {per // r.step}], {lv}[r0 * {per}], "
            f"static_cast<uint8_t>({pattern}), false, 0, GatherMaskParams{{1, n0, 8, 0}}, "
            f"kept{i});",
            "}",
        ]
        prog.lines.extend(free)
        if half is not None:
            prog.lines.append(f"Cast({tile}, {dst}, RoundMode::CAST_NONE, len);")
            prog.release(Operand("T", half[1], half[0]))
        return Operand("T", tile, s)

    def outside(self, r: Read, i: int, pos: str) -> str | None:
        """The C++ condition of domain position `pos` reading the fill instead of the input
        (None: the read has no fill)."""
        if r.fill is None:
            return None
        conds = [f"{pos} < lo{i}"] if r.lo is not None else []
        conds += [f"{pos} >= hi{i}"] if r.hi is not None else []
        return f"({' || '.join(conds)})" if conds else None

    def ranged_copy(self, i: int, t: Tensor, lv: str, off: str, chunk: str) -> list[str]:
        """The copy of a tile read over a bounded range along the vector axis: UB [a, z) from
        the input, the partial blocks at its ends padded with the fill by DataCopyPad; the
        whole blocks outside (h, e) are filled after the load (Duplicate on the float tile)."""
        r = self.plan.nodes[i].read
        assert r is not None
        ct = CTYPE[t.dtype]
        block = 32 // DSIZE[t.dtype]
        fill = f"static_cast<{ct}>({flit(r.fill or 0.0)})"
        a = f"{chunk} < lo{i} ? (lo{i} - {chunk} < len ? lo{i} - {chunk} : len) : 0"
        z = f"hi{i} > {chunk} ? (hi{i} - {chunk} < len ? hi{i} - {chunk} : len) : 0"
        sign = "-" if r.back else "+"
        return [
            f"// the input's range in this tile: [a{i}, z{i}); the rest is the fill",
            f"uint32_t a{i} = {a if r.lo is not None else '0'};",
            f"uint32_t z{i} = {z if r.hi is not None else 'len'};",
            f"z{i} = z{i} < a{i} ? a{i} : z{i};",
            f"uint32_t h{i} = a{i} < z{i} ? a{i} / {block} * {block} : len;",
            f"uint32_t e{i} = a{i} < z{i} ? (z{i} + {block - 1}) / {block} * {block} : len;",
            f"uint64_t g{i} = a{i} < z{i} ? {off} + {chunk} + a{i} {sign} off{i} : 0;",
            f"CopyInRange({lv}, gm_{t.var}[g{i}], a{i}, z{i}, {fill});",
        ]

    def range_helper(self) -> list[str]:
        """CopyInRange: UB [a, z) of a tile from the input, the rest of the 32-byte blocks at
        its ends the fill (a cat with a constant block or with another tensor). DataCopyPad
        places the first element at an unaligned UB position by its left padding; without
        DataCopyPad the tile goes through the scalar unit."""
        head = [
            "// dst[a, z) = src[0, z - a), the rest of the blocks around it = fill (the caller",
            "// fills whole blocks outside them): one tile of a read over a bounded range.",
            "template <typename T>",
            "__aicore__ inline void CopyInRange(const LocalTensor<T>& dst, "
            "const GlobalTensor<T>& src, uint32_t a, uint32_t z, T fill)",
            "{",
            "    if (a >= z) {",
            "        return;",
            "    }",
        ]
        blocks = [
            "    uint32_t block = 32 / sizeof(T);",
            "    uint32_t h = a / block * block;",
            "    uint32_t e = (z + block - 1) / block * block;",
        ]
        if self.chip.has_datacopypad:
            body = [
                "    DataCopyExtParams params{1, static_cast<uint32_t>((z - a) * sizeof(T)), 0, "
                "0, 0};",
                "    DataCopyPadExtParams<T> pad{true, static_cast<uint8_t>(a - h), "
                "static_cast<uint8_t>(e - z), fill};",
                "    DataCopyPad(dst[h], src, params, pad);",
            ]
        else:
            body = [
                "    for (uint32_t k = h; k < e; ++k) {",
                "        dst.SetValue(k, k >= a && k < z ? src.GetValue(k - a) : fill);",
                "    }",
                "    SetFlag<HardEvent::S_V>(EVENT_ID0);",
                "    WaitFlag<HardEvent::S_V>(EVENT_ID0);",
            ]
        return [*head, *blocks, *body, "}"]

    def copy_helpers(self) -> list[str]:
        return self.copy_helpers_for(self.chip)

    @staticmethod
    def copy_helpers_for(chip: Chip) -> list[str]:
        if chip.has_datacopypad:
            return [
                "// Tail-safe copies: DataCopyPad moves exactly len elements (no 32-byte rounding)",
                "template <typename T>",
                "__aicore__ inline void CopyInTile(const LocalTensor<T>& dst, "
                "const GlobalTensor<T>& src, uint32_t len)",
                "{",
                "    DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};",
                "    DataCopyPadExtParams<T> pad{false, 0, 0, 0};",
                "    DataCopyPad(dst, src, params, pad);",
                "}",
                "template <typename T>",
                "__aicore__ inline void CopyOutTile(const GlobalTensor<T>& dst, "
                "const LocalTensor<T>& src, uint32_t len)",
                "{",
                "    DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};",
                "    DataCopyPad(dst, src, params);",
                "}",
            ]
        return [
            f"// {chip.name} has no DataCopyPad: copy whole 32-byte blocks and move the",
            "// last (len % block) elements through the scalar unit.",
            "template <typename T>",
            "__aicore__ inline void CopyInTile(const LocalTensor<T>& dst, "
            "const GlobalTensor<T>& src, uint32_t len)",
            "{",
            "    uint32_t block = 32 / sizeof(T);",
            "    uint32_t body = len / block * block;",
            "    if (body > 0) {",
            "        DataCopy(dst, src, body);",
            "    }",
            "    if (body < len) {  // never read past the tensor: the tail via the scalar unit",
            "        for (uint32_t k = body; k < len; ++k) {",
            "            dst.SetValue(k, src.GetValue(k));",
            "        }",
            "        SetFlag<HardEvent::S_V>(EVENT_ID0);",
            "        WaitFlag<HardEvent::S_V>(EVENT_ID0);",
            "    }",
            "}",
            "template <typename T>",
            "__aicore__ inline void CopyOutTile(const GlobalTensor<T>& dst, "
            "const LocalTensor<T>& src, uint32_t len)",
            "{",
            "    uint32_t block = 32 / sizeof(T);",
            "    uint32_t body = len / block * block;",
            "    if (body > 0) {",
            "        DataCopy(dst, src, body);",
            "    }",
            "    if (body < len) {",
            "        SetFlag<HardEvent::V_S>(EVENT_ID0);",
            "        WaitFlag<HardEvent::V_S>(EVENT_ID0);",
            "        for (uint32_t k = body; k < len; ++k) {",
            "            dst.SetValue(k, src.GetValue(k));",
            "        }",
            "    }",
            "}",
        ]

    def emit(self, tiling_struct: str) -> str:
        plan = self.plan
        body = self.body()  # first: sizes the tile pools
        L: list[str] = []
        L.append(
            f"// {plan.op_name}: generated by kernelgen's rule-based lowering "
            f"(mode {self.mode}, {self.chip.name})."
        )
        L.append("// Plan (see plan.txt): every value is computed in float32 in UB tiles;")
        L.append("// half/bfloat16 tensors are cast on load and store.")
        L.append('#include "kernel_operator.h"')
        L.append("using namespace AscendC;")
        L.append("")
        L.append("constexpr int32_t BUFFER_NUM = 2;  // double buffering of every queue")
        L.append(f"constexpr uint32_t SMALL_LEN = {SMALL};  // one 256-byte repeat of float")
        if self.sync:
            L.append(
                f"constexpr uint32_t PART_LEN = {PART};  // floats per cross-core partial slot in "
                "the workspace: value x8, index x8 (32-byte aligned halves)"
            )
        L.append("")
        L.append("__aicore__ inline uint32_t CeilAlign(uint64_t x, uint64_t a)")
        L.append("{")
        L.append("    return static_cast<uint32_t>((x + a - 1) / a * a);")
        L.append("}")
        L.append("")
        L += self.copy_helpers()
        if self.ranged:
            L += self.range_helper()
        L.append("")
        L.append(f"class Kernel{plan.op_name} {{")
        L.append("public:")
        L.append(f"    __aicore__ inline Kernel{plan.op_name}() {{}}")
        params = ", ".join(
            [f"GM_ADDR {t.var}" for t in self.ins]
            + [f"GM_ADDR {t.var}" for t in self.outs]
            + (["GM_ADDR workspace"] if self.sync else [])
        )
        L.append(f"    // TilingT: {tiling_struct}, as GET_TILING_DATA provides it on this build.")
        L.append("    template <typename TilingT>")
        L.append(f"    __aicore__ inline void Init({params}, const TilingT& td, TPipe* pipe)")
        L.append("    {")
        i = "        "
        for k in range(self.K):
            L.append(f"{i}d{k} = td.dim{k};")
        L.append(f"{i}tileLen = td.tileLen;")
        L.append(f"{i}nChunks = (d{self.V} + tileLen - 1) / tileLen;")
        L.append(f"{i}uint64_t idx = GetBlockIdx();")
        if self.split:
            L.append(f"{i}// coresPerRow cores share a row (1: whole rows per core); a row's")
            L.append(f"{i}// (segment, tile) steps are split big/small over its cores")
            L.append(f"{i}coresPerRow = td.coresPerRow;")
            L.append(f"{i}rowPart = idx % coresPerRow;")
            L.append(f"{i}rowCore0 = idx - rowPart;")
            L.append(f"{i}idx /= coresPerRow;")
            L.append(f"{i}uint64_t tpp = td.tilesPerPart;")
            L.append(f"{i}tBeg = rowPart * tpp + (rowPart < td.bigParts ? rowPart : td.bigParts);")
            L.append(f"{i}tEnd = tBeg + tpp + (rowPart < td.bigParts ? 1 : 0);")
        L.append(f"{i}// big/small core split of the work units")
        L.append(f"{i}uint64_t upc = td.unitsPerCore;")
        L.append(f"{i}unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);")
        L.append(f"{i}unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);")
        red = [f"d{k}" for k, a in enumerate(plan.axes) if a.reduced]
        L.append(f"{i}cntF = static_cast<float>({' * '.join(red) if red else '1'});")
        kept = [f"d{k}" for k, a in enumerate(plan.axes) if not a.reduced]
        if self.has_global:
            L.append(f"{i}gcntF = static_cast<float>({' * '.join(kept) if kept else '1'});")
        for name, _, _ in view_fields(plan):
            var = "e_in" + name[4:] if name.startswith("span") else name
            L.append(f"{i}{var} = td.{name};")
        for t in self.all_tensors():
            for k in range(self.K):
                if t.mask[k]:
                    L.append(f"{i}st_{t.var}_{k} = {self.stride(t, k)};")
        for t in self.all_tensors():
            ct = CTYPE[t.dtype]
            extent = self.numel(t)
            L.append(f"{i}gm_{t.var}.SetGlobalBuffer((__gm__ {ct}*){t.var}, {extent});")
        for q, t in self.input_queues():
            size = f"{self.queue_len(q)} * sizeof({CTYPE[t.dtype]})"
            L.append(f"{i}pipe->InitBuffer({q}, BUFFER_NUM, {size});")
        for t in self.outs:
            L.append(
                f"{i}pipe->InitBuffer(q_{t.var}, BUFFER_NUM, tileLen * sizeof({CTYPE[t.dtype]}));"
            )
        L.append(f"{i}pipe->InitBuffer(poolBuf, {self.nslots} * tileLen * sizeof(float));")
        L.append(f"{i}pipe->InitBuffer(smallBuf, {self.nsmall} * SMALL_LEN * sizeof(float));")
        L.append(f"{i}pool = poolBuf.Get<float>();")
        L.append(f"{i}smallPool = smallBuf.Get<float>();")
        if self.uses_acc:
            L.append(f"{i}pipe->InitBuffer(accBuf, {self.acc_tiles} * tileLen * sizeof(float));")
            for s in range(len(plan.stages)):
                L.append(f"{i}acc{s} = accBuf.Get<float>()[{s} * tileLen];")
            nst = len(plan.stages)
            for s, st in enumerate(plan.stages):
                if self.col_arg and st.op in ("argmax", "argmin"):
                    L.append(f"{i}best{s} = accBuf.Get<float>()[{nst + s} * tileLen];")
        if self.sync:
            nst = len(plan.stages)
            L.append(f"{i}// cross-core partials: one slot per (stage, core) in the user workspace")
            L.append(
                f"{i}gm_ws.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace), "
                f"{nst} * GetBlockNum() * PART_LEN);"
            )
            L.append(f"{i}pipe->InitBuffer(q_partOut, 1, PART_LEN * sizeof(float));")
            L.append(f"{i}pipe->InitBuffer(q_partIn, 1, GetBlockNum() * PART_LEN * sizeof(float));")
        if self.needs_reduce_bufs:
            L.append(f"{i}pipe->InitBuffer(redWorkBuf, tileLen * sizeof(float));")
            L.append(f"{i}pipe->InitBuffer(redOutBuf, SMALL_LEN * sizeof(float));")
            L.append(f"{i}redWork = redWorkBuf.Get<float>();")
            L.append(f"{i}redOut = redOutBuf.Get<float>();")
        if self.iota_v:
            L.append(f"{i}pipe->InitBuffer(iotaBuf, tileLen * sizeof(float));")
            L.append(f"{i}iotaBase = iotaBuf.Get<float>();")
            if load_catalog().get("CreateVecIndex").supports_arch(self.chip.arch):
                L.append(f"{i}// positions 0..tileLen-1 (arange / gather index): one vector call")
                L.append(f"{i}CreateVecIndex(iotaBase, 0.0f, static_cast<uint32_t>(tileLen));")
            else:
                L += self.iota_by_adds(i)
        if self.uses_compare:
            L.append(f"{i}pipe->InitBuffer(maskBuf, CeilAlign(tileLen / 8, 32));")
            L.append(f"{i}cmpMask = maskBuf.Get<uint8_t>();")
        L.append("    }")
        L += body
        L.append("")
        L.append("private:")
        for q, _ in self.input_queues():
            L.append(f"    TQue<QuePosition::VECIN, BUFFER_NUM> {q};")
        for t in self.outs:
            L.append(f"    TQue<QuePosition::VECOUT, BUFFER_NUM> q_{t.var};")
        if self.sync:
            L.append("    TQue<QuePosition::VECOUT, 1> q_partOut;")
            L.append("    TQue<QuePosition::VECIN, 1> q_partIn;")
        bufs = ["poolBuf", "smallBuf"]
        if self.uses_acc:
            bufs.append("accBuf")
        if self.needs_reduce_bufs:
            bufs += ["redWorkBuf", "redOutBuf"]
        if self.iota_v:
            bufs.append("iotaBuf")
        if self.uses_compare:
            bufs.append("maskBuf")
        L.append(f"    TBuf<QuePosition::VECCALC> {', '.join(bufs)};")
        locs = ["pool", "smallPool"]
        if self.uses_acc:
            locs += [f"acc{s}" for s in range(len(plan.stages))]
        if self.col_arg:
            locs += [
                f"best{s}" for s, st in enumerate(plan.stages) if st.op in ("argmax", "argmin")
            ]
        if self.needs_reduce_bufs:
            locs += ["redWork", "redOut"]
        if self.iota_v:
            locs.append("iotaBase")
        L.append(f"    LocalTensor<float> {', '.join(locs)};")
        if self.uses_compare:
            L.append("    LocalTensor<uint8_t> cmpMask;")
        for t in self.all_tensors():
            L.append(f"    GlobalTensor<{CTYPE[t.dtype]}> gm_{t.var};")
        if self.sync:
            L.append("    GlobalTensor<float> gm_ws;")
        dims = ", ".join(f"d{k} = 0" for k in range(self.K))
        L.append(f"    uint64_t {dims};")
        L.append("    uint64_t tileLen = 0, nChunks = 0, unitStart = 0, unitEnd = 0;")
        if self.sync:
            L.append("    uint64_t coresPerRow = 1, rowPart = 0, rowCore0 = 0;")
        if self.split:
            L.append("    uint64_t tBeg = 0, tEnd = 0;")
        L.append("    float cntF = 1.0f;")
        if self.has_global:
            g = [f"gstat{s} = 0.0f" for s, st in enumerate(plan.stages) if st.scope == "global"]
            L.append(f"    float gcntF = 1.0f, {', '.join(g)};")
        strides = [
            f"st_{t.var}_{k} = 0" for t in self.all_tensors() for k in range(self.K) if t.mask[k]
        ]
        strides += [
            ("e_in" + name[4:] if name.startswith("span") else name) + " = 0"
            for name, _, _ in view_fields(plan)
        ]
        if strides:
            L.append(f"    uint64_t {', '.join(strides)};")
        L.append("};")
        L.append("")
        args = [f"GM_ADDR {t.var}" for t in self.ins] + [f"GM_ADDR {t.var}" for t in self.outs]
        args += ["GM_ADDR workspace", "GM_ADDR tiling"]
        L.append(f'extern "C" __global__ __aicore__ void {plan.kernel_name}({", ".join(args)})')
        L.append("{")
        L.append("    GET_TILING_DATA(td, tiling);")
        L.append("    TPipe pipe;")
        L.append(f"    Kernel{plan.op_name} op;")
        call = ", ".join(
            [t.var for t in self.ins]
            + [t.var for t in self.outs]
            + (["workspace"] if self.sync else [])
        )
        L.append(f"    op.Init({call}, td, &pipe);")
        L.append("    op.Process();")
        L.append("}")
        return "\n".join(L) + "\n"
