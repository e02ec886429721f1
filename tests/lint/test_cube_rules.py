"""Cube-path rules (docs/ASCENDC_SPEC.md sections 3, 5, 6 and rule 7.12): L1/L0 capacity,
REGIST_MATMUL_OBJ order and object count, blockDim of a Matmul kernel. Seeded bugs in the corpus
matmul_custom project; the project itself stays clean."""

from __future__ import annotations

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from tests.lint.helpers import codes, corpus_texts, lint_texts, mutate

R = RuleCode
REGIST = ("    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.matmulObj, "
          "&tilingData.cubeTilingData);\n")
CUBE_CODES = {R.L1_OVERFLOW.value, R.L0_OVERFLOW.value, R.MATMUL_OBJECT_COUNT.value,
              R.MATMUL_REGISTER_ORDER.value, R.FRACTAL_ALIGN.value}


def _matmul() -> dict[str, str]:
    return corpus_texts("matmul_custom")


def _after_regist(extra: str) -> dict[str, str]:
    return mutate(_matmul(), REGIST, REGIST + extra)


def _only(diags: list[Diagnostic], code: RuleCode) -> Diagnostic:
    found = [d for d in diags if d.code == code.value]
    assert len(found) == 1, [d.compiler_style() for d in diags]
    return found[0]


def test_matmul_custom_has_no_cube_findings() -> None:
    for chip in ("ascend910b2", "ascend310p"):
        assert not CUBE_CODES & set(codes(lint_texts(_matmul(), chip=chip)))


# ---------------------------------------------------------------- l1-overflow / l0-overflow
L1_BUFFERS = ("    TQue<TPosition::A1, 1> inA1;\n    TQue<TPosition::B1, 1> inB1;\n"
              "    pipe.InitBuffer(inA1, 2, 160 * 1024);\n"
              "    pipe.InitBuffer(inB1, 2, 128 * 1024);\n")


def test_l1_buffers_past_the_chip_l1_are_an_error_with_the_numbers() -> None:
    d = _only(lint_texts(_after_regist(L1_BUFFERS)), R.L1_OVERFLOW)
    assert d.severity == Severity.ERROR
    assert "589824 B" in d.message and "524288 B" in d.message  # 2 x 160 KB + 2 x 128 KB vs 512 KB
    assert "inA1: 2 x 163840 B" in d.message and "inB1: 2 x 131072 B" in d.message
    assert "A1/B1" in d.message and "ascend910b2" in d.message


def test_the_same_l1_buffers_fit_a_chip_with_1_mb_of_l1() -> None:
    assert R.L1_OVERFLOW.value not in codes(lint_texts(_after_regist(L1_BUFFERS),
                                                       chip="ascend310p"))


def test_l1_buffers_that_fit_are_not_flagged() -> None:
    fits = L1_BUFFERS.replace("160 * 1024", "128 * 1024")  # exactly 512 KB
    diags = lint_texts(_after_regist(fits))
    assert R.L1_OVERFLOW.value not in codes(diags)
    assert R.UB_OVERFLOW.value not in codes(diags)  # L1 buffers are not counted in UB


def test_each_l0_buffer_has_its_own_capacity() -> None:
    a2 = "    TBuf<TPosition::A2> a2;\n    pipe.InitBuffer(a2, 64 * 1024 + 32);\n"
    d = _only(lint_texts(_after_regist(a2)), R.L0_OVERFLOW)
    assert d.severity == Severity.ERROR and "L0A overflow" in d.message
    assert "65568 B" in d.message and "65536 B" in d.message
    # 64 KB each in L0A and L0B and 128 KB in L0C all fit
    fits = ("    TBuf<TPosition::A2> a2;\n    TBuf<TPosition::B2> b2;\n"
            "    TQue<TPosition::CO1, 1> co1;\n    pipe.InitBuffer(a2, 64 * 1024);\n"
            "    pipe.InitBuffer(b2, 64 * 1024);\n    pipe.InitBuffer(co1, 2, 64 * 1024);\n")
    assert R.L0_OVERFLOW.value not in codes(lint_texts(_after_regist(fits)))
    co1 = fits.replace("co1, 2, 64 * 1024", "co1, 2, 96 * 1024")
    d = _only(lint_texts(_after_regist(co1)), R.L0_OVERFLOW)
    assert "L0C overflow" in d.message and "co1: 2 x 98304 B" in d.message


