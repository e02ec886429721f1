"""Completion, hover, signature help, inlay hints, symbols, definition and references."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    copy_corpus_file,
    copy_example,
    open_file,
    position_of,
    server_config,
    start_session,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start_session(lsp_client, tmp_path_factory, lintDebounceMs=0)
    yield
    await lsp_client.shutdown_session()


def _td(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


async def _complete_after(client: LanguageClient, path, text: str, needle: str,
                          ) -> list[str]:
    """Labels offered when `needle` (typed at the end of the first line with `anchor`) ends
    the line: the document is changed, then completion is asked right at its end."""
    doc = open_file(client, path, text)
    pos = position_of(text, needle)
    got = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=_td(doc), position=pos))
    assert isinstance(got, lsp.CompletionList)
    return [i.label for i in got.items]


async def test_completion_after_a_tpipe_pointer_offers_initbuffer(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "c1")  # type: ignore[attr-defined]
    text = path.read_text().replace("pipe->InitBuffer(inQueue,",
                                    "pipe->\n        InitBuffer(inQueue,", 1)
    labels = await _complete_after(client, path, text, "pipe->")
    assert labels[0] == "InitBuffer"
    assert "AllocTensor" not in labels


async def test_completion_after_a_queue_variable_offers_the_queue_protocol(
        client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "c2")  # type: ignore[attr-defined]
    text = path.read_text()
    needle = "inQueue."
    assert needle in text
    labels = await _complete_after(client, path, text, needle)
    assert labels[:4] == ["AllocTensor", "EnQue", "DeQue", "FreeTensor"]
    assert "InitBuffer" not in labels


async def test_completion_after_queposition_offers_its_enum_members(
        client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "c3")  # type: ignore[attr-defined]
    text = path.read_text()
    labels = await _complete_after(client, path, text, "QuePosition::")
    assert {"VECIN", "VECOUT", "VECCALC"} <= set(labels)
    assert "AllocTensor" not in labels


async def test_completion_after_a_tiling_variable_offers_its_fields_and_resolve_adds_docs(
        client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root)  # type: ignore[attr-defined]
    kernel = project / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text()
    labels = await _complete_after(client, kernel, text, "tilingData.")
    assert {"totalLength", "formerNum", "tileLength"} <= set(labels)
    doc = open_file(client, kernel, text, version=2)
    got = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=_td(doc), position=position_of(text, "        Ad")))
    add = next(i for i in got.items if i.label == "Add")  # type: ignore[union-attr]
    assert add.insert_text_format == lsp.InsertTextFormat.Snippet and "${1:dst}" in add.insert_text
    resolved = await client.completion_item_resolve_async(add)
    assert "Element-wise" in resolved.documentation.value  # type: ignore[union-attr]


async def test_hover_on_initbuffer_shows_bytes_and_ub_total(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "h")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    got = await client.text_document_hover_async(lsp.HoverParams(
        text_document=_td(doc), position=position_of(text, "pipe->InitBu")))
    value = got.contents.value  # type: ignore[union-attr]
    assert "inQueue" in value and "32768 B" in value  # 2 x 4096 floats
    assert "UB total 64 KB / 192 KB" in value
    assert "void InitBuffer" in value or "InitBuffer(" in value


async def test_signature_help_names_the_active_parameter(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "s")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    needle = "DataCopyPad(xLocal, "
    assert needle in text
    got = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=_td(doc), position=position_of(text, needle)))
    assert got is not None and got.active_parameter == 1
    sig = got.signatures[got.active_signature or 0]
    assert "DataCopyPad" in sig.label and len(sig.parameters or []) >= 3


async def test_inlay_hints_show_the_bytes_of_each_initbuffer(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "i")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    end = text.count("\n")
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=_td(doc), range=lsp.Range(start=lsp.Position(0, 0),
                                                end=lsp.Position(end, 0))))
    labels = [h.label for h in hints or []]
    assert labels.count(" 2 x 16 KB") == 2, labels
    lines = {h.position.line for h in hints or []}
    assert all("InitBuffer" in text.split("\n")[n] for n in lines)


async def test_definition_and_references_of_a_tiling_field_span_host_and_kernel(
        client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root / "d")  # type: ignore[attr-defined]
    kernel = project / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text()
    doc = open_file(client, kernel, text)
    at = position_of(text, "tilingData.tileL")
    got = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=_td(doc), position=at))
    assert got and got[0].uri.endswith("op_host/add_custom_tiling.h")  # type: ignore[index]
    header = (project / "op_host" / "add_custom_tiling.h").read_text().split("\n")
    line = header[got[0].range.start.line]  # type: ignore[index]
    assert "tileLength" in line and "TILING_DATA_FIELD_DEF" in line
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=_td(doc), position=at,
        context=lsp.ReferenceContext(include_declaration=True)))
    files = {r.uri.rsplit("/", 2)[-2] + "/" + r.uri.rsplit("/", 1)[-1] for r in refs or []}
    assert {"op_kernel/add_custom.cpp", "op_host/add_custom.cpp",
            "op_host/add_custom_tiling.h"} <= files


async def test_document_symbols_list_the_kernel_class_and_its_stages(
        client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "y")  # type: ignore[attr-defined]
    doc = open_file(client, path)
    got = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=_td(doc)))
    klass = next(s for s in got or [] if s.name == "KernelLeakyRelu")  # type: ignore[union-attr]
    children = {c.name for c in klass.children or []}  # type: ignore[union-attr]
    assert {"Init", "Process", "CopyIn", "Compute", "CopyOut", "inQueue"} <= children


STRAY_STATEMENT_IN_CLASS = """#include "kernel_operator.h"
class KernelOutline {
public:
    __aicore__ inline void Init() { n = 4; }
        if ((n % 2) == 1) {
            Flip(n, n);
        }
    __aicore__ inline void Process() {}
private:
    int n;
};
"""
"""Half-edited code: an `if` block at class scope, which the parser recovers as a function
definition without a name."""


async def test_document_symbols_have_names_when_a_statement_stands_at_class_scope(
        client: LanguageClient) -> None:
    path = client.root / "outline" / "outline.cpp"  # type: ignore[attr-defined]
    path.parent.mkdir()
    path.write_text(STRAY_STATEMENT_IN_CLASS)
    doc = open_file(client, path, STRAY_STATEMENT_IN_CLASS)
    got = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=_td(doc)))
    symbols = list(got or [])
    names = []
    while symbols:
        s = symbols.pop()
        names.append(s.name)
        symbols += s.children or []  # type: ignore[union-attr]
    assert all(names), names
    assert {"KernelOutline", "Init", "Process", "n"} <= set(names)


async def test_code_lens_on_the_entry_shows_the_ub_total_and_commands(
        client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "lens")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        text_document=_td(doc)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert "UB 64 KB / 192 KB" in titles and "Validate" in titles
    assert "not validated yet" in titles
    line = text.split("\n")[lenses[0].range.start.line]  # type: ignore[index]
    assert "__global__" in line


async def test_hover_on_a_queue_declaration_shows_its_buffer(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "hq")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    got = await client.text_document_hover_async(lsp.HoverParams(
        text_document=_td(doc), position=position_of(text, "BUFFER_NUM> outQu")))
    value = got.contents.value  # type: ignore[union-attr]
    assert "**outQueue**: 2 x 16 KB = 32768 B" in value and "UB total 64 KB" in value
