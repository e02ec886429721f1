"""Parsing: qualifiers blanked with offsets intact, incremental re-parse equal to a fresh parse,
and only the edited chunk re-extracted."""

from __future__ import annotations

import random

import pytest

from ascend_tools.parse.document import Document, SourceEdit, diff_edit
from ascend_tools.parse.source import LineIndex, blank_qualifiers
from tests.lint.helpers import CORPUS

SOFTMAX = (CORPUS / "softmax_rows.cpp").read_text()


def test_blanking_keeps_length_and_removes_qualifiers() -> None:
    src = b'extern "C" __global__ __aicore__ void k(__gm__ uint8_t* x) { __mix__(1, 2) f(); }'
    out = blank_qualifiers(src)
    assert len(out) == len(src)
    assert b"__global__" not in out and b"__gm__" not in out and b"__mix__" not in out
    assert out.index(b"void") == src.index(b"void")


def test_member_call_with_the_template_keyword_reads_as_the_member_call() -> None:
    """`q.template EnQue(t)` (no template argument list) cuts the call in two for tree-sitter;
    its keyword is blanked, also when an edit anywhere above re-blanks a window around it."""
    text = ("template <typename T> class K {\n    void F() {\n        int pad = 0;\n"
            "        int more = 1;\n        this->q.template EnQue(t);\n"
            "        q.template DeQue<T>();\n    }\n};\n")
    doc = Document("k.cpp", text)

    def calls() -> list[tuple[str, str | None]]:
        return [(c.name, c.receiver_name) for ch in doc.chunks for c in ch.calls]

    assert calls() == [("EnQue", "q"), ("DeQue", "q")]
    for at in (i for i in range(text.index("this->")) if text[i] == " "):
        doc.update(text[:at] + " " + text[at:], SourceEdit(at, at, " "))
        assert doc.blanked == blank_qualifiers(doc.data), at
        assert calls() == [("EnQue", "q"), ("DeQue", "q")], at
        doc.update(text, SourceEdit(at, at + 1, ""))


CORE_BRANCHES = """\
class Mixed {
public:
    __aicore__ inline void Init(int n) {
        if ASCEND_IS_AIV {
            n_ = n / AscendC::GetTaskRation();
        }
    }
    __aicore__ inline void Process() {
        for (int b = 0; b < n_; b++) {
            if ASCEND_IS_AIC{
                CrossCoreSetFlag<2, PIPE_FIX>(3);
            }
            if ASCEND_IS_NOT_AIC   {
                CrossCoreWaitFlag(3);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(int i) {}
    int n_;
};
"""


def test_core_type_branches_parse_as_if_statements_and_keep_their_class() -> None:
    """`if ASCEND_IS_AIV {` (the macro brings the parentheses) is parenthesised in place: read
    raw, tree-sitter's recovery turned the class into a function and dropped its methods
    (xllm-ops' index_group_matmul then got false queue-protocol errors)."""
    doc = Document("k.cpp", CORE_BRANCHES)
    assert len(doc.blanked) == len(doc.data)
    assert doc.tree is not None and not doc.tree.root_node.has_error
    methods = [(c.class_name, c.name) for c in doc.chunks if c.function]
    assert methods == [("Mixed", "Init"), ("Mixed", "Process"), ("Mixed", "CopyIn")]
    process = next(c for c in doc.chunks if c.name == "Process")
    assert [(c.name, c.in_branch) for c in process.calls] == [
        ("CrossCoreSetFlag", True), ("CrossCoreWaitFlag", True)]


LAUNCH_WRAPPER = """\
extern "C" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y) {}

void add_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* y) {
    add<<<blockDim, l2ctrl, stream>>>(x, y);
    add << <blockDim, nullptr, stream >> > (x, y);
}

__simt_vf__ __aicore__ LAUNCH_BOUND(1024) inline void Gather(__local_mem__ float* dst) {
    __local_mem__ float* p = (__local_mem__ float*)dst;
}
"""


def test_launch_wrappers_and_vector_function_qualifiers_parse() -> None:
    """A kernel file's host wrapper (`k<<<blocks, l2ctrl, stream>>>(args)`, also spaced apart)
    reads as the call of the kernel, and the regbase qualifiers (`__simt_vf__`, `__local_mem__`,
    `LAUNCH_BOUND(n)`) are blanked: each was an error node that could swallow what follows."""
    doc = Document("k.cpp", LAUNCH_WRAPPER)
    assert len(doc.blanked) == len(doc.data)
    assert doc.tree is not None and not doc.tree.root_node.has_error
    wrapper = next(c for c in doc.chunks if c.name == "add_do")
    assert [c.name for c in wrapper.calls] == ["add", "add"]
    assert [c.name for c in doc.chunks if c.function] == ["add", "add_do", "Gather"]


