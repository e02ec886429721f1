"""KernelModel facts and the evaluator: queues, tiling structs, host values from shapes, ranges,
and the provenance notes messages quote."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.chips import get_chip
from ascend_tools.lint.binding import parse_shapes, reference_shapes
from ascend_tools.parse.consts import parse_value_text
from ascend_tools.parse.document import Document
from ascend_tools.parse.evaluate import Evaluator
from ascend_tools.parse.model import KernelModel
from tests.lint.helpers import corpus_texts


def _model(texts: dict[str, str]) -> KernelModel:
    return KernelModel({p: Document(p, t) for p, t in texts.items()})


def test_queues_have_position_and_depth() -> None:
    model = _model(corpus_texts("reduce_sum_rows"))
    qs = {name: q for (_, name), q in model.queues().items()}
    assert (qs["inQueue"].kind, qs["inQueue"].position, qs["inQueue"].depth_text) == (
        "TQue", "VECIN", "BUFFER_NUM")
    assert (qs["outQueue"].position, qs["outQueue"].depth_text) == ("VECOUT", "1")
    assert qs["workBuf"].kind == "TBuf" and qs["workBuf"].position == "VECCALC"
    assert all(q.in_ub for q in qs.values())


def test_project_model_reads_host_tiling_struct_opdef_and_entry() -> None:
    model = _model(corpus_texts("add_custom"))
    struct = model.tiling_struct()
    assert struct is not None and [f.name for f in struct.fields] == ["totalLength", "tileNum"]
    op = model.opdef()
    assert op is not None and [p.name for p in op.inputs] == ["x", "y"]
    assert op.outputs[0].dtypes == ["DT_FLOAT16", "DT_FLOAT"]
    assert model.entry is not None and model.entry.name == "add_custom"
    assert [p.name for p in model.entry.function.params] == [
        "x", "y", "z", "workspace", "tiling"]


def test_host_tiling_values_come_from_binding_shapes_with_provenance() -> None:
    model = _model(corpus_texts("add_custom"))
    ev = Evaluator(model, get_chip("ascend910b2"), shapes=[[8, 2048], [8, 2048]])
    tv = ev.tiling_values()
    assert tv["totalLength"].value == 16384 and tv["tileNum"].value == 8
    assert "test binding" in tv["totalLength"].why(10)
    bd = ev.block_dim()
    assert bd is not None and bd.value == 8 and "op_host/add_custom.cpp:12" in bd.why()
    init = next(c for c in model.calls if c.name == "InitBuffer")
    size = ev.eval(init.args[2].expr, init.chunk, init.order)
    assert size is not None and (size.lo, size.hi) == (256, 512)  # tileLength 128 x 2..4 B
    assert "tileLength = 128 from op_kernel/add_custom.cpp:14" in size.why()
    assert "OpDef dtypes float, half" in size.why(10)


def test_without_shapes_host_values_stay_unknown() -> None:
    model = _model(corpus_texts("add_custom"))
    ev = Evaluator(model, get_chip(), shapes=None)
    assert "totalLength" not in ev.tiling_values()
    assert ev.tiling_values()["tileNum"].value == 8


def test_get_dim_and_core_counts_in_host_code() -> None:
    model = _model(corpus_texts("matmul_custom"))
    ev = Evaluator(model, get_chip("ascend910b3"), shapes=[[1024, 512], [512, 2048]])
    bd = ev.block_dim()
    assert bd is not None and bd.value == 20  # GetCoreNumAic on 910B3
    fn = ev.host_tiling_function()
    assert fn is not None
    n = next(d for d in fn.decls if d.name == "N")
    assert ev.eval(("id", "N"), fn, n.order + 1).value == 2048


def test_macro_bodies_enums_and_ranges() -> None:
    src = """
