"""Lint findings that mirror the emulator's new checks: `dtype-support` (the catalog's element
types per API, the table the emulator enforces) and `pipe-hazard` in straight-line code."""

from __future__ import annotations

from ascend_tools.diagnostics import RuleCode, Severity
from tests.lint.helpers import codes, corpus_texts, errors, lint_texts, mutate

LEAKY = "LeakyRelu(yLocal, xLocal, ALPHA, len);"


def test_exp_on_int32_is_a_dtype_support_error_at_the_operand() -> None:
    bad = mutate(
        corpus_texts("leaky_relu_tail"),
        LEAKY,
        f"{LEAKY}\n        LocalTensor<int32_t> ix = xLocal.ReinterpretCast<int32_t>();\n"
        "        Exp(ix, ix, len);",
    )
    found = [d for d in lint_texts(bad) if d.code == RuleCode.DTYPE_SUPPORT.value]
    assert len(found) == 1 and found[0].severity == Severity.ERROR
    assert "Exp has no int32_t form" in found[0].message and "half, float" in found[0].message


def test_documented_types_and_template_types_are_not_flagged() -> None:
    assert RuleCode.DTYPE_SUPPORT.value not in codes(lint_texts(corpus_texts("leaky_relu_tail")))
    for name in ("add_custom", "softmax_rows", "rms_norm", "gelu_cast"):
        assert RuleCode.DTYPE_SUPPORT.value not in codes(lint_texts(corpus_texts(name))), name


BROADCAST_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    uint32_t dst[2] = {8, 16}, src[2] = {8, 1};
    LocalTensor<TYPE> a = buf.Get<TYPE>(), b = a[512 / sizeof(TYPE)];
    BroadCast<TYPE, 2, 1>(b, a, dst, src);
}
"""


def test_broadcast_takes_the_documented_8_bit_types_and_warns_on_other_widths_it_moves() -> None:
    # The API reference lists uint8_t/int8_t/half/float for BroadCast on Atlas A2/A3 and the
    # inference AI Core. ds_cylinder_query broadcasts int32_t, which it does not list, and runs on
    # the NPU: BroadCast only moves elements, so int32_t computes as float does (a warning);
    # a width no documented type has (int64_t) stays an error.
    for dtype in ("uint8_t", "int8_t", "half", "float"):
        found = lint_texts({"/p/k.cpp": BROADCAST_KERNEL.replace("TYPE", dtype)})
        assert RuleCode.DTYPE_SUPPORT.value not in codes(found), dtype
    found = [d for d in lint_texts({"/p/k.cpp": BROADCAST_KERNEL.replace("TYPE", "int32_t")})
             if d.code == RuleCode.DTYPE_SUPPORT.value]
    assert [d.severity for d in found] == [Severity.WARNING]
    assert "BroadCast on int32_t is not among the documented" in found[0].message
    assert "computes as on float" in found[0].message
    found = [d for d in lint_texts({"/p/k.cpp": BROADCAST_KERNEL.replace("TYPE", "int64_t")})
             if d.code == RuleCode.DTYPE_SUPPORT.value]
    assert [d.severity for d in found] == [Severity.ERROR]


def test_bitwise_logic_on_bytes_is_a_warning_and_arithmetic_stays_an_error() -> None:
    # And on uint8_t masks (ds_cylinder_query): the reference lists int16_t/uint16_t, and a
    # byte-wise AND is the AND of the 16-bit lanes, so not a proved fault. Add on uint8_t is.
    kernel = BROADCAST_KERNEL.replace("BroadCast<TYPE, 2, 1>(b, a, dst, src);", "OP(b, a, b, 64);")
    def found(op: str) -> list:
        text = kernel.replace("TYPE", "uint8_t").replace("OP", op)
        return [d for d in lint_texts({"/p/k.cpp": text}) if d.code == RuleCode.DTYPE_SUPPORT.value]

    [warning] = found("And")
    assert warning.severity == Severity.WARNING and "computes as on int16_t" in warning.message
    assert [d.severity for d in found("Add")] == [Severity.ERROR]


TBUF_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256 * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, 256);
    SYNC_IN
    Muls(t, t, 2.0f, 256);
    SYNC_OUT
    DataCopy(yGm, t, 256);
}
"""


