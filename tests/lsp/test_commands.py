"""Inline completion (embedded engine, LLM fallback), the accept command and its edit store,
status, setReference and generateKernel with progress."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    CORPUS,
    REPO,
    copy_example,
    open_file,
    record_statuses,
    server_config,
    start_session,
    uri,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    record_statuses(lsp_client)
    await start_session(lsp_client, tmp_path_factory)
    yield
    await lsp_client.shutdown_session()


def _empty_copy_in(dest: Path) -> tuple[Path, str, lsp.Position]:
    """The leaky-relu kernel with an empty CopyIn body; the cursor inside it."""
    text = (CORPUS / "leaky_relu_tail.cpp").read_text()
    text = re.sub(r"(void CopyIn\(uint32_t i, uint32_t len\)\n    \{\n).*?(\n    \})",
                  r"\1        \2", text, count=1, flags=re.S)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / "leaky.cpp"
    path.write_text(text)
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if "void CopyIn(" in t) + 2
    return path, text, lsp.Position(line, 8)


async def _inline(client: LanguageClient, doc: str, pos: lsp.Position) -> list:
    got = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=doc), position=pos,
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
    return list(got.items if isinstance(got, lsp.InlineCompletionList) else got or [])


async def test_embedded_inline_completion_writes_copy_in_and_accept_is_stored(
        client: LanguageClient) -> None:
    path, _, pos = _empty_copy_in(client.root / "inline")  # type: ignore[attr-defined]
    doc = open_file(client, path)
    items = await _inline(client, doc, pos)
    assert len(items) == 1
    text = items[0].insert_text
    assert "inQueue.AllocTensor<float>()" in text and "inQueue.EnQue(" in text
    assert "DataCopy(" in text and "xGm[i * TILE_LENGTH]" in text
    assert items[0].command.command == "kernelgen.acceptCompletion"
    accepted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.acceptCompletion", arguments=items[0].command.arguments))
    assert accepted["recorded"] is True
    store = Path(accepted["store"])
    assert store == client.root / ".kernelgen" / "edits.sqlite"  # type: ignore[attr-defined]
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = db.execute("SELECT kind, file, suggestion, source FROM edits").fetchall()
    assert rows == [("completion", str(path), text, "embedded")]


async def test_llm_backend_down_falls_back_to_the_embedded_engine_and_says_so(
        client: LanguageClient) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={
        "kernelgen": {"completion": {"backend": "llm"},
                      "llm": {"baseUrl": "http://127.0.0.1:9", "model": "m",
                              "apiKey": "sk-secret-key"}}}))
    path, _, pos = _empty_copy_in(client.root / "fallback")  # type: ignore[attr-defined]
    doc = open_file(client, path)
    items = await _inline(client, doc, pos)
    assert items and "inQueue.AllocTensor<float>()" in items[0].insert_text
    notes = [s for s in client.statuses  # type: ignore[attr-defined]
             if getattr(s, "state", None) == "completion-fallback"]
    assert notes and "embedded" in notes[-1].message
    status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.status", arguments=[{}]))
    assert status["completion"]["backend"] == "llm" and status["completion"]["reachable"] is False
    assert "sk-secret-key" not in str(status) and status["chip"] == "ascend910b2"
    assert all("sk-secret-key" not in m.message for m in client.log_messages)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={
        "kernelgen": {"completion": {"backend": "embedded"}}}))


async def test_set_reference_writes_kernelgen_toml(client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root / "ref")  # type: ignore[attr-defined]
    other = project / "other_ref.py"
    other.write_text((project / "ref.py").read_text())
    got = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.setReference", arguments=[{
            "uri": uri(project / "op_kernel" / "add_custom.cpp"), "reference": str(other)}]))
    assert got["reference"] == str(other.resolve())
    assert 'reference = "other_ref.py"' in (project / "kernelgen.toml").read_text()


@pytest.mark.slow
async def test_generate_kernel_reports_progress_and_opens_the_kernel(
        client: LanguageClient) -> None:
    stub = client.root / "act_relu_fp32.py"  # type: ignore[attr-defined]
    stub.write_text((REPO / "bench" / "stubs" / "act_relu_fp32.py").read_text())
    token = "gen-1"
    client.progress_reports.setdefault(token, [])  # a client-initiated work-done token
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.generateKernel", arguments=[{"uri": uri(stub), "backend": "rules"}],
        work_done_token=token))
    assert result["ok"] is True and result["backend_used"] == "rules"
    assert Path(result["project"]) == client.root / "act_relu_fp32_kernel"  # type: ignore[attr-defined]
    kinds = [type(r).__name__ for r in client.progress_reports[token]]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert "WorkDoneProgressReport" in kinds
    kernel = Path(result["project"]) / "op_kernel"
    assert client.shown_documents
    shown = client.shown_documents[-1].uri
    assert shown.startswith(kernel.as_uri()) and shown.endswith(".cpp")
    store = client.root / ".kernelgen" / "edits.sqlite"  # type: ignore[attr-defined]
    with sqlite3.connect(store) as db:
        kept = db.execute("SELECT file, source, validation FROM edits WHERE kind = 'generated'"
                          ).fetchall()
    assert len(kept) == 1 and kept[0][0].startswith(str(kernel)) and kept[0][1] == "rules"
    assert '"ok": true' in kept[0][2]
