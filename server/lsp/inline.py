"""Inline completion (`textDocument/inlineCompletion`): the embedded engine, or an LLM backend
with the embedded engine as the fallback."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


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


def register(ls: Any) -> None:
    """Registered by `server.build_server` (filled in by the inline completion feature)."""