def _lint_tbuf(sync_in: str, sync_out: str) -> list:
    text = TBUF_KERNEL.replace("SYNC_IN", sync_in).replace("SYNC_OUT", sync_out)
    return [d for d in lint_texts({"scale.cpp": text}) if d.code == RuleCode.PIPE_HAZARD.value]


def test_unsynchronised_tbuf_copy_in_and_out_are_pipe_hazard_errors_both_ways() -> None:
    found = _lint_tbuf("", "")
    assert [(d.line, d.severity) for d in found] == [(14, Severity.ERROR), (16, Severity.ERROR)]
    assert "MTE2_V" in found[0].message and "line 12" in found[0].message
    assert "V_MTE3" in found[1].message and "line 14" in found[1].message


def test_the_matching_flags_or_a_full_barrier_clear_the_hazard() -> None:
    assert _lint_tbuf(
        "SetFlag<HardEvent::MTE2_V>(EVENT_ID0); WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);",
        "PipeBarrier<PIPE_ALL>();",
    ) == []
    # A flag for another pipe pair orders nothing here.
    wrong = _lint_tbuf(
        "SetFlag<HardEvent::V_S>(EVENT_ID0); WaitFlag<HardEvent::V_S>(EVENT_ID0);",
        "PipeBarrier<PIPE_V>();",
    )
    assert len(wrong) == 2


def test_a_wait_on_the_scalar_pipe_orders_every_pipe_after_it() -> None:
    # WaitFlag<MTE2_S> stops the scalar unit until the copy is done: nothing issues before it.
    assert _lint_tbuf(
        "SetFlag<HardEvent::MTE2_S>(EVENT_ID0); WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);",
        "PipeBarrier<PIPE_ALL>();",
    ) == []


def test_a_branch_between_makes_it_a_warning() -> None:
    text = TBUF_KERNEL.replace("SYNC_IN", "").replace("SYNC_OUT", "if (GetBlockIdx() == 0) {")
    text = text.replace("DataCopy(yGm, t, 256);", "DataCopy(yGm, t, 256); }")
    found = [d for d in lint_texts({"scale.cpp": text}) if d.code == RuleCode.PIPE_HAZARD.value]
    assert [d.severity for d in found] == [Severity.ERROR, Severity.WARNING]


def test_corpus_kernels_have_no_pipe_hazard() -> None:
    for name in ("leaky_relu_tail", "add_custom", "softmax_rows", "rms_norm", "gelu_cast",
                 "reduce_sum_rows", "gen_norm_layernorm_fp32", "gen_red_sum_mid_fp32"):
        assert RuleCode.PIPE_HAZARD.value not in codes(lint_texts(corpus_texts(name))), name


