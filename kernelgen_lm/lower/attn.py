"""AttnPlan -> operator project files: one fused flash-attention kernel (mix AIC:AIV 1:1).

Per work unit (batch index, block of BQ query rows) the AIV walks the keys in blocks of BK:
S = Q K^T on the cube (Matmul object 1, the float block fetched into UB with GetTensorC), the
scale and mask on the vector unit, `SoftmaxFlashV2` (running row max and sum in float32, and
exp(m_old - m_new) to rescale the accumulator), P written to this core's block of the GM
workspace (the cube reads its operands from GM), O = P V on the cube (Matmul object 2) added
into the float accumulator. Only one [BQ, BK] block of scores per core ever reaches GM.

BQ and BK are chosen here from the UB bytes every buffer needs (D and Dv are fixed per build);
the host fills both TCubeTilings (base block = the whole [BQ, BK] / [BQ, Dv] block, so one
Iterate per product) and the SoftMaxTiling, and asks for the workspace.
"""

from __future__ import annotations

from ascend_tools.chips import Chip
from kernelgen_lm.lower.host import (
    GE_DTYPE,
    input_params,
    io_param,
    registration,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE
from kernelgen_lm.lower.move import BLOCK_HELPERS
from kernelgen_lm.plan.attn import AttnPlan

ALIGN = 16  # cube fractal edge: the Matmul base blocks are whole fractals
# (BQ, BK) candidates, largest first: BK = 128 keys fills a 256-byte float repeat twice per row;
# causal kernels need BK = BQ (the diagonal block's triangle is one fixed tile, built a 64-lane
# repeat at a time, so BK is a multiple of 64).
BLOCKS = ((128, 128), (64, 128), (64, 64), (32, 128), (32, 64), (16, 64))
# UB kept free of the kernel's buffers (the Matmul API's own UB use on the AIV side).
UB_MARGIN = 16 * 1024
# Added to masked scores: exp(x - max) underflows to exactly 0 for it, and unlike -inf it never
# meets another infinity (no NaN from -inf - -inf when a mask and the triangle both apply).
MASKED = "-1.0e30f"


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def softmax_tmp_bytes(bq: int, bk: int) -> int:
    """SoftmaxFlashV2's work buffer for all BQ rows at once (the emulator's and SoftMaxTilingFunc's
    per-row figure: a float row plus two 32-byte statistics)."""
    return bq * (bk * 4 + 64)


class AttnLayout:
    """Block sizes and UB buffers of one plan (all in bytes)."""

    def __init__(self, p: AttnPlan, chip: Chip) -> None:
        self.p = p
        self.dva = _align(p.value_dim, ALIGN)
        self.tsz = DSIZE[p.dtype]
        self.osz = DSIZE[p.out_dtype]
        budget = chip.ub_bytes - UB_MARGIN
        for bq, bk in BLOCKS:
            if p.causal and bq != bk:
                continue
            if self.ub_bytes(bq, bk) <= budget:
                self.bq, self.bk = bq, bk
                break
        else:
            raise ValueError(
                f"no attention block fits UB ({chip.ub_bytes} bytes) with Dv={p.value_dim}"
            )

    def buffers(self, bq: int, bk: int) -> dict[str, int]:
        p = self.p
        b = {
            "s": bq * bk * 4,  # score block (float, from the cube)
            "p": bq * bk * self.tsz,  # P block in the operand dtype (to the workspace)
            "o": bq * self.dva * 4,  # P V block (float, from the cube)
            "acc": bq * self.dva * 4,
            "y": bq * self.dva * self.osz,
            "stat": 5 * bq * 32,  # max x2, sum x2, exp(m_old - m_new): one 32-byte block a row
            "tmp": softmax_tmp_bytes(bq, bk),
        }
        if p.mask is not None:
            mt = p.inputs[p.mask].dtype
            b["m"] = bq * bk * DSIZE[mt]
            if mt != "float32":
                b["mf"] = bq * bk * 4
            if mt == "bool":
                b["mh"] = bq * bk * 2
        if p.causal:
            b["tri"] = bq * bk * 4
        return b

    def ub_bytes(self, bq: int, bk: int) -> int:
        return sum(self.buffers(bq, bk).values())


def fields(p: AttnPlan) -> list[tuple[str, str]]:
    f = [
        ("Sq", "query rows"),
        ("Sk", "keys"),
        ("D", "head size of Q and K"),
        ("Dv", "head size of V"),
        ("batch", "batch axes flattened"),
        ("qBlocks", "BQ-row query blocks per batch index"),
        ("unitsPerCore", "(batch, query block) units of a small core"),
        ("bigCores", "cores that take one unit more"),
    ]
    f += [(f"numel{i}", f"elements of input {i}") for i in range(len(p.inputs))]
    if p.mask is not None:
        f += [(f"bat{j}", f"batch axis {j}") for j in range(p.batch_rank)]
        f += [
            (f"mBs{j}", f"mask stride along batch axis {j} (0: broadcast)")
            for j in range(p.batch_rank)
        ]
        f.append(("mRs", "mask stride along the query axis (0: broadcast)"))
    return f


def attn_tiling_header(p: AttnPlan) -> str:
    return tiling_header_text(
        p.op_name,
        p.kernel_name,
        " (attention): the two products' TCubeTilings, the online\n"
        "// softmax's SoftMaxTiling, runtime sizes and the split of the units over the cores.",
        fields(p),
        structs=[
            "TCubeTiling qk  // S = Q K^T, one [BQ, BK] block",
            "TCubeTiling pv  // O = P V, one [BQ, Dv] block",
            "SoftMaxTiling sm  // SoftmaxFlashV2 on [BQ, BK]",
        ],
    )


class AttnEmitter:
    def __init__(self, p: AttnPlan, chip: Chip) -> None:
        self.p = p
        self.chip = chip
        self.lay = AttnLayout(p, chip)

    # ---------------------------------------------------------------- kernel
    def _mask_lines(self) -> list[str]:
        """Adds the mask block to the scaled scores `s` (rows x BK, kcur valid columns)."""
        p = self.p
        if p.mask is None:
            return []
        mt = p.inputs[p.mask].dtype
        ct = CTYPE[mt]
        L = [
            f"LocalTensor<{ct}> m = q_m.AllocTensor<{ct}>();",
            "if (mRs == 0) {  // one mask row for every query: load it once, repeat it in UB",
            "    LoadBlock(m, gm_m[mOff + k0], 1, kcur, Sk, BK);",
            "} else {",
            "    LoadBlock(m, gm_m[mOff + k0], rows, kcur, mRs, BK);",
            "}",
            "q_m.EnQue(m);",
            f"m = q_m.DeQue<{ct}>();",
            "if (mRs == 0) {",
            "    for (uint32_t r = 1; r < rows; ++r) {",
            "        DataCopy(m[r * BK], m, BK);",
            "    }",
            "}",
        ]
        if mt == "float32":
            L.append("Add(s, s, m, rows * BK);")
        else:
            if mt == "bool":
                L += [
                    "Cast(mh, m, RoundMode::CAST_NONE, rows * BK);  // 0 / 1",
                    "Cast(mf, mh, RoundMode::CAST_NONE, rows * BK);",
                ]
                if p.mask_kind == "keep":  # True attends: (m - 1) * BIG
                    L += [
                        "Adds(mf, mf, -1.0f, rows * BK);",
                        "Muls(mf, mf, 1.0e30f, rows * BK);",
                    ]
                else:  # True is masked: m * -BIG
                    L.append(f"Muls(mf, mf, {MASKED}, rows * BK);")
            else:
                L.append("Cast(mf, m, RoundMode::CAST_NONE, rows * BK);")
            L.append("Add(s, s, mf, rows * BK);")
        L.append("q_m.FreeTensor(m);")
        return L

    def _row_scale(self, api: str, stat: str) -> list[str]:
        """acc[r, :] = api(acc[r, :], stat[r]) for the block's rows: one mask/repeat call per 64
        columns, the row's statistic read through src1 block stride 0 (one 32-byte block a row)."""
        dva = self.lay.dva
        L = []
        for c in range(0, dva, 64):
            n = min(64, dva - c)
            L.append(
                f"{api}(acc[{c}], acc[{c}], {stat}, {n}, static_cast<uint8_t>(rows), "
                f"{{1, 1, 0, {dva // 8}, {dva // 8}, 1}});"
            )
        return L

    def kernel(self) -> str:
        p, lay = self.p, self.lay
        T, OT = CTYPE[p.dtype], CTYPE[p.out_dtype]
        bq, bk, dva = lay.bq, lay.bk, lay.dva
        bufs = lay.buffers(bq, bk)
        ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
        ktrans = "true" if p.k_trans else "false"
        stat = bq * 8  # floats of one statistics tensor
        mt = CTYPE[p.inputs[p.mask].dtype] if p.mask is not None else ""
        nb = p.batch_rank
        L = [
            f"// {p.op_name}: fused attention softmax(Q K^T * scale [+ mask]) V, generated by",
            f"// kernelgen's rule-based lowering ({self.chip.name}). Work unit = (batch index,",
            f"// block of {bq} query rows), split over the cores big/small. Per key block of {bk}",
            "// keys: S on the cube (Matmul 1) into UB, scale and mask, SoftmaxFlashV2 (online",
            "// max/sum, float), the accumulator rescaled, P to this core's GM workspace block,",
            "// P V on the cube (Matmul 2) added into the accumulator; at the end acc / sum, cast,",
            "// DataCopyPad.",
            '#include "kernel_operator.h"',
            '#include "lib/matmul_intf.h"',
            "using namespace AscendC;",
            "using namespace matmul;",
            "",
            f"constexpr uint32_t BQ = {bq};  // query rows per unit",
            f"constexpr uint32_t BK = {bk};  // keys per block",
            f"constexpr uint32_t DVA = {dva};  // Dv rounded up to a fractal (accumulator row)",
            f"constexpr uint32_t STAT = {stat};  // floats of one row-statistics tensor",
            f"constexpr float SCALE = {p.scale!r}f;",
            "",
            "__aicore__ inline uint32_t MinU(uint32_t x, uint32_t y) { return x < y ? x : y; }",
            "",
            *BLOCK_HELPERS,
            "",
            f"class Kernel{p.op_name} {{",
            "public:",
            f"    using QType = MatmulType<TPosition::GM, CubeFormat::ND, {T}>;",
            f"    using KType = MatmulType<TPosition::GM, CubeFormat::ND, {T}, {ktrans}>;",
            f"    using PType = MatmulType<TPosition::GM, CubeFormat::ND, {T}>;",
            f"    using VType = MatmulType<TPosition::GM, CubeFormat::ND, {T}>;",
            "    using SType = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;",
            "    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;",
            "    Matmul<QType, KType, SType, BiasType> mmQK;",
            "    Matmul<PType, VType, SType, BiasType> mmPV;",
            "",
            "    template <typename TilingT>",
            f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, GM_ADDR workspace,",
            "                                const TilingT& td, TPipe* pipe)",
            "    {",
            "        Sq = td.Sq; Sk = td.Sk; D = td.D; Dv = td.Dv;",
            "        qBlocks = td.qBlocks;",
            "        sm = td.sm;",
            "        uint64_t idx = GetBlockIdx();",
            "        uint64_t upc = td.unitsPerCore;",
            "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
            "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
            f"        gm_q.SetGlobalBuffer((__gm__ {T}*)in{p.q}, td.numel{p.q});",
            f"        gm_k.SetGlobalBuffer((__gm__ {T}*)in{p.k}, td.numel{p.k});",
            f"        gm_v.SetGlobalBuffer((__gm__ {T}*)in{p.v}, td.numel{p.v});",
            f"        gm_out.SetGlobalBuffer((__gm__ {OT}*)out, "
            "static_cast<uint64_t>(td.batch) * Sq * Dv);",
            "        // This core's block of the user workspace: one [BQ, BK] P block.",
            "        GM_ADDR usr = GetUserWorkspace(workspace);",
            f"        gm_p.SetGlobalBuffer((__gm__ {T}*)usr + idx * BQ * BK, BQ * BK);",
        ]
        if p.mask is not None:
            L.append(f"        gm_m.SetGlobalBuffer((__gm__ {mt}*)in{p.mask}, td.numel{p.mask});")
            for j in range(nb):
                L.append(f"        bat[{j}] = td.bat{j}; mBs[{j}] = td.mBs{j};")
            L.append("        mRs = td.mRs;")
        L += [
            f"        pipe->InitBuffer(q_s, 1, {bufs['s']});",
            f"        pipe->InitBuffer(q_p, 1, {bufs['p']});",
            f"        pipe->InitBuffer(q_o, 1, {bufs['o']});",
            f"        pipe->InitBuffer(q_y, 1, {bufs['y']});",
            f"        pipe->InitBuffer(accBuf, {bufs['acc']});",
            f"        pipe->InitBuffer(statBuf, {bufs['stat']});",
            f"        pipe->InitBuffer(tmpBuf, {bufs['tmp']});",
            "        acc = accBuf.Get<float>();",
            "        st = statBuf.Get<float>();",
            "        tmp = tmpBuf.Get<uint8_t>();",
        ]
        if p.mask is not None:
            L.append(f"        pipe->InitBuffer(q_m, 1, {bufs['m']});")
            if "mf" in bufs:
                L += [
                    f"        pipe->InitBuffer(mfBuf, {bufs['mf']});",
                    "        mf = mfBuf.Get<float>();",
                ]
            if "mh" in bufs:
                L += [
                    f"        pipe->InitBuffer(mhBuf, {bufs['mh']});",
                    "        mh = mhBuf.Get<half>();",
                ]
        if p.causal:
            L += [
                f"        pipe->InitBuffer(triBuf, {bufs['tri']});",
                "        tri = triBuf.Get<float>();",
                "        // The diagonal block's causal triangle (BQ = BK): key c > row r masked.",
                "        // Per row and 64-lane repeat one bit-mask Duplicate of the lanes past r.",
                "        Duplicate(tri, 0.0f, BQ * BK);",
                "        for (uint32_t r = 0; r < BQ; ++r) {",
                "            for (uint32_t j = 0; j < BK; j += 64) {",
                "                if (r + 1 >= j + 64) {",
                "                    continue;  // every lane of this repeat is at or before r",
                "                }",
                "                uint32_t lo = r + 1 > j ? r + 1 - j : 0;  // first masked lane",
                "                uint64_t bits[2] = {lo == 0 ? ~0ULL : ~((1ULL << lo) - 1), 0};",
                f"                Duplicate(tri[r * BK + j], {MASKED}, bits, 1, 1, 8);",
                "            }",
                "        }",
            ]
        L += ["    }", ""]
        # ---- Process
        ind = " " * 12
        body = [
            "uint64_t bh = u / qBlocks;  // linear batch index",
            "uint32_t qb = static_cast<uint32_t>(u % qBlocks);",
            "uint32_t q0 = qb * BQ;",
            "uint32_t rows = MinU(BQ, Sq - q0);",
            "uint64_t qOff = (bh * Sq + q0) * D;",
            "uint64_t kBase = bh * Sk * D;",
            "uint64_t vBase = bh * Sk * Dv;",
            "uint64_t oOff = (bh * Sq + q0) * Dv;",
        ]
        if p.mask is not None:
            body += [
                "uint64_t mOff = static_cast<uint64_t>(q0) * mRs;",
                "uint64_t t = bh;",
                f"for (int32_t j = {nb - 1}; j >= 0; --j) {{",
                "    mOff += (t % bat[j]) * mBs[j];",
                "    t /= bat[j];",
                "}",
            ]
        body += [
            # Causal: keys past the block's last query row are masked for every row: skipped.
            "uint32_t kEnd = " + ("MinU(Sk, q0 + rows);" if p.causal else "Sk;"),
            "uint32_t kBlocks = (kEnd + BK - 1) / BK;",
            "Duplicate(acc, 0.0f, BQ * DVA);",
            "for (uint32_t kb = 0; kb < kBlocks; ++kb) {",
            "    uint32_t k0 = kb * BK;",
            "    uint32_t kcur = MinU(BK, kEnd - k0);",
            "    uint32_t cur = kb & 1, prev = cur ^ 1;",
            "    LocalTensor<float> mx = st[cur * STAT], sum = st[(2 + cur) * STAT];",
            "    LocalTensor<float> mxOld = st[prev * STAT], sumOld = st[(2 + prev) * STAT];",
            "    LocalTensor<float> expMax = st[4 * STAT];",
            "    // S = Q_blk K_blk^T (float, one base block) into UB.",
            "    mmQK.SetTensorA(gm_q[qOff]);",
            "    mmQK.SetTensorB(gm_k[kBase + "
            + ("static_cast<uint64_t>(k0) * D" if p.k_trans else "k0")
            + f"], {ktrans});",
            "    mmQK.SetTail(rows, kcur, D);",
            "    LocalTensor<float> s = q_s.AllocTensor<float>();",
            "    while (mmQK.Iterate()) {",
            "        mmQK.GetTensorC(s);",
            "    }",
            "    q_s.EnQue(s);",
            "    s = q_s.DeQue<float>();",
            "    Muls(s, s, SCALE, rows * BK);",
            *["    " + x for x in self._mask_lines()],
        ]
        if p.causal:
            body += [
                "    if (kb == qb) {  // the diagonal block (BQ = BK, so q0 = k0)",
                "        Add(s, s, tri, rows * BK);",
                "    }",
            ]
        dst = "p" if p.dtype == "float32" else "s"
        sm_args = f"{dst}, sum, mx, s, expMax, sumOld, mxOld, tmp, sm, info"
        body += [
            "    // Online softmax over the kcur valid keys: P = exp(S - m_new), running max/sum,",
            "    // expMax = exp(m_old - m_new).",
            "    SoftMaxShapeInfo info{rows, BK, rows, kcur};",
            f"    LocalTensor<{T}> p = q_p.AllocTensor<{T}>();",
            "    if (kb == 0) {",
            f"        SoftmaxFlashV2<float, false>({sm_args});",
            "    } else {",
            f"        SoftmaxFlashV2<float, true>({sm_args});",
            "    }",
        ]
        if p.dtype != "float32":
            body.append("    Cast(p, s, RoundMode::CAST_RINT, rows * BK);")
        body += [
            "    q_s.FreeTensor(s);",
            "    q_p.EnQue(p);",
            f"    p = q_p.DeQue<{T}>();",
            "    StoreBlock(gm_p, p, rows, kcur, BK, BK);",
            "    q_p.FreeTensor(p);",
            "    // P must be in GM before the cube reads it.",
            "    SetFlag<HardEvent::MTE3_S>(EVENT_ID0);",
            "    WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);",
            "    if (kb > 0) {  // acc *= exp(m_old - m_new), row by row",
            *["        " + x for x in self._row_scale("Mul", "expMax")],
            "    }",
            "    // O_blk = P V_blk (float) into UB, added into the accumulator.",
            "    mmPV.SetTensorA(gm_p);",
            "    mmPV.SetTensorB(gm_v[vBase + static_cast<uint64_t>(k0) * Dv]);",
            "    mmPV.SetTail(rows, Dv, kcur);",
            "    LocalTensor<float> o = q_o.AllocTensor<float>();",
            "    while (mmPV.Iterate()) {",
            "        mmPV.GetTensorC(o);",
            "    }",
            "    q_o.EnQue(o);",
            "    o = q_o.DeQue<float>();",
            "    Add(acc, acc, o, rows * DVA);",
            "    q_o.FreeTensor(o);",
            "}",
            "LocalTensor<float> sumLast = st[(2 + ((kBlocks - 1) & 1)) * STAT];",
            *self._row_scale("Div", "sumLast"),
            f"LocalTensor<{OT}> y = q_y.AllocTensor<{OT}>();",
            (
                "DataCopy(y, acc, rows * DVA);"
                if p.out_dtype == "float32"
                else "Cast(y, acc, RoundMode::CAST_RINT, rows * DVA);"
            ),
            "q_y.EnQue(y);",
            f"y = q_y.DeQue<{OT}>();",
            "StoreBlock(gm_out[oOff], y, rows, Dv, Dv, DVA);",
            "q_y.FreeTensor(y);",
        ]
        args = ", ".join(f"in{i}" for i in range(len(p.inputs)))
        L += [
            "    __aicore__ inline void Process()",
            "    {",
            "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
            *[ind + x for x in body],
            "        }",
            "        mmQK.End();",
            "        mmPV.End();",
            "    }",
            "",
            "private:",
            f"    GlobalTensor<{T}> gm_q, gm_k, gm_v, gm_p;",
            f"    GlobalTensor<{OT}> gm_out;",
            "    TQue<QuePosition::VECIN, 1> q_s, q_o;",
            "    TQue<QuePosition::VECOUT, 1> q_p, q_y;",
            "    TBuf<QuePosition::VECCALC> accBuf, statBuf, tmpBuf;",
            "    LocalTensor<float> acc, st;",
            "    LocalTensor<uint8_t> tmp;",
            "    SoftMaxTiling sm;",
        ]
        if p.mask is not None:
            L += [
                f"    GlobalTensor<{mt}> gm_m;",
                "    TQue<QuePosition::VECIN, 1> q_m;",
                f"    uint64_t bat[{max(nb, 1)}] = {{1}}, mBs[{max(nb, 1)}] = {{0}};",
                "    uint64_t mRs = 0;",
            ]
            if "mf" in bufs:
                L += ["    TBuf<QuePosition::VECCALC> mfBuf;", "    LocalTensor<float> mf;"]
            if "mh" in bufs:
                L += ["    TBuf<QuePosition::VECCALC> mhBuf;", "    LocalTensor<half> mh;"]
        if p.causal:
            L += ["    TBuf<QuePosition::VECCALC> triBuf;", "    LocalTensor<float> tri;"]
        L += [
            "    uint32_t Sq = 0, Sk = 0, D = 0, Dv = 0;",
            "    uint64_t qBlocks = 1, unitStart = 0, unitEnd = 0;",
            "};",
            "",
            f'extern "C" __global__ __aicore__ void {p.kernel_name}({", ".join(ins)}, '
            "GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)",
            "{",
            "    // One AIV per AIC: each AIV computes its own units.",
            "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);",
            "    GET_TILING_DATA(td, tiling);",
            "    TPipe pipe;",
            f"    Kernel{p.op_name} op;",
            "    // The Matmul objects are registered before any InitBuffer (ASCENDC_SPEC 7.12).",
            "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mmQK, &td.qk, op.mmPV, &td.pv);",
            f"    op.Init({args}, out, workspace, td, &pipe);",
            "    op.Process();",
            "}",
            "",
        ]
        return "\n".join(L)

    # ---------------------------------------------------------------- host
    def host(self) -> str:
        p, lay = self.p, self.lay
        dt = GE_DTYPE[p.dtype]
        ktrans = "true" if p.k_trans else "false"
        r = len(p.inputs[p.q].shape)
        sk_dim = r - 2 if p.k_trans else r - 1
        L = [
            f"// Host side of {p.op_name}: attention tiling from the runtime shapes, shape",
            "// inference, OpDef.",
            f'#include "{p.kernel_name}_tiling.h"',
            '#include "register/op_def_registry.h"',
            '#include "tiling/platform/platform_ascendc.h"',
            "",
            "using namespace matmul_tiling;",
            "",
            "namespace optiling {",
            f"constexpr int32_t BQ = {lay.bq};",
            f"constexpr int32_t BK = {lay.bk};",
            f"constexpr int32_t DVA = {lay.dva};",
            f"constexpr uint32_t SOFTMAX_TMP = {softmax_tmp_bytes(lay.bq, lay.bk)};",
            "",
            "static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
            "{",
            "    return static_cast<uint64_t>(context->GetInputShape(input)->GetStorageShape()"
            ".GetDim(dim));",
            "}",
            "",
            "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
            "{",
            f"    {p.op_name}TilingData tiling;",
            f"    uint64_t Sq = Dim(context, {p.q}, {r - 2});",
            f"    uint64_t D = Dim(context, {p.q}, {r - 1});",
            f"    uint64_t Sk = Dim(context, {p.k}, {sk_dim});",
            f"    uint64_t Dv = Dim(context, {p.v}, {r - 1});",
            "    uint64_t batch = 1;",
            *[f"    batch *= Dim(context, {p.q}, {d});" for d in range(r - 2)],
            "    if (Sq == 0 || Sk == 0 || D == 0 || Dv == 0 || Dv > DVA) {",
            "        return ge::GRAPH_FAILED;",
            "    }",
            "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
            "    uint64_t cubeCores = ascendc.GetCoreNumAic();",
            "    if (cubeCores == 0) {",
            "        cubeCores = ascendc.GetCoreNum();",
            "    }",
            "    // S = Q K^T: one [BQ, BK] base block per Iterate; rows of Q and K are D apart.",
            "    MatmulApiTiling qk(ascendc);",
            f"    qk.SetAType(TPosition::GM, CubeFormat::ND, {dt}, false);",
            f"    qk.SetBType(TPosition::GM, CubeFormat::ND, {dt}, {ktrans});",
            "    qk.SetCType(TPosition::VECIN, CubeFormat::ND, ge::DT_FLOAT);",
            "    qk.SetShape(BQ, BK, static_cast<int32_t>(D));",
            "    qk.SetOrgShape(static_cast<int32_t>(Sq), static_cast<int32_t>(Sk), "
            "static_cast<int32_t>(D));",
            "    qk.SetBias(false);",
            "    qk.SetBufferSpace(-1, -1, -1);",
            "    qk.SetFixSplit(BQ, BK, -1);",
            "    if (qk.GetTiling(tiling.qk) == -1) {",
            "        return ge::GRAPH_FAILED;",
            "    }",
            "    // O = P V: P rows are BK apart in the workspace, V rows Dv apart.",
            "    MatmulApiTiling pv(ascendc);",
            f"    pv.SetAType(TPosition::GM, CubeFormat::ND, {dt}, false);",
            f"    pv.SetBType(TPosition::GM, CubeFormat::ND, {dt}, false);",
            "    pv.SetCType(TPosition::VECIN, CubeFormat::ND, ge::DT_FLOAT);",
            "    pv.SetShape(BQ, static_cast<int32_t>(Dv), BK);",
            "    pv.SetOrgShape(BQ, static_cast<int32_t>(Dv), BK);",
            "    pv.SetBias(false);",
            "    pv.SetBufferSpace(-1, -1, -1);",
            "    pv.SetFixSplit(BQ, DVA, -1);",
            "    if (pv.GetTiling(tiling.pv) == -1) {",
            "        return ge::GRAPH_FAILED;",
            "    }",
            "    ge::Shape smShape(std::vector<int64_t>{BQ, BK});",
            "    SoftMaxTilingFunc(smShape, sizeof(float), SOFTMAX_TMP, tiling.sm);",
            "    uint64_t qBlocks = (Sq + BQ - 1) / BQ;",
            "    uint64_t units = batch * qBlocks;",
            "    uint64_t blockDim = units < cubeCores ? units : cubeCores;",
            "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
            "    tiling.set_Sq(static_cast<uint32_t>(Sq));",
            "    tiling.set_Sk(static_cast<uint32_t>(Sk));",
            "    tiling.set_D(static_cast<uint32_t>(D));",
            "    tiling.set_Dv(static_cast<uint32_t>(Dv));",
            "    tiling.set_batch(static_cast<uint32_t>(batch));",
            "    tiling.set_qBlocks(static_cast<uint32_t>(qBlocks));",
            "    tiling.set_unitsPerCore(static_cast<uint32_t>(units / blockDim));",
            "    tiling.set_bigCores(static_cast<uint32_t>(units % blockDim));",
        ]
        for i in range(len(p.inputs)):
            L.append(
                f"    tiling.set_numel{i}(static_cast<uint32_t>("
                f"context->GetInputShape({i})->GetStorageShape().GetShapeSize()));"
            )
        if p.mask is not None:
            m = p.inputs[p.mask]
            mr = len(m.shape)
            L += [
                f"    auto mShape = context->GetInputShape({p.mask})->GetStorageShape();",
                "    // Right-aligned broadcast of the mask to [*batch, Sq, Sk]: element strides,",
                "    // 0 along the axes where it has size 1.",
                "    uint64_t mStride[8] = {0};",
                "    uint64_t s = 1;",
                f"    for (int32_t d = {mr - 1}; d >= 0; --d) {{",
                "        mStride[d] = mShape.GetDim(d) == 1 ? 0 : s;",
                "        s *= static_cast<uint64_t>(mShape.GetDim(d));",
                "    }",
            ]
            off = r - mr
            for j in range(r - 2):
                k = j - off
                L.append(f"    tiling.set_bat{j}(static_cast<uint32_t>(Dim(context, {p.q}, {j})));")
                val = f"mStride[{k}]" if k >= 0 else "0"
                L.append(f"    tiling.set_mBs{j}(static_cast<uint32_t>({val}));")
            kq = r - 2 - off
            val = f"mStride[{kq}]" if kq >= 0 else "0"
            L.append(f"    tiling.set_mRs(static_cast<uint32_t>({val}));")
        L += [
            "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),"
            " context->GetRawTilingData()->GetCapacity());",
            "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
            "    size_t* workspace = context->GetWorkspaceSizes(1);",
            "    // The Matmul API's system part, then one [BQ, BK] P block per core.",
            "    workspace[0] = ascendc.GetLibApiWorkSpaceSize() + blockDim * BQ * BK * "
            f"{DSIZE[p.dtype]};",
            "    return ge::GRAPH_SUCCESS;",
            "}",
            "}  // namespace optiling",
            "",
        ]
        infer = [
            f"    const gert::Shape* xq = context->GetInputShape({p.q});",
            f"    const gert::Shape* xv = context->GetInputShape({p.v});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({r});",
            *[f"    y->SetDim({d}, xq->GetDim({d}));" for d in range(r - 1)],
            f"    y->SetDim({r - 1}, xv->GetDim({r - 1}));",
        ]
        params = input_params(p.inputs)
        params += io_param("Output", "out", p.out_dtype)
        L += registration(p.op_name, infer, params, self.chip)
        return "\n".join(L)


__all__ = ["AttnEmitter", "AttnLayout", "attn_tiling_header"]