def test_kernel_file_parses_without_error_nodes_after_blanking() -> None:
    doc = Document("k.cpp", SOFTMAX)
    assert doc.tree is not None and not doc.tree.root_node.has_error
    entry = [c for c in doc.chunks if c.function and c.function.is_entry]
    assert [c.name for c in entry] == ["softmax_rows"]


def test_line_index_round_trips_positions() -> None:
    data = "ab\ncdé\nf".encode()
    idx = LineIndex(data)
    assert idx.position(0) == (1, 1)
    assert idx.position(data.index(b"d")) == (2, 2)
    assert idx.position(data.index(b"f")) == (3, 1)
    assert idx.offset(2, 4) == data.index("é".encode()) + 2
    assert idx.line_text(2) == "cdé"


def test_diff_edit_finds_the_single_replacement() -> None:
    assert diff_edit("abcdef", "abXYef") == SourceEdit(2, 4, "XY")
    assert diff_edit("abc", "abc") is None
    e = diff_edit("aaaa", "aaaaa")
    assert e is not None and "aaaa"[: e.start] + e.new_text + "aaaa"[e.old_end:] == "aaaaa"


def _sexp(doc: Document) -> str:
    assert doc.tree is not None
    return str(doc.tree.root_node)


def _facts(doc: Document) -> list[tuple]:
    out = []
    for c in doc.chunks:
        out.append((c.kind, c.qualified, c.base, c.length, c.file))
        out += [("call", x.name, x.start, x.end, x.abs_name_start, x.order) for x in c.calls]
        out += [("decl", d.name, d.start, d.type_base, d.loop_bound) for d in c.decls]
        out += [("assign", a.target, a.start, a.value) for a in c.assigns]
        out += [("define", d.name, d.start, d.value) for d in c.defines]
        if c.function:
            out.append(("params", tuple(p.name for p in c.function.params), c.function.is_entry))
    return out


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_incremental_updates_match_a_fresh_parse(seed: int) -> None:
    """Chunk facts after incremental updates equal a fresh parse's whenever tree-sitter built
    the same tree (under error recovery an incremental tree may legitimately differ)."""
    rng = random.Random(seed)
    doc = Document("k.cpp", SOFTMAX)
    text = SOFTMAX
    pieces = ["x", " ", "\n", "__aicore__ ", "1", ";", "}", "{", "Add(", "__gm__", "class A",
              "void g() { Add(a, b, c, 8); }\n", "/*", "*/", "#define Q 4\n",
              "for (int i = 0; i < 4; ++i) "]
    same_tree = 0
    for _ in range(80):
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randrange(0, 6))
        new = text[:start] + rng.choice(pieces) + text[end:]
        edit = SourceEdit(start, end, new[start: len(new) - (len(text) - end)])
        doc.update(new, edit if rng.random() < 0.5 else None)
        text = new
        fresh = Document("k.cpp", text)
        assert doc.blanked == fresh.blanked
        if _sexp(doc) == _sexp(fresh):
            same_tree += 1
            assert _facts(doc) == _facts(fresh)
    assert same_tree >= 60


def test_one_character_edit_reextracts_only_its_chunk() -> None:
    doc = Document("k.cpp", SOFTMAX)
    total = len(doc.chunks)
    pos = SOFTMAX.index("Exp(yLocal, yLocal, COLS);")
    doc.update(SOFTMAX[:pos] + "Exp(yLocal, yLocal, COL);" + SOFTMAX[pos + 26:])
    assert doc.extracted == 1 and doc.reused == total - 1


def test_class_members_and_methods_are_separate_chunks() -> None:
    doc = Document("k.cpp", SOFTMAX)
    kinds = {(c.kind, c.class_name) for c in doc.chunks}
    assert ("class", "KernelSoftmax") in kinds and ("field", "KernelSoftmax") in kinds
    methods = [c.name for c in doc.chunks if c.kind == "function" and c.class_name]
    assert {"Init", "Process", "CopyIn", "Compute", "CopyOut"} <= set(methods)