WAR_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, obuf;
    pipe.InitBuffer(buf, 512 * sizeof(float));
    pipe.InitBuffer(obuf, 256 * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 512);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> o = obuf.Get<float>();
    DataCopy(t, xGm, 256);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(o, t, 2.0f, 256);
    SYNC
    DataCopy(t, xGm[256], 256);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Add(o, o, t, 256);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, o, 256);
}
"""


def test_tbuf_refilled_while_a_vector_op_reads_it_is_a_write_after_read_error() -> None:
    text = WAR_KERNEL.replace("SYNC", "")
    found = [d for d in lint_texts({"scale.cpp": text}) if d.code == RuleCode.PIPE_HAZARD.value]
    assert [(d.line, d.severity) for d in found] == [(19, Severity.ERROR)]
    assert "overwrites t" in found[0].message and "V_MTE2" in found[0].message
    assert "line 17" in found[0].message
    flag = "SetFlag<HardEvent::V_MTE2>(EVENT_ID1);\n    WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);"
    synced = WAR_KERNEL.replace("SYNC", flag)
    assert RuleCode.PIPE_HAZARD.value not in codes(lint_texts({"scale.cpp": synced}))


# The compiler's automatic synchronization (--cce-auto-sync, on by default) inserts the flags
# between S and V/MTE2/MTE3, so a scalar read right after the vector op or the copy is no fault
# there; a project built without it (`auto_sync = false`) needs the flag.
SCALAR_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void peak(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, red, work;
    pipe.InitBuffer(buf, 256 * sizeof(float));
    pipe.InitBuffer(red, 32);
    pipe.InitBuffer(work, 32);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> m = red.Get<float>();
    LocalTensor<float> w = work.Get<float>();
    DataCopy(t, xGm, 256);
    float first = t.GetValue(0);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    ReduceMax(m, t, w, 256);
    float peak = m.GetValue(0);
    Muls(t, t, first / peak, 256);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, t, 256);
}
"""


def _hazards(auto_sync: bool) -> list:
    found = lint_texts({"peak.cpp": SCALAR_KERNEL}, auto_sync=auto_sync)
    return [d for d in found if d.code == RuleCode.PIPE_HAZARD.value]


def test_scalar_reads_after_vector_and_copy_need_no_flag_under_auto_sync() -> None:
    assert _hazards(auto_sync=True) == []


def test_scalar_reads_after_vector_and_copy_are_errors_without_auto_sync() -> None:
    found = _hazards(auto_sync=False)
    assert [(d.line, d.severity) for d in found] == [(17, Severity.ERROR), (21, Severity.ERROR)]
    assert "PIPE_S" in found[0].message and "MTE2_S" in found[0].message
    assert "V_S" in found[1].message and "line 20" in found[1].message


MTE2_V_FLAG = (
    "    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);\n    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);\n"
)


def test_mte2_to_vector_stays_an_error_under_auto_sync() -> None:
    text = SCALAR_KERNEL.replace(MTE2_V_FLAG, "").replace("    float first = t.GetValue(0);\n", "")
    text = text.replace("first / peak", "1.0f / peak")
    found = [d for d in lint_texts({"peak.cpp": text}) if d.code == RuleCode.PIPE_HAZARD.value]
    assert [(d.line, d.severity) for d in found] == [(17, Severity.ERROR), (19, Severity.ERROR)]
    assert "MTE2_V" in found[0].message


def test_an_auto_synced_scalar_read_of_the_copy_orders_the_vector_ops_after_it() -> None:
    # The compiler's MTE2 -> S wait before t.GetValue stops the scalar unit until the copy is
    # done, so the ReduceMax after it needs no MTE2_V flag of its own.
    text = SCALAR_KERNEL.replace(MTE2_V_FLAG, "")
    found = [d for d in lint_texts({"peak.cpp": text}) if d.code == RuleCode.PIPE_HAZARD.value]
    assert found == []
    strict = lint_texts({"peak.cpp": text}, auto_sync=False)
    assert RuleCode.PIPE_HAZARD.value in codes(errors(strict))