def test_c2_buffers_count_against_the_bias_table() -> None:
    # chips.json bt_bytes: 1 KB on 910B (copy_cbuf_to_bt); 310P has no bias table, no verdict
    bt = "    TQue<TPosition::C2, 1> bias2;\n    pipe.InitBuffer(bias2, 2, 1024);\n"
    d = _only(lint_texts(_after_regist(bt)), R.L0_OVERFLOW)
    assert d.severity == Severity.ERROR and "BT overflow" in d.message
    assert "2048 B" in d.message and "1024 B" in d.message
    fits = bt.replace("2, 1024", "1, 1024")
    assert R.L0_OVERFLOW.value not in codes(lint_texts(_after_regist(fits)))
    assert R.L0_OVERFLOW.value not in codes(lint_texts(_after_regist(bt), chip="ascend310p"))


def test_an_l0_buffer_on_one_branch_only_is_a_warning() -> None:
    branch = ("    TQue<TPosition::CO1, 1> co1;\n    TQue<TPosition::CO1, 1> wide;\n"
              "    pipe.InitBuffer(co1, 1, 64 * 1024);\n"
              "    if (tilingData.cubeTilingData.N > 64) {\n"
              "        pipe.InitBuffer(wide, 1, 96 * 1024);\n    }\n")
    d = _only(lint_texts(_after_regist(branch)), R.L0_OVERFLOW)
    assert d.severity == Severity.WARNING and "may overflow" in d.message
    assert "on one branch" in d.message


def test_whole_memory_tbufs_past_the_end_are_a_warning_where_addresses_wrap() -> None:
    # Generated 310P kernels (ms_custom_ops grid_sample_ms) give A1 and B1 a TBuf of the whole
    # 1 MB L1 each: on 310P (chips.json local_address_wrap) the second is L1 from 0 again.
    whole = ("    TBuf<TPosition::A1> a1;\n    TBuf<TPosition::B1> b1;\n"
             "    pipe.InitBuffer(a1, 1048576);\n    pipe.InitBuffer(b1, 1048576);\n")
    d = _only(lint_texts(_after_regist(whole), chip="ascend310p"), R.L1_OVERFLOW)
    assert d.severity == Severity.WARNING
    assert "each of b1 starts past the end of L1" in d.message
    # a queue there, or a TBuf that straddles the end, is still an overflow; so is 910B (no wrap)
    queue = whole.replace("TBuf<TPosition::B1> b1", "TQue<TPosition::B1, 1> b1").replace(
        "InitBuffer(b1, 1048576)", "InitBuffer(b1, 1, 1048576)")
    straddles = whole.replace("InitBuffer(a1, 1048576)", "InitBuffer(a1, 1024)")
    for texts, chip in ((queue, "ascend310p"), (straddles, "ascend310p"), (whole, "ascend910b2")):
        d = _only(lint_texts(_after_regist(texts), chip=chip), R.L1_OVERFLOW)
        assert d.severity == Severity.ERROR and "wrap" not in d.message, (chip, d.message)


def test_an_l1_length_known_only_at_run_time_is_not_flagged() -> None:
    runtime = ("    TQue<TPosition::A1, 1> inA1;\n"
               "    pipe.InitBuffer(inA1, 2, tilingData.cubeTilingData.baseM * 1024);\n")
    assert R.L1_OVERFLOW.value not in codes(lint_texts(_after_regist(runtime)))


# ---------------------------------------------------------------- matmul-register-order
def test_init_buffer_before_regist_matmul_obj_is_an_error_on_split_chips() -> None:
    early = "    TQue<TPosition::A1, 1> inA1;\n    pipe.InitBuffer(inA1, 1, 1024);\n"
    texts = mutate(_matmul(), REGIST, early + REGIST)
    d = _only(lint_texts(texts), R.MATMUL_REGISTER_ORDER)
    assert d.severity == Severity.ERROR
    assert "InitBuffer (op_kernel/matmul_custom.cpp:61)" in d.message
    assert "ascend910b2" in d.message
    # the rule is one of the separated (split-core) architecture; 310P is coupled
    assert R.MATMUL_REGISTER_ORDER.value not in codes(lint_texts(texts, chip="ascend310p"))


def test_ub_buffer_before_regist_matmul_obj_is_only_a_warning() -> None:
    # The Matmul object's share lies in L1/L0; Ascend/samples' matmul + LeakyRelu samples set up
    # their UB output queue first and pass on the NPU.
    early = "    TBuf<TPosition::VECCALC> tmp;\n    pipe.InitBuffer(tmp, 1024);\n"
    d = _only(lint_texts(mutate(_matmul(), REGIST, early + REGIST)), R.MATMUL_REGISTER_ORDER)
    assert d.severity == Severity.WARNING


