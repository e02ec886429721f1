"""StagedPlan -> one operator project whose kernel runs its stages in order.

Each stage is lowered by its own family's emitter (MatmulEmitter, KernelEmitter) under its own
op name (`<op>Stage<k>`: its kernel class and tiling struct), and the texts are composed, not
copied:

- tiling header: every stage's struct, then the op's struct holding them (`s1`, `s2`, ...) plus
  the blocks each stage uses and where each intermediate sits in the user workspace;
- host: each stage's tiling code in its own namespace, its TilingFunc taking a `StageContext`
  (the stage's inputs: intermediates are shaped from the model inputs, the rest are model
  inputs) and its part of the op's tiling struct; the op's TilingFunc runs them, takes the
  largest block count (all are within the cube cores: the kernel is mix 1:1) and sizes the
  workspace: the system part, the intermediates, the largest stage-own part (stages run one
  after another, so they share it);
- kernel: each stage's helpers and class in its own namespace; one entry registers the Matmul
  objects, then per stage: run it on its blocks (writing its intermediate into the user
  workspace), `SyncAll()` on every block, `TPipe::Reset()` (the next stage lays out UB afresh;
  TPipe::Reset, AscendC API reference, Memory management).
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

# Each intermediate's slot in the user workspace is rounded to this many bytes, so the next slot
# and the stages' own part after them start aligned.
MID_ALIGN = 512
OPTILING_OPEN = "namespace optiling {\n"
OPTILING_CLOSE = "}  // namespace optiling"
ENTRY = 'extern "C" __global__ __aicore__ void '

StagePlan = KernelPlan | MatmulPlan
StageEmitter = KernelEmitter | MatmulEmitter

STAGE_CONTEXT = [
    "// What a stage's TilingFunc sees of the launch: its own inputs (an index -(j + 1) is",
    "// intermediate j, shaped from the model inputs by the op's TilingFunc), the platform, and",
    "// its block count and workspace request, which the op's TilingFunc combines.",
    "class StageContext {",
    "public:",
    "    StageContext(gert::TilingContext* context, const int32_t* inputs)",
    "        : ctx_(context), inputs_(inputs) {}",
    "    const gert::StorageShape* GetInputShape(uint32_t i) const",
    "    {",
    "        return inputs_[i] < 0 ? &mids_[-inputs_[i] - 1] : ctx_->GetInputShape(inputs_[i]);",
    "    }",
    "    auto GetPlatformInfo() const { return ctx_->GetPlatformInfo(); }",
    "    ge::graphStatus SetBlockDim(uint32_t n)",
    "    {",
    "        blockDim = n;",
    "        return ge::GRAPH_SUCCESS;",
    "    }",
    "    size_t* GetWorkspaceSizes(size_t) { return &workspace; }",
    "    void AppendMidDim(uint32_t j, int64_t d) { mids_[j].MutableStorageShape().AppendDim(d); }",
    "    uint32_t blockDim = 0;",
    "    size_t workspace = 0;",
    "",
    "private:",
    "    gert::TilingContext* ctx_;",
    "    const int32_t* inputs_;",
    "    gert::StorageShape mids_[MAX_MIDS];",
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
    n = len(p.stages)
    fields = [
        (f"blocks{k + 1}", f"blocks stage {k + 1} uses (the others wait at the SyncAll)")
        for k in range(n)
    ]
    fields += [
        (f"midOff{j}", f"byte offset of intermediate {m.name} in the user workspace")
        for j, m in enumerate(p.mids)
    ]
    fields.append(("midBytes", "bytes of all intermediates (the stages' own part follows)"))
    top = tiling_header_text(
        p.op_name,
        p.kernel_name,
        " (staged): each stage's tiling struct (s1, s2, ...), the blocks\n"
        "// each stage uses, where the intermediates sit in the user workspace.",
        fields,
        structs=[f"{sp.op_name}TilingData s{k + 1}" for k, sp in enumerate(p.stages)],
    )
    head, _, tail = top.partition(OPTILING_OPEN)
    return head + OPTILING_OPEN + "".join(_stage_header(sp) for sp in p.stages) + tail


def _stage_host(sp: StagePlan, em: StageEmitter, chip: Chip, ns: str, products: int) -> str:
    """The stage's tiling code as `namespace <ns>`, its TilingFunc filling a given struct
    (`products`: the kernel's Matmul objects, which share L1 and L0)."""
    if isinstance(sp, MatmulPlan):
        assert isinstance(em, MatmulEmitter)
        text = em.host(share=products)
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


def _model_dim(p: StagedPlan, k: int, i: int, d: int) -> tuple[int, int] | None:
    """Stage k's input `i`, dim `d` as a model input's dim (None: the constant 1)."""
    code = p.stage_inputs[k][i]
    if code >= 0:
        return code, d
    ref: DimRef = p.mids[-code - 1].dims[d]
    return (ref.input, ref.dim) if ref.input >= 0 else None


def _expr_cpp(p: StagedPlan, k: int, e: DimExpr) -> str:
    parts = []
    for i, d in e.terms:
        m = _model_dim(p, k, i, d)
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
    k = len(p.stages) - 1
    s = p.stages[k]
    if isinstance(s, MatmulPlan):
        refs = [*s.batch, s.m, s.n]
        return [
            _expr_cpp(p, k, DimExpr(terms=[(d.input, d.dim)])) if d.input >= 0 else "1"
            for d in refs
        ]
    o = s.outputs[0]
    if o.dims is not None:
        return [_expr_cpp(p, k, d) for d in o.dims]
    same = next((i for i, t in enumerate(s.inputs) if t.shape == o.shape), None)
    if same is not None:
        return [_expr_cpp(p, k, DimExpr(terms=[(same, d)])) for d in range(len(o.shape))]
    # A reduced output (keepdim or not): its dims other than 1 are the kept axes, in order.
    kept = [a for a in s.axes if not a.reduced]
    big = [d for d, x in enumerate(o.shape) if x != 1]
    if o.level == "reduced" and [o.shape[d] for d in big] == [a.example for a in kept]:
        dims = ["1"] * len(o.shape)
        for d, a in zip(big, kept, strict=True):
            dims[d] = _expr_cpp(p, k, a.size)
        return dims
    return [str(x) for x in o.shape]


def _gm_dim(d: DimRef) -> str:
    if d.input < 0:
        return "1"
    return f"context->GetInputShape({d.input})->GetStorageShape().GetDim({d.dim})"


def staged_host(p: StagedPlan, chip: Chip, ems: list[StageEmitter]) -> str:
    n_in = len(p.inputs)
    n = len(p.stages)
    products = sum(isinstance(sp, MatmulPlan) for sp in p.stages)
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
        f"constexpr uint32_t MAX_MIDS = {len(p.mids)};  // intermediates",
        *STAGE_CONTEXT,
        *(
            _stage_host(sp, em, chip, f"stage{k + 1}", products)
            for k, (sp, em) in enumerate(zip(p.stages, ems, strict=True))
        ),
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        "    // What each stage's inputs are: a model input, or (< 0) an intermediate.",
    ]
    for k, ins in enumerate(p.stage_inputs):
        L.append(f"    const int32_t inputs{k + 1}[] = {{{', '.join(str(c) for c in ins)}}};")
        L.append(f"    StageContext c{k + 1}(context, inputs{k + 1});")
    L.append("    // The intermediates' sizes, from the model inputs; each slot 512-byte aligned.")
    L.append("    uint64_t midBytes = 0;")
    for j, m in enumerate(p.mids):
        numel = " * ".join(f"static_cast<uint64_t>({_gm_dim(d)})" for d in m.dims)
        L += [
            f"    int64_t mid{j}[] = {{{', '.join(_gm_dim(d) for d in m.dims)}}};  // {m.name}",
            f"    tiling.set_midOff{j}(static_cast<uint32_t>(midBytes));",
            f"    midBytes += ({numel} * {DSIZE[m.dtype]} + {MID_ALIGN - 1}) / {MID_ALIGN} * "
            f"{MID_ALIGN};",
        ]
    for k, ins in enumerate(p.stage_inputs):
        for c in ins:
            if c < 0:
                for d in range(len(p.mids[-c - 1].dims)):
                    L.append(f"    c{k + 1}.AppendMidDim({-c - 1}, mid{-c - 1}[{d}]);")
    calls = " ||\n        ".join(
        f"stage{k + 1}::TilingFunc(&c{k + 1}, tiling.s{k + 1}) != ge::GRAPH_SUCCESS"
        for k in range(n)
    )
    L += [
        f"    if ({calls}) {{",
        "        return ge::GRAPH_FAILED;",
        "    }",
        "    // Every stage uses at most the cube cores: all blocks are resident for the SyncAll.",
        "    uint32_t blockDim = 1;",
    ]
    for k in range(n):
        L += [
            f"    tiling.set_blocks{k + 1}(c{k + 1}.blockDim);",
            f"    blockDim = c{k + 1}.blockDim > blockDim ? c{k + 1}.blockDim : blockDim;",
        ]
    L += [
        "    context->SetBlockDim(blockDim);",
        "    tiling.set_midBytes(static_cast<uint32_t>(midBytes));",
        "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
        "    uint64_t sys = ascendc.GetLibApiWorkSpaceSize();",
        "    // A stage's own part (cross-core slots per block) is asked for per block it uses;",
        "    // every block of the launch has its slot. Stages run in turn: they share it.",
        "    uint64_t own = 0;",
    ]
    for k in range(n):
        c = f"c{k + 1}"
        L += [
            f"    if ({c}.workspace > sys && {c}.blockDim > 0) {{",
            f"        uint64_t part = ({c}.workspace - sys) / {c}.blockDim * blockDim;",
            "        own = part > own ? part : own;",
            "    }",
        ]
    L += [
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
    if p.out_dtype not in GE_DTYPE:
        raise ValueError(f"output dtype {p.out_dtype} has no GE type")
    params = input_params(p.inputs) + io_param("Output", "out", p.out_dtype)
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


def staged_kernel(p: StagedPlan, chip: Chip, ems: list[StageEmitter]) -> str:
    n = len(p.stages)
    heads: list[str] = []
    bodies: list[str] = []
    for k, (sp, em) in enumerate(zip(p.stages, ems, strict=True)):
        # The vector emitter is told its stage's tiling struct name.
        text = em.kernel() if isinstance(em, MatmulEmitter) else em.emit(f"{sp.op_name}TilingData")
        head, body = _stage_kernel(text, f"stage{k + 1}")
        heads += [h for h in head if h not in heads]
        bodies.append(body)
    ins = [f"in{i}" for i in range(len(p.inputs))]
    mm = [
        f"op{k + 1}.mm, &td.s{k + 1}.cube"
        for k, sp in enumerate(p.stages)
        if isinstance(sp, MatmulPlan)
    ]
    own = any(isinstance(em, KernelEmitter) and em.sync for em in ems)
    L = [
        f"// {p.op_name}: a staged kernel generated by kernelgen's rule-based lowering",
        f"// ({chip.name}): {n} stages, each on its blocks, a SyncAll on every block between",
        "// two; intermediates in the GM user workspace (see plan.txt).",
        *heads,
        "",
        *bodies,
        f"{ENTRY}{p.kernel_name}({', '.join(f'GM_ADDR {x}' for x in ins)}, GM_ADDR out, "
        "GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    // One AIV per AIC (as the matmul family): every block is one cube core and one",
        "    // vector core.",
        "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        *(f"    stage{k + 1}::Kernel{sp.op_name} op{k + 1};" for k, sp in enumerate(p.stages)),
        "    // The Matmul objects are registered before any InitBuffer (ASCENDC_SPEC 7.12).",
        f"    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), {', '.join(mm)});",
        "    GM_ADDR usr = GetUserWorkspace(workspace);",
        *(f"    GM_ADDR mid{j} = usr + td.midOff{j};  // {m.name}" for j, m in enumerate(p.mids)),
        *(
            ["    GM_ADDR wsOwn = workspace + td.midBytes;  // GetUserWorkspace(wsOwn): after them"]
            if own
            else []
        ),
    ]
    for k, em in enumerate(ems):
        args = [ins[c] if c >= 0 else f"mid{-c - 1}" for c in p.stage_inputs[k]]
        args.append(f"mid{k}" if k < len(p.mids) else "out")
        if isinstance(em, KernelEmitter) and em.sync:
            args.append("wsOwn")
        L += [
            f"    if (GetBlockIdx() < td.blocks{k + 1}) {{",
            f"        op{k + 1}.Init({', '.join(args)}, td.s{k + 1}, &pipe);",
            f"        op{k + 1}.Process();",
            "    }",
        ]
        if k + 1 < n:
            L += [
                "    SyncAll();  // every block: the next stage reads what other blocks wrote",
                "    pipe.Reset();  // the next stage lays out UB afresh",
            ]
    L += ["}", ""]
    if p.out_dtype not in CTYPE:
        raise ValueError(f"output dtype {p.out_dtype} has no C type")
    return "\n".join(L)


def staged_emitters(p: StagedPlan, chip: Chip) -> list[StageEmitter]:
    return [_emitter(sp, chip) for sp in p.stages]
