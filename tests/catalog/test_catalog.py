"""The catalog loads, covers the spec's most-used APIs, and suggests close names."""

from __future__ import annotations

import pytest

from ascend_tools.catalog import ApiKind, Unit, load_catalog
from ascend_tools.chips import all_chips

SPEC_MOST_USED = [  # docs/ASCENDC_SPEC.md section 9, device and member lists
    "LocalTensor", "HardEvent", "SetFlag", "WaitFlag", "TPosition", "QuePosition", "GlobalTensor",
    "DataCopy", "Muls", "GetBlockIdx", "TBuf", "RoundMode", "Cast", "Sub", "PipeBarrier", "Mul",
    "GetBlockNum", "Adds", "DataCopyPad", "TPipe", "TQue", "Add", "Duplicate", "DataCopyExtParams",
    "DataCopyPadExtParams", "WholeReduceSum", "WholeReduceMax", "Select", "SELMODE", "Mins",
    "Maxs", "DataCopyParams", "Or", "And", "Not", "Compare", "CMPMODE", "CompareScalar", "Abs",
    "Exp", "Div", "Max", "Min", "ReduceSum", "BlockReduceSum", "BlockReduceMax", "Ln", "Log",
    "Sqrt", "BinaryRepeatParams", "SetMaskCount", "SetMaskNorm", "SetVectorMask", "ResetMask",
    "MASK_PLACEHOLDER", "Brcb", "BrcbRepeatParams", "Gather", "CreateVecIndex",
    "SelectWithBytesMask", "ShiftRight", "Sigmoid", "Tanh", "Sum", "SoftmaxFlashV2",
    "SetAtomicAdd", "SetAtomicNone", "DumpTensor", "GetUserWorkspace", "GetSubBlockIdx",
    "GetSubBlockNum", "InitBuffer", "FreeTensor", "SetGlobalBuffer", "EnQue", "Get", "DeQue",
    "AllocTensor", "GetValue", "SetValue", "GetPhyAddr", "ReinterpretCast", "GetSize",
    "Nd2NzParams", "LoadData", "LoadData2DParams", "LoadDataWithTranspose",
    "LoadData2dTransposeParams", "Mmad", "MmadParams", "Fixpipe", "FixpipeParamsV220",
    "CrossCoreSetFlag", "CrossCoreWaitFlag", "ASCEND_IS_AIV", "ASCEND_IS_AIC", "Matmul",
    "SetTensorA", "SetTensorB", "IterateAll", "End", "SetSingleShape", "GET_TILING_DATA",
    "GET_TILING_DATA_WITH_STRUCT", "TILING_KEY_IS", "KERNEL_TASK_TYPE_DEFAULT", "ONE_BLK_SIZE",
    "__CCE_AICORE__", "__CCE_KT_TEST__",
]
SPEC_HOST = [
    "GetDataSize", "DataType", "Format", "ParamType", "UnknownShapeFormat", "AutoContiguous",
    "GetStorageShape", "GetRawTilingData", "GetNodeName", "GetDim", "GetInputShape", "Input",
    "Output", "Attr", "AttrType", "AICore", "AddConfig", "GetInputDesc", "GetDataType",
    "GetDimNum", "GetCoreMemSize", "GetPlatformInfo", "SetBlockDim", "GetWorkspaceSizes",
    "SetTilingKey", "GetCoreNumAiv", "GetCoreNumAic", "GetCoreNum", "GetOutputShape", "GetData",
    "GetCapacity", "SetDataSize", "SaveToBuffer", "GetShapeSize", "GetBlockDim",
    "SetOutputDataType", "SetTiling", "GetCompileInfo", "GetAttrs", "GetAttrPointer",
    "GetSocVersion", "GetInputDataType", "SetDim", "AppendDim", "SetDimNum",
    "GetDynamicInputTensor", "GetViewShape", "GetLibApiWorkSpaceSize", "Int", "Float", "OP_LOGD",
    "OP_LOGE", "OP_TILING_CHECK", "OPS_CHECK_NULL_WITH_CONTEXT", "BEGIN_TILING_DATA_DEF",
    "TILING_DATA_FIELD_DEF", "TILING_DATA_FIELD_DEF_ARR", "END_TILING_DATA_DEF",
    "REGISTER_TILING_DATA_CLASS", "OP_ADD", "MatmulApiTiling", "PlatformAscendC",
]


