"""ConvPlan (slab lowering) -> operator project files: the convolution on the cube's img2col load.

The gather lowering (`lower/conv.py`) writes the im2col block col[K, positions] to a GM
workspace and the Matmul API reads it back once per tap (9 x the image block for a 3 x 3
kernel). Here the image goes to the cube once per work unit, as an NC1HWC0 slab in L1, and the
cube's Load3D builds col chunk by chunk in L0B (ascend_tools/emu/README.md, "The img2col path").
A mix kernel (one AIV per AIC):

- AIV, once per core: the weight W[Cout, Cin, kh, kw] re-laid into Load3D's K order
  (c1, kh, kw, c0) as [Cout/16][K/16][16][16] fractals (L0A's zZ layout of A[Cout, K]), by a
  Gather per (row of fractals, channel group, tap) with a 256-entry offset table, into this
  core's GM workspace; flag to the AIC.
- AIV, per unit (image, block of R output rows): the unit's input rows of 16 channels at a time
  ([16][rows * W] in UB) re-laid as [rows * W][16] by Gather with a (position, channel) table,
  written to the workspace as the slab [C1][rows][W][16] (the rows inside the image only:
  Load3D pads around them); flag to the AIC.
- AIC, per unit: the slab GM -> L1 once, then per (position block, channel block, K chunk) the
  weight fractals L1 -> L0A (LoadData), Load3D L1 -> L0B (kStartPt in whole C0, mStartPt in
  whole 16 positions), Mmad accumulating in L0C (C[Cout, positions] is NCHW).
- Out: where the epilogue is at most the conv's bias then ReLU (`ConvPlan.fixpipe_epilogue`),
  the bias is one more K fractal column of the re-laid weight (bias[i] in all 16 columns of
  row i) multiplied by a constant 1/16 operand in L0B, so L0C starts from the bias, and Fixpipe
  applies ReLU and the cast on its way to the NCHW output. Otherwise Fixpipe writes the float
  result to the workspace and the AIV runs the matmul family's epilogue (activation, residual,
  ...) per base block from there (910B's Fixpipe cannot write UB).

The weight is re-laid per core, or (`ConvPlan.shared_weight`) a share per AIV into one copy
followed by one SyncAll. The units run one after another on a core (single buffered: each flag
hands the workspace over), so the AIV re-lays unit u + 1 only after the AIC has taken unit u's
slab (and, with the vector epilogue, after that epilogue).
"""

from __future__ import annotations

from kernelgen_lm.lower.conv import ConvEmitter
from kernelgen_lm.lower.conv import fields as gather_fields
from kernelgen_lm.lower.host import GE_DTYPE, UB_RESERVE, tiling_header_text
from kernelgen_lm.lower.kernel import CTYPE, DSIZE
from kernelgen_lm.lower.move import BLOCK_HELPERS
from kernelgen_lm.plan.conv import ConvPlan
from kernelgen_lm.plan.conv_cost import BASE, C0, GATHER_POSITIONS, MAX_POSITIONS

L0_BYTES = 65536  # L0A / L0B of every chip the slab path runs on (dav-c220)
# Cross-core flags: AIV -> AIC (weight ready, slab ready), AIC -> AIV (result ready).
FLAG_W, FLAG_S, FLAG_C = 1, 2, 3


def slab_fields(p: ConvPlan) -> list[tuple[str, str]]:
    keep = {"batch", "cin", "h", "w", "cout", "oh", "ow", "rowsPer", "slabRows", "rowBlocks"}
    f = [x for x in gather_fields(p) if x[0] in keep]
    f += [
        ("unitsPerCore", "(image, row block) units of a small core"),
        ("bigCores", "cores that take one unit more"),
        ("pnA", "positions per unit padded to 16 (the result's row stride in the workspace)"),
        ("ldx", "UB row of the image re-layout: slabRows * w padded to 16"),
        ("kChunk", "K columns per Load3D / Mmad (whole C0)"),
        ("baseM", "output channels per cube block (whole 16)"),
        ("baseN", "positions per cube block (whole 16)"),
        ("iterateOrder", "0: blocks along M first (as the Matmul API's order field)"),
        ("chunkRows", "rows of a base block per epilogue chunk"),
    ]
    f += [(n, c) for n, c in gather_fields(p) if n.startswith(("numel", "e"))]
    return f


def slab_tiling_header(p: ConvPlan) -> str:
    return tiling_header_text(
        p.op_name,
        p.kernel_name,
        " (convolution on the cube's img2col load from an L1 slab): the unit\n"
        "// geometry, the cube's block sizes and the split of the units over the cores.",
        slab_fields(p),
    )


