"""Inline completion from an LLM backend: the fill-in-the-middle prompt (the text around the
cursor, the file's declarations, the catalog signatures of the APIs in use), post-processing
of the model's answer, and an LRU cache that also serves a suggestion while the user types
along it. LSP-free; the language server handles debounce, cancellation and fallback."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from ascend_tools.catalog import Catalog
from kernelgen_lm.backends.base import ChatMessage

PREFIX_CHARS = 6000
SUFFIX_CHARS = 1500
CURSOR = "<|cursor|>"
_CALL = re.compile(r"\b([A-Z]\w*)\s*(?:<[^<>()]*>)?\s*\(")
SYSTEM = (
    "You complete AscendC kernel code for Huawei Ascend NPUs. Reply with only the code "
    f"that goes at {CURSOR}, nothing else."
)


def fim_messages(prefix: str, suffix: str, catalog: Catalog) -> list[ChatMessage]:
    """A chat asking for the middle: API signatures of the AscendC calls the file makes, then
    the code around the cursor with the cursor marked."""
    around = prefix[-PREFIX_CHARS:] + CURSOR + suffix[:SUFFIX_CHARS]
    apis = sorted({n for n in _CALL.findall(around) if catalog.get(n) is not None})
    lines = catalog.prompt_lines(apis[:16])
    api_block = ("AscendC APIs in use:\n" + "\n".join(lines) + "\n\n") if lines else ""
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=f"{api_block}```cpp\n{around}\n```"),
    ]


def clean_suggestion(text: str, suffix: str, known: set[str], catalog: Catalog) -> str | None:
    """A model's raw text made fit for ghost text: code fences removed, cut where its scope
    closes, dropped when shorter than 4 characters, when it repeats what follows the cursor,
    or when it calls an AscendC-style API that neither the catalog nor the project declares."""
    text = re.sub(r"^```\w*\n?|\n?```\s*$", "", text)
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
    """LRU of suggestions by the text before the cursor. A request whose prefix extends a cached
    one by what the suggestion starts with (the user typed along the ghost text) gets the rest."""

    def __init__(self, size: int = 128, key_chars: int = 2000) -> None:
        self.size = size
        self.key_chars = key_chars
        self.items: OrderedDict[str, str] = OrderedDict()

    def get(self, prefix: str) -> str | None:
        if prefix in self.items:
            self.items.move_to_end(prefix)
            return self.items[prefix]
        for old, text in reversed(self.items.items()):
            if prefix.startswith(old):
                typed = prefix[len(old) :]
                if typed and text.startswith(typed) and len(text) > len(typed):
                    return text[len(typed) :]
        return None

    def put(self, prefix: str, text: str) -> None:
        self.items[prefix] = text
        self.items.move_to_end(prefix)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


def known_names(model: Any) -> set[str]:
    """Names a suggestion may call besides the catalog's: the project's own functions,
    classes and methods."""
    names = set(model.functions) | set(model.classes)
    return names | {n.rsplit("::", 1)[-1] for n in model.functions}
