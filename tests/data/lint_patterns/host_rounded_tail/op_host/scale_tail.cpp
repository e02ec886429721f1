// Each core's share and its tiles are whole blocks of 8 floats: the total is rounded up first,
// the tile rounded to BLOCK_ELEMS, and the last tile is the share less whole tiles.
#include "scale_tail_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_ELEMS = 32 / sizeof(float);
constexpr uint32_t TILES = 4;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t cores = 8;
    uint32_t totalAligned = (total + BLOCK_ELEMS - 1) / BLOCK_ELEMS * BLOCK_ELEMS;
    uint32_t share = totalAligned / BLOCK_ELEMS / cores * BLOCK_ELEMS;
    uint32_t tile = (share / TILES + BLOCK_ELEMS - 1) / BLOCK_ELEMS * BLOCK_ELEMS;
    uint32_t tiles = tile == 0 ? 0 : (share + tile - 1) / tile;
    ScaleTailTilingData tiling;
    tiling.set_tileLength(tile);
    tiling.set_tileNum(tiles);
    tiling.set_lastLength(tiles == 0 ? 0 : share - (tiles - 1) * tile);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class ScaleTail : public OpDef {
public:
    explicit ScaleTail(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleTail);
}
