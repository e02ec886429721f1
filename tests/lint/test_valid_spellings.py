"""Valid code that real, NPU-verified kernels (Ascend/RecSDK) spell in ways the linter misread:
queue calls with the `template` keyword, a constant chosen by `#ifdef`, the pattern-form
ReduceSum. None of them is an error; the faults they resemble still are."""

from __future__ import annotations

from ascend_tools.diagnostics import RuleCode, Severity
from tests.lint.helpers import errors, lint_texts

R = RuleCode

QUEUES = """#include "kernel_operator.h"
using namespace AscendC;
template <typename T>
class KernelCopy {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
        xGm.SetGlobalBuffer((__gm__ T*)x, 4096);
        yGm.SetGlobalBuffer((__gm__ T*)y, 4096);
        pipe.InitBuffer(inQueue, 2, 1024 * sizeof(T));
        pipe.InitBuffer(outQueue, 2, 1024 * sizeof(T));
    }
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < 4; i++) {
            LocalTensor<T> xLocal = this->inQueue.template AllocTensor<T>();
            DataCopy(xLocal, xGm[i * 1024], 1024);
            this->inQueue.template EnQue(xLocal);
            xLocal = this->inQueue.template DeQue<T>();
            LocalTensor<T> yLocal = outQueue.template AllocTensor<T>();
            Abs(yLocal, xLocal, 1024);
            outQueue.template EnQue<T>(yLocal);
            inQueue.template FreeTensor(xLocal);
            yLocal = outQueue.template DeQue<T>();
            DataCopy(yGm[i * 1024], yLocal, 1024);
            outQueue.template FreeTensor(yLocal);
        }
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    GlobalTensor<T> xGm, yGm;
};
extern "C" __global__ __aicore__ void copy_abs(GM_ADDR x, GM_ADDR y) {
    KernelCopy<float> op;
    op.Init(x, y);
    op.Process();
}
"""


def _queue_protocol(text: str) -> list[str]:
    return [d.message for d in lint_texts({"/p/k.cpp": text}) if d.code == R.QUEUE_PROTOCOL.value]


def test_queue_calls_spelled_with_the_template_keyword_are_recognised() -> None:
    assert _queue_protocol(QUEUES) == []


def test_missing_enque_spelled_with_the_template_keyword_is_still_an_error() -> None:
    text = QUEUES.replace("            this->inQueue.template EnQue(xLocal);\n", "")
    found = _queue_protocol(text)
    assert found and all("inQueue" in m for m in found), found


UB_IFDEF = """#include "kernel_operator.h"
{define}
using namespace AscendC;
constexpr int KB = 1024;
{directive}
constexpr int TILE_BYTES = 64 * KB;
#else
constexpr int TILE_BYTES = 40 * KB;
#endif
class KernelTile {{
public:
    __aicore__ inline void Init() {{
        pipe.InitBuffer(inQueue, 2, TILE_BYTES);
        pipe.InitBuffer(outQueue, 2, TILE_BYTES);
    }}
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
}};
extern "C" __global__ __aicore__ void tile(GM_ADDR x) {{
    KernelTile op;
    op.Init();
}}
"""


def _ub(macro: str, define: str = "", directive: str = "#ifdef") -> list:
    text = UB_IFDEF.format(directive=f"{directive} {macro}", define=define)
    return [d for d in lint_texts({"/p/k.cpp": text}) if d.code == R.UB_OVERFLOW.value]


def test_ifdef_of_a_macro_nothing_defines_takes_the_else_constant() -> None:
    """4 x 40 KB fits the 192 KB UB; only the `#ifdef` branch's 4 x 64 KB would not."""
    assert _ub("SUPPORT_WIDE_UB") == []


def test_ifdef_of_a_macro_the_project_defines_takes_its_constant() -> None:
    found = _ub("SUPPORT_WIDE_UB", "#define SUPPORT_WIDE_UB")
    assert [d.severity for d in found] == [Severity.ERROR], found
    assert "TILE_BYTES = 65536" in found[0].message


