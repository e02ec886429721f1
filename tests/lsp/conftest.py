"""Helpers for driving `kernelgen serve` as a real client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
EXAMPLES = REPO / "bench" / "examples"
SERVER = [sys.executable, "-m", "server.cli", "serve"]


def server_config(**env: str) -> ClientServerConfig:
    """`kernelgen serve` over stdio with the repository importable and no LLM configured."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("KERNELGEN_LLM_")}
    base["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), base.get("PYTHONPATH", "")) if p)
    return ClientServerConfig(server_command=SERVER, server_env={**base, **env})


async def start_session(
    client: LanguageClient, tmp_path_factory: pytest.TempPathFactory, **options: Any
) -> Path:
    """Initializes `client` as VS Code would, on a fresh workspace folder (kept as
    `client.root`), with `options` as initializationOptions. The initialize result is kept as
    `client.init_result`, `workspace/semanticTokens/refresh` requests in
    `client.token_refreshes`."""
    root = tmp_path_factory.mktemp("ws")
    client.token_refreshes = []  # type: ignore[attr-defined]

    @client.feature(lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH)
    def token_refresh(*args: object) -> None:  # VS Code's capabilities claim it; answer it
        client.token_refreshes.append(args[-1])  # type: ignore[attr-defined]

    client.init_result = await client.initialize_session(  # type: ignore[attr-defined]
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
            initialization_options=options or None))
    client.root = root  # type: ignore[attr-defined]
    return root


def record_statuses(client: LanguageClient) -> None:
    """Collects the server's `kernelgen/status` notifications in `client.statuses`."""
    client.statuses = []  # type: ignore[attr-defined]

    @client.feature("kernelgen/status")
    def status(*args: object) -> None:  # (params) or (client, params), as pygls calls it
        client.statuses.append(args[-1])  # type: ignore[attr-defined]


def copy_example(name: str, dest: Path) -> Path:
    src = EXAMPLES / name
    shutil.copytree(src, dest / name)
    return dest / name


def copy_corpus_file(name: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / name
    shutil.copy(CORPUS / name, out)
    return out


def uri(path: Path) -> str:
    return path.resolve().as_uri()


async def wait_for(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Polls `check` until it returns something truthy (the client processes messages
    meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or check}")


def diagnostics(client: LanguageClient, path: Path, source: str | None = None,
                ) -> list[lsp.Diagnostic]:
    return [d for d in client.diagnostics.get(uri(path), [])
            if source is None or d.source == source]


def open_file(client: LanguageClient, path: Path, text: str | None = None,
              version: int = 1) -> str:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri(path), language_id="cpp", version=version,
                                           text=path.read_text() if text is None else text)))
    return uri(path)


def position_of(text: str, needle: str, after: bool = True) -> lsp.Position:
    """The position just after (or at) the first `needle` in `text`."""
    at = text.index(needle) + (len(needle) if after else 0)
    line = text.count("\n", 0, at)
    return lsp.Position(line, at - (text.rfind("\n", 0, at) + 1))


def change(client: LanguageClient, doc_uri: str, version: int, start: lsp.Position,
           end: lsp.Position, new_text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=doc_uri, version=version),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=start, end=end), text=new_text)]))
