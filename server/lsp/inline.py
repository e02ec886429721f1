"""Inline completion (`textDocument/inlineCompletion`, LSP 3.18): ghost text from the embedded
engine, or from an LLM backend with the embedded engine as the fallback when the model server
is down or slow (the reason goes out in `kernelgen/status`)."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from server.lsp.commands import ACCEPT, new_id

LLM_DEBOUNCE_S = 0.075
LLM_MAX_TOKENS = 160
MAX_PENDING = 256


async def backend_reachable(settings: Any, timeout: float = 2.0) -> bool:
    """Whether the configured model server answers `GET /v1/models` in time."""
    import httpx

    from kernelgen_lm.backends.openai_compat import api_root

    if not settings.llm.base_url:
        return False
    try:
        root = api_root(settings.llm.base_url)
    except Exception:
        return False
    headers = {}
    if settings.llm.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.llm.api_key.get_secret_value()}"
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            r = await client.get(root + "/models", headers=headers)
        return r.status_code == 200
    except (httpx.HTTPError, asyncio.TimeoutError, OSError):
        return False


def register(ls: Any) -> None:
    from kernelgen_lm.complete.llm import (
        SuggestionCache,
        clean_suggestion,
        fim_messages,
        known_names,
    )
    from server.lsp.features import _Catalog, cursor

    catalog: Any = _Catalog()
    cache = SuggestionCache()

    def embedded(cur: Any) -> tuple[str, str] | None:
        from kernelgen_lm.complete.inline import suggest

        got = suggest(cur.model, cur.path, cur.offset)
        return (got.text, got.source) if got else None

    async def from_llm(cur: Any, prefix: str, suffix: str) -> tuple[str, str] | None:
        cached = cache.get(prefix[-cache.key_chars:])
        if cached is not None:
            return cached, "llm-cache"
        from kernelgen_lm.backends import BackendError
        from kernelgen_lm.backends.openai_compat import OpenAICompatibleBackend, OpenAIConfig

        s = ls.settings
        backend = OpenAICompatibleBackend(OpenAIConfig(
            base_url=s.llm.base_url, model=s.llm.model, api_key=s.llm.api_key,
            timeout_s=ls.llm_timeout_s, connect_timeout_s=1.0, retries=0))
        prompt = fim_messages(prefix, suffix, catalog)
        try:
            answers = await asyncio.wait_for(asyncio.to_thread(
                backend.generate, prompt, max_tokens=LLM_MAX_TOKENS),
                ls.llm_timeout_s + 1)
        except (BackendError, asyncio.TimeoutError, OSError) as exc:
            note = f"model server unavailable ({type(exc).__name__}); using the embedded engine"
            if ls.completion_note != note:
                ls.completion_note = note
                ls.notify_status("completion-fallback", None, note)
            return None
        finally:
            backend.close()
        ls.completion_note = ""
        text = clean_suggestion(answers[0].text if answers else "", suffix,
                                known_names(cur.model), catalog)
        if text is None:
            return None
        cache.put(prefix[-cache.key_chars:], text)
        return text, backend.name

    @ls.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    async def inline_completion(params: lsp.InlineCompletionParams,
                                ) -> lsp.InlineCompletionList | None:
        mode = ls.settings.completion.backend
        if mode == "off":
            return None
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        text = cur.doc.text
        char_at = len(cur.doc.data[: cur.offset].decode("utf-8", errors="replace"))
        prefix, suffix = text[:char_at], text[char_at:]
        got = None
        if mode == "llm" and ls.settings.llm.base_url:
            # Debounce: a request the client cancels (the user typed on) while waiting here
            # never reaches the model server; pygls cancels this task on $/cancelRequest.
            await asyncio.sleep(LLM_DEBOUNCE_S)
            got = await from_llm(cur, prefix, suffix)
        if got is None:
            got = await ls.kg.run(embedded, cur)
        if got is None:
            return lsp.InlineCompletionList(items=[])
        suggestion, source = got
        ident = new_id()
        ls.pending[ident] = {"file": cur.path, "text": suggestion, "prefix": prefix[-4000:],
                             "suffix": suffix[:2000], "source": source}
        while len(ls.pending) > MAX_PENDING:
            ls.pending.pop(next(iter(ls.pending)))
        return lsp.InlineCompletionList(items=[lsp.InlineCompletionItem(
            insert_text=suggestion,
            range=lsp.Range(start=params.position, end=params.position),
            command=lsp.Command(title="Accept", command=ACCEPT, arguments=[{"id": ident}]))])
