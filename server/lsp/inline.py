"""Inline completion (`textDocument/inlineCompletion`, LSP 3.18): ghost text from the embedded
engine, or from an LLM backend with the embedded engine as the fallback when the model server
is down or slow (the reason goes out in `kernelgen/status`)."""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from typing import Any

import httpx
from lsprotocol import types as lsp

from server.lsp.commands import ACCEPT, new_id

LLM_TIMEOUT_S = 3.0
MAX_PENDING = 256
_CALL = re.compile(r"\b([A-Z]\w*)\s*(?:<[^<>()]*>)?\s*\(")


async def backend_reachable(settings: Any, timeout: float = 2.0) -> bool:
    """Whether the configured model server answers `GET /v1/models` in time."""
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


def clean_suggestion(text: str, suffix: str, known: set[str], catalog: Any) -> str | None:
    """A model's raw text made fit for ghost text: cut where its scope closes, dropped when
    shorter than 4 characters, when it repeats what follows the cursor, or when it calls an
    AscendC-style API that neither the catalog nor the file declares."""
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                cut = i
                break
    text = text[:cut].rstrip()
    if len(text.strip()) < 4:
        return None
    if suffix.lstrip().startswith(text.strip()):
        return None
    for name in _CALL.findall(text):
        if name not in known and catalog.get(name) is None:
            return None
    return text


class SuggestionCache:
    """LRU of suggestions by the text before the cursor; also serves a suggestion while the
    user types along it (the new prefix extends an old one by a prefix of its suggestion)."""

    def __init__(self, size: int = 128) -> None:
        self.size = size
        self.items: OrderedDict[str, str] = OrderedDict()

    def get(self, prefix: str) -> str | None:
        if prefix in self.items:
            self.items.move_to_end(prefix)
            return self.items[prefix]
        for old, text in reversed(self.items.items()):
            if prefix.startswith(old):
                typed = prefix[len(old):]
                if typed and text.startswith(typed) and len(text) > len(typed):
                    return text[len(typed):]
        return None

    def put(self, prefix: str, text: str) -> None:
        self.items[prefix] = text
        self.items.move_to_end(prefix)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


def register(ls: Any) -> None:
    from ascend_tools.catalog import load_catalog
    from kernelgen_lm.complete.inline import suggest
    from server.lsp.features import cursor

    catalog = load_catalog()
    cache = SuggestionCache()

    def embedded(cur: Any) -> tuple[str, str] | None:
        got = suggest(cur.model, cur.path, cur.offset)
        return (got.text, got.source) if got else None

    async def from_llm(cur: Any, prefix: str, suffix: str) -> tuple[str, str] | None:
        cached = cache.get(prefix[-2000:])
        if cached is not None:
            return cached, "llm-cache"
        from kernelgen_lm.backends import BackendError
        from kernelgen_lm.backends.openai_compat import OpenAICompatibleBackend, OpenAIConfig

        s = ls.settings
        backend = OpenAICompatibleBackend(OpenAIConfig(
            base_url=s.llm.base_url, model=s.llm.model, api_key=s.llm.api_key,
            timeout_s=LLM_TIMEOUT_S, connect_timeout_s=1.0, retries=0))
        apis = sorted({n for n in _CALL.findall(prefix[-4000:]) if catalog.get(n)})
        header = "".join(f"// {line}\n" for line in catalog.prompt_lines(apis[:12]))
        prompt = f"{header}<fim_prefix>{prefix[-6000:]}<fim_suffix>{suffix[:2000]}<fim_middle>"
        try:
            answers = await asyncio.wait_for(asyncio.to_thread(
                backend.generate, prompt, max_tokens=128, stop=["<fim_", "\n}\n"]),
                LLM_TIMEOUT_S + 1)
        except (BackendError, asyncio.TimeoutError, OSError) as exc:
            note = f"model server unavailable ({type(exc).__name__}); using the embedded engine"
            if ls.completion_note != note:
                ls.completion_note = note
                ls.notify_status("completion-fallback", None, note)
            return None
        finally:
            backend.close()
        ls.completion_note = ""
        known = set(cur.model.functions) | set(cur.model.classes)
        text = clean_suggestion(answers[0].text if answers else "", suffix, known, catalog)
        if text is None:
            return None
        cache.put(prefix[-2000:], text)
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
