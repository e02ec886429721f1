"""Diagnostics while typing, quick fixes and settings, through `kernelgen serve`."""

from __future__ import annotations

import shutil

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    CORPUS,
    change,
    copy_corpus_file,
    diagnostics,
    open_file,
    position_of,
    server_config,
    start_session,
    uri,
    wait_for,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start_session(lsp_client, tmp_path_factory, lintDebounceMs=20)
    yield
    await lsp_client.shutdown_session()


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans = [(starts[e.range.start.line] + e.range.start.character,
              starts[e.range.end.line] + e.range.end.character, e.new_text) for e in edits]
    for s, t, new in sorted(spans, reverse=True):
        text = text[:s] + new + text[t:]
    return text


async def test_seeded_ub_overflow_is_flagged_and_gone_after_the_quick_fix(
        client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "ub")  # type: ignore[attr-defined]
    text = path.read_text()
    doc = open_file(client, path, text)
    await wait_for(lambda: doc in client.diagnostics, what="first diagnostics")
    assert not [d for d in diagnostics(client, path) if d.code == "ub-overflow"]

    start = position_of(text, "TILE_LENGTH = ")
    end = position_of(text, "TILE_LENGTH = 4096")
    change(client, doc, 2, start, end, "32768")
    text = text.replace("TILE_LENGTH = 4096", "TILE_LENGTH = 32768", 1)
    overflow = await wait_for(lambda: [d for d in diagnostics(client, path)
                                       if d.code == "ub-overflow"], what="ub-overflow")
    d = overflow[0]
    assert d.source == "kernelgen-lint" and d.severity == lsp.DiagnosticSeverity.Error
    assert "InitBuffer" in text.split("\n")[d.range.start.line]
    related = d.related_information or []
    assert any("InitBuffer" in r.message for r in related), related

    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=doc), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    fixes = [a for a in actions or [] if isinstance(a, lsp.CodeAction)
             and a.kind == lsp.CodeActionKind.QuickFix]
    assert fixes and "TILE_LENGTH" in fixes[0].title
    edits = fixes[0].edit.changes[doc]  # type: ignore[union-attr,index]
    fixed = _apply(text, edits)
    assert "TILE_LENGTH = 32768" not in fixed
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=doc, version=3),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)]))
    await wait_for(lambda: not [d for d in diagnostics(client, path) if d.code == "ub-overflow"]
                   and doc in client.diagnostics, what="the overflow to disappear")


async def test_asc_single_source_file_is_served_like_a_cpp_kernel(client: LanguageClient) -> None:
    cpp = copy_corpus_file("leaky_relu_tail.cpp", client.root / "asc")  # type: ignore[attr-defined]
    path = cpp.with_suffix(".asc")
    text = cpp.read_text().replace("TILE_LENGTH = 4096", "TILE_LENGTH = 32768", 1)
    cpp.unlink()
    path.write_text(text)
    open_file(client, path, text)
    overflow = await wait_for(lambda: [d for d in diagnostics(client, path)
                                       if d.code == "ub-overflow"], what="ub-overflow in .asc")
    assert overflow[0].severity == lsp.DiagnosticSeverity.Error


async def test_settings_change_the_chip_the_lint_uses(client: LanguageClient) -> None:
    path = copy_corpus_file("leaky_relu_tail.cpp", client.root / "chip")  # type: ignore[attr-defined]
    text = path.read_text().replace("TILE_LENGTH = 4096", "TILE_LENGTH = 14336", 1)
    open_file(client, path, text)
    await wait_for(lambda: [d for d in diagnostics(client, path) if d.code == "ub-overflow"],
                   what="ub-overflow on 910b2")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"kernelgen": {"chip": "ascend310p"}}))
    await wait_for(lambda: not [d for d in diagnostics(client, path) if d.code == "ub-overflow"],
                   what="no overflow on 310P (bigger UB)")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"kernelgen": {"chip": "ascend910b2"}}))


async def test_host_tiling_changed_on_disk_relints_the_open_kernel_with_its_source(
        client: LanguageClient) -> None:
    project = client.root / "watched" / "add_custom"  # type: ignore[attr-defined]
    shutil.copytree(CORPUS / "add_custom", project)
    (project / "kernelgen.toml").write_text("[lint]\nshapes = [[64, 8192], [64, 8192]]\n")
    kernel = project / "op_kernel" / "add_custom.cpp"
    open_file(client, kernel)
    await wait_for(lambda: uri(kernel) in client.diagnostics, what="first diagnostics")
    assert not [d for d in diagnostics(client, kernel) if d.code == "ub-overflow"]
    host = project / "op_host" / "add_custom.cpp"
    host.write_text(host.read_text().replace("const uint32_t TILE_NUM = 8;",
                                             "const uint32_t TILE_NUM = 1;"))
    found = await wait_for(lambda: [d for d in diagnostics(client, kernel)
                                    if d.code == "ub-overflow"], what="overflow from the host")
    related = found[0].related_information or []
    host_lines = [r for r in related if r.location.uri == uri(host)]
    assert host_lines, related
    assert any("TILE_NUM" in host.read_text().split("\n")[r.location.range.start.line]
               for r in host_lines)