#define TILE (16 * 1024)
enum Mode { A, B = 5, C };
constexpr uint32_t N = TILE / 4;
__aicore__ inline void f(uint32_t k) {
    uint32_t len = k > 3 ? N : 64;
    uint32_t m = min(len, 512);
}
"""
    model = _model({"k.cpp": src})
    ev = Evaluator(model, get_chip())
    fn = next(c for c in model.chunks if c.name == "f")
    assert ev.eval(("id", "TILE"), fn).value == 16384
    assert ev.eval(("id", "C"), fn).value == 6
    v = ev.eval(("id", "len"), fn, 99)
    assert v is not None and (v.lo, v.hi) == (64, 4096)
    m = ev.eval(("id", "m"), fn, 99)
    assert m is not None and (m.lo, m.hi) == (64, 512)
    assert parse_value_text("(2 << 3)") == ("b", "<<", ("n", 2), ("n", 3))


def test_shapes_from_cli_text_and_from_a_reference_file(tmp_path: Path) -> None:
    assert parse_shapes("8x2048, 4") == [[8, 2048], [4]]
    ref = tmp_path / "ref.py"
    ref.write_text(
        "import torch\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, x, y):\n"
        "        return x + y\n"
        "def get_inputs():\n"
        "    return [torch.rand(4, 96), torch.rand(4, 96)]\n"
    )
    assert reference_shapes(ref) == [[4, 96], [4, 96]]


def test_process_pipeline_and_chunk_at_cursor() -> None:
    texts = corpus_texts("softmax_rows")
    model = _model(texts)
    assert model.pipeline("KernelSoftmax") == [
        ("CopyIn", True), ("Compute", True), ("CopyOut", True)]
    path, text = next(iter(texts.items()))
    offset = len(text[: text.index("Exp(yLocal")].encode())
    chunk = model.chunk_at(path, offset)
    assert chunk is not None and chunk.qualified == "KernelSoftmax::Compute"


def test_expression_types_follow_declarations_and_catalog_signatures() -> None:
    from ascend_tools.catalog import load_catalog
    from ascend_tools.parse.types import expr_type

    model = _model(corpus_texts("add_custom"))
    cat = load_catalog()
    fn = next(c for c in model.host_chunks() if c.name == "TilingFunc")
    call = next(c for c in fn.calls if c.name == "GetShapeSize")
    assert expr_type(model, cat, call.receiver, fn, call.order) == "Shape"
    compute = model.functions["KernelAdd::Compute"][0]
    deq = next(c for c in compute.calls if c.name == "DeQue")
    assert expr_type(model, cat, deq.receiver, compute, deq.order) == "TQue"
    assert expr_type(model, cat, ("id", "xLocal"), compute, 99) == "LocalTensor"


def test_constants_of_the_same_file_win_over_other_files() -> None:
    model = _model({
        "op_kernel/k.cpp": "constexpr uint32_t BLOCK = 8;\nvoid f() { int x = BLOCK; }\n",
        "op_host/k.cpp": "const uint32_t BLOCK = 40;\nvoid g() { int y = BLOCK; }\n",
    })
    ev = Evaluator(model, get_chip())
    f = next(c for c in model.chunks if c.name == "f")
    g = next(c for c in model.chunks if c.name == "g")
    assert ev.eval(("id", "BLOCK"), f).value == 8
    assert ev.eval(("id", "BLOCK"), g).value == 40


def test_branches_are_decided_when_their_condition_is_known() -> None:
    src = """
uint64_t Twice(uint64_t v) { return v * 2; }
void f(uint32_t k) {
    uint32_t a = 100;
    if (a > 50) { a = 10; }
    uint32_t b = 100;
    if (b < 50) { b = 10; } else { b = 20; }
    uint32_t c = 100;
    if (k > 3) { c = 7; }
    uint32_t d = 100;
    if (k > 3) { if (d > 5) { d = 1; } }
    uint32_t e = 5 > 3 ? 1 : 2;
    uint32_t g = Twice(21);
}
"""
    model = _model({"k.cpp": src})
    ev = Evaluator(model, get_chip())
    fn = next(c for c in model.chunks if c.name == "f")
    got = {n: ev.eval(("id", n), fn, 999) for n in "abcdeg"}
    assert {n: (v.lo, v.hi) for n, v in got.items() if v is not None} == {
        "a": (10, 10), "b": (20, 20), "c": (7, 100), "d": (1, 100), "e": (1, 1), "g": (42, 42)}


def test_dtype_combinations_give_exact_sizes() -> None:
    model = _model(corpus_texts("add_custom"))
    ev = Evaluator(model, get_chip(), shapes=[[8, 2048], [8, 2048]])
    assert ev.combos() == [0, 1]
    init = next(c for c in model.calls if c.name == "InitBuffer")
    sizes = [ev.with_combo(k).eval(init.args[2].expr, init.chunk, init.order) for k in (0, 1)]
    assert [(v.lo, v.hi) for v in sizes if v is not None] == [(256, 256), (512, 512)]


def test_functions_returning_a_reference_keep_their_name_and_parameters() -> None:
    model = _model({"/k/ref_returns.cpp": """
struct Accum {
    __aicore__ inline float& At(int i) { return v[i]; }
    __aicore__ inline Accum& operator+=(const Accum& o) { v[0] += o.v[0]; return *this; }
    __aicore__ inline float&& Take(int i) { return static_cast<float&&>(v[i]); }
    __aicore__ inline float* Row(int r) { return v + r; }
    float v[4];
};
__aicore__ inline int& Counter(int* p) { return *p; }
"""})
    got = {c.name: [p.name for p in c.function.params]
           for chunks in model.functions.values() for c in chunks if c.function is not None}
    assert got == {"At": ["i"], "operator+=": ["o"], "Take": ["i"], "Row": ["r"],
                   "Counter": ["p"]}
    assert [c.name for c in model.methods("Accum")] == ["At", "operator+=", "Take", "Row"]