def test_ifdef_of_a_build_macro_is_at_most_a_warning() -> None:
    """`__DAV_C220_CUBE__` is set by the build for one core pass: either constant may hold."""
    found = _ub("__DAV_C220_CUBE__")
    assert [d.severity for d in found] == [Severity.WARNING], found


def test_chip_macro_condition_picks_the_constant_of_the_linted_chip() -> None:
    """ascend910b2 compiles with `__CCE_AICORE__` 220."""
    wide = _ub("__CCE_AICORE__ == 220", directive="#if")
    assert [d.severity for d in wide] == [Severity.ERROR], wide
    assert _ub("__CCE_AICORE__ != 220 && !defined(SUPPORT_WIDE_UB)", directive="#if") == []


REDUCE = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void colsum(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 16 * 64 * sizeof(float));
    pipe.InitBuffer(b, 64 * sizeof(float));
    pipe.InitBuffer(c, 1024);
    LocalTensor<float> src = a.Get<float>();
    LocalTensor<float> dst = b.Get<float>();
    LocalTensor<float> tmp = c.Get<float>();
    uint32_t shape[2] = {16, 64};
    constexpr bool innerPad = false;
    ReduceSum<float, Pattern::Reduce::RA, false>(dst, src, shape, innerPad);
    ReduceSum<float, Pattern::Reduce::RA>(dst, src, shape, false);
    ReduceSum<float>(dst, src, tmp, COUNT);
}
"""


def test_pattern_reduce_sum_has_no_count() -> None:
    diags = lint_texts({"/p/k.cpp": REDUCE.replace("COUNT", "64")})
    assert errors(diags) == [], [d.compiler_style() for d in errors(diags)]


def test_count_form_reduce_sum_of_zero_is_still_an_error() -> None:
    diags = lint_texts({"/p/k.cpp": REDUCE.replace("COUNT", "0")})
    found = [d for d in errors(diags) if d.code == R.PARAM_RANGE.value]
    assert len(found) == 1 and "ReduceSum count is 0" in found[0].message, found


INFER_SHAPE = """#include "register/op_def_registry.h"
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context) {
    auto x = context->GetInputShape(0);
    auto y = context->GetOutputShape(0);
    y->SetDimNum(0);
    y->AppendDim(x->GetDim(0));
    y->AppendDim(context->GetDynamicInputShape(1, 0)->GetDim(0));
    y->AppendDim(context->GetOptionalInputShape(2)->GetDim(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    auto n = context->GetInputShape(0)->GetDim(0);
    return n > 0 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}
}  // namespace optiling
"""

TORCH_GLUE = """#include <torch/extension.h>
at::Tensor run(const at::Tensor& x) {
    at::Tensor y = at::empty_like(x);
    auto* xp = (uint8_t*)(x.mutable_data_ptr());
    auto n = x.sizes()[0] + y.storage().nbytes();
    return y;
}
"""


def _unknown(texts: dict[str, str]) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in lint_texts(texts) if d.code == R.UNKNOWN_API.value]


def test_infer_shape_context_shapes_are_shapes_and_tiling_context_ones_storage_shapes() -> None:
    """InferShapeContext's input and output shape getters give a Shape (GetDim, SetDimNum,
    AppendDim: DrivingSDK box_iou, fbgemm jagged_to_padded_dense_v2); TilingContext's give a
    StorageShape, which has no GetDim."""
    found = _unknown({"/p/op_host/op.cpp": INFER_SHAPE})
    assert [line for line, _ in found] == [15], found
    assert "no member named GetDim in StorageShape" in found[0][1]


def test_a_torch_tensor_is_not_gerts_tensor() -> None:
    """`at::Tensor` in a kernel file's torch glue is torch's class: its members are not checked
    against gert::Tensor's (op-plugin samples: mutable_data_ptr, sizes, storage)."""
    assert _unknown({"/p/op_host/glue.cpp": TORCH_GLUE}) == []
