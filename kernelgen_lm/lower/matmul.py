"""MatmulPlan -> operator project files: the tiling header (TCubeTiling + the core split), the
host TilingFunc (MultiCoreMatmulTiling on the runtime shapes) and the kernel (Matmul high-level
API; the epilogue on the vector unit per base block, lowered by the fused planner's `Program`).
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_tools.chips import Chip
from kernelgen_lm.lower.expr import Operand, Program, flit
from kernelgen_lm.lower.host import (
    GE_DTYPE,
    UB_RESERVE,
    input_params,
    io_param,
    registration,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE
from kernelgen_lm.lower.move import BLOCK_HELPERS
from kernelgen_lm.plan.matmul import MatmulPlan

# Base-block edge cap: 128 x 128 float results (64 KB) stay within L0C with room to spare.
BASE_CAP = 128
BASE_ALIGN = 16  # cube fractal edge


class EpiTensor:
    """How one epilogue input is read per base block (from its captured broadcast pattern)."""

    def __init__(self, var: str, dtype: str, vary_m: bool, vary_n: bool, index: int) -> None:
        self.var = var
        self.dtype = dtype
        self.vary_m = vary_m
        self.vary_n = vary_n
        self.index = index  # kernel input index

    @property
    def tile(self) -> bool:
        """Read into a UB tile (varies along N); else per-row values or one scalar per block."""
        return self.vary_n

    @property
    def rows(self) -> bool:
        """One value per result row (a bias per output channel, a row scale): read as a run
        of values and spread over the rows by Brcb."""
        return self.vary_m and not self.vary_n


def _epi_tensors(p: MatmulPlan) -> dict[int, EpiTensor]:
    """Epilogue inputs by their index in the epilogue plan."""
    r = len(p.out_shape)
    out: dict[int, EpiTensor] = {}
    for e in p.epi_inputs:
        t = p.inputs[e.input]
        off = r - len(t.shape)

        def varies(k: int, t=t, off=off) -> bool:
            d = k - off
            return 0 <= d < len(t.shape) and t.shape[d] != 1

        out[e.plan_index] = EpiTensor(
            f"in{e.input}", t.dtype, varies(r - 2), varies(r - 1), e.input
        )
    return out


def fields(p: MatmulPlan) -> list[tuple[str, str]]:
    """The uint32 tiling fields after the TCubeTiling, (name, comment)."""
    f = [("M", "rows of the result"), ("N", "columns of the result"), ("K", "reduction length")]
    for j in range(0 if p.folded else len(p.batch)):
        f += [
            (f"bat{j}", f"batch axis {j} of the result"),
            (f"aBs{j}", f"A's element stride along batch axis {j} (0: broadcast)"),
            (f"bBs{j}", f"B's element stride along batch axis {j} (0: broadcast)"),
        ]
    f += [
        ("mBlocks", "singleCoreM blocks along M"),
        ("nBlocks", "singleCoreN blocks along N"),
        ("unitsPerCore", "(batch, M block, N block) units of a small core"),
        ("bigCores", "cores that take one unit more"),
    ]
    if not p.direct:
        f.append(("chunkRows", "rows of a base block per epilogue chunk"))
    f += [(f"numel{i}", f"elements of input {i}") for i in range(len(p.inputs))]
    for e in p.epi_inputs:
        for d in range(len(p.out_shape)):
            f.append((f"e{e.input}s{d}", f"input {e.input}'s stride along result axis {d}"))
    return f


def matmul_tiling_header(p: MatmulPlan) -> str:
    return tiling_header_text(
        p.op_name,
        p.kernel_name,
        " (matmul): the Matmul API's TCubeTiling, runtime sizes and\n"
        "// the split of (batch, M block, N block) units over the cores.",
        fields(p),
        structs=["TCubeTiling cube"],
    )


def _dim(d_input: int, d_dim: int, ctx: str = "context") -> str:
    return f"Dim({ctx}, {d_input}, {d_dim})" if d_input >= 0 else "1"


class MatmulEmitter:
    """Emits the kernel first (the epilogue's tile count sizes the host's UB budget)."""

    def __init__(self, p: MatmulPlan, chip: Chip) -> None:
        self.p = p
        self.chip = chip
        self.epi = _epi_tensors(p)
        self.nslots = 0
        self.uses_compare = p.epilogue is not None and any(
            n.op in ("lt", "le", "gt", "ge", "eq", "ne", "where") for n in p.epilogue.nodes
        )
        self.epi_lines = self._epilogue() if not p.direct else []

    # ---------------------------------------------------------------- UB budget (host)
    def bytes_per_element(self) -> int:
        """UB bytes per element of an epilogue chunk (chunkRows x baseN): the input tiles, the
        output tile and the float work slots (single buffered). The baseM x baseN float result
        block comes on top."""
        b = DSIZE[self.p.out_dtype] + 4 * self.nslots
        b += sum(DSIZE[t.dtype] for t in self.epi.values() if t.tile)
        # A per-row input's values (chunk rows, and their float copy when cast) take at most
        # 4 + 4 bytes a row, rounded to 16 rows: a byte per element each covers that, as a
        # chunk row has baseN >= 16 elements and the 64-element slack covers the rounding.
        rows = [t for t in self.epi.values() if t.rows]
        b += len(rows) + (1 if any(t.dtype != "float32" for t in rows) else 0)
        return b + (1 if self.uses_compare else 0)

    # ---------------------------------------------------------------- epilogue body
    def _epilogue(self) -> list[str]:
        p = self.p
        plan = p.epilogue
        ind = " " * 16
        pre: list[str] = []
        frees: list[str] = []
        if plan is None:  # only a cast of the float result
            res = Operand("T", "cTile[rc * ldc]")
            self.nslots = 0
            return self._store(res, ind)

        def leaf(i: int) -> Operand:
            n = plan.nodes[i]
            if n.op == "const":
                return Operand("S", flit(n.value or 0.0))
            if n.op != "input":
                raise ValueError(f"epilogue leaf {n.op} is not lowered")
            k = n.index or 0
            if k == 0:
                return Operand("T", "cTile[rc * ldc]")
            t = self.epi[k]
            v = t.var
            off = f"eoff_{v}"
            lines = prog.lines
            if not t.vary_n and not t.vary_m:
                name = f"s_{v}"
                lines.append(f"float {name} = static_cast<float>(gm_{v}.GetValue({off}));")
                return Operand("S", name)
            s, tile = prog.slot()
            ct = CTYPE[t.dtype]
            q = f"q_{v}"
            if t.rows:
                lines += self._row_values(t, tile, off)
                return Operand("T", tile, s)
            nrows = "crow" if t.vary_m else "1"
            lines += [
                f"LocalTensor<{ct}> l_{v} = {q}.AllocTensor<{ct}>();",
                f"LoadBlock(l_{v}, gm_{v}[{off}], {nrows}, cols, es_{v}_m, ldc);",
                f"{q}.EnQue(l_{v});",
                f"l_{v} = {q}.DeQue<{ct}>();",
            ]
            if t.dtype == "float32":
                if t.vary_m:
                    lines.append(f"DataCopy({tile}, l_{v}, cnt);")
                else:
                    lines += [
                        "for (uint32_t r = 0; r < crow; ++r) {",
                        f"    DataCopy({tile}[r * ldc], l_{v}, ldc);",
                        "}",
                    ]
            else:
                lines.append(
                    f"Cast({tile}, l_{v}, RoundMode::CAST_NONE, {'cnt' if t.vary_m else 'ldc'});"
                )
                if not t.vary_m:
                    lines += [
                        "for (uint32_t r = 1; r < crow; ++r) {",
                        f"    DataCopy({tile}[r * ldc], {tile}, ldc);",
                        "}",
                    ]
            lines.append(f"{q}.FreeTensor(l_{v});")
            return Operand("T", tile, s)

        prog = Program(
            plan=plan,
            count="cnt",
            count64="cnt64",
            pool="pool",
            cap="tileElems",
            leaf=leaf,
        )
        [res] = prog.run([plan.outputs[0].node])
        self.nslots = max(prog.nslots, 1 if res.kind == "S" else 0)
        if res.kind == "S":
            _, t = prog.slot()
            self.nslots = max(self.nslots, prog.nslots)
            prog.lines.append(f"Duplicate({t}, {res.text}, cnt);")
            res = Operand("T", t)
        pre += [ind + x for x in prog.lines]
        return pre + self._store(res, ind) + frees

    def _row_values(self, t: EpiTensor, tile: str, off: str) -> list[str]:
        """Fills `tile` (crow rows of ldc floats) with one value per row of input `t`. The
        values of whole 8-row groups come in with one copy (a per-row input is contiguous
        along the rows, so its row stride is 1) and Brcb spreads 8 of them a repeat into
        one 32-byte block of each row, a call per block column; the rest (a last partial
        group, or another stride) are read one by one on the scalar unit, which costs ~30
        cycles a value where the copy and Brcb cost a few."""
        v = t.var
        ct = CTYPE[t.dtype]
        q = f"q_{v}"
        src = f"l_{v}" if t.dtype == "float32" else "rowf"
        cast = (
            []
            if t.dtype == "float32"
            else [f"        Cast(rowf, l_{v}, RoundMode::CAST_NONE, full);"]
        )
        return [
            "{",
            f"    uint32_t full = es_{v}_m == 1 ? crow / 8 * 8 : 0;",
            "    if (full > 0) {",
            f"        LocalTensor<{ct}> l_{v} = {q}.AllocTensor<{ct}>();",
            f"        LoadBlock(l_{v}, gm_{v}[{off}], 1, full, full, (full + 15) / 16 * 16);",
            f"        {q}.EnQue(l_{v});",
            f"        l_{v} = {q}.DeQue<{ct}>();",
            *cast,
            "        // Brcb takes at most 255 repeats (2040 rows) a call.",
            "        for (uint32_t r0 = 0; r0 < full; r0 += 2040) {",
            "            uint8_t reps = static_cast<uint8_t>(MinU(full - r0, 2040) / 8);",
            "            for (uint32_t j = 0; j < ldc / 8; ++j) {",
            f"                Brcb({tile}[r0 * ldc + j * 8], {src}[r0], reps,",
            "                     BrcbRepeatParams(static_cast<uint16_t>(ldc / 8), "
            "static_cast<uint16_t>(ldc)));",
            "            }",
            "        }",
            f"        {q}.FreeTensor(l_{v});",
            "    }",
            "    for (uint32_t r = full; r < crow; ++r) {",
            f"        float rv = static_cast<float>(gm_{v}.GetValue({off} + r * es_{v}_m));",
            f"        Duplicate({tile}[r * ldc], rv, ldc);",
            "    }",
            "}",
        ]

    def _store(self, res: Operand, ind: str) -> list[str]:
        ot = self.p.out_dtype
        ct = CTYPE[ot]
        conv = (
            f"DataCopy(o_out, {res.text}, cnt);"
            if ot == "float32"
            else f"Cast(o_out, {res.text}, RoundMode::CAST_RINT, cnt);"
        )
        return [
            ind + x
            for x in (
                f"LocalTensor<{ct}> o_out = q_out.AllocTensor<{ct}>();",
                conv,
                "q_out.EnQue(o_out);",
                f"o_out = q_out.DeQue<{ct}>();",
                "StoreBlock(gm_out[coff], o_out, crow, cols, N, ldc);",
                "q_out.FreeTensor(o_out);",
            )
        ]

    # ---------------------------------------------------------------- epilogue set-up
    # One copy of the epilogue's UB buffers, members and per-block loop, shared by every
    # emitter whose product comes to UB block by block (matmul, conv): they read the same
    # tiling fields (the TCubeTiling's base block, chunkRows) and name the same variables.
    def _epi_buffers(self, tiling: str = "td.cube") -> list[str]:
        """Init lines: the result block queue, the chunk tiles, the float pool, the mask.
        `tiling`: the struct holding baseM, baseN and iterateOrder (a TCubeTiling, or the
        kernel's own fields where no Matmul object runs)."""
        ot = CTYPE[self.p.out_dtype]
        L = [
            f"        baseM = {tiling}.baseM; baseN = {tiling}.baseN;",
            f"        iterOrder = {tiling}.iterateOrder;",
            "        chunk = td.chunkRows;",
            "        // Work tiles hold one chunk of rows (whole 256-byte float repeats).",
            "        tileElems = (chunk * baseN + 63) / 64 * 64;",
            "        pipe->InitBuffer(q_c, 1, baseM * baseN * sizeof(float));",
            f"        pipe->InitBuffer(q_out, 1, tileElems * sizeof({ot}));",
        ]
        for t in self.epi.values():
            if t.tile:
                L.append(
                    f"        pipe->InitBuffer(q_{t.var}, 1, tileElems * sizeof({CTYPE[t.dtype]}));"
                )
            elif t.rows:
                L.append(
                    f"        pipe->InitBuffer(q_{t.var}, 1, (chunk + 15) / 16 * 16 * "
                    f"sizeof({CTYPE[t.dtype]}));"
                )
        if self._row_cast():
            L += [
                "        pipe->InitBuffer(rowBuf, (chunk + 15) / 16 * 16 * sizeof(float));",
                "        rowf = rowBuf.Get<float>();",
            ]
        if self.nslots:
            L += [
                f"        pipe->InitBuffer(poolBuf, {self.nslots} * tileElems * sizeof(float));",
                "        pool = poolBuf.Get<float>();",
            ]
        if self.uses_compare:
            L += [
                "        pipe->InitBuffer(cmpBuf, tileElems);",
                "        cmpMask = cmpBuf.Get<uint8_t>();",
            ]
        return L

    def _row_cast(self) -> bool:
        """A per-row input that is not float32: its values are cast into `rowf` for Brcb."""
        return any(t.rows and t.dtype != "float32" for t in self.epi.values())

    def _epi_members(
        self, vecin: str = "q_c", vecout: str = "q_out", extra: tuple[str, ...] = ()
    ) -> list[str]:
        """Member declarations of `_epi_buffers`' buffers; `vecin`/`vecout` may name the
        caller's own queues of the same kind, `extra` its other members, declared between."""
        L = [
            f"    TQue<QuePosition::VECIN, 1> {vecin};",
            f"    TQue<QuePosition::VECOUT, 1> {vecout};",
            *extra,
            "    uint32_t baseM = 0, baseN = 0, iterOrder = 0, tileElems = 0, chunk = 1;",
        ]
        if self._row_cast():
            L += ["    TBuf<QuePosition::VECCALC> rowBuf;", "    LocalTensor<float> rowf;"]
        if self.nslots:
            L += ["    TBuf<QuePosition::VECCALC> poolBuf;", "    LocalTensor<float> pool;"]
        if self.uses_compare:
            L += ["    TBuf<QuePosition::VECCALC> cmpBuf;", "    LocalTensor<uint8_t> cmpMask;"]
        return L

    def _epi_block(
        self,
        row_stride: Callable[[EpiTensor], str],
        notes: list[str],
        fetch: str = "mm.GetTensorC(cTile);",
    ) -> list[str]:
        """Inside `while (mm.Iterate())`, after `rows`, `cols`, `ldc`, `boff` and each input's
        `eblk_` are set: GetTensorC into UB, then the epilogue per chunk of rows.
        `row_stride(t)`: input t's element stride between result rows; `fetch`: the line that
        brings the float block into `cTile` (rows of ldc floats)."""
        ind = " " * 16
        return [
            ind + "LocalTensor<float> cTile = q_c.AllocTensor<float>();",
            ind + fetch,
            ind + "q_c.EnQue(cTile);",
            ind + "cTile = q_c.DeQue<float>();",
            *[ind + x for x in notes],
            ind + "for (uint32_t rc = 0; rc < rows; rc += chunk) {",
            ind + "    uint32_t crow = MinU(chunk, rows - rc);",
            ind + "    uint32_t cnt = crow * ldc;",
            ind + "    uint32_t cnt64 = (cnt + 63) / 64 * 64;",
            ind + "    uint64_t coff = boff + static_cast<uint64_t>(rc) * N;",
            *[
                f"{ind}    uint64_t eoff_{t.var} = eblk_{t.var} + "
                f"static_cast<uint64_t>(rc) * {row_stride(t)};"
                for t in self.epi.values()
            ],
            *["    " + x for x in self.epi_lines],
            ind + "}",
            ind + "q_c.FreeTensor(cTile);",
        ]

    # ---------------------------------------------------------------- kernel file
    def kernel(self) -> str:
        p = self.p
        at, ot = CTYPE[p.dtype], CTYPE[p.out_dtype]
        nb = 0 if p.folded else len(p.batch)
        ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
        a, b = f"in{p.a.input}", f"in{p.b.input}"
        ta = "true" if p.a.trans else "false"
        tb = "true" if p.b.trans else "false"
        ctype = (
            f"MatmulType<TPosition::GM, CubeFormat::ND, {ot}>"
            if p.direct
            else "MatmulType<TPosition::VECIN, CubeFormat::ND, float>"
        )
        L = [
            f"// {p.op_name}: matrix product on the cube unit (Matmul high-level API), generated",
            f"// by kernelgen's rule-based lowering ({self.chip.name}). Work unit = (batch index,",
            "// M block, N block) of singleCoreM x singleCoreN (host MultiCoreMatmulTiling); units",
            "// are split over the cores big/small. "
            + (
                "The result goes straight to GM (IterateAll)."
                if p.direct
                else "Each baseM x baseN block of the float result comes to UB"
            ),
            *(
                []
                if p.direct
                else [
                    "// (Iterate + GetTensorC), where the vector epilogue runs on the whole block",
                    "// and the rows go to GM with DataCopyPad (odd N, odd tails).",
                ]
            ),
            '#include "kernel_operator.h"',
            '#include "lib/matmul_intf.h"',
            "using namespace AscendC;",
            "using namespace matmul;",
            "",
            "__aicore__ inline uint32_t MinU(uint32_t x, uint32_t y) { return x < y ? x : y; }",
            "",
        ]
        if not p.direct:
            L += [*BLOCK_HELPERS, ""]
        L += [
            f"class Kernel{p.op_name} {{",
            "public:",
            f"    using AType = MatmulType<TPosition::GM, CubeFormat::ND, {at}, {ta}>;",
            f"    using BType = MatmulType<TPosition::GM, CubeFormat::ND, {at}, {tb}>;",
            f"    using CType = {ctype};",
            "    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;",
            "    Matmul<AType, BType, CType, BiasType> mm;",
            "",
            "    template <typename TilingT>",
            f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out,",
            "                                const TilingT& td, TPipe* pipe)",
            "    {",
            "        M = td.M; N = td.N; K = td.K;",
            "        singleM = td.cube.singleCoreM; singleN = td.cube.singleCoreN;",
            "        mBlocks = td.mBlocks; nBlocks = td.nBlocks;",
        ]
        for j in range(nb):
            L.append(f"        bat[{j}] = td.bat{j}; aBs[{j}] = td.aBs{j}; bBs[{j}] = td.bBs{j};")
        L += [
            "        uint64_t idx = GetBlockIdx();",
            "        uint64_t upc = td.unitsPerCore;",
            "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
            "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
            f"        gm_a.SetGlobalBuffer((__gm__ {at}*){a}, td.numel{p.a.input});",
            f"        gm_b.SetGlobalBuffer((__gm__ {at}*){b}, td.numel{p.b.input});",
            f"        gm_out.SetGlobalBuffer((__gm__ {ot}*)out, "
            + " * ".join(["static_cast<uint64_t>(M)", "N"] + [f"td.bat{j}" for j in range(nb)])
            + ");",
        ]
        if p.bias is not None:
            L.append(
                f"        gm_bias.SetGlobalBuffer((__gm__ float*)in{p.bias}, td.numel{p.bias});"
            )
        r = len(p.out_shape)
        for t in self.epi.values():
            ct = CTYPE[t.dtype]
            L.append(
                f"        gm_{t.var}.SetGlobalBuffer((__gm__ {ct}*){t.var}, td.numel{t.index});"
            )
            for d in range(r):
                L.append(f"        es_{t.var}[{d}] = td.e{t.index}s{d};")
            L.append(f"        es_{t.var}_m = td.e{t.index}s{r - 2};")
        if not p.direct:
            L += self._epi_buffers()
        L += [
            "    }",
            "",
            "    __aicore__ inline void Process()",
            "    {",
            "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
            "            uint64_t nb = u % nBlocks;",
            "            uint64_t rest = u / nBlocks;",
            "            uint64_t mb = rest % mBlocks;",
            "            uint64_t bi = rest / mBlocks;  // linear batch index",
            "            uint64_t aOff = 0, bOff = 0;",
        ]
        for t in self.epi.values():
            L.append(f"            uint64_t ebase_{t.var} = 0;")
        if nb:
            L += [
                "            uint64_t t = bi;",
                f"            for (int32_t j = {nb - 1}; j >= 0; --j) {{",
                "                uint64_t ij = t % bat[j];",
                "                t /= bat[j];",
                "                aOff += ij * aBs[j];",
                "                bOff += ij * bBs[j];",
            ]
            for t in self.epi.values():
                L.append(f"                ebase_{t.var} += ij * es_{t.var}[j];")
            L.append("            }")
        L += [
            "            uint32_t m0 = static_cast<uint32_t>(mb) * singleM;",
            "            uint32_t n0 = static_cast<uint32_t>(nb) * singleN;",
            "            uint32_t tm = MinU(singleM, M - m0);",
            "            uint32_t tn = MinU(singleN, N - n0);",
            "            aOff += " + ("m0;" if p.a.trans else "static_cast<uint64_t>(m0) * K;"),
            "            bOff += " + ("static_cast<uint64_t>(n0) * K;" if p.b.trans else "n0;"),
            f"            mm.SetTensorA(gm_a[aOff], {ta});",
            f"            mm.SetTensorB(gm_b[bOff], {tb});",
        ]
        if p.bias is not None:
            L.append("            mm.SetBias(gm_bias[n0]);")
        L += [
            "            mm.SetTail(tm, tn);",
            "            uint64_t cBase = bi * M * N + static_cast<uint64_t>(m0) * N + n0;",
        ]
        if p.direct:
            L.append("            mm.IterateAll(gm_out[cBase]);")
        else:
            L += [
                "            uint32_t mIter = (tm + baseM - 1) / baseM;",
                "            uint32_t nIter = (tn + baseN - 1) / baseN;",
                "            uint32_t blk = 0;",
                "            while (mm.Iterate()) {",
                "                uint32_t bm = iterOrder == 0 ? blk % mIter : blk / nIter;",
                "                uint32_t bn = iterOrder == 0 ? blk / mIter : blk % nIter;",
                "                ++blk;",
                "                uint32_t rows = MinU(baseM, tm - bm * baseM);",
                "                uint32_t cols = MinU(baseN, tn - bn * baseN);",
                "                uint32_t ldc = baseN;",
                "                uint64_t r0 = static_cast<uint64_t>(m0) + bm * baseM;",
                "                uint64_t c0 = static_cast<uint64_t>(n0) + bn * baseN;",
                "                uint64_t boff = cBase + static_cast<uint64_t>(bm) * baseM * N + "
                "static_cast<uint64_t>(bn) * baseN;",
            ]
            for t in self.epi.values():
                L.append(
                    f"                uint64_t eblk_{t.var} = ebase_{t.var} + r0 * es_{t.var}"
                    f"[{r - 2}] + c0 * es_{t.var}[{r - 1}];"
                )
            L += self._epi_block(
                lambda t: f"es_{t.var}[{r - 2}]",
                [
                    "// The epilogue walks the block in chunks of rows (its tiles are",
                    "// chunk x baseN, so the base block is not bound by them).",
                ],
            )
            L.append("            }")
        L += [
            "        }",
            "        mm.End();",
            "    }",
            "",
            "private:",
            f"    GlobalTensor<{at}> gm_a, gm_b;",
            f"    GlobalTensor<{ot}> gm_out;",
        ]
        if p.bias is not None:
            L.append("    GlobalTensor<float> gm_bias;")
        for t in self.epi.values():
            L.append(f"    GlobalTensor<{CTYPE[t.dtype]}> gm_{t.var};")
            L.append(f"    uint64_t es_{t.var}[{r}] = {{0}};")
            L.append(f"    uint64_t es_{t.var}_m = 0;")
            if (t.tile or t.rows) and not p.direct:
                L.append(f"    TQue<QuePosition::VECIN, 1> q_{t.var};")
        if not p.direct:
            L += self._epi_members()
        if nb:
            L.append(f"    uint64_t bat[{nb}] = {{0}}, aBs[{nb}] = {{0}}, bBs[{nb}] = {{0}};")
        L += [
            "    uint32_t M = 0, N = 0, K = 0, singleM = 0, singleN = 0;",
            "    uint64_t mBlocks = 1, nBlocks = 1, unitStart = 0, unitEnd = 0;",
            "};",
            "",
            f'extern "C" __global__ __aicore__ void {p.kernel_name}({", ".join(ins)}, '
            "GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)",
            "{",
            "    // One AIV per AIC: each block computes its own units. Undeclared, a Matmul",
            "    // kernel runs as mix 1:2: two AIVs (2b, 2b+1) would share a block's units.",
            "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);",
            "    GET_TILING_DATA(td, tiling);",
            "    TPipe pipe;",
            f"    Kernel{p.op_name} op;",
            "    // The Matmul object is registered before any InitBuffer (ASCENDC_SPEC 7.12).",
            "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &td.cube);",
            f"    op.Init({', '.join(f'in{i}' for i in range(len(p.inputs)))}, out, td, &pipe);",
            "    op.Process();",
            "}",
            "",
        ]
        return "\n".join(L)

    # ---------------------------------------------------------------- host file
    def _shared_base_block(self, share: int) -> list[str]:
        """Host lines cutting the tiling's base block to 1/share of L0C (halving baseM or baseN),
        of L0A and L0B and of L1 (A1 and B1 hold two base blocks each, plus the bias row):
        baseK goes down to whole 32-byte fractal rows."""
        sa = DSIZE[self.p.dtype]
        c0 = 32 // sa
        bias = " - static_cast<uint64_t>(bn) * 4" if self.p.bias is not None else ""
        L = [
            f"    // {share} Matmul objects in the kernel: their L1/L0 shares add up on the TPipe",
            "    // (ASCENDC_SPEC 7.12), so this product's base block takes a share of each.",
            "    {",
            "        uint64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0;",
            "        ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);",
            "        ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);",
            "        ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);",
            "        ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);",
            "        uint32_t bm = static_cast<uint32_t>(tiling.cube.baseM);",
            "        uint32_t bn = static_cast<uint32_t>(tiling.cube.baseN);",
            "        uint64_t bk = static_cast<uint64_t>(tiling.cube.baseK);",
            f"        while (static_cast<uint64_t>(bm) * bn * 4 > l0c / {share} && "
            f"(bm > {BASE_ALIGN} || bn > {BASE_ALIGN})) {{",
            "            if (bm >= bn) {",
            f"                bm = Align(bm / 2, {BASE_ALIGN});",
            "            } else {",
            f"                bn = Align(bn / 2, {BASE_ALIGN});",
            "            }",
            "        }",
            f"        uint64_t capA = l0a / {share} / (static_cast<uint64_t>(bm) * {sa});",
            f"        uint64_t capB = l0b / {share} / (static_cast<uint64_t>(bn) * {sa});",
            f"        uint64_t l1Share = l1 / {share}{bias};",
            f"        uint64_t capL1 = l1Share / (2 * (static_cast<uint64_t>(bm) + bn) * {sa});",
            "        uint64_t cap = capA < capB ? capA : capB;",
            "        cap = capL1 < cap ? capL1 : cap;",
            f"        cap = cap / {c0} * {c0};",
            f"        if (cap < {c0}) {{",
            "            return ge::GRAPH_FAILED;  // not one fractal row fits the share",
            "        }",
            "        if (bk > cap) {",
            "            bk = cap;",
            "        }",
            "        mt.SetFixSplit(static_cast<int32_t>(bm), static_cast<int32_t>(bn), "
            "static_cast<int32_t>(bk));",
            "        if (mt.GetTiling(tiling.cube) == -1) {",
            "            return ge::GRAPH_FAILED;",
            "        }",
        ]
        if not self.p.direct:
            L += [
                "        if (chunkRows > bm) {  // the epilogue's chunks stay within a base block",
                "            tiling.set_chunkRows(bm);",
                "        }",
            ]
        return [*L, "    }"]

    def host(self, share: int = 1) -> str:
        """`share`: Matmul objects in the kernel (a staged kernel has one a product stage);
        their L1 and L0 shares add up on the TPipe, so each base block gets 1/share of each."""
        p = self.p
        r = len(p.out_shape)
        dt = GE_DTYPE[p.dtype]
        cdt = GE_DTYPE[p.out_dtype] if p.direct else "ge::DT_FLOAT"
        cpos = "TPosition::GM" if p.direct else "TPosition::VECIN"
        ta = "true" if p.a.trans else "false"
        tb = "true" if p.b.trans else "false"
        A, B = p.inputs[p.a.input], p.inputs[p.b.input]
        L = [
            f"// Host side of {p.op_name}: Matmul tiling from the runtime shapes, shape inference,",
            "// OpDef.",
            f'#include "{p.kernel_name}_tiling.h"',
            '#include "register/op_def_registry.h"',
            '#include "tiling/platform/platform_ascendc.h"',
            "",
            "using namespace matmul_tiling;",
            "",
            "namespace optiling {",
            f"constexpr uint64_t UB_RESERVE = {UB_RESERVE};",
            f"// UB bytes per element of an epilogue chunk (chunkRows x baseN): "
            f"{self.bytes_per_element()}",
            f"constexpr uint64_t CHUNK_BYTES_PER_ELEM = {self.bytes_per_element()};",
            "",
            "static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
            "{",
            "    return static_cast<uint64_t>(context->GetInputShape(input)->GetStorageShape()"
            ".GetDim(dim));",
            "}",
            "",
            "// Element stride of `dim` in a contiguous input; 0 where the dim has size 1 "
            "(broadcast).",
            "static uint64_t BStride(gert::TilingContext* context, uint32_t input, uint32_t dim)",
            "{",
            "    auto shape = context->GetInputShape(input)->GetStorageShape();",
            "    if (shape.GetDim(dim) == 1) {",
            "        return 0;",
            "    }",
            "    uint64_t s = 1;",
            "    for (uint32_t k = dim + 1; k < shape.GetDimNum(); ++k) {",
            "        s *= static_cast<uint64_t>(shape.GetDim(k));",
            "    }",
            "    return s;",
            "}",
            "",
            "static uint32_t Align(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }",
            "",
            "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
            "{",
            f"    {p.op_name}TilingData tiling;",
            f"    uint64_t M = {_dim(p.m.input, p.m.dim)};",
            f"    uint64_t N = {_dim(p.n.input, p.n.dim)};",
            f"    uint64_t K = {_dim(p.k.input, p.k.dim)};",
            "    uint64_t batches = 1;",
        ]
        nb = 0 if p.folded else len(p.batch)
        if p.folded:  # one [batch * M, K] product: A's batch axes join its rows
            L += [f"    M *= {_dim(d.input, d.dim)};" for d in p.batch]
        for j, d in enumerate(p.batch[:nb]):
            L.append(f"    uint64_t bat{j} = {_dim(d.input, d.dim)};")
            L.append(f"    batches *= bat{j};")
            for name, op, t in (("a", p.a, A), ("b", p.b, B)):
                k = j - (nb - (len(t.shape) - 2))
                val = f"BStride(context, {op.input}, {k})" if k >= 0 else "0"
                L.append(f"    tiling.set_{name}Bs{j}(static_cast<uint32_t>({val}));")
            L.append(f"    tiling.set_bat{j}(static_cast<uint32_t>(bat{j}));")
        L += [
            "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
            "    uint64_t ubSize = 0;",
            "    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);",
            "    uint64_t cubeCores = ascendc.GetCoreNumAic();",
            "    if (cubeCores == 0) {",
            "        cubeCores = ascendc.GetCoreNum();",
            "    }",
            "    if (M == 0 || N == 0 || K == 0) {",
            "        return ge::GRAPH_FAILED;",
            "    }",
            "    // Split M and N over the cube cores left per batch (batches spread the rest).",
            "    uint64_t dim = batches >= cubeCores ? 1 : cubeCores / batches;",
            "    MultiCoreMatmulTiling mt(ascendc);",
            "    mt.SetDim(static_cast<int32_t>(dim));",
            f"    mt.SetAType(TPosition::GM, CubeFormat::ND, {dt}, {ta});",
            f"    mt.SetBType(TPosition::GM, CubeFormat::ND, {dt}, {tb});",
            f"    mt.SetCType({cpos}, CubeFormat::ND, {cdt});",
        ]
        if p.bias is not None:
            L.append("    mt.SetBiasType(TPosition::GM, CubeFormat::ND, ge::DT_FLOAT);")
        L += [
            "    mt.SetShape(static_cast<int32_t>(M), static_cast<int32_t>(N), "
            "static_cast<int32_t>(K));",
            "    mt.SetOrgShape(static_cast<int32_t>(M), static_cast<int32_t>(N), "
            "static_cast<int32_t>(K));",
            f"    mt.SetBias({'true' if p.bias is not None else 'false'});",
            "    mt.SetBufferSpace(-1, -1, -1);",
            "    if (mt.GetTiling(tiling.cube) == -1) {",
            "        return ge::GRAPH_FAILED;",
            "    }",
            "    int32_t singleM = 0, singleN = 0, singleK = 0;",
            "    mt.GetSingleShape(singleM, singleN, singleK);",
        ]
        if not p.direct:
            L += [
                "    // Base block: up to 128 x 128 (whole 16 x 16 fractals); its float result",
                "    // sits in UB whole, and the epilogue walks it in chunks of rows whose tiles",
                "    // fill the rest of UB.",
                "    uint64_t budget = ubSize > UB_RESERVE ? ubSize - UB_RESERVE : 0;",
                f"    uint32_t baseN = Align(static_cast<uint32_t>(singleN), {BASE_ALIGN});",
                f"    if (baseN > {BASE_CAP}) {{",
                f"        baseN = {BASE_CAP};",
                "    }",
                f"    uint32_t baseM = Align(static_cast<uint32_t>(singleM), {BASE_ALIGN});",
                f"    if (baseM > {BASE_CAP}) {{",
                f"        baseM = {BASE_CAP};",
                "    }",
                "    uint64_t block = static_cast<uint64_t>(baseM) * baseN * sizeof(float);",
                "    // + 64 elements: the chunk tiles are rounded up to whole float repeats.",
                "    uint64_t perRow = baseN * CHUNK_BYTES_PER_ELEM;",
                "    uint64_t left = budget > block + 64 * CHUNK_BYTES_PER_ELEM ?"
                " budget - block - 64 * CHUNK_BYTES_PER_ELEM : 0;",
                "    uint64_t chunkRows = left / perRow;",
                "    if (chunkRows > baseM) {",
                "        chunkRows = baseM;",
                "    }",
                "    if (chunkRows == 0) {",
                "        return ge::GRAPH_FAILED;  // not one row of the epilogue fits UB",
                "    }",
                "    tiling.set_chunkRows(static_cast<uint32_t>(chunkRows));",
                "    mt.SetFixSplit(static_cast<int32_t>(baseM), static_cast<int32_t>(baseN), -1);",
                "    if (mt.GetTiling(tiling.cube) == -1) {",
                "        return ge::GRAPH_FAILED;",
                "    }",
            ]
        if share > 1:
            L += self._shared_base_block(share)
        L += [
            "    uint64_t mBlocks = (M + singleM - 1) / singleM;",
            "    uint64_t nBlocks = (N + singleN - 1) / singleN;",
            "    uint64_t units = batches * mBlocks * nBlocks;",
            "    uint64_t blockDim = units < cubeCores ? units : cubeCores;",
            "    if (blockDim == 0) {",
            "        blockDim = 1;",
            "    }",
            "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
            "    tiling.set_M(static_cast<uint32_t>(M));",
            "    tiling.set_N(static_cast<uint32_t>(N));",
            "    tiling.set_K(static_cast<uint32_t>(K));",
            "    tiling.set_mBlocks(static_cast<uint32_t>(mBlocks));",
            "    tiling.set_nBlocks(static_cast<uint32_t>(nBlocks));",
            "    tiling.set_unitsPerCore(static_cast<uint32_t>(units / blockDim));",
            "    tiling.set_bigCores(static_cast<uint32_t>(units % blockDim));",
        ]
        for i in range(len(p.inputs)):
            L.append(
                f"    tiling.set_numel{i}(static_cast<uint32_t>("
                f"context->GetInputShape({i})->GetStorageShape().GetShapeSize()));"
            )
        for e in p.epi_inputs:
            t = p.inputs[e.input]
            for d in range(r):
                k = d - (r - len(t.shape))
                val = f"BStride(context, {e.input}, {k})" if k >= 0 else "0"
                L.append(f"    tiling.set_e{e.input}s{d}(static_cast<uint32_t>({val}));")
        L += [
            "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),"
            " context->GetRawTilingData()->GetCapacity());",
            "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
            "    size_t* workspace = context->GetWorkspaceSizes(1);",
            "    workspace[0] = ascendc.GetLibApiWorkSpaceSize();  // the Matmul API's system part",
            "    return ge::GRAPH_SUCCESS;",
            "}",
            "}  // namespace optiling",
            "",
        ]
        dims = [_dim(d.input, d.dim, "") for d in p.batch] + [
            _dim(p.m.input, p.m.dim, ""),
            _dim(p.n.input, p.n.dim, ""),
        ]
        infer = [
            "    // [*batch, M, N] from the operands' runtime shapes.",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({r});",
        ]
        shown: set[str] = set()
        for k, d in enumerate(dims):
            if d == "1":
                infer.append(f"    y->SetDim({k}, 1);")
                continue
            i, dd = d[len("Dim(, ") : -1].split(", ")
            if i not in shown:
                shown.add(i)
                infer.insert(1, f"    const gert::Shape* x{i} = context->GetInputShape({i});")
            infer.append(f"    y->SetDim({k}, x{i}->GetDim({dd}));")
        params = input_params(p.inputs)
        params += io_param("Output", "out", p.out_dtype)
        L += registration(p.op_name, infer, params, self.chip)
        return "\n".join(L)
