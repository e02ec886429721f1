"""Plan -> host side: `op_host/<op>_tiling.h` and `op_host/<op>.cpp` (tiling, InferShape, OpDef).

TilingFunc computes everything from the runtime shapes (the plan's domain sizes are
symbolic in the input dims), so one build serves every shape with the captured layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ascend_tools.chips import Chip
from kernelgen_lm.lower.kernel import PART, KernelEmitter, tiling_fields, view_fields
from kernelgen_lm.plan.ir import DimExpr, KernelPlan, PlanInput
from kernelgen_lm.plan.views import as_bound

if TYPE_CHECKING:  # capture imports torch; lowering needs only the spec's fields
    from kernelgen_lm.capture import TensorSpec

GE_DTYPE = {
    "float32": "ge::DT_FLOAT",
    "float16": "ge::DT_FLOAT16",
    "bfloat16": "ge::DT_BF16",
    "int8": "ge::DT_INT8",
    "int16": "ge::DT_INT16",
    "int32": "ge::DT_INT32",
    "int64": "ge::DT_INT64",
    "uint8": "ge::DT_UINT8",
    "bool": "ge::DT_BOOL",
}
# UB kept free for the small fixed buffers and, on 910B, the scratch some vector APIs use
# above 184 KB.
UB_RESERVE = 24 * 1024
CONFIG = {
    "dav-c220": "ascend910b",
    "dav-c100": "ascend910",
    "dav-m200": "ascend310p",
    "dav-m300": "ascend310b",
}


# The platform's UB size and vector core count, as every generated TilingFunc reads them.
PLATFORM_LINES = [
    "    auto ascendc = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());",
    "    uint64_t ubSize = 0;",
    "    ascendc.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);",
    "    uint64_t coreNum = ascendc.GetCoreNumAiv();",
    "    if (coreNum == 0) {",
    "        coreNum = ascendc.GetCoreNum();",
    "    }",
]
# At most one core per work unit, at least one core.
BLOCK_DIM_LINES = [
    "    uint64_t blockDim = units < coreNum ? units : coreNum;",
    "    if (blockDim == 0) {",
    "        blockDim = 1;",
    "    }",
]


def tiling_end_lines(groups: str = "blockDim", user_ws: str = "") -> list[str]:
    """The big/small split of the units over `groups` core groups, the tiling saved, the
    workspace asked for (`user_ws`: C++ bytes after the system part; none when empty), and
    TilingFunc closed."""
    ws = ["    workspace[0] = 0;"]
    if user_ws:
        ws = [
            "    // System workspace (SyncAll, library APIs) + the cross-core partial slots.",
            f"    workspace[0] = ascendc.GetLibApiWorkSpaceSize() + {user_ws};",
        ]
    return [
        f"    tiling.set_unitsPerCore(static_cast<uint32_t>(units / {groups}));",
        f"    tiling.set_bigCores(static_cast<uint32_t>(units % {groups}));",
        "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),"
        " context->GetRawTilingData()->GetCapacity());",
        "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
        "    size_t* workspace = context->GetWorkspaceSizes(1);",
        *ws,
        "    return ge::GRAPH_SUCCESS;",
        "}",
        "}  // namespace optiling",
        "",
    ]


TILING_END_LINES = tiling_end_lines()
# Cross-core work pays only past a size: a SyncAll barrier costs about as long as one core
# takes to stream 100+ KB from GM (chips.json: sync_all_us x the per-core GM bandwidth), so a
# row (or a domain with global stages) shorter than MIN_SPLIT elements stays on one core; once
# split, more cores only shorten the chunks, down to MIN_CHUNK elements each (the partials'
# round trip through the workspace).
MIN_SPLIT = 32768
MIN_CHUNK = 1024


def tiling_header_text(
    op_name: str,
    kernel_name: str,
    title: str,
    fields: list[tuple[str, str]],
    structs: Sequence[str] = (),
) -> str:
    """`op_host/<op>_tiling.h`: one uint32 tiling field per (name, comment), after the API
    tiling structs (`TCubeTiling cube`, `SoftMaxTiling sm  // comment`, ...) that the cube
    families embed."""
    guard = f"{kernel_name.upper()}_TILING_H"
    lines = [
        f"// Tiling of {op_name}{title}",
        f"#ifndef {guard}",
        f"#define {guard}",
        '#include "register/tilingdata_base.h"',
        *(['#include "tiling/tiling_api.h"'] if structs else []),
        "",
        "namespace optiling {",
        f"BEGIN_TILING_DATA_DEF({op_name}TilingData)",
    ]
    for struct in structs:
        decl, _, comment = struct.partition("  // ")
        kind, name = decl.split()
        lines.append(
            f"TILING_DATA_FIELD_DEF_STRUCT({kind}, {name});"
            + (f"  // {comment}" if comment else "")
        )
    lines += [f"TILING_DATA_FIELD_DEF(uint32_t, {n});  // {c}" for n, c in fields]
    lines += [
        "END_TILING_DATA_DEF;",
        "",
        f"REGISTER_TILING_DATA_CLASS({op_name}, {op_name}TilingData)",
        "}  // namespace optiling",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def tiling_header(plan: KernelPlan) -> str:
    return tiling_header_text(
        plan.op_name,
        plan.kernel_name,
        ": runtime domain sizes, UB tile length, core split.",
        tiling_fields(plan),
    )


def io_param(kind: str, name: str, dtype: str, note: str = "") -> list[str]:
    """One required ND input or output of the OpDef (`kind`: Input or Output)."""
    return [
        f'        this->{kind}("{name}").ParamType(REQUIRED){note}',
        f"            .DataType({{{GE_DTYPE[dtype]}}})",
        "            .Format({ge::FORMAT_ND});",
    ]


def input_params(inputs: Sequence[TensorSpec | PlanInput]) -> list[str]:
    """The OpDef inputs `in0, in1, ...`, one per kernel input, each noting its model name."""
    params: list[str] = []
    for i, t in enumerate(inputs):
        params += io_param("Input", f"in{i}", t.dtype, f"  // {t.name} ({t.kind})")
    return params


def registration(op_name: str, infer: list[str], params: list[str], chip: Chip) -> list[str]:
    """InferShape (body `infer`) and the OpDef with `params`, registered for `chip`."""
    return [
        "namespace ge {",
        "static ge::graphStatus InferShape(gert::InferShapeContext* context)",
        "{",
        *infer,
        "    return GRAPH_SUCCESS;",
        "}",
        "}  // namespace ge",
        "",
        "namespace ops {",
        f"class {op_name} : public OpDef {{",
        "public:",
        f"    explicit {op_name}(const char* name) : OpDef(name)",
        "    {",
        *params,
        "        this->SetInferShape(ge::InferShape);",
        "        this->AICore().SetTiling(optiling::TilingFunc);",
        f'        this->AICore().AddConfig("{CONFIG.get(chip.arch, "ascend910b")}");',
        "    }",
        "};",
        f"OP_ADD({op_name});",
        "}  // namespace ops",
        "",
    ]


def _dim_cpp(d: DimExpr, infer: str = "") -> str:
    """The size as C++ in the TilingFunc (`Dim`), or in InferShape, where input i's shape is
    the `const gert::Shape*` named `{infer}{i}`."""
    if infer:
        parts = [f"{infer}{i}->GetDim({k})" for i, k in d.terms] or ["1"]
    else:
        parts = [f"Dim(context, {i}, {k})" for i, k in d.terms] or ["1"]
    s = " * ".join(parts)
    if d.mul != 1:
        s = f"{s} * {d.mul}"
    if d.div != 1:
        s = f"({s}) / {d.div}"
    return s


def _sliced_shape(plan: KernelPlan, shape: list[int]) -> tuple[int, list[tuple[int, int]]] | None:
    """An output shaped like a sliced input (glu: (7, 74) -> (7, 37)): the input and each dim
    as a fraction p/q of the input's dim, the same fractions the plan's sizes use."""
    for i, t in enumerate(plan.inputs):
        if not t.span or len(t.shape) != len(shape):
            continue
        dims = []
        for s, full in zip(shape, t.shape, strict=True):
            bound, step = as_bound(s, full, DimExpr(terms=[(i, 0)]))
            if step == 0 or not bound.terms:
                break
            dims.append((bound.mul, bound.div))
        else:
            return i, dims
    return None


def host_source(plan: KernelPlan, chip: Chip, em: KernelEmitter, *, split_rows: bool = True) -> str:
    """`split_rows=False`: rows are never split over cores (no SyncAll inside the kernel), for
    a kernel that runs as a stage of a bigger one, whose idle blocks would miss the barrier."""
    V = len(plan.axes) - 1
    bpe = em.bytes_per_element()
    names = [t.name for t in plan.inputs]
    L = [
        f"// Host side of {plan.op_name}: tiling from the runtime shapes, shape inference, OpDef.",
        f'#include "{plan.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        f"// UB bytes per element of tile length: {bpe} (double-buffered queues of every tensor",
        f"// that varies along the vector axis + {em.nslots} float work tiles"
        + (" + per-stage accumulators" if plan.mode == "column" else "")
        + ").",
        f"constexpr uint64_t BYTES_PER_ELEM = {bpe};",
        f"constexpr uint64_t UB_RESERVE = {UB_RESERVE};",
        "constexpr uint64_t TILE_ALIGN = 64;  // whole 256-byte float repeats (Compare needs them)",
        *(
            [
                f"constexpr uint64_t MIN_SPLIT = {MIN_SPLIT};  // elements worth a SyncAll",
                f"constexpr uint64_t MIN_CHUNK = {MIN_CHUNK};  // elements per core of a split row",
            ]
            if em.split or any(st.scope == "global" for st in plan.stages)
            else []
        ),
        "",
        "static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
        "{",
        "    auto shape = context->GetInputShape(input)->GetStorageShape();",
        "    return static_cast<uint64_t>(shape.GetDim(dim));",
        "}",
        "",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {plan.op_name}TilingData tiling;",
        "    // Domain sizes (see plan.txt):",
    ]
    for k, a in enumerate(plan.axes):
        L.append(f"    uint64_t d{k} = {_dim_cpp(a.size)};  // a{k} = {a.size.text(names)}")
    L += PLATFORM_LINES
    L += [
        "    // Tile length: as many elements as fit the UB budget, never more than the",
        "    // vector axis needs, in whole float repeats.",
        "    uint64_t floor = BYTES_PER_ELEM * TILE_ALIGN;",
        "    uint64_t budget = ubSize > UB_RESERVE + floor ? ubSize - UB_RESERVE : floor;",
        "    uint64_t tileLen = budget / BYTES_PER_ELEM / TILE_ALIGN * TILE_ALIGN;",
        f"    uint64_t need = (d{V} + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;",
        "    if (need < tileLen) {",
        "        tileLen = need;",
        "    }",
        "    if (tileLen < TILE_ALIGN) {",
        "        tileLen = TILE_ALIGN;",
        "    }",
    ]
    unit = [f"d{k}" for k in em.unit_axes]
    global_stage = any(st.scope == "global" for st in plan.stages)
    groups = "blockDim"
    if plan.mode in ("elementwise", "column"):
        outer = " * ".join(unit) if unit else "1"
        L += [
            "    // Fewer outer rows than cores: shorter tiles, so every core gets work.",
            f"    uint64_t outer = {outer};",
            "    if (outer < coreNum) {",
            "        uint64_t perOuter = (coreNum + outer - 1) / outer;",
            f"        uint64_t cap = ((d{V} + perOuter - 1) / perOuter + TILE_ALIGN - 1) /"
            " TILE_ALIGN * TILE_ALIGN;",
            "        if (cap < tileLen) {",
            "            tileLen = cap < TILE_ALIGN ? TILE_ALIGN : cap;",
            "        }",
            "    }",
        ]
        unit.append(f"((d{V} + tileLen - 1) / tileLen)")
        L.append("    // Work units: (outer index, vector tile).")
        L.append(f"    uint64_t units = {' * '.join(unit) if unit else '1'};")
        L += BLOCK_DIM_LINES
    elif em.split and not split_rows:
        segs = " * ".join(f"d{k}" for k in em.reduced_nv) or "1"
        seg_steps = f"{segs} * ((d{V} + tileLen - 1) / tileLen)"
        L += [
            "    // Work units: rows (kept indices); each row on one core (a stage of a bigger",
            "    // kernel: no SyncAll inside it).",
            f"    uint64_t units = {' * '.join(unit) if unit else '1'};",
            *BLOCK_DIM_LINES,
            "    uint64_t coresPerRow = 1;",
            "    tiling.set_coresPerRow(static_cast<uint32_t>(coresPerRow));",
            f"    tiling.set_tilesPerPart(static_cast<uint32_t>({seg_steps}));",
            "    tiling.set_bigParts(0);",
        ]
    elif em.split:
        segs = " * ".join(f"d{k}" for k in em.reduced_nv) or "1"
        L += [
            "    // Work units: rows (kept indices); each row is walked in (segment, tile) steps.",
            f"    uint64_t units = {' * '.join(unit) if unit else '1'};",
            f"    uint64_t segs = {segs};  // reduced axes walked outside the vector axis",
            "    // Fewer rows than cores: coresPerRow cores share each row, each reducing its",
            f"    // chunk. Only rows of MIN_SPLIT = {MIN_SPLIT}+ elements: shorter ones lose more",
            "    // at the SyncAll than the extra cores save; chunks of MIN_CHUNK+ elements (the",
            "    // partials' trip through the workspace); tiles get shorter so every core of a",
            "    // row has at least one step.",
            "    uint64_t coresPerRow = 1;",
            f"    if (units > 0 && units < coreNum && segs * d{V} >= MIN_SPLIT) {{",
            "        coresPerRow = coreNum / units;",
            f"        uint64_t byLen = segs * d{V} / MIN_CHUNK;",
            "        if (byLen < coresPerRow) {",
            "            coresPerRow = byLen;",
            "        }",
            "    }",
            "    if (coresPerRow > 1) {",
            "        uint64_t perSeg = (coresPerRow + segs - 1) / segs;",
            f"        uint64_t cap = ((d{V} + perSeg - 1) / perSeg + TILE_ALIGN - 1) /"
            " TILE_ALIGN * TILE_ALIGN;",
            "        if (cap < tileLen) {",
            "            tileLen = cap < TILE_ALIGN ? TILE_ALIGN : cap;",
            "        }",
            "    }",
            f"    uint64_t steps = segs * ((d{V} + tileLen - 1) / tileLen);",
            "    if (coresPerRow > steps) {",
            "        coresPerRow = steps;",
            "    }",
            "    if (coresPerRow < 1) {",
            "        coresPerRow = 1;",
            "    }",
            "    uint64_t blockDim = 1;",
            "    if (coresPerRow > 1) {",
            "        blockDim = units * coresPerRow;  // one row per core group: <= coreNum",
            "    } else {",
            "        blockDim = units < coreNum ? units : coreNum;",
            "        if (blockDim == 0) {",
            "            blockDim = 1;",
            "        }",
            "    }",
            "    uint64_t groups = blockDim / coresPerRow;",
            "    // Steps of a row: the first (steps % coresPerRow) of its cores walk one more.",
            "    tiling.set_coresPerRow(static_cast<uint32_t>(coresPerRow));",
            "    tiling.set_tilesPerPart(static_cast<uint32_t>(steps / coresPerRow));",
            "    tiling.set_bigParts(static_cast<uint32_t>(steps % coresPerRow));",
        ]
        groups = "groups"
    else:
        L.append("    // Work units: rows (kept indices); each row scanned in tiles, on one core.")
        L.append(f"    uint64_t units = {' * '.join(unit) if unit else '1'};")
        L += BLOCK_DIM_LINES
    if global_stage:
        work = " * ".join(f"d{k}" for k in range(len(plan.axes)))
        L += [
            "    // Global (over all rows) stages: per-core partials meet in the workspace after",
            "    // a SyncAll, so blockDim stays <= coreNum (every core resident). Spread only",
            f"    // for MIN_SPLIT = {MIN_SPLIT}+ elements (one core alone needs no barrier).",
            "    if (" + ("coresPerRow == 1 && " if em.split else "") + f"{work} < MIN_SPLIT) {{",
            "        blockDim = 1;",
            *(["        groups = blockDim;"] if em.split else []),
            "    }",
        ]
    L += [
        "    // Big/small core split: the first (units % groups) core groups take one unit more.",
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
    ]
    for k in range(len(plan.axes)):
        L.append(f"    tiling.set_dim{k}(static_cast<uint32_t>(d{k}));")
    for name, size, comment in view_fields(plan):
        L.append(f"    tiling.set_{name}(static_cast<uint32_t>({_dim_cpp(size)}));  // {comment}")
    L.append("    tiling.set_tileLen(static_cast<uint32_t>(tileLen));")
    user_ws = ""
    if em.sync:
        user_ws = f"{len(plan.stages)} * blockDim * {PART} * sizeof(float)"
    L += tiling_end_lines(groups, user_ws)
    infer: list[str] = []
    for j, o in enumerate(plan.outputs):
        same = next((i for i, t in enumerate(plan.inputs) if t.shape == o.shape), None)
        sliced = _sliced_shape(plan, o.shape) if same is None else None
        if o.dims is not None:
            infer.append(f"    // output {j}: {', '.join(d.text(names) for d in o.dims)}")
            for i in sorted({i for d in o.dims for i, _ in d.terms}):
                infer.append(f"    const gert::Shape* x{j}_{i} = context->GetInputShape({i});")
            infer.append(f"    gert::Shape* y{j} = context->GetOutputShape({j});")
            infer.append(f"    y{j}->SetDimNum({len(o.dims)});")
            infer += [
                f"    y{j}->SetDim({k}, {_dim_cpp(d, infer=f'x{j}_')});"
                for k, d in enumerate(o.dims)
            ]
        elif same is not None:
            infer.append(f"    *context->GetOutputShape({j}) = *context->GetInputShape({same});")
        elif sliced is not None:
            i, dims = sliced
            infer.append(f"    // output {j}: a slice of {plan.inputs[i].name}'s shape")
            infer.append(f"    const gert::Shape* x{j} = context->GetInputShape({i});")
            infer.append(f"    gert::Shape* y{j} = context->GetOutputShape({j});")
            infer.append(f"    y{j}->SetDimNum({len(o.shape)});")
            for k, (p, q) in enumerate(dims):
                dim = f"x{j}->GetDim({k})" + (f" * {p}" if p != 1 else "")
                infer.append(f"    y{j}->SetDim({k}, {dim + f' / {q}' if q != 1 else dim});")
        else:
            infer.append(f"    // output {j}: the captured shape {o.shape}")
            infer.append(f"    gert::Shape* y{j} = context->GetOutputShape({j});")
            infer.append(f"    y{j}->SetDimNum({len(o.shape)});")
            infer += [f"    y{j}->SetDim({k}, {s});" for k, s in enumerate(o.shape)]
    params = input_params(plan.inputs)
    for j, o in enumerate(plan.outputs):
        params += io_param("Output", f"out{j}", o.dtype)
    L += registration(plan.op_name, infer, params, chip)
    return "\n".join(L)
