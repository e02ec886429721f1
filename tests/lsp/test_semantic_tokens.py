"""`textDocument/semanticTokens`: the capability with its legend, tokens encoded in UTF-16
after non-ASCII text, range requests and deltas that rebuild the full result."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ascend_tools.parse.semantic import TokenModifier, TokenType
from server.lsp.semantic import MODIFIERS, TOKEN_TYPES
from tests.lsp.conftest import change, open_file, server_config, start_session, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

# A comment with CJK text (1 UTF-16 unit, 3 UTF-8 bytes each) and an emoji (2 UTF-16 units,
# 1 character) before the first call: UTF-16 puts DataCopy one column later than characters
# would, UTF-8 eight columns later.
KERNEL = """\
#include "kernel_operator.h"
__aicore__ inline void Copy(LocalTensor<half> a, GlobalTensor<half> g) {
    /* 数据 😀 */ DataCopy(a, g, 16);
}
"""


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start_session(lsp_client, tmp_path_factory, lintDebounceMs=0)
    yield
    await lsp_client.shutdown_session()


def _decode(
    data: list[int],
    legend: lsp.SemanticTokensLegend,
) -> list[tuple[int, int, int, str, set[str]]]:
    """(line, start, length, type, modifiers) of each token, as a client reads them."""
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        d_line, d_start, length, kind, mods = data[i : i + 5]
        line += d_line
        start = start + d_start if d_line == 0 else d_start
        names = {m for b, m in enumerate(legend.token_modifiers) if mods >> b & 1}
        out.append((line, start, length, legend.token_types[kind], names))
    return out


def _legend(client: LanguageClient) -> lsp.SemanticTokensLegend:
    provider = client.init_result.capabilities.semantic_tokens_provider  # type: ignore[attr-defined]
    assert isinstance(provider, lsp.SemanticTokensOptions)
    return provider.legend


def _td(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


async def test_the_server_advertises_full_range_and_delta_with_its_legend(
    client: LanguageClient,
) -> None:
    provider = client.init_result.capabilities.semantic_tokens_provider  # type: ignore[attr-defined]
    assert isinstance(provider, lsp.SemanticTokensOptions)
    assert provider.range and isinstance(provider.full, lsp.SemanticTokensFullDelta)
    assert provider.full.delta
    assert list(provider.legend.token_types) == TOKEN_TYPES
    assert {t.value for t in TokenType} == set(TOKEN_TYPES)
    assert {m.value for m in TokenModifier} == set(MODIFIERS)
    assert "defaultLibrary" in provider.legend.token_modifiers


async def test_tokens_after_non_ascii_text_are_in_utf16_units(client: LanguageClient) -> None:
    path = client.root / "k1" / "copy.cpp"  # type: ignore[attr-defined]
    path.parent.mkdir()
    path.write_text(KERNEL, encoding="utf-8")
    doc = open_file(client, path, KERNEL)
    got = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=_td(doc))
    )
    assert got is not None and got.result_id
    tokens = _decode(got.data, _legend(client))
    line2 = KERNEL.splitlines()[2]
    chars = line2.index("DataCopy")
    utf16 = len(line2[:chars].encode("utf-16-le")) // 2
    assert utf16 == chars + 1
    assert (2, utf16, 8, "function", {"defaultLibrary"}) in tokens
    assert (1, 0, 10, "keyword", {"defaultLibrary"}) in tokens  # __aicore__
    assert (1, 28, 11, "class", {"defaultLibrary"}) in tokens  # LocalTensor
    assert (2, utf16 + 9, 1, "parameter", set()) in tokens  # `a` after DataCopy(
    assert all(t[0] != 0 for t in tokens)  # nothing in the #include line


async def test_a_range_request_returns_only_its_lines(client: LanguageClient) -> None:
    path = client.root / "k2" / "copy.cpp"  # type: ignore[attr-defined]
    path.parent.mkdir()
    doc = open_file(client, path, KERNEL)
    got = await client.text_document_semantic_tokens_range_async(
        lsp.SemanticTokensRangeParams(
            text_document=_td(doc),
            range=lsp.Range(start=lsp.Position(2, 0), end=lsp.Position(2, 40)),
        )
    )
    assert got is not None
    tokens = _decode(got.data, _legend(client))
    assert tokens and {t[0] for t in tokens} == {2}
    line2 = KERNEL.splitlines()[2]
    utf16 = len(line2[: line2.index("DataCopy")].encode("utf-16-le")) // 2
    assert (2, utf16, 8, "function", {"defaultLibrary"}) in tokens


async def test_a_delta_rebuilds_the_new_full_result(client: LanguageClient) -> None:
    path = client.root / "k3" / "copy.cpp"  # type: ignore[attr-defined]
    path.parent.mkdir()
    doc = open_file(client, path, KERNEL)
    first = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=_td(doc))
    )
    assert first is not None and first.result_id
    at = lsp.Position(3, 0)
    added = "__aicore__ void Twice() { Add(x, x, x, 8); }\n"
    change(client, doc, 2, at, at, added)
    got = await client.text_document_semantic_tokens_full_delta_async(
        lsp.SemanticTokensDeltaParams(text_document=_td(doc), previous_result_id=first.result_id)
    )
    assert isinstance(got, lsp.SemanticTokensDelta) and got.edits
    rebuilt = list(first.data)
    for e in sorted(got.edits, key=lambda e: -e.start):
        rebuilt[e.start : e.start + e.delete_count] = e.data or []
    fresh = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=_td(doc))
    )
    assert fresh is not None and rebuilt == list(fresh.data)
    assert (3, added.index("Add"), 3, "function", {"defaultLibrary"}) in _decode(
        fresh.data, _legend(client)
    )


async def test_empty_and_broken_documents_get_answers(client: LanguageClient) -> None:
    folder = client.root / "k4"  # type: ignore[attr-defined]
    folder.mkdir()
    texts = {"empty.cpp": "", "broken.cpp": '}}{ __mix__( :: <<< TQue<\n"unterminated 数\n'}
    for name, text in texts.items():
        doc = open_file(client, folder / name, text)
        got = await client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=_td(doc))
        )
        assert got is not None and len(got.data) % 5 == 0
    assert _decode(got.data, _legend(client))[:1] == [(0, 4, 7, "keyword", {"defaultLibrary"})]


async def test_a_chip_change_refreshes_tokens_and_marks_what_the_chip_lacks(
    client: LanguageClient,
) -> None:
    path = client.root / "k5" / "pad.cpp"  # type: ignore[attr-defined]
    path.parent.mkdir()
    doc = open_file(client, path, "void f() { DataCopyPad(a, b, p, q); }\n")

    async def pad_modifiers() -> set[str]:
        got = await client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=_td(doc))
        )
        assert got is not None
        return next(t[4] for t in _decode(got.data, _legend(client)) if t[1] == 11)

    assert await pad_modifiers() == {"defaultLibrary"}  # the default chip, ascend910b2
    refreshes = client.token_refreshes  # type: ignore[attr-defined]
    assert refreshes == []
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"kernelgen": {"chip": "ascend310p"}})
    )
    await wait_for(lambda: refreshes, what="workspace/semanticTokens/refresh")
    assert await pad_modifiers() == {"defaultLibrary", "deprecated"}