@pytest.mark.parametrize("name", SPEC_MOST_USED + SPEC_HOST)
def test_catalog_covers_spec_most_used_api(name: str) -> None:
    assert load_catalog().get(name) is not None, name


def test_every_entry_has_source_doc_and_known_archs() -> None:
    archs = {c.arch for c in all_chips().values()}
    for entry in load_catalog().entries:
        assert entry.source.strip() and entry.doc.strip(), entry.name
        assert set(entry.archs) <= archs, entry.name
        assert set(entry.dtypes) <= archs | {"*"}, entry.name
        if entry.kind == ApiKind.MEMBER:
            assert entry.owners, f"member {entry.name} has no owner class"


def test_member_owners_are_catalogued_classes() -> None:
    cat = load_catalog()
    for owner in cat.owners():
        assert cat.lookup(owner), f"owner {owner} is not itself in the catalog"


def test_parameter_units_distinguish_bytes_elements_and_blocks() -> None:
    cat = load_catalog()
    units = {p.name: p.unit for p in cat.get("DataCopyParams").params}
    assert units["blockLen"] == Unit.BLOCKS32
    ext = {p.name: p.unit for p in cat.get("DataCopyExtParams").params}
    assert ext["blockLen"] == Unit.BYTES
    init = {p.name: p.unit for p in cat.get("InitBuffer").params}
    assert init["len"] == Unit.BYTES
    assert {p.name: p.unit for p in cat.get("DataCopy").params}["count"] == Unit.ELEMENTS


def test_datacopypad_is_not_supported_on_910_and_310p() -> None:
    pad = load_catalog().get("DataCopyPad")
    assert not pad.supports_arch("dav-c100") and not pad.supports_arch("dav-m200")
    assert pad.supports_arch("dav-c220")


def test_get_prefers_device_entry_and_accepts_qualified_names() -> None:
    cat = load_catalog()
    assert cat.get("AscendC::DataCopy").name == "DataCopy"
    assert cat.get("TQue::EnQue").name == "EnQue"
    assert {e.namespace for e in cat.lookup("DataType")} == {"ge"}
    assert cat.get("NoSuchApiAnywhere") is None
    assert "DataCopy" in cat.names()


@pytest.mark.parametrize(
    ("typo", "owner", "expected"),
    [
        ("DataCpy", None, "DataCopy"),
        ("datacopy", None, "DataCopy"),
        ("EnQueue", "TQue", "EnQue"),
        ("Alloc", "TQue", "AllocTensor"),
        ("InitBuffers", "TPipe", "InitBuffer"),
        ("ReduceSun", None, "ReduceSum"),
        ("GetBlockIndex", None, "GetBlockIdx"),
        ("SetGlobalBuff", None, "SetGlobalBuffer"),
        ("Sigmod", None, "Sigmoid"),
        ("GetShapeSzie", "Shape", "GetShapeSize"),
    ],
)
def test_closest_suggests_the_intended_name_first(
    typo: str, owner: str | None, expected: str
) -> None:
    assert load_catalog().closest(typo, owner=owner)[0] == expected


def test_closest_with_owner_only_offers_that_class_members() -> None:
    cat = load_catalog()
    got = cat.closest("Free", n=5, owner="TQue", cutoff=0.0)
    assert got and all(cat.has_member("TQue", g) for g in got)
    assert "FreeTensor" in got


def test_closest_separates_members_from_free_functions() -> None:
    cat = load_catalog()
    free = cat.closest("SetValues", n=5, member=False, cutoff=0.0)
    assert "SetValue" not in free
    assert "SetValue" in cat.closest("SetValues", n=5, member=True)


def test_closest_returns_nothing_for_unrelated_names() -> None:
    assert load_catalog().closest("qqqqzzzz") == []


def test_hover_markdown_shows_signature_units_and_source() -> None:
    md = load_catalog().get("DataCopyExtParams").markdown()
    assert "```cpp" in md and "blockLen" in md and "(bytes)" in md and "_Source: " in md
    pad = load_catalog().get("DataCopyPad").markdown()
    assert "dav-c220" in pad and "not supported on Ascend 910" in pad


def test_prompt_lines_are_one_line_each_and_skip_unknown_names() -> None:
    lines = load_catalog().prompt_lines(["DataCopy", "NoSuchApi", "Add"])
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert lines[0].startswith("template <typename T> void DataCopy(")