# A helper method doing vector work: auto-sync needs it inline (BiSheng compiler guide,
# "Automatic Synchronization", restrictions).
HELPER_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
class KernelPeak {
public:
    __aicore__ QUALIFIERS void Scale(LocalTensor<float>& t, LocalTensor<float>& m)
    {
        Muls(t, t, 1.0f / m.GetValue(0), 256);
    }
    __aicore__ inline void Copy(GlobalTensor<float>& g, LocalTensor<float>& t)
    {
        DataCopy(g, t, 256);
    }
};
extern "C" __global__ __aicore__ void peak(GM_ADDR x)
{
    KernelPeak op;
}
"""


def _inline_warnings(qualifiers: str, auto_sync: bool = True) -> list:
    text = HELPER_KERNEL.replace("QUALIFIERS", qualifiers)
    found = lint_texts({"peak.cpp": text}, auto_sync=auto_sync)
    return [d for d in found if d.code == RuleCode.AUTO_SYNC_INLINE.value]


def test_non_inline_aicore_helper_with_vector_work_is_an_auto_sync_warning() -> None:
    found = _inline_warnings("")
    assert [(d.line, d.severity) for d in found] == [(5, Severity.WARNING)]
    assert "KernelPeak::Scale" in found[0].message and "--cce-auto-sync" in found[0].message


def test_inline_helpers_or_a_project_without_auto_sync_get_no_warning() -> None:
    for qualifiers in ("inline", "__inline__", "__forceinline__"):
        assert _inline_warnings(qualifiers) == [], qualifiers
    assert _inline_warnings("", auto_sync=False) == []


def test_a_non_inline_helper_that_synchronises_itself_gets_no_warning() -> None:
    text = HELPER_KERNEL.replace("QUALIFIERS", "").replace(
        "        Muls(", "        PipeBarrier<PIPE_ALL>();\n        Muls("
    )
    found = lint_texts({"peak.cpp": text})
    assert [d for d in found if d.code == RuleCode.AUTO_SYNC_INLINE.value] == []


def test_a_method_declared_inline_in_its_class_and_defined_outside_gets_no_warning() -> None:
    text = HELPER_KERNEL.replace(
        "__aicore__ QUALIFIERS void Scale(LocalTensor<float>& t, LocalTensor<float>& m)\n"
        "    {\n        Muls(t, t, 1.0f / m.GetValue(0), 256);\n    }",
        "__aicore__ inline void Scale(LocalTensor<float>& t, LocalTensor<float>& m);",
    ).replace(
        "extern \"C\"",
        "__aicore__ void KernelPeak::Scale(LocalTensor<float>& t, LocalTensor<float>& m)\n"
        "{\n    Muls(t, t, 1.0f / m.GetValue(0), 256);\n}\nextern \"C\"",
    )
    found = lint_texts({"peak.cpp": text})
    assert [d for d in found if d.code == RuleCode.AUTO_SYNC_INLINE.value] == []
    undeclared = text.replace("__aicore__ inline void Scale", "__aicore__ void Scale")
    found = lint_texts({"peak.cpp": undeclared})
    assert [d.line for d in found if d.code == RuleCode.AUTO_SYNC_INLINE.value] == [11]


COMPARE_SCALAR_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, bits;
    pipe.InitBuffer(buf, 1024);
    pipe.InitBuffer(bits, 256);
    LocalTensor<int32_t> a = buf.Get<int32_t>();
    LocalTensor<uint8_t> m = bits.Get<uint8_t>();
    CompareScalar(m, a, static_cast<int32_t>(3), CMPMODE::MODE, 64);
}
"""


def test_compare_scalar_on_int32_takes_only_the_documented_eq_mode() -> None:
    # The API reference: on Atlas A2/A3 CompareScalar's src0 is half/float in every CMPMODE and
    # int32_t in CMPMODE::EQ only (DrivingSDK roiaware_maxpool3d_grad compares argmax indices).
    eq = lint_texts({"/p/k.cpp": COMPARE_SCALAR_KERNEL.replace("MODE", "EQ")})
    assert RuleCode.DTYPE_SUPPORT.value not in codes(eq)
    found = [d for d in lint_texts({"/p/k.cpp": COMPARE_SCALAR_KERNEL.replace("MODE", "LT")})
             if d.code == RuleCode.DTYPE_SUPPORT.value]
    assert [d.severity for d in found] == [Severity.ERROR]
    assert "only for cmpMode EQ" in found[0].message and "LT is not one" in found[0].message
    on_310p = lint_texts({"/p/k.cpp": COMPARE_SCALAR_KERNEL.replace("MODE", "EQ")},
                         chip="ascend310p")
    assert "CompareScalar has no int32_t form" in " ".join(d.message for d in on_310p)
