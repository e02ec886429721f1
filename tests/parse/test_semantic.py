"""Semantic classification of AscendC source: API calls, AscendC types and enum values,
qualifiers, tiling fields, parameters and fields, chip availability, and robustness on text a
user is still typing."""

from __future__ import annotations

from ascend_tools.catalog import load_catalog
from ascend_tools.chips import get_chip
from ascend_tools.parse.semantic import (
    MAX_BYTES,
    SemanticToken,
    TokenModifier,
    TokenType,
    classify,
)

T, M = TokenType, TokenModifier
LIB = M.DEFAULT_LIBRARY

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;  // __aicore__ in a comment is no keyword

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t len)
    {
        xGm.SetGlobalBuffer((__gm__ half*)x, len);
        pipe.InitBuffer(inQueue, BUFFER_NUM, len * sizeof(half));
        Step(len);
    }
    __aicore__ inline void Step(uint32_t n)
    {
        LocalTensor<half> a = inQueue.AllocTensor<half>();
        DataCopy(a, xGm, n);
        Add(a, a, a, n);
        const char* s = "__gm__";
    }
private:
    TPipe pipe;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueue;
    TBuf<QuePosition::VECCALC> calcBuf;
    GlobalTensor<half> xGm;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd op;
    op.Init(x, tilingData.totalLength);
}
"""

TILING = """\
namespace optiling {
BEGIN_TILING_DATA_DEF(AddTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, offsets);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddCustom, AddTiling)
}
"""


def _tokens(text: str, arch: str | None = None) -> list[SemanticToken]:
    return classify(text, load_catalog(), arch).tokens


def _kinds(text: str, arch: str | None = None) -> dict[str, set[tuple[TokenType, frozenset]]]:
    """Each token text -> the (type, modifiers) it got anywhere in `text`."""
    out: dict[str, set[tuple[TokenType, frozenset]]] = {}
    for t in _tokens(text, arch):
        out.setdefault(t.text, set()).add((t.type, frozenset(t.modifiers)))
    return out


def _only(
    kinds: dict[str, set[tuple[TokenType, frozenset]]],
    name: str,
) -> tuple[TokenType, frozenset]:
    got = kinds[name]
    assert len(got) == 1, (name, got)
    return next(iter(got))


def test_ascendc_apis_types_and_enum_values_come_from_the_catalog() -> None:
    k = _kinds(KERNEL)
    for api in ("DataCopy", "Add"):
        assert _only(k, api) == (T.FUNCTION, frozenset({LIB}))
    for member in ("AllocTensor", "InitBuffer", "SetGlobalBuffer"):
        assert _only(k, member) == (T.METHOD, frozenset({LIB}))
    for cls in ("TPipe", "TQue", "TBuf", "LocalTensor", "GlobalTensor"):
        assert _only(k, cls) == (T.CLASS, frozenset({LIB}))
    assert _only(k, "TPosition") == (T.ENUM, frozenset({LIB}))
    assert _only(k, "VECIN") == (T.ENUM_MEMBER, frozenset({LIB}))
    assert _only(k, "VECCALC") == (T.ENUM_MEMBER, frozenset({LIB}))
    assert _only(k, "GM_ADDR") == (T.MACRO, frozenset({LIB}))
    assert _only(k, "GET_TILING_DATA") == (T.MACRO, frozenset({LIB}))


def test_qualifiers_are_keywords_only_in_code() -> None:
    toks = [t for t in _tokens(KERNEL) if t.type == T.KEYWORD]
    lines = KERNEL.splitlines()
    assert {t.text for t in toks} == {"__aicore__", "__gm__", "__global__"}
    for t in toks:  # none from the comment on line 3 or the string in Step
        assert t.line != 3 and "const char" not in lines[t.line - 1]
        assert lines[t.line - 1][t.column - 1 : t.column - 1 + t.length] == t.text
    assert sum(t.text == "__aicore__" for t in toks) == 3


def test_user_code_is_told_apart_from_the_library() -> None:
    k = _kinds(KERNEL)
    assert (T.METHOD, frozenset()) in k["Step"]  # the call of a method of the user's class
    assert (T.METHOD, frozenset()) in k["Init"]  # op is a KernelAdd: its Init is the user's
    assert (T.CLASS, frozenset({M.DECLARATION})) in k["KernelAdd"]
    assert (T.PARAMETER, frozenset({M.DECLARATION})) in k["len"]
    assert (T.PARAMETER, frozenset()) in k["len"]
    assert k["inQueue"] >= {(T.PROPERTY, frozenset({M.DECLARATION})), (T.PROPERTY, frozenset())}
    assert (T.VARIABLE, frozenset({M.READONLY})) in k["BUFFER_NUM"]
    assert (T.VARIABLE, frozenset({M.DECLARATION})) in k["a"]


def test_tiling_data_fields_and_structs() -> None:
    k = _kinds(TILING)
    assert _only(k, "totalLength") == (T.PROPERTY, frozenset({M.DECLARATION}))
    assert _only(k, "offsets") == (T.PROPERTY, frozenset({M.DECLARATION}))
    assert _only(k, "TILING_DATA_FIELD_DEF") == (T.MACRO, frozenset({LIB}))
    kernel = _kinds(KERNEL)
    assert (T.VARIABLE, frozenset({M.DECLARATION})) in kernel["tilingData"]
    assert (T.VARIABLE, frozenset()) in kernel["tilingData"]
    assert _only(kernel, "totalLength") == (T.PROPERTY, frozenset())


def test_tiling_struct_declared_once_and_referenced_after() -> None:
    toks = [t for t in _tokens(TILING) if t.text == "AddTiling"]
    assert [(t.line, t.type, t.modifiers) for t in toks] == [
        (2, T.STRUCT, (M.DECLARATION,)),
        (6, T.STRUCT, ()),
    ]


def test_an_api_the_chip_lacks_is_marked_unavailable() -> None:
    text = "void f() { DataCopyPad(a, b, p, q); DataCopy(a, b, 8); }"
    on_310p = {t.text: t.modifiers for t in _tokens(text, get_chip("ascend310p").arch)}
    on_910b = {t.text: t.modifiers for t in _tokens(text, get_chip("ascend910b2").arch)}
    assert M.UNAVAILABLE in on_310p["DataCopyPad"]
    assert M.UNAVAILABLE not in on_310p["DataCopy"]
    assert M.UNAVAILABLE not in on_910b["DataCopyPad"]


def test_a_user_function_shadows_a_catalog_name() -> None:
    text = "__aicore__ void Add(int a) {}\nvoid g() { Add(1); }\n"
    adds = [t for t in _tokens(text) if t.text == "Add"]
    assert [(t.type, t.modifiers) for t in adds] == [
        (T.FUNCTION, (M.DECLARATION,)),
        (T.FUNCTION, ()),
    ]


def test_columns_count_characters_after_non_ascii_text() -> None:
    text = "// 加法 ü\nvoid f() { /* 数据 */ DataCopy(a, b, 8); }\n"
    tok = next(t for t in _tokens(text) if t.text == "DataCopy")
    line = text.splitlines()[tok.line - 1]
    assert tok.line == 2 and line[tok.column - 1 :].startswith("DataCopy")
    assert tok.column == line.index("DataCopy") + 1


def test_a_line_range_keeps_only_its_lines() -> None:
    full = _tokens(KERNEL)
    part = classify(KERNEL, load_catalog(), None, lines=(14, 17)).tokens
    assert part == [t for t in full if 14 <= t.line <= 17]
    assert part


def test_empty_half_written_and_huge_texts_never_raise() -> None:
    assert classify("", load_catalog()).tokens == []
    for cut in range(0, len(KERNEL), 23):  # every prefix a user may have typed
        text = KERNEL[:cut] + "Data"
        lines = text.splitlines()
        for t in _tokens(text):
            assert lines[t.line - 1][t.column - 1 : t.column - 1 + t.length] == t.text
    huge = classify("int x;\n" * (MAX_BYTES // 7 + 1), load_catalog())
    assert huge.tokens == [] and "bytes" in huge.skipped


def test_odd_texts_give_tokens_inside_the_text() -> None:
    odd = [
        "\0\0\0",
        "}}}{{{",
        "__mix__(1, 2",
        "template <typename T> class A : public TQue<",
        "a.b.c->d::e<f<g>>(h)." * 50,
        '"' + "DataCopy(" * 100,
        "#define X(a) a ## DataCopy\nX(1)\n",
        "\ud7ff\ue000 😀 __gm__ 😀 Add(x);",
    ]
    for text in odd:
        lines = text.splitlines()
        for t in _tokens(text):
            assert lines[t.line - 1][t.column - 1 : t.column - 1 + t.length] == t.text


def test_a_member_call_is_library_unless_the_object_is_a_user_type() -> None:
    text = (
        "struct Mine { int Count(); };\n"
        "void f(gert::TilingContext* context, Mine m) {\n"
        "    auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());\n"
        "    p.GetCoreNum();\n"
        "    m.GetCoreNum();\n"
        "}\n"
    )
    calls = {t.line: t.modifiers for t in _tokens(text) if t.text == "GetCoreNum"}
    assert calls[4] == (LIB,)  # `auto`: the catalog's member by its name
    assert calls[5] == ()  # an object of the user's struct: not the catalog's member
    platform = next(t for t in _tokens(text) if t.text == "GetPlatformInfo")
    assert (platform.type, platform.modifiers) == (T.METHOD, (LIB,))  # TilingContext's member
