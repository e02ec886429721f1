"""Lint's `dtype-support` for Cast: a pair or RoundMode the chip's documented Cast table lacks,
where both element types and the mode are known in the text."""

from __future__ import annotations

from ascend_tools.diagnostics import RuleCode, Severity
from tests.lint.helpers import codes, corpus_texts, lint_texts

KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 1024);
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> f = a.Get<float>();
    LocalTensor<half> h = b.Get<half>();
    LocalTensor<bfloat16_t> bf = b.Get<bfloat16_t>();
    CALL
}
"""


def _cast_findings(call: str, chip: str = "ascend910b2") -> list:
    found = lint_texts({"k.cpp": KERNEL.replace("CALL", call)}, chip=chip)
    return [d for d in found if d.code == RuleCode.DTYPE_SUPPORT.value]


def test_undocumented_round_mode_is_an_error_at_the_mode() -> None:
    [d] = _cast_findings("Cast(bf, f, RoundMode::CAST_NONE, 64);")
    assert d.severity == Severity.ERROR and d.line == 12
    assert "float -> bfloat16_t on ascend910b2" in d.message and "not CAST_NONE" in d.message


def test_undocumented_pair_is_an_error() -> None:
    [d] = _cast_findings("Cast(bf, h, AscendC::RoundMode::CAST_RINT, 64);")
    assert "no half -> bfloat16_t conversion" in d.message


def test_documented_casts_and_other_chips() -> None:
    assert _cast_findings("Cast(h, f, RoundMode::CAST_ODD, 64);") == []
    assert _cast_findings("Cast(f, h, RoundMode::CAST_NONE, 64);") == []
    # 310P documents float -> half with CAST_NONE and CAST_ODD only
    [d] = _cast_findings("Cast(h, f, RoundMode::CAST_RINT, 64);", chip="ascend310p")
    assert "ascend310p" in d.message and "not CAST_RINT" in d.message


def test_int32_to_half_without_set_deq_scale_is_a_warning_where_it_scales() -> None:
    call = "LocalTensor<int32_t> i = a.Get<int32_t>();\n    Cast(h, i, RoundMode::CAST_NONE, 64);"
    [d] = _cast_findings(call)
    assert d.severity == Severity.WARNING and d.line == 13 and "SetDeqScale" in d.message
    assert _cast_findings(f"SetDeqScale((half)1.0);\n    {call}") == []
    # on 310B the pair is a plain conversion
    assert _cast_findings(call, chip="ascend310b") == []


def test_bundled_corpus_casts_are_documented() -> None:
    for name in ("rms_norm", "gelu_cast", "leaky_relu_tail", "softmax_rows"):
        assert RuleCode.DTYPE_SUPPORT.value not in codes(lint_texts(corpus_texts(name))), name
