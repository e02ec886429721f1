"""The corpus census (`bench/lsp_corpus.py`): its checks of absurd results, and one run over a
small project of our own, where every editor feature answers and nothing fails."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bench.lsp_corpus import POSITION_METHODS, Census, ProjectRun, Text, absurd, exception_summary

KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;\r
// 中文注释 inQueue.AllocTensor
class KernelCopy {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
        xGm.SetGlobalBuffer((__gm__ half*)x, 256);
        yGm.SetGlobalBuffer((__gm__ half*)y, 256);
        pipe.InitBuffer(inQueue, BUFFER_NUM, 256 * sizeof(half));
    }
    __aicore__ inline void Process() {
        LocalTensor<half> t = inQueue.AllocTensor<half>();
        DataCopy(t, xGm, 256);
        inQueue.EnQue(t);
        LocalTensor<half> u = inQueue.DeQue<half>();
        DataCopy(yGm, u, 256);
        inQueue.FreeTensor(u);
    }
    __aicore__ inline half& Scale() { return scale; }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    GlobalTensor<half> xGm, yGm;
    half scale;
};
extern "C" __global__ __aicore__ void copy_kernel(GM_ADDR x, GM_ADDR y) {
    KernelCopy op;
    op.Init(x, y);
    op.Process();
}
"""


def _range(a: int, b: int, c: int, d: int) -> dict[str, dict[str, int]]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def test_ranges_are_checked_in_utf16_units_without_the_carriage_return() -> None:
    doc = Text("ab\r\n中文x\n")
    assert doc.widths == [2, 3, 0]
    assert doc.bad_range(_range(0, 0, 0, 2)) is None
    assert doc.bad_range(_range(0, 0, 0, 3)) == "range end: character past the end of its line"
    assert doc.bad_range(_range(1, 2, 1, 1)) == "range ends before it starts"
    assert doc.bad_range(_range(3, 0, 3, 0)) == "range start: line past the end of the document"
    assert doc.bad_position({"line": -1, "character": 0}) == "negative position"


def test_absurd_symbols_and_tokens_are_named() -> None:
    doc = Text("int a;\nint b;\n")
    sym = {"name": "", "range": _range(0, 0, 0, 6), "selectionRange": _range(0, 4, 0, 5)}
    assert absurd("textDocument/documentSymbol", [sym], doc, {}, 14) == "symbol with an empty name"
    sym = {"name": "a", "range": _range(0, 0, 0, 3), "selectionRange": _range(0, 4, 0, 5)}
    assert "selectionRange outside" in (absurd("textDocument/documentSymbol", [sym], doc, {}, 14)
                                        or "")
    tokens = {"data": [0, 4, 1, 7, 0, 1, 4, 9, 7, 0]}  # `b` on line 1 is one character, not 9
    assert absurd("textDocument/semanticTokens/full", tokens, doc, {}, 14) == (
        "semantic token past the end of its line")


def test_exception_summary_names_the_type_and_the_deepest_repository_frame() -> None:
    trace = ('kernelgen-lsp ERROR pygls: Exception occurred\nTraceback (most recent call last):\n'
             '  File "/x/server/lsp/features.py", line 10, in a\n'
             '  File "/x/ascend_tools/parse/extract.py", line 99, in b\n'
             'IndexError: list index out of range\n')
    assert exception_summary(trace) == "IndexError: list index out of range @ parse/extract.py:99"


def test_a_census_of_one_project_asks_every_feature_and_finds_nothing_wrong(
        tmp_path: Path) -> None:
    project = tmp_path / "copy_kernel"
    project.mkdir()
    (project / "copy_kernel.cpp").write_text(KERNEL, encoding="utf-8")
    args = argparse.Namespace(seed=0, members=5, random=3, actions=3, max_files=10, timeout=60.0)
    census = Census()
    asyncio.run(ProjectRun(census, project, args).run())
    assert [(f.method, f.kind, f.message) for f in census.failures] == []
    assert census.files == 1 and not census.died
    asked = set(census.latency)
    assert set(POSITION_METHODS) | {"textDocument/documentSymbol",
                                    "textDocument/semanticTokens/full",
                                    "textDocument/inlayHint", "textDocument/codeLens"} <= asked
