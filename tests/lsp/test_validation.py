"""Validation on save and by command: emulator rule records at the offending call."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    copy_example,
    diagnostics,
    open_file,
    record_statuses,
    server_config,
    start_session,
    uri,
    wait_for,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
SEED_OLD = "DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);"
SEED_NEW = "DataCopy(xLocal, xGm[progress * tileLength], length);  // BUG"


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    record_statuses(lsp_client)
    await start_session(lsp_client, tmp_path_factory)

    yield
    await lsp_client.shutdown_session()


async def test_unaligned_tail_copy_gets_datacopy_align_from_the_emulator_on_save(
        client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root)  # type: ignore[attr-defined]
    ref = project / "ref.py"  # 7 x 1001 floats: the last tile of a core is no 32-byte multiple
    ref.write_text(ref.read_text().replace("M = 1000", "M = 7").replace("N = 33", "N = 1001"))
    kernel = project / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text().replace(SEED_OLD, SEED_NEW, 1)
    kernel.write_text(text)
    doc = open_file(client, kernel, text)
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(
        text_document=lsp.TextDocumentIdentifier(uri=doc)))
    await wait_for(lambda: [s for s in _states(client) if s in ("passed", "failed", "error")],
                   timeout=300, what="the validation result")
    assert _states(client) == ["validating", "failed"], client.statuses  # type: ignore[attr-defined]
    found = [d for d in diagnostics(client, kernel, "kernelgen-emulator")
             if d.code == "datacopy-align"]
    assert found, client.diagnostics
    assert "// BUG" in text.split("\n")[found[0].range.start.line]
    validation = _field(client.statuses[-1], "validation")  # type: ignore[attr-defined]
    errors = _field(validation, "runtime_errors")
    assert any(_field(e, "code") == "datacopy-align" for e in errors)  # type: ignore[union-attr]


def _field(obj: object, name: str) -> object:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def _states(client: LanguageClient) -> list[str]:
    return [str(_field(s, "state")) for s in client.statuses]  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_validate_command_returns_the_report_of_a_passing_kernel(
        client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root / "ok")  # type: ignore[attr-defined]
    kernel = project / "op_kernel" / "add_custom.cpp"
    report = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.validate", arguments=[{"uri": uri(kernel)}]))
    assert report["ok"] is True and report["cases"] and report["compile"]["ok"]
    assert not diagnostics(client, kernel, "kernelgen-emulator")


async def test_a_newer_save_cancels_the_running_validation_and_closing_is_safe(
        client: LanguageClient) -> None:
    project = copy_example("add_unaligned", client.root / "twice")  # type: ignore[attr-defined]
    kernel = project / "op_kernel" / "add_custom.cpp"
    doc = open_file(client, kernel)
    client.statuses.clear()  # type: ignore[attr-defined]
    save = lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=doc))
    client.text_document_did_save(save)
    await wait_for(lambda: "validating" in _states(client), what="the first validation")
    client.text_document_did_save(save)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(  # closed while it runs
        text_document=lsp.TextDocumentIdentifier(uri=doc)))
    await wait_for(lambda: [s for s in _states(client) if s in ("passed", "failed", "error")],
                   timeout=300, what="the second validation's result")
    status = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.status", arguments=[{}]))
    assert status["chip"] == "ascend910b2"  # still serving
    states = _states(client)
    assert states.index("cancelled") < len(states) - 1
    assert states.count("validating") == 2 and states[-1] == "passed", states