def test_init_buffer_after_regist_matmul_obj_is_fine() -> None:
    late = "    TBuf<TPosition::VECCALC> tmp;\n    pipe.InitBuffer(tmp, 1024);\n"
    assert R.MATMUL_REGISTER_ORDER.value not in codes(lint_texts(_after_regist(late)))


def test_init_buffer_of_another_pipe_before_regist_is_only_a_warning() -> None:
    other = "    TPipe warm;\n    TBuf<TPosition::VECCALC> tmp;\n    warm.InitBuffer(tmp, 1024);\n"
    texts = mutate(_matmul(), "    TPipe pipe;\n" + REGIST, other + "    TPipe pipe;\n" + REGIST)
    d = _only(lint_texts(texts), R.MATMUL_REGISTER_ORDER)
    assert d.severity == Severity.WARNING


# ---------------------------------------------------------------- matmul-object-count
def _registered(n: int) -> dict[str, str]:
    """matmul_custom registering its own object and n - 1 more (locals of the entry)."""
    members = "".join(f"    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, "
                      f"MatmulType<TPosition::GM, CubeFormat::ND, half>, "
                      f"MatmulType<TPosition::GM, CubeFormat::ND, float>> mm{i};\n"
                      for i in range(n - 1))
    pairs = ", ".join(["op.matmulObj, &tilingData.cubeTilingData"]
                      + [f"mm{i}, &tilingData.cubeTilingData" for i in range(n - 1)])
    return mutate(_matmul(), "    TPipe pipe;\n" + REGIST,
                  members + "    TPipe pipe;\n"
                  f"    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), {pairs});\n")


def test_five_matmul_objects_in_one_regist_matmul_obj_are_an_error() -> None:
    diags = lint_texts(_registered(5))
    found = [d for d in diags if d.code == R.MATMUL_OBJECT_COUNT.value
             and "REGIST_MATMUL_OBJ registers" in d.message]
    assert len(found) == 1, [d.compiler_style() for d in diags]
    assert found[0].severity == Severity.ERROR
    assert "registers 5 Matmul objects (op.matmulObj, mm0, mm1, mm2, mm3)" in found[0].message


def test_four_matmul_objects_in_one_regist_matmul_obj_are_fine() -> None:
    assert R.MATMUL_OBJECT_COUNT.value not in codes(lint_texts(_registered(4)))


# ---------------------------------------------------------------- block-dim of a Matmul kernel
def test_matmul_kernel_launched_on_more_blocks_than_cube_cores_is_flagged() -> None:
    texts = mutate(_matmul(), "uint32_t blockDim = ascendcPlatform.GetCoreNumAic();",
                   "uint32_t blockDim = 40;")
    d = _only(lint_texts(texts), R.BLOCK_DIM)
    assert "blockDim 40" in d.message and "24 AI cores (a mix kernel)" in d.message
    assert d.severity == Severity.WARNING  # no declared mix type: the blocks may run in waves
    fits = mutate(_matmul(), "uint32_t blockDim = ascendcPlatform.GetCoreNumAic();",
                  "uint32_t blockDim = 24;")
    assert R.BLOCK_DIM.value not in codes(lint_texts(fits))


def test_declared_mix_kernel_above_the_cube_cores_is_an_error() -> None:
    mix = mutate(_matmul(), "    GET_TILING_DATA(tilingData, tiling);\n",
                 "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n"
                 "    GET_TILING_DATA(tilingData, tiling);\n")
    over = mutate(mix, "uint32_t blockDim = ascendcPlatform.GetCoreNumAic();",
                  "uint32_t blockDim = 40;")
    d = _only(lint_texts(over), R.BLOCK_DIM)
    assert d.severity == Severity.ERROR and "24 cube cores of ascend910b2" in d.message
    assert R.BLOCK_DIM.value not in codes(lint_texts(mix))  # GetCoreNumAic() = 24 fits


