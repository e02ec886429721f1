"""Bad or half-typed input never raises: the analyzer sees every intermediate state of a file
while the developer types."""

from __future__ import annotations

import random

import pytest

from ascend_tools.lint import Analyzer, LintConfig
from tests.lint.helpers import CORPUS, corpus_texts


@pytest.mark.parametrize("name", ["softmax_rows.cpp", "add_custom", "matmul_custom"])
def test_random_truncations_and_edits_do_not_raise(name: str) -> None:
    rng = random.Random(name)
    texts = corpus_texts(name.removesuffix(".cpp"))
    for path, text in texts.items():
        analyzer = Analyzer(LintConfig(shapes=[[1000], [1000]]))
        for p, t in texts.items():
            analyzer.update(p, t)
        for _ in range(40):
            cut = rng.randrange(len(text))
            variant = rng.choice([
                text[:cut],
                text[:cut] + text[cut + rng.randrange(1, 40):],
                text[:cut] + rng.choice(["{", "}", "(", "<", "/*", '"', "#define X (", "0x"])
                + text[cut:],
            ])
            diags = analyzer.update(path, variant)
            assert all(d.line >= 1 and d.column >= 1 for d in diags)


@pytest.mark.parametrize("source", [
    "",
    "\x00\x01garbage",
    "#define A (A + 1)\nconstexpr int B = B * 2;\nvoid f() { int x = A + B; }",
    "constexpr uint32_t Z = 0;\nconstexpr uint32_t N = 1024 / Z;\n"
    "class K { void Init() { pipe.InitBuffer(q, 2, N); } TPipe pipe; TQue<VECIN, 2> q; };",
    "void f() { int x = " + "(" * 3000 + "1" + ")" * 3000 + "; }",
    "constexpr uint64_t HUGE = 1ULL << 63;\n"
    "class K { void Init() { pipe.InitBuffer(q, 2, HUGE * HUGE); }"
    " TPipe pipe; TQue<QuePosition::VECIN, 2> q; };",
])
def test_pathological_sources_do_not_raise(source: str) -> None:
    Analyzer(LintConfig()).update("k.cpp", source)


def test_corpus_file_with_windows_line_endings() -> None:
    text = (CORPUS / "softmax_rows.cpp").read_text().replace("\n", "\r\n")
    assert [d for d in Analyzer(LintConfig()).update("k.cpp", text) if d.severity == "error"] == []
