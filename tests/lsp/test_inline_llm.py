"""Inline completion from an LLM backend: a real `transformers serve` process serving a tiny
model taught the exact completion chat the server sends for one cursor (as tests/llm does for
generation), so the ghost text that comes back is known."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ascend_tools.catalog import load_catalog
from kernelgen_lm.complete.llm import fim_messages
from tests.llm.conftest import free_port, model_cache, start_server
from tests.llm.tiny_model import build_model
from tests.lsp.conftest import CORPUS, open_file, server_config, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _document() -> tuple[str, lsp.Position, str, str]:
    """(text with an empty Compute body, cursor in it, prefix, the body the model learns)."""
    text = (CORPUS / "leaky_relu_tail.cpp").read_text()
    m = re.search(r"void Compute\(uint32_t len\)\n    \{\n(.*?)\n    \}", text, flags=re.S)
    assert m is not None
    body = m.group(1)
    text = text[: m.start(1)] + "        " + text[m.end(1):]
    cursor = m.start(1) + 8
    line = text.count("\n", 0, cursor)
    return text, lsp.Position(line, 8), text[:cursor], body.strip()


@pytest.fixture(scope="module")
def taught_model() -> Path:
    text, _, prefix, answer = _document()
    messages = fim_messages(prefix, text[len(prefix):], load_catalog())
    lesson = ([m.model_dump() for m in messages], answer)
    corpus = [m.content for m in messages] + [answer]
    return build_model(model_cache(), corpus, [lesson])


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    exe = shutil.which("transformers", path=str(Path(sys.executable).parent))
    assert exe, "the `transformers` CLI is missing: pip install 'transformers[serving]'"
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "transformers-serve.log"
    cmd = [exe, "serve", "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    yield from start_server(cmd, port, log, timeout_s=120)


@pytest_lsp.fixture(config=server_config(KERNELGEN_LSP_LLM_TIMEOUT="120"), scope="module",
                    loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start_session(lsp_client, tmp_path_factory)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.slow
async def test_inline_completion_comes_from_the_model_server(
        client: LanguageClient, taught_model: Path, model_server: str) -> None:
    text, pos, _, answer = _document()
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={
        "kernelgen": {"completion": {"backend": "llm"},
                      "llm": {"baseUrl": model_server, "model": str(taught_model)}}}))
    path = client.root / "leaky.cpp"  # type: ignore[attr-defined]
    path.write_text(text)
    doc = open_file(client, path, text)
    got = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=doc), position=pos,
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
    items = got.items if isinstance(got, lsp.InlineCompletionList) else got
    assert items and items[0].insert_text.strip() == answer
    assert "LeakyRelu(yLocal, xLocal, ALPHA, len);" in items[0].insert_text
    accepted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.acceptCompletion", arguments=items[0].command.arguments))
    assert accepted["recorded"] is True