# ---------------------------------------------------------------- fractal-align / Mmad ranges
CUBE_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void cube_k(GM_ADDR x, GM_ADDR y, uint32_t t) {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::B2> bb2;
    TBuf<TPosition::CO1> bc1;
    pipe.InitBuffer(ba1, 2048);
    pipe.InitBuffer(ba2, 2048);
    pipe.InitBuffer(bb2, 512);
    pipe.InitBuffer(bc1, 4096);
    LocalTensor<half> a1 = ba1.Get<half>();
    LocalTensor<half> a2 = ba2.Get<half>();
    LocalTensor<half> b2 = bb2.Get<half>();
    LocalTensor<float> c1 = bc1.Get<float>();
    LoadData(a2[A2_OFF], a1[A1_OFF], LoadData2DParams(0, 1, 1, 0, 0, false, 0));
    MmadParams mp;
    mp.m = 16;
    mp.n = 16;
    mp.k = MMAD_K;
    Mmad(c1[C1_OFF], a2, b2, mp);
}
"""


def _cube(a2: str = "0", a1: str = "0", c1: str = "0", k: str = "16") -> dict[str, str]:
    text = (CUBE_KERNEL.replace("A2_OFF", a2).replace("A1_OFF", a1).replace("C1_OFF", c1)
            .replace("MMAD_K", k))
    return {"/tmp/kernelgen_lint_cube/op_kernel/cube_k.cpp": text}


def test_aligned_cube_operands_are_clean() -> None:
    # L0A at one 512-byte fractal, L1 at 32 B, L0C at 64 B: every start on its boundary
    diags = lint_texts(_cube(a2="256", a1="16", c1="16"))
    assert R.FRACTAL_ALIGN.value not in codes(diags), [d.compiler_style() for d in diags]
    assert R.PARAM_RANGE.value not in codes(diags)


def test_l0a_operand_off_a_fractal_is_an_error_at_the_operand() -> None:
    d = _only(lint_texts(_cube(a2="16")), R.FRACTAL_ALIGN)
    assert d.severity == Severity.ERROR and d.line == 17
    assert "a2[16] starts 16 elements x 2 B = 32 B into ba2 (A2, L0A)" in d.message
    assert "512-byte" in d.message


def test_l1_source_and_l0c_result_have_their_own_alignment() -> None:
    d = _only(lint_texts(_cube(a1="8")), R.FRACTAL_ALIGN)  # 16 B into L1
    assert "(A1, L1)" in d.message and "32-byte" in d.message
    d = _only(lint_texts(_cube(c1="8")), R.FRACTAL_ALIGN)  # 32 B into L0C
    assert d.line == 22 and "(CO1, L0C)" in d.message and "64-byte" in d.message


def test_an_offset_known_only_at_run_time_is_not_flagged() -> None:
    assert R.FRACTAL_ALIGN.value not in codes(lint_texts(_cube(a2="t", c1="t * 8")))


def test_mmad_k_past_the_12_bit_field_is_an_error() -> None:
    d = _only(lint_texts(_cube(k="4096")), R.PARAM_RANGE)
    assert d.line == 22 and "Mmad k = 4096 exceeds 4095" in d.message
    assert R.PARAM_RANGE.value not in codes(lint_texts(_cube(k="4095")))
    # the same through the constructor, and a field set on one branch only stays unknown
    ctor = mutate(_cube(), "    MmadParams mp;\n",
                  "    MmadParams mp(16, 16, 5000, 0, false, true);\n")
    ctor = mutate(ctor, "    mp.k = 16;\n", "")
    assert "Mmad k = 5000" in _only(lint_texts(ctor), R.PARAM_RANGE).message
    branch = mutate(_cube(), "    mp.k = 16;\n", "    mp.k = 16;\n    if (t > 3) {\n"
                    "        mp.k = 8000;\n    }\n")
    assert R.PARAM_RANGE.value not in codes(lint_texts(branch))
    # a constructor's value overwritten on a branch is not proven either
    ctor_branch = mutate(ctor, "    mp.m = 16;\n", "    if (t > 3) {\n        mp.k = 16;\n    }\n")
    assert R.PARAM_RANGE.value not in codes(lint_texts(ctor_branch))


# ---------------------------------------------------------------- the Matmul API's L1/L0 share
MATMUL_KERNEL = """#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
using aType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using cType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
extern "C" __global__ __aicore__ void mm_k(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TCubeTiling t;
    t.baseM = BASE_M;
    t.baseN = BASE_N;
    t.baseK = BASE_K;
    t.depthA1 = 4;
    t.depthB1 = 4;
    matmul::Matmul<aType, aType, cType> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::A1> mine;
    pipe.InitBuffer(mine, MINE);
}
"""


def _mm(mine: str = "256 * 1024", m: str = "128", n: str = "128",
        k: str = "128") -> dict[str, str]:
    text = (MATMUL_KERNEL.replace("BASE_M", m).replace("BASE_N", n).replace("BASE_K", k)
            .replace("MINE", mine))
    return {"/tmp/kernelgen_lint_mm/op_kernel/mm_k.cpp": text}


def test_matmul_share_and_user_l1_that_fill_l1_exactly_are_clean() -> None:
    # A1 4 x 128 x 128 halves + B1 the same = 256 KB, and 256 KB of the user's: 512 KB
    diags = lint_texts(_mm())
    assert not CUBE_CODES & set(codes(diags)), [d.compiler_style() for d in diags]


def test_matmul_share_plus_user_l1_past_l1_names_both_parts() -> None:
    d = _only(lint_texts(_mm(mine="288 * 1024")), R.L1_OVERFLOW)
    assert d.severity == Severity.ERROR and d.line == 15  # the REGIST_MATMUL_OBJ call
    assert "share from its TCubeTiling, 262144 B" in d.message
    assert "A1 depthA1 x baseM x baseK = 4 x 128 x 128 x 2 B = 131072 B" in d.message
    assert "mine: 1 x 294912 B" in d.message and "524288 B" in d.message


def test_matmul_base_k_off_the_fractal_is_an_error() -> None:
    d = _only(lint_texts(_mm(k="40")), R.FRACTAL_ALIGN)
    assert "t.baseK = 40 is not a multiple of 16" in d.message  # C0 of half
    assert R.FRACTAL_ALIGN.value not in codes(lint_texts(_mm(k="48")))


def test_matmul_block_past_l0c_is_an_error() -> None:
    d = _only(lint_texts(_mm(m="256", n="256", k="16", mine="32")), R.L0_OVERFLOW)
    assert "L0C overflow" in d.message and "256 x 256 x 4 B = 262144 B" in d.message


def test_a_tiling_field_set_on_a_branch_is_not_judged() -> None:
    texts = mutate(_mm(mine="288 * 1024"), "    t.depthA1 = 4;\n",
                   "    if (x != nullptr) {\n        t.depthA1 = 4;\n    }\n")
    assert R.L1_OVERFLOW.value not in codes(lint_texts(texts))


# ---------------------------------------------------------------- the img2col path
LOAD3D_KERNEL = """#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void img2col_k(GM_ADDR x, GM_ADDR y, uint32_t t) {
    TPipe pipe;
    TBuf<TPosition::A1> ba1;
    TBuf<TPosition::A2> ba2;
    TBuf<TPosition::TSCM> scm;
    pipe.InitBuffer(ba1, 4096);
    pipe.InitBuffer(ba2, 16384);
    pipe.InitBuffer(scm, 4096);
    LocalTensor<half> a1 = ba1.Get<half>();
    LocalTensor<half> a2 = ba2.Get<half>();
    LocalTensor<half> s = scm.Get<half>();
    LoadData3DParamsV2<half> p;
    p.l1H = 8;
    p.l1W = 8;
    p.channelSize = 16;
    p.kExtension = 144;
    p.mExtension = 64;
    p.strideW = STRIDE;
    p.strideH = 1;
    p.filterW = 3;
    p.filterH = 3;
    p.dilationFilterW = 1;
    p.dilationFilterH = 1;
    LoadData(a2, a1, p);
    InitConstValue(a2[A2_OFF], InitConstValueParams<half>(1, 1, 0, (half)0));
    matmul::Matmul<matmul::MatmulType<TPosition::TSCM, CubeFormat::NZ, half>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
    mm.SetTensorA(s[S_OFF]);
}
"""


def _load3d(stride: str = "1", a2: str = "0", s: str = "0") -> dict[str, str]:
    text = LOAD3D_KERNEL.replace("STRIDE", stride).replace("A2_OFF", a2).replace("S_OFF", s)
    return {"/tmp/kernelgen_lint_cube/op_kernel/img2col_k.cpp": text}


def test_img2col_kernel_in_range_and_aligned_is_clean() -> None:
    diags = lint_texts(_load3d(a2="256", s="16"))
    assert not {R.PARAM_RANGE.value, R.FRACTAL_ALIGN.value} & set(codes(diags)), [
        d.compiler_style() for d in diags]


def test_load3d_stride_past_its_field_is_an_error_at_the_load() -> None:
    d = _only(lint_texts(_load3d(stride="64")), R.PARAM_RANGE)
    assert d.line == 27 and "strideW = 64 is outside [1, 63]" in d.message


def test_init_const_value_and_a_tscm_operand_off_their_alignment() -> None:
    d = _only(lint_texts(_load3d(a2="16")), R.FRACTAL_ALIGN)  # 32 B into L0A
    assert d.line == 28 and "InitConstValue operand a2[16]" in d.message and "512-byte" in d.message
    d = _only(lint_texts(_load3d(s="8")), R.FRACTAL_ALIGN)  # one tap's 8 halves = 16 B into L1
    assert d.line == 32 and "SetTensorA operand s[8]" in d.message and "(TSCM, L1)" in d.message
