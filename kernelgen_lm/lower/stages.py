"""StagedPlan -> one operator project whose kernel runs its stages in order.

Each stage is lowered by its own family's emitter (MatmulEmitter, KernelEmitter) under its own
op name (`<op>Stage1`, `<op>Stage2`: its kernel class and tiling struct), and the texts are
composed, not copied:

- tiling header: every stage's struct, then the op's struct holding them (`s1`, `s2`) plus the
  blocks each stage uses and the intermediate's workspace bytes;
- host: each stage's tiling code in its own namespace, its TilingFunc taking a `StageContext`
  (the stage's inputs: the intermediate's shape comes from stage 1's [*batch, M, N] sizes,
  the rest are model inputs) and its part of the op's tiling struct; the op's TilingFunc runs
  them, takes the larger block count (both are within the cube cores: the kernel is mix 1:1)
  and sizes the workspace: the system part, the intermediate, stage 2's own part;
- kernel: each stage's helpers and class in its own namespace; one entry registers the Matmul
  objects, runs stage 1 on its blocks (writing the intermediate into the user workspace),
  `SyncAll()` on every block, `TPipe::Reset()` (stage 2 lays out UB afresh), stage 2.
"""

from __future__ import annotations

import re

from ascend_tools.chips import Chip
from kernelgen_lm.lower.host import (
    GE_DTYPE,
    host_source,
    input_params,
    io_param,
    registration,
    tiling_header,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE, KernelEmitter
from kernelgen_lm.lower.matmul import MatmulEmitter, matmul_tiling_header
from kernelgen_lm.plan.ir import DimExpr, KernelPlan
from kernelgen_lm.plan.matmul import DimRef, MatmulPlan
from kernelgen_lm.plan.stages import StagedPlan

# The intermediate's slot in the user workspace is rounded to this many bytes, so stage 2's own
# workspace part after it starts aligned.
MID_ALIGN = 512
OPTILING_OPEN = "namespace optiling {\n"
OPTILING_CLOSE = "}  // namespace optiling"
ENTRY = 'extern "C" __global__ __aicore__ void '

StagePlan = KernelPlan | MatmulPlan
StageEmitter = KernelEmitter | MatmulEmitter

STAGE_CONTEXT = [
    "// What a stage's TilingFunc sees of the launch: its own inputs (an index < 0 is the",
    "// intermediate, shaped from the model inputs by the op's TilingFunc), the platform, and",
    "// its block count and workspace request, which the op's TilingFunc combines.",
    "class StageContext {",
    "public:",
    "    StageContext(gert::TilingContext* context, const int32_t* inputs)",
    "        : ctx_(context), inputs_(inputs) {}",
    "    const gert::StorageShape* GetInputShape(uint32_t i) const",
    "    {",
    "        return inputs_[i] < 0 ? &mid_ : ctx_->GetInputShape(inputs_[i]);",
    "    }",
    "    auto GetPlatformInfo() const { return ctx_->GetPlatformInfo(); }",
    "    ge::graphStatus SetBlockDim(uint32_t n)",
    "    {",
    "        blockDim = n;",
    "        return ge::GRAPH_SUCCESS;",
    "    }",
    "    size_t* GetWorkspaceSizes(size_t) { return &workspace; }",
    "    void AppendMidDim(int64_t d) { mid_.MutableStorageShape().AppendDim(d); }",
    "    uint32_t blockDim = 0;",
    "    size_t workspace = 0;",
    "",
    "private:",
    "    gert::TilingContext* ctx_;",
    "    const int32_t* inputs_;",
    "    gert::StorageShape mid_;",
    "};",
    "",
]


def _emitter(p: StagePlan, chip: Chip) -> StageEmitter:
    return MatmulEmitter(p, chip) if isinstance(p, MatmulPlan) else KernelEmitter(p, chip)


def _between(text: str, start: str, end: str, what: str) -> str:
    i = text.find(start)
    j = text.rfind(end)
    if i < 0 or j < i:
        raise ValueError(f"staged lowering: {what} does not have the expected layout")
    return text[i + len(start) : j]


def _sub(text: str, old: str, new: str, what: str, count: int | None = None) -> str:
    """`text` with `old` replaced; the emitter's text must hold it (`count` times if given)."""
    n = text.count(old)
    if n == 0 or (count is not None and n != count):
        raise ValueError(f"staged lowering: {what}: expected {old!r} in the stage's host code")
    return text.replace(old, new)


def _stage_header(p: StagePlan) -> str:
    text = matmul_tiling_header(p) if isinstance(p, MatmulPlan) else tiling_header(p)
    return _between(text, OPTILING_OPEN, OPTILING_CLOSE, "a stage's tiling header")


def staged_tiling_header(p: StagedPlan) -> str:
    body = [_stage_header(p.first), _stage_header(p.second)]
    top = tiling_header_text(
        p.op_name,
        p.kernel_name,
        " (staged): each stage's tiling struct (s1: the matrix product,\n"
        "// s2: what follows it), the blocks each stage uses, the intermediate's bytes.",
        [
            ("blocks1", "blocks stage 1 uses (the others wait at the SyncAll)"),
            ("blocks2", "blocks stage 2 uses"),
            ("midBytes", "workspace bytes of the intermediate (stage 2's own part follows)"),
        ],
        structs=[f"{p.first.op_name}TilingData s1", f"{p.second.op_name}TilingData s2"],
    )
    head, _, tail = top.partition(OPTILING_OPEN)
    return head + OPTILING_OPEN + "".join(body) + tail


def _stage_host(sp: StagePlan, em: StageEmitter, chip: Chip, ns: str) -> str:
    """The stage's tiling code as `namespace <ns>`, its TilingFunc filling a given struct."""
    if isinstance(sp, MatmulPlan):
        assert isinstance(em, MatmulEmitter)
        text = em.host()
    else:
        assert isinstance(em, KernelEmitter)
        text = host_source(sp, chip, em, split_rows=False)
        # Mix 1:1 kernel: one AIV per cube core, so the vector stage plans for the cube cores.
        text = _sub(text, "ascendc.GetCoreNumAiv()", "ascendc.GetCoreNumAic()", "core count")
    body = _between(text, OPTILING_OPEN, OPTILING_CLOSE, "a stage's host source")
    struct = f"{sp.op_name}TilingData"
    body = _sub(
        body,
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        f"static ge::graphStatus TilingFunc(StageContext* context, {struct}& tiling)",
        "TilingFunc",
        1,
    )
    body = _sub(body, f"    {struct} tiling;\n", "", "tiling struct", 1)
    body = _sub(body, "gert::TilingContext* context", "StageContext* context", "helpers")
    kept = [
        line
        for line in body.splitlines()
        if "SaveToBuffer(" not in line and "GetRawTilingData()->SetDataSize" not in line
    ]
    return "\n".join([f"namespace {ns} {{", *kept, f"}}  // namespace {ns}", ""])


def _model_dim(p: StagedPlan, i2: int, k: int) -> tuple[int, int] | None:
    """Stage 2's input `i2`, dim `k` as a model input's dim (None: the constant 1)."""
    src = p.second_inputs[i2]
    if src >= 0:
        return src, k
    d: DimRef = p.mid_dims[k]
    return (d.input, d.dim) if d.input >= 0 else None


def _expr_cpp(p: StagedPlan, e: DimExpr) -> str:
    parts = []
    for i2, k in e.terms:
        m = _model_dim(p, i2, k)
        if m is not None:
            parts.append(f"x{m[0]}->GetDim({m[1]})")
    s = " * ".join(parts) or "1"
    if e.mul != 1:
        s = f"{s} * {e.mul}"
    if e.div != 1:
        s = f"({s}) / {e.div}"
    return s


def _out_dims(p: StagedPlan) -> list[str]:
    """The output's dims as C++ over the model inputs' shapes `x<i>` (InferShape)."""
    s = p.second
    if isinstance(s, MatmulPlan):
        refs = [*s.batch, s.m, s.n]
        return [
            _expr_cpp(p, DimExpr(terms=[(d.input, d.dim)])) if d.input >= 0 else "1" for d in refs
        ]
    o = s.outputs[0]
    if o.dims is not None:
        return [_expr_cpp(p, d) for d in o.dims]
    same = next((i for i, t in enumerate(s.inputs) if t.shape == o.shape), None)
    if same is not None:
        return [_expr_cpp(p, DimExpr(terms=[(same, k)])) for k in range(len(o.shape))]
    # A reduced output (keepdim or not): its dims other than 1 are the kept axes, in order.
    kept = [a for a in s.axes if not a.reduced]
    big = [k for k, x in enumerate(o.shape) if x != 1]
    if o.level == "reduced" and [o.shape[k] for k in big] == [a.example for a in kept]:
        dims = ["1"] * len(o.shape)
        for k, a in zip(big, kept, strict=True):
            dims[k] = _expr_cpp(p, a.size)
        return dims
    return [str(x) for x in o.shape]


def staged_host(p: StagedPlan, chip: Chip, ems: tuple[StageEmitter, StageEmitter]) -> str:
    n_in = len(p.inputs)
    mid_numel = " * ".join(
        f"static_cast<uint64_t>(context->GetInputShape({d.input})->GetStorageShape()"
        f".GetDim({d.dim}))"
        for d in p.mid_dims
        if d.input >= 0
    )
    L = [
        f"// Host side of {p.op_name}: a staged kernel (see plan.txt). Each stage's tiling runs",
        "// on its own inputs; this TilingFunc combines them.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "using namespace matmul_tiling;",
        "",
        "namespace optiling {",
        *STAGE_CONTEXT,
        _stage_host(p.first, ems[0], chip, "stage1"),
        _stage_host(p.second, ems[1], chip, "stage2"),
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        f"    const int32_t inputs1[] = {{{', '.join(str(i) for i in range(n_in))}}};",
        f"    const int32_t inputs2[] = {{{', '.join(str(i) for i in p.second_inputs)}}};",
        "    StageContext c1(context, inputs1);",
        "    StageContext c2(context, inputs2);",
        "    // The intermediate: stage 1's result [*batch, M, N], sized from the model inputs.",
    ]
    for d in p.mid_dims:
        dim = (
            f"context->GetInputShape({d.input})->GetStorageShape().GetDim({d.dim})"
            if d.input >= 0
            else "1"
        )
        L.append(f"    c2.AppendMidDim({dim});")
    L += [
        "    if (stage1::TilingFunc(&c1, tiling.s1) != ge::GRAPH_SUCCESS ||",
        "        stage2::TilingFunc(&c2, tiling.s2) != ge::GRAPH_SUCCESS) {",
        "        return ge::GRAPH_FAILED;",
        "    }",
        "    // Both stages use at most the cube cores: all blocks are resident for the SyncAll.",
        "    uint32_t blockDim = c1.blockDim > c2.blockDim ? c1.blockDim : c2.blockDim;",
        "    context->SetBlockDim(blockDim);",
        "    tiling.set_blocks1(c1.blockDim);",
        "    tiling.set_blocks2(c2.blockDim);",
        f"    uint64_t midBytes = ({mid_numel or '1'} * {DSIZE[p.mid_dtype]} + {MID_ALIGN - 1})"
        f" / {MID_ALIGN} * {MID_ALIGN};",
        "    tiling.set_midBytes(static_cast<uint32_t>(midBytes));",
        "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
        "    uint64_t sys = ascendc.GetLibApiWorkSpaceSize();",
        "    // Stage 2's own part (cross-core slots per block) is asked for per block it uses;",
        "    // every block of the launch has its slot.",
        "    uint64_t own = c2.workspace > sys && c2.blockDim > 0 ?",
        "        (c2.workspace - sys) / c2.blockDim * blockDim : 0;",
        "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),"
        " context->GetRawTilingData()->GetCapacity());",
        "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
        "    size_t* workspace = context->GetWorkspaceSizes(1);",
        "    workspace[0] = sys + midBytes + own;",
        "    return ge::GRAPH_SUCCESS;",
        "}",
        "}  // namespace optiling",
        "",
    ]
    dims = _out_dims(p)
    infer = [f"    const gert::Shape* x{i} = context->GetInputShape({i});" for i in range(n_in)]
    infer += [
        "    gert::Shape* y = context->GetOutputShape(0);",
        f"    y->SetDimNum({len(dims)});",
        *[f"    y->SetDim({k}, {d});" for k, d in enumerate(dims)],
    ]
    used = {int(m) for m in re.findall(r"x(\d+)->", "\n".join(infer[n_in:]))}
    infer = [x for i, x in enumerate(infer) if i >= n_in or i in used]
    params = input_params(p.inputs) + io_param("Output", "out", p.out_dtype)
    if p.out_dtype not in GE_DTYPE:
        raise ValueError(f"output dtype {p.out_dtype} has no GE type")
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _stage_kernel(text: str, ns: str) -> tuple[list[str], str]:
    """A stage's kernel source -> (its #include / using lines, the rest up to its entry
    function wrapped in `namespace <ns>`)."""
    end = text.find(ENTRY)
    if end < 0:
        raise ValueError("staged lowering: a stage's kernel has no entry function")
    head: list[str] = []
    body: list[str] = []
    for line in text[:end].splitlines():
        if line.startswith("#include") or line.startswith("using namespace"):
            head.append(line)
        else:
            body.append(line)
    return head, "\n".join([f"namespace {ns} {{", *body, f"}}  // namespace {ns}", ""])


def staged_kernel(p: StagedPlan, chip: Chip, ems: tuple[StageEmitter, StageEmitter]) -> str:
    texts = []
    for sp, em in zip((p.first, p.second), ems, strict=True):
        if isinstance(em, MatmulEmitter):
            texts.append(em.kernel())
        else:
            texts.append(em.emit(f"{sp.op_name}TilingData"))
    heads: list[str] = []
    bodies: list[str] = []
    for k, text in enumerate(texts):
        head, body = _stage_kernel(text, f"stage{k + 1}")
        heads += [h for h in head if h not in heads]
        bodies.append(body)
    ins = [f"in{i}" for i in range(len(p.inputs))]
    s2 = p.second
    s2_args = [ins[i] if i >= 0 else "mid" for i in p.second_inputs]
    if isinstance(s2, MatmulPlan):
        s2_call = [*s2_args, "out"]
        mm = ["op1.mm, &td.s1.cube", "op2.mm, &td.s2.cube"]
    else:
        em2 = ems[1]
        assert isinstance(em2, KernelEmitter)
        s2_call = [*s2_args, "out", *(["ws2"] if em2.sync else [])]
        mm = ["op1.mm, &td.s1.cube"]
    L = [
        f"// {p.op_name}: a staged kernel generated by kernelgen's rule-based lowering",
        f"// ({chip.name}). Stage 1: the matrix product with its epilogue, into the intermediate",
        f"// {p.mid_name} in the GM user workspace. Stage 2: "
        + ("a second matrix product" if isinstance(s2, MatmulPlan) else "the vector plan")
        + " reading it. A SyncAll on every block between them (see plan.txt).",
        *heads,
        "",
        *bodies,
        f"{ENTRY}{p.kernel_name}({', '.join(f'GM_ADDR {x}' for x in ins)}, GM_ADDR out, "
        "GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    // One AIV per AIC (see stage 1): every block is one cube core and one vector core.",
        "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        f"    stage1::Kernel{p.first.op_name} op1;",
        f"    stage2::Kernel{s2.op_name} op2;",
        "    // The Matmul objects are registered before any InitBuffer (ASCENDC_SPEC 7.12).",
        f"    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), {', '.join(mm)});",
        "    GM_ADDR mid = GetUserWorkspace(workspace);  // the intermediate, then stage 2's part",
        *(
            ["    GM_ADDR ws2 = workspace + td.midBytes;  // GetUserWorkspace(ws2): after it"]
            if "ws2" in s2_call
            else []
        ),
        "    if (GetBlockIdx() < td.blocks1) {",
        f"        op1.Init({', '.join([*ins, 'mid'])}, td.s1, &pipe);",
        "        op1.Process();",
        "    }",
        "    // Every block: stage 2 reads rows that other blocks wrote.",
        "    SyncAll();",
        "    pipe.Reset();  // stage 2 lays out UB afresh",
        "    if (GetBlockIdx() < td.blocks2) {",
        f"        op2.Init({', '.join(s2_call)}, td.s2, &pipe);",
        "        op2.Process();",
        "    }",
        "}",
        "",
    ]
    if p.out_dtype not in CTYPE:
        raise ValueError(f"output dtype {p.out_dtype} has no C type")
    return "\n".join(L)


def staged_emitters(p: StagedPlan, chip: Chip) -> tuple[StageEmitter, StageEmitter]:
    return _emitter(p.first, chip), _emitter(p.second, chip)