class ConvSlabEmitter(ConvEmitter):
    """The kernel and host of the slab lowering; the epilogue is the matmul family's, over
    float blocks read back from the workspace."""

    def kernel(self) -> str:  # type: ignore[override]
        p = self.p
        assert isinstance(p, ConvPlan)
        xt, ot = CTYPE[p.dtype], CTYPE[p.out_dtype]
        sz = DSIZE[p.dtype]
        # Gather moves 16-bit lanes; bfloat16 moves as half (the same bits).
        gt = "half" if p.dtype == "bfloat16" else xt
        rc = f".ReinterpretCast<{gt}>()" if gt != xt else ""
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.geometry2d
        taps = kh * kw
        ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
        fused = p.fixpipe_epilogue
        bias_col, relu = fused if fused is not None else (False, False)
        quant = {"float16": "F322F16", "bfloat16": "F322BF16"}.get(p.out_dtype, "NoQuant")
        L = [
            f"// {p.op_name}: conv{p.spatial}d on the cube's img2col load (Load3D) from an L1",
            f"// slab, generated by kernelgen's rule-based lowering ({self.chip.name}). Work unit",
            "// = (image, block of R output rows). The AIV re-lays the weight "
            + ("(a share each, one SyncAll) into" if p.shared_weight else "once per core into"),
            "// Load3D's K order (c1, kh, kw, c0) as L0A fractals, and per unit the unit's input",
            "// rows as an NC1HWC0 slab, both through this core's GM workspace; the AIC loads the",
            "// slab into L1 once, Load3D builds the im2col columns chunk by chunk in L0B, Mmad",
            "// accumulates W[Cout, K] x col in L0C and Fixpipe writes "
            + (
                "the output (bias as a K column",
                "the float result to the",
            )[fused is None],
            (
                "// against a 1/16 operand, ReLU and the cast in Fixpipe).",
                "// workspace, where the AIV runs the epilogue per base block and writes out.",
            )[fused is None],
            '#include "kernel_operator.h"',
            "using namespace AscendC;",
            "",
            "__aicore__ inline uint32_t MinU(uint32_t x, uint32_t y) { return x < y ? x : y; }",
            "",
            *BLOCK_HELPERS,
            "",
            f"constexpr uint32_t KH = {kh}, KW = {kw}, SH = {sh}, SW = {sw};",
            f"constexpr uint32_t PH = {ph}, PW = {pw}, DH = {dh}, DW = {dw};",
            f"constexpr uint32_t TAPS = {taps}, C0 = {C0}, PC = {GATHER_POSITIONS};",
            f"constexpr int32_t FLAG_W = {FLAG_W}, FLAG_S = {FLAG_S}, FLAG_C = {FLAG_C};",
            "// BIAS_COL: the weight's fractal rows carry one more K column, the bias spread",
            "// over its 16 columns, multiplied by a constant 1/16 operand (exact in the float",
            "// accumulation), so L0C starts from the bias. ONES: that operand's L0B offset.",
            f"constexpr uint32_t BIAS_COL = {int(bias_col)};",
            "// SHARED_W: the AIVs re-lay a share of the weight each into one copy (then a",
            "// SyncAll); else each core re-lays all of it into its own.",
            f"constexpr uint32_t SHARED_W = {int(p.shared_weight)};",
            f"constexpr uint32_t ONES = {(L0_BYTES - BASE * C0 * sz) // sz};",
            "",
            f"class Kernel{p.op_name} {{",
            "public:",
            "    template <typename TilingT>",
            f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, GM_ADDR workspace,",
            "                                const TilingT& td, TPipe* pipe)",
            "    {",
            "        nb = td.batch; cin = td.cin; H = td.h; W = td.w; cout = td.cout;",
            "        OH = td.oh; OW = td.ow; R = td.rowsPer; slabRows = td.slabRows;",
            "        rowBlocks = td.rowBlocks; pnA = td.pnA; ldx = td.ldx; kc = td.kChunk;",
            "        C1 = cin / C0; K = cin * TAPS; K1 = K / C0; coutP = (cout + 15) / 16 * 16;",
            "        K1w = K1 + BIAS_COL;",
            "        N = OH * OW;  // the result's row stride: positions of one channel",
            "        uint64_t idx = GetBlockIdx();",
            "        uint64_t upc = td.unitsPerCore;",
            "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
            "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
            f"        gm_x.SetGlobalBuffer((__gm__ {xt}*)in{p.x}, td.numel{p.x});",
            f"        gm_w.SetGlobalBuffer((__gm__ {xt}*)in{p.w}, td.numel{p.w});",
            f"        gm_out.SetGlobalBuffer((__gm__ {ot}*)out, static_cast<uint64_t>(nb) * cout"
            " * N);",
            "        // This core's workspace: the re-laid weight, the slab, the float result "
            "(none",
            "        // when Fixpipe writes the output).",
            "        uint64_t wElems = static_cast<uint64_t>(coutP) * K1w * C0;",
            "        uint64_t sElems = static_cast<uint64_t>(C1) * slabRows * W * C0;",
            f"        uint64_t cElems = {'0' if fused else 'static_cast<uint64_t>(coutP) * pnA'};",
            f"        uint64_t wBytes = wElems * {sz};",
            f"        uint64_t coreBytes = (SHARED_W ? 0 : wBytes) + sElems * {sz} + cElems * 4;",
            "        GM_ADDR user = GetUserWorkspace(workspace);",
            "        GM_ADDR mine = user + (SHARED_W ? wBytes : 0) + idx * coreBytes;",
            f"        gm_ww.SetGlobalBuffer((__gm__ {xt}*)(SHARED_W ? user : mine), wElems);",
            "        mine = mine + (SHARED_W ? 0 : wBytes);",
            f"        gm_slab.SetGlobalBuffer((__gm__ {xt}*)mine, sElems);",
            *(
                []
                if fused
                else [
                    f"        gm_c.SetGlobalBuffer((__gm__ float*)(mine + sElems * {sz}), cElems);"
                ]
            ),
            *(
                [f"        gm_bias.SetGlobalBuffer((__gm__ {xt}*)in{p.bias}, td.numel{p.bias});"]
                if bias_col
                else []
            ),
            "        if ASCEND_IS_AIC {",
            f"            pipe->InitBuffer(l1w, wElems * sizeof({xt}));",
            f"            pipe->InitBuffer(l1s, sElems * sizeof({xt}));",
            f"            pipe->InitBuffer(l0a, {p.kernel_name.upper()}_L0_BYTES);",
            f"            pipe->InitBuffer(l0b, {p.kernel_name.upper()}_L0_BYTES);",
            "            pipe->InitBuffer(l0c, td.baseM * td.baseN * sizeof(float));",
            "            baseM = td.baseM; baseN = td.baseN;",
            "            return;",
            "        }",
        ]
        for t in [] if fused else self.epi.values():
            ct = CTYPE[t.dtype]
            L += [
                f"        gm_{t.var}.SetGlobalBuffer((__gm__ {ct}*){t.var}, td.numel{t.index});",
                f"        es_{t.var}_b = td.e{t.index}sb;",
                f"        es_{t.var}_m = td.e{t.index}sc;",
            ]
        if not fused:
            L += self._epi_buffers("td")
        L += [
            "        // Re-layout tiles: 16 rows of the source (image channels or weight rows),",
            "        // the gathered C0-innermost block, the offset tables and their scratch.",
            "        uint32_t srcCols = ldx > C0 * TAPS ? ldx : C0 * TAPS;",
            "        uint32_t dstElems = PC * C0 > 256 * TAPS ? PC * C0 : 256 * TAPS;",
            f"        pipe->InitBuffer(q_src, 1, 16 * srcCols * sizeof({xt}));",
            f"        pipe->InitBuffer(q_dst, 1, dstElems * sizeof({xt}));",
            "        pipe->InitBuffer(tabBuf, (PC * C0 + 512) * sizeof(uint32_t));",
            "        pipe->InitBuffer(scratchBuf, 2 * PC * C0 * sizeof(float));",
            "        // Image table: entry e = p * 16 + c of a chunk (position p, channel c) is "
            "the",
            "        // byte offset of (c, p) in the [16][ldx] source tile, (c * ldx + p) * size =",
            "        // (e * ldx - p * (16 * ldx - 1)) * size, p = floor((e + 0.5) / 16) by a",
            "        // float floor (exact below 2^22); the chunk's first position is the",
            "        // Gather's base address. Weight table (256 entries after it): entry",
            "        // e = i * 16 + c0 of a fractal reads row i, channel c0 of the [16][16 * "
            "TAPS]",
            "        // tile of one channel group, (i * 16 * TAPS + c0 * TAPS) * size = e * TAPS *",
            "        // size; the tap is the Gather's base address.",
            "        LocalTensor<int32_t> tx = tabBuf.Get<int32_t>();",
            "        LocalTensor<float> pf = scratchBuf.Get<float>();",
            "        LocalTensor<int32_t> pi = scratchBuf.Get<int32_t>()[PC * C0];",
            "        CreateVecIndex(tx, static_cast<int32_t>(0), PC * C0);",
            "        Cast(pf, tx, RoundMode::CAST_NONE, PC * C0);",
            "        Adds(pf, pf, 0.5f, PC * C0);",
            "        Muls(pf, pf, 1.0f / static_cast<float>(C0), PC * C0);",
            "        Cast(pi, pf, RoundMode::CAST_FLOOR, PC * C0);",
            "        // Bias table (256 entries after the weight's): entry i * 16 + c reads",
            "        // bias value i, so row i of the fractal is bias[i] in every column.",
            "        LocalTensor<int32_t> tb = tx[PC * C0 + 256];",
            f"        Muls(tb, pi, static_cast<int32_t>({sz}), 256);",
            f"        Muls(tx, tx, static_cast<int32_t>(ldx * {sz}), PC * C0);",
            f"        Muls(pi, pi, static_cast<int32_t>((C0 * ldx - 1) * {sz}), PC * C0);",
            "        Sub(tx, tx, pi, PC * C0);",
            "        LocalTensor<int32_t> tw = tx[PC * C0];",
            "        CreateVecIndex(tw, static_cast<int32_t>(0), 256);",
            f"        Muls(tw, tw, static_cast<int32_t>(TAPS * {sz}), 256);",
            "        tabX = tx.ReinterpretCast<uint32_t>();",
            "        tabW = tw.ReinterpretCast<uint32_t>();",
            "        tabB = tb.ReinterpretCast<uint32_t>();",
            "    }",
            "",
            "    __aicore__ inline void Process()",
            "    {",
            "        if ASCEND_IS_AIC {",
            "            Cube();",
            "            return;",
            "        }",
            "        RelayWeight(static_cast<uint32_t>(GetBlockIdx()));",
            "        if (SHARED_W) {",
            "            SyncAll<true>();  // every AIV's share of the weight is in the workspace",
            "        }",
            "        CrossCoreSetFlag<2, PIPE_MTE3>(FLAG_W);",
            "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
            "            uint32_t rb = static_cast<uint32_t>(u % rowBlocks);",
            "            uint64_t b = u / rowBlocks;",
            "            uint32_t oy0 = rb * R;",
            "            uint32_t pn = MinU(R, OH - oy0) * OW;",
            "            int32_t r0, top, bottom;",
            "            uint32_t rowsReal = Rows(oy0, pn, r0, top, bottom);",
            *(
                [
                    "            if (u > unitStart) {",
                    "                CrossCoreWaitFlag(FLAG_C);  // the AIC has the last slab in "
                    "L1",
                    "            }",
                ]
                if fused
                else []
            ),
            "            RelaySlab(b * cin * H * W + static_cast<uint64_t>(r0) * W, rowsReal);",
            "            CrossCoreSetFlag<2, PIPE_MTE3>(FLAG_S);",
            *(
                []
                if fused
                else ["            CrossCoreWaitFlag(FLAG_C);", "            Epilogue(b, oy0, pn);"]
            ),
            "        }",
            "    }",
            "",
            "private:",
            "    // The input rows a unit's output rows read: the first row inside the image (r0),",
            "    // how many (returned), and the zero rows Load3D pads above and below them.",
            "    __aicore__ inline uint32_t Rows(uint32_t oy0, uint32_t pn, int32_t& r0, "
            "int32_t& top, int32_t& bottom)",
            "    {",
            "        int32_t iy0 = static_cast<int32_t>(oy0 * SH) - static_cast<int32_t>(PH);",
            "        int32_t need = static_cast<int32_t>((pn / OW - 1) * SH + (KH - 1) * DH + 1);",
            "        top = iy0 < 0 ? -iy0 : 0;",
            "        r0 = iy0 + top;",
            "        int32_t end = iy0 + need < static_cast<int32_t>(H) ? iy0 + need : "
            "static_cast<int32_t>(H);",
            "        int32_t rows = end - r0;",
            "        bottom = need - top - rows;",
            "        return static_cast<uint32_t>(rows);",
            "    }",
            "",
            "    // W[Cout, Cin, kh, kw] -> gm_ww[Cout/16][K/16][16][16], K in (c1, kh, kw, c0):",
            "    // per 16 rows and channel group, the [16][16 * TAPS] block (rows past Cout",
            "    // zero) comes to UB and a Gather per tap writes its fractal.",
            "    __aicore__ inline void RelayWeight(uint32_t idx)",
            "    {",
            "        uint32_t step = SHARED_W ? static_cast<uint32_t>(GetBlockNum()) : 1;",
            "        for (uint32_t j = SHARED_W ? idx : 0; j < coutP / 16 * C1; j += step) {",
            "            uint32_t m1 = j / C1, c1 = j % C1;",
            "            uint32_t rows = MinU(16, cout - m1 * 16);",
            "            {",
            f"                LocalTensor<{xt}> src = q_src.AllocTensor<{xt}>();",
            "                if (rows < 16) {",
            f"                    Duplicate(src{rc}, static_cast<{gt}>(0), 16 * 16 * TAPS);",
            "                    SetFlag<HardEvent::V_MTE2>(EVENT_ID0);",
            "                    WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);",
            "                }",
            "                uint64_t off = (static_cast<uint64_t>(m1) * 16 * cin + c1 * C0) * "
            "TAPS;",
            "                LoadBlock(src, gm_w[off], rows, C0 * TAPS, K, C0 * TAPS);",
            "                q_src.EnQue(src);",
            f"                src = q_src.DeQue<{xt}>();",
            f"                LocalTensor<{xt}> dst = q_dst.AllocTensor<{xt}>();",
            "                for (uint32_t t = 0; t < TAPS; ++t) {",
            f"                    Gather(dst{rc}[t * 256], src{rc}, tabW, t * {sz}, 256);",
            "                }",
            "                q_src.FreeTensor(src);",
            "                q_dst.EnQue(dst);",
            f"                dst = q_dst.DeQue<{xt}>();",
            "                uint64_t fr = static_cast<uint64_t>(m1) * K1w + c1 * TAPS;",
            "                DataCopy(gm_ww[fr * 256], dst, 256 * TAPS);",
            "                q_dst.FreeTensor(dst);",
            "            }",
            *(
                [
                    "            if (c1 != 0) {",
                    "                continue;  // one bias column per row of fractals",
                    "            }",
                    "            // The bias column: bias[m1 * 16 + i] in every column of row i.",
                    f"            LocalTensor<{xt}> src = q_src.AllocTensor<{xt}>();",
                    "            if (rows < 16) {",
                    f"                Duplicate(src{rc}, static_cast<{gt}>(0), 16);",
                    "                SetFlag<HardEvent::V_MTE2>(EVENT_ID0);",
                    "                WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);",
                    "            }",
                    "            LoadBlock(src, gm_bias[m1 * 16], 1, rows, rows, 16);",
                    "            q_src.EnQue(src);",
                    f"            src = q_src.DeQue<{xt}>();",
                    f"            LocalTensor<{xt}> dst = q_dst.AllocTensor<{xt}>();",
                    f"            Gather(dst{rc}, src{rc}, tabB, 0, 256);",
                    "            q_src.FreeTensor(src);",
                    "            q_dst.EnQue(dst);",
                    f"            dst = q_dst.DeQue<{xt}>();",
                    "            DataCopy(gm_ww[(static_cast<uint64_t>(m1) * K1w + K1) * 256], "
                    "dst, "
                    "256);",
                    "            q_dst.FreeTensor(dst);",
                ]
                if bias_col
                else []
            ),
            "        }",
            "    }",
            "",
            "    // The unit's rowsReal input rows from xRow (channel 0) -> "
            "gm_slab[C1][rows][W][16].",
            "    __aicore__ inline void RelaySlab(uint64_t xRow, uint32_t rowsReal)",
            "    {",
            "        uint32_t pos = rowsReal * W;",
            "        for (uint32_t c1 = 0; c1 < C1; ++c1) {",
            f"            LocalTensor<{xt}> src = q_src.AllocTensor<{xt}>();",
            "            LoadBlock(src, gm_x[xRow + static_cast<uint64_t>(c1) * C0 * H * W], C0, "
            "pos, static_cast<uint64_t>(H) * W, ldx);",
            "            q_src.EnQue(src);",
            f"            src = q_src.DeQue<{xt}>();",
            "            for (uint32_t p0 = 0; p0 < pos; p0 += PC) {",
            "                uint32_t n = MinU(PC, pos - p0);",
            f"                LocalTensor<{xt}> dst = q_dst.AllocTensor<{xt}>();",
            f"                Gather(dst{rc}, src{rc}, tabX, p0 * {sz}, n * C0);",
            "                q_dst.EnQue(dst);",
            f"                dst = q_dst.DeQue<{xt}>();",
            "                uint64_t o = (static_cast<uint64_t>(c1) * pos + p0) * C0;",
            "                DataCopy(gm_slab[o], dst, n * C0);",
            "                q_dst.FreeTensor(dst);",
            "            }",
            "            q_src.FreeTensor(src);",
            "        }",
            "    }",
            "",
            "    // The cube: the weight into L1 once, per unit the slab into L1, Load3D + Mmad "
            "per",
            "    // block and K chunk, Fixpipe of each block's float result into gm_c[Cout][pnA].",
            "    __aicore__ inline void Cube()",
            "    {",
            f"        LocalTensor<{xt}> w1 = l1w.Get<{xt}>();",
            f"        LocalTensor<{xt}> s1 = l1s.Get<{xt}>();",
            f"        LocalTensor<{xt}> a2 = l0a.Get<{xt}>();",
            f"        LocalTensor<{xt}> b2 = l0b.Get<{xt}>();",
            "        LocalTensor<float> c2 = l0c.Get<float>();",
            f"        LocalTensor<{xt}> ones = b2[ONES];",
            "        if (BIAS_COL) {",
            f"            InitConstValue(ones, InitConstValueParams<{xt}>(1, "
            f"static_cast<uint16_t>({BASE * C0 * sz // 512}), 0, static_cast<{xt}>(0.0625f)));",
            "        }",
            "        CrossCoreWaitFlag(FLAG_W);",
            "        DataCopy(w1, gm_ww, coutP * K1w * C0);",
            "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
            "            uint32_t rb = static_cast<uint32_t>(u % rowBlocks);",
            "            uint64_t b = u / rowBlocks;",
            "            uint32_t oy0 = rb * R;",
            "            uint32_t pn = MinU(R, OH - oy0) * OW;",
            "            int32_t r0, top, bottom;",
            "            uint32_t rowsReal = Rows(oy0, pn, r0, top, bottom);",
            "            CrossCoreWaitFlag(FLAG_S);",
            "            DataCopy(s1, gm_slab, C1 * rowsReal * W * C0);",
            *(
                [
                    "            if (u + 1 < unitEnd) {",
                    "                CrossCoreSetFlag<2, PIPE_MTE2>(FLAG_C);  // the slab may be "
                    "refilled",
                    "            }",
                ]
                if fused
                else []
            ),
            "            SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);",
            "            WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);",
            f"            LoadData3DParamsV2<{xt}> lp;",
            "            lp.padList[0] = PW;",
            "            lp.padList[1] = PW;",
            "            lp.padList[2] = static_cast<uint8_t>(top);",
            "            lp.padList[3] = static_cast<uint8_t>(bottom);",
            "            lp.l1H = static_cast<uint16_t>(rowsReal);",
            "            lp.l1W = static_cast<uint16_t>(W);",
            "            lp.channelSize = static_cast<uint16_t>(cin);",
            "            lp.strideW = SW;",
            "            lp.strideH = SH;",
            "            lp.filterW = KW;",
            "            lp.filterH = KH;",
            "            lp.dilationFilterW = DW;",
            "            lp.dilationFilterH = DH;",
            "            for (uint32_t n0 = 0; n0 < pn; n0 += baseN) {",
            "                uint32_t nb = MinU(baseN, pn - n0);",
            "                for (uint32_t m0 = 0; m0 < coutP; m0 += baseM) {",
            "                    uint32_t mb = MinU(baseM, coutP - m0);",
            "                    if (BIAS_COL) {",
            "                        for (uint32_t f = 0; f < mb / 16; ++f) {",
            "                            uint16_t start = static_cast<uint16_t>((m0 / 16 + f) * "
            "K1w + K1);",
            "                            LoadData(a2[f * 256], w1, LoadData2DParams(start, 1, 1, "
            "0, 0, "
            "false, 0));",
            "                        }",
            "                        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);",
            "                        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);",
            "                        MmadParams bp;",
            "                        bp.m = static_cast<uint16_t>(mb);",
            "                        bp.n = static_cast<uint16_t>(nb);",
            "                        bp.k = C0;",
            "                        bp.cmatrixInitVal = true;",
            "                        Mmad(c2, a2, ones, bp);",
            "                        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);",
            "                        WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);",
            "                    }",
            "                    for (uint32_t k0 = 0; k0 < K; k0 += kc) {",
            "                        uint32_t kl = MinU(kc, K - k0);",
            "                        for (uint32_t f = 0; f < mb / 16; ++f) {",
            "                            uint16_t start = static_cast<uint16_t>((m0 / 16 + f) * "
            "K1w + "
            "k0 / C0);",
            "                            LoadData(a2[f * kl * 16], w1, LoadData2DParams(start, "
            "static_cast<uint8_t>(kl / C0), 1, 0, 0, false, 0));",
            "                        }",
            "                        lp.kStartPt = static_cast<uint16_t>(k0);",
            "                        lp.kExtension = static_cast<uint16_t>(kl);",
            "                        lp.mStartPt = static_cast<uint16_t>(n0);",
            "                        lp.mExtension = static_cast<uint16_t>(nb);",
            "                        LoadData(b2, s1, lp);",
            "                        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);",
            "                        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);",
            "                        MmadParams mp;",
            "                        mp.m = static_cast<uint16_t>(mb);",
            "                        mp.n = static_cast<uint16_t>(nb);",
            "                        mp.k = static_cast<uint16_t>(kl);",
            "                        mp.cmatrixInitVal = k0 == 0 && !BIAS_COL;",
            "                        Mmad(c2, a2, b2, mp);",
            "                        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);",
            "                        WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);",
            "                    }",
            "                    SetFlag<HardEvent::M_FIX>(EVENT_ID0);",
            "                    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);",
            "                    FixpipeParamsV220 fp;",
            "                    fp.mSize = static_cast<uint16_t>(MinU(mb, cout - m0));",
            "                    fp.nSize = static_cast<uint16_t>(nb);",
            "                    fp.srcStride = static_cast<uint16_t>(mb);",
            *(
                [
                    "                    fp.dstStride = N;",
                    f"                    fp.quantPre = {quant};",
                    f"                    fp.reluEn = {'true' if relu else 'false'};",
                    "                    uint64_t o = (b * cout + m0) * N + "
                    "static_cast<uint64_t>(oy0) "
                    "* OW + n0;",
                    "                    // One output channel a call: its nb positions are "
                    "contiguous",
                    "                    // in NCHW, while the next channel's lie N further on, "
                    "past",
                    "                    // other units' rows (a many-row Fixpipe spans their "
                    "bytes).",
                    "                    uint32_t mRows = fp.mSize;",
                    "                    fp.mSize = 1;",
                    "                    for (uint32_t i = 0; i < mRows; ++i) {",
                    f"                        Fixpipe<{ot}, float, CFG_ROW_MAJOR>(gm_out[o + "
                    "static_cast<uint64_t>(i) * N], c2[i * 16], fp);",
                    "                    }",
                ]
                if fused
                else [
                    "                    fp.dstStride = pnA;",
                    "                    Fixpipe<float, float, "
                    "CFG_ROW_MAJOR>(gm_c[static_cast<uint64_t>(m0)"
                    " * pnA + n0], c2, fp);",
                ]
            ),
            "                    SetFlag<HardEvent::FIX_M>(EVENT_ID0);",
            "                    WaitFlag<HardEvent::FIX_M>(EVENT_ID0);",
            "                }",
            "            }",
            "            // The next unit's slab refills L1 after this unit's Load3Ds read it.",
            "            SetFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);",
            "            WaitFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);",
            *([] if fused else ["            CrossCoreSetFlag<2, PIPE_FIX>(FLAG_C);"]),
            "        }",
            "    }",
            "",
        ]
        epi: list[str] = [
            "    // The epilogue of one unit per baseM x baseN block of gm_c (float) -> out.",
            "    __aicore__ inline void Epilogue(uint64_t b, uint32_t oy0, uint32_t pn)",
            "    {",
            "        uint64_t cBase = b * cout * N + static_cast<uint64_t>(oy0) * OW;",
        ]
        for t in self.epi.values():
            epi.append(
                f"        uint64_t ebase_{t.var} = b * es_{t.var}_b"
                + (" + static_cast<uint64_t>(oy0) * OW;" if t.vary_n else ";")
            )
        epi += [
            "        for (uint32_t bn0 = 0; bn0 < pn; bn0 += baseN) {",
            "            for (uint32_t bm0 = 0; bm0 < cout; bm0 += baseM) {",
            "                uint32_t rows = MinU(baseM, cout - bm0);",
            "                uint32_t cols = MinU(baseN, pn - bn0);",
            "                uint32_t ldc = baseN;",
            "                uint64_t r0 = bm0;",
            "                uint64_t c0 = bn0;",
            "                uint64_t boff = cBase + r0 * N + c0;",
        ]
        for t in self.epi.values():
            epi.append(
                f"                uint64_t eblk_{t.var} = ebase_{t.var} + r0 * es_{t.var}_m"
                + (" + c0;" if t.vary_n else ";")
            )
        epi += self._epi_block(
            lambda t: f"es_{t.var}_m",
            [],
            fetch="LoadBlock(cTile, gm_c[r0 * pnA + c0], rows, cols, pnA, ldc);",
        )
        epi += [
            "            }",
            "        }",
            "    }",
            "",
        ]
        L += [] if fused else epi
        L += [
            f"    GlobalTensor<{xt}> gm_x, gm_w, gm_ww, gm_slab, gm_bias;",
            "    GlobalTensor<float> gm_c;",
            f"    GlobalTensor<{ot}> gm_out;",
        ]
        for t in self.epi.values():
            L += [
                f"    GlobalTensor<{CTYPE[t.dtype]}> gm_{t.var};",
                f"    uint64_t es_{t.var}_b = 0, es_{t.var}_m = 0;",
            ]
            if t.tile or t.rows:
                L.append(f"    TQue<QuePosition::VECIN, 1> q_{t.var};")
        L += self._epi_members(
            "q_c, q_src",
            "q_out, q_dst",
            (
                "    TBuf<QuePosition::VECCALC> tabBuf, scratchBuf;",
                "    LocalTensor<uint32_t> tabX, tabW, tabB;",
                "    TBuf<TPosition::A1> l1w;",
                "    TBuf<TPosition::B1> l1s;",
                "    TBuf<TPosition::A2> l0a;",
                "    TBuf<TPosition::B2> l0b;",
                "    TBuf<TPosition::CO1> l0c;",
            ),
        )
        L += [
            "    uint32_t nb = 0, cin = 0, H = 0, W = 0, cout = 0, OH = 0, OW = 0, R = 1;",
            "    uint32_t slabRows = 0, rowBlocks = 1, pnA = 0, ldx = 0, kc = 0;",
            "    uint32_t C1 = 0, K = 0, K1 = 0, K1w = 0, coutP = 0, N = 0;",
            "    uint64_t unitStart = 0, unitEnd = 0;",
            "};",
            "",
            f'extern "C" __global__ __aicore__ void {p.kernel_name}({", ".join(ins)}, '
            "GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)",
            "{",
            "    // One AIV per AIC: the pair works on the same units.",
            "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);",
            "    GET_TILING_DATA(td, tiling);",
            "    TPipe pipe;",
            f"    Kernel{p.op_name} op;",
            f"    op.Init({', '.join(f'in{i}' for i in range(len(p.inputs)))}, out, workspace, "
            "td, &pipe);",
            "    op.Process();",
            "}",
            "",
        ]
        # The L0A/L0B arena each chip of the slab path has (a literal: no tiling field).
        text = "\n".join(L)
        return text.replace(f"{p.kernel_name.upper()}_L0_BYTES", str(L0_BYTES))

    # ---------------------------------------------------------------- host file
    def host(self) -> str:  # type: ignore[override]
        p = self.p
        assert isinstance(p, ConvPlan)
        sz = DSIZE[p.dtype]
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.geometry2d
        taps = kh * kw
        x, w = p.x, p.w
        two = p.spatial == 2
        h_expr = f"Dim(context, {x}, 2)" if two else "1"
        w_expr = f"Dim(context, {x}, {3 if two else 2})"
        fused = p.fixpipe_epilogue
        bias_col = fused is not None and fused[0]
        L = [
            f"// Host side of {p.op_name} (slab lowering): unit geometry, cube blocks and the",
            "// core split from the runtime shapes; shape inference, OpDef.",
            f'#include "{p.kernel_name}_tiling.h"',
            '#include "register/op_def_registry.h"',
            '#include "tiling/platform/platform_ascendc.h"',
            "",
            "namespace optiling {",
            f"constexpr uint64_t UB_RESERVE = {UB_RESERVE};",
            f"constexpr uint64_t CHUNK_BYTES_PER_ELEM = {self.bytes_per_element()};",
            f"constexpr uint64_t KH = {kh}, KW = {kw}, SH = {sh}, SW = {sw};",
            f"constexpr uint64_t PH = {ph}, PW = {pw}, DH = {dh}, DW = {dw};",
            f"constexpr uint64_t TAPS = {taps}, ELEM = {sz}, C0 = {C0};",
            f"constexpr uint64_t PC = {GATHER_POSITIONS}, BASE = {BASE}, L0 = {L0_BYTES};",
            f"constexpr uint64_t MAX_POSITIONS = {MAX_POSITIONS};",
            "// FUSED: Fixpipe writes the output (no float result in the workspace, no vector",
            "// epilogue); BIAS_COL: the weight carries the bias as one more K fractal column.",
            f"constexpr bool FUSED = {'true' if fused else 'false'};",
            f"constexpr uint64_t BIAS_COL = {int(bias_col)};",
            f"constexpr bool SHARED_W = {'true' if p.shared_weight else 'false'};",
            "constexpr uint64_t ONES_BYTES = BASE * C0 * ELEM;  // the 1/16 operand in L0B",
            f"// {GE_DTYPE[p.dtype]} image and weight.",
            "",
            "static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
            "{",
            "    return static_cast<uint64_t>(context->GetInputShape(input)->GetStorageShape()"
            ".GetDim(dim));",
            "}",
            "",
            "static uint64_t Up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }",
            "",
            "// One output axis: torch's (size + 2 pad - dil (k - 1) - 1) / stride + 1, 0 if none.",
            "static uint64_t OutLen(uint64_t n, uint64_t k, uint64_t s, uint64_t pad, uint64_t d)",
            "{",
            "    uint64_t span = d * (k - 1) + 1;",
            "    return n + 2 * pad < span ? 0 : (n + 2 * pad - span) / s + 1;",
            "}",
            "",
            "static uint64_t SlabRows(uint64_t r) { return (r - 1) * SH + (KH - 1) * DH + 1; }",
            "",
            "// UB bytes of the re-layout: the [16][ldx] source tile, a gathered chunk, the",
            "// image, weight and bias tables and the table build's scratch.",
            "static uint64_t RelayBytes(uint64_t ldx)",
            "{",
            "    uint64_t src = 16 * (ldx > C0 * TAPS ? ldx : C0 * TAPS) * ELEM;",
            "    uint64_t dst = (PC * C0 > 256 * TAPS ? PC * C0 : 256 * TAPS) * ELEM;",
            "    return src + dst + (PC * C0 + 512) * 4 + 2 * PC * C0 * 4;",
            "}",
            "",
            "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
            "{",
            f"    {p.op_name}TilingData tiling;",
            f"    uint64_t nb = Dim(context, {x}, 0);",
            f"    uint64_t cin = Dim(context, {x}, 1);",
            f"    uint64_t h = {h_expr};",
            f"    uint64_t w = {w_expr};",
            f"    uint64_t cout = Dim(context, {w}, 0);",
            "    uint64_t oh = OutLen(h, KH, SH, PH, DH);",
            "    uint64_t ow = OutLen(w, KW, SW, PW, DW);",
            "    if (nb == 0 || oh == 0 || ow == 0 || cin % C0 != 0 || cin == 0) {",
            "        return ge::GRAPH_FAILED;  // the slab holds whole groups of 16 channels",
            "    }",
            "    uint64_t K = cin * TAPS;",
            "    uint64_t coutP = Up(cout, 16);",
            "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
            "    uint64_t ubSize = 0, l1Size = 0, l0cSize = 0;",
            "    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);",
            "    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);",
            "    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);",
            "    uint64_t cubeCores = ascendc.GetCoreNumAic();",
            "    if (cubeCores == 0) {",
            "        cubeCores = ascendc.GetCoreNum();",
            "    }",
            "    uint64_t budget = ubSize > UB_RESERVE ? ubSize - UB_RESERVE : 0;",
            "    // R output rows per unit: enough units for every cube core, at most",
            "    // MAX_POSITIONS positions, the weight and the slab within L1 and the re-layout",
            "    // within half of UB (the epilogue's block and chunks take the rest).",
            "    uint64_t parts = nb >= cubeCores ? 1 : (cubeCores + nb - 1) / nb;",
            "    uint64_t R = (oh + parts - 1) / parts;",
            "    if (R * ow > MAX_POSITIONS) {",
            "        R = MAX_POSITIONS / ow > 0 ? MAX_POSITIONS / ow : 1;",
            "    }",
            "    uint64_t wL1 = coutP * (K + BIAS_COL * C0) * ELEM;",
            "    while (R > 1 && (RelayBytes(Up(SlabRows(R) * w, 16)) > budget / 2 ||",
            "                     wL1 + cin * SlabRows(R) * w * ELEM > l1Size)) {",
            "        --R;",
            "    }",
            "    uint64_t ldx = Up(SlabRows(R) * w, 16);",
            "    if (RelayBytes(ldx) > budget / 2 || wL1 + cin * SlabRows(R) * w * ELEM > l1Size) "
            "{",
            "        return ge::GRAPH_FAILED;  // one output row's slab does not fit",
            "    }",
            "    uint64_t rowBlocks = (oh + R - 1) / R;",
            "    uint64_t pnA = Up(R * ow, 16);",
            "    uint64_t baseM = coutP < BASE ? coutP : BASE;",
            "    uint64_t baseN = pnA < BASE ? pnA : BASE;",
            "    while (baseM * baseN * sizeof(float) > l0cSize) {",
            "        baseN -= 16;",
            "    }",
            "    uint64_t big = baseM > baseN ? baseM : baseN;",
            "    uint64_t kc = (L0 - ONES_BYTES) / (ELEM * big) / C0 * C0;",
            "    if (kc > K) {",
            "        kc = K;",
            "    }",
            "    // The epilogue's UB: the float block and at least one row of chunk tiles.",
            "    uint64_t relay = RelayBytes(ldx);",
            "    uint64_t block = baseM * baseN * sizeof(float);",
            "    uint64_t used = relay + block + 64 * CHUNK_BYTES_PER_ELEM;",
            "    uint64_t left = budget > used ? budget - used : 0;",
            "    uint64_t chunkRows = left / (baseN * CHUNK_BYTES_PER_ELEM);",
            "    if (chunkRows > baseM) {",
            "        chunkRows = baseM;",
            "    }",
            "    if (FUSED) {",
            "        chunkRows = 1;  // no vector epilogue",
            "    }",
            "    if (chunkRows == 0 || kc == 0) {",
            "        return ge::GRAPH_FAILED;  // not one row of the epilogue fits UB",
            "    }",
            "    uint64_t units = nb * rowBlocks;",
            "    uint64_t blockDim = units < cubeCores ? units : cubeCores;",
            "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
            "    tiling.set_batch(static_cast<uint32_t>(nb));",
            "    tiling.set_cin(static_cast<uint32_t>(cin));",
            "    tiling.set_h(static_cast<uint32_t>(h));",
            "    tiling.set_w(static_cast<uint32_t>(w));",
            "    tiling.set_cout(static_cast<uint32_t>(cout));",
            "    tiling.set_oh(static_cast<uint32_t>(oh));",
            "    tiling.set_ow(static_cast<uint32_t>(ow));",
            "    tiling.set_rowsPer(static_cast<uint32_t>(R));",
            "    tiling.set_slabRows(static_cast<uint32_t>(SlabRows(R)));",
            "    tiling.set_rowBlocks(static_cast<uint32_t>(rowBlocks));",
            "    tiling.set_unitsPerCore(static_cast<uint32_t>(units / blockDim));",
            "    tiling.set_bigCores(static_cast<uint32_t>(units % blockDim));",
            "    tiling.set_pnA(static_cast<uint32_t>(pnA));",
            "    tiling.set_ldx(static_cast<uint32_t>(ldx));",
            "    tiling.set_kChunk(static_cast<uint32_t>(kc));",
            "    tiling.set_baseM(static_cast<uint32_t>(baseM));",
            "    tiling.set_baseN(static_cast<uint32_t>(baseN));",
            "    tiling.set_iterateOrder(0);",
            "    tiling.set_chunkRows(static_cast<uint32_t>(chunkRows));",
        ]
        L += self._input_fields()
        L += [
            "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),"
            " context->GetRawTilingData()->GetCapacity());",
            "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
            "    size_t* workspace = context->GetWorkspaceSizes(1);",
            "    // The system part, then per core the re-laid weight, the slab and the result.",
            "    uint64_t wBytes = coutP * (K + BIAS_COL * C0) * ELEM;",
            "    uint64_t core = (SHARED_W ? 0 : wBytes) + cin * SlabRows(R) * w * ELEM +",
            "                    (FUSED ? 0 : coutP * pnA * 4);",
            "    workspace[0] = ascendc.GetLibApiWorkSpaceSize() + (SHARED_W ? wBytes : 0) + "
            "blockDim * core;",
            "    return ge::GRAPH_SUCCESS;",
            "}",
            "}  // namespace optiling",
            "",
        ]
        L += self._registration()
        return "\n".join(L)
