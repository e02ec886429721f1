"""`textDocument/semanticTokens` (full, range, full/delta): the core's typed token spans
(`ascend_tools.parse.semantic`) encoded for LSP.

Classification runs on the analysis thread over the tree the project's analyzer already keeps
(re-parsed incrementally on each change); here only the encoding happens: 0-based lines,
columns and lengths in the negotiated position encoding (UTF-16 unless the client chose
otherwise), each token relative to the one before it, types and modifiers as legend indices."""

from __future__ import annotations

from collections import OrderedDict
from itertools import count
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from server.lsp.convert import path_of, to_units
from server.lsp.workspace import is_source, set_text, unlintable

if TYPE_CHECKING:
    from ascend_tools.parse.semantic import SemanticToken

TOKEN_TYPES = [
    "namespace",
    "type",
    "class",
    "struct",
    "enum",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "enumMember",
    "function",
    "method",
    "macro",
    "keyword",
]
"""The legend's token types: the core's `TokenType` values, all standard LSP types."""
MODIFIERS = {
    "declaration": "declaration",
    "readonly": "readonly",
    "defaultLibrary": "defaultLibrary",
    "unavailable": "deprecated",
}
"""Core modifier -> LSP modifier. An API the configured chip lacks is sent as `deprecated`, the
standard modifier closest to "do not use here" (completion tags the same names Deprecated)."""
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=list(MODIFIERS.values()))
_TYPE_INDEX = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MOD_BIT = {core: 1 << i for i, core in enumerate(MODIFIERS)}
_KEPT = 32
"""Documents whose last full result is kept for delta requests (least recently asked
dropped first; a dropped one just gets a full result)."""


def encode(tokens: list[SemanticToken], line_text: Any, encoding: str) -> list[int]:
    """The LSP integer array: per token (delta line, delta start, length, type, modifiers),
    positions in the client's units. `line_text(line)` gives a 1-based line's text."""
    out: list[int] = []
    prev_line, prev_start = 0, 0
    text_line, text = -1, ""
    for tok in tokens:
        if tok.line != text_line:
            text_line, text = tok.line, line_text(tok.line)
        start = to_units(text, tok.column, encoding)
        length = to_units(text, tok.column + tok.length, encoding) - start
        line = tok.line - 1
        mods = 0
        for m in tok.modifiers:
            mods |= _MOD_BIT[m.value]
        out += [
            line - prev_line,
            start - prev_start if line == prev_line else start,
            length,
            _TYPE_INDEX[tok.type.value],
            mods,
        ]
        prev_line, prev_start = line, start
    return out


def delta(old: list[int], new: list[int]) -> list[lsp.SemanticTokensEdit]:
    """One edit that turns `old` into `new` (their common head and tail kept), or none."""
    if old == new:
        return []
    n = min(len(old), len(new))
    head = 0
    while head < n and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < n - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return [
        lsp.SemanticTokensEdit(
            start=head, delete_count=len(old) - head - tail, data=new[head : len(new) - tail]
        )
    ]


_classified: OrderedDict[str, tuple[bytes, str, list[SemanticToken]]] = OrderedDict()
"""Last classification per file (its bytes, the chip's arch, the tokens), so the range request
an editor sends for the viewport and the full one after it classify a version once. Only the
analysis thread touches it."""


def _tokens(
    ls: Any, path: str, text: str, lines: tuple[int, int] | None, encoding: str
) -> list[int]:
    """On the analysis thread: the document brought up to the editor's text, classified."""
    from ascend_tools.catalog import load_catalog
    from ascend_tools.parse.semantic import classify_tree

    state = ls.kg.project_of(path)
    state.open_files.setdefault(path, -1)
    set_text(state.analyzer, path, text)
    doc = state.analyzer.documents[path]
    if doc.tree is None:
        return []
    arch = state.analyzer.chip.arch
    got = _classified.get(path)
    if got is not None and got[1] == arch and got[0] == doc.data:
        tokens = got[2]
    else:
        tokens = classify_tree(doc.data, doc.tree, load_catalog(), arch).tokens
        _classified[path] = (doc.data, arch, tokens)
    _classified.move_to_end(path)
    while len(_classified) > _KEPT:
        _classified.popitem(last=False)
    if lines is not None:
        tokens = [t for t in tokens if lines[0] <= t.line <= lines[1]]
    return encode(tokens, doc.lines.line_text, encoding)


def register(ls: Any) -> None:
    kept: OrderedDict[str, tuple[str, list[int]]] = OrderedDict()
    ids = count(1)

    async def data_of(uri: str, lines: tuple[int, int] | None) -> list[int] | None:
        path = path_of(uri)
        got = ls.text_of(uri)
        if path is None or got is None or not is_source(path) or unlintable(got[0]):
            return None
        return await ls.kg.run(_tokens, ls, path, got[0], lines, ls.encoding)

    def keep(uri: str, data: list[int]) -> str:
        result_id = str(next(ids))
        kept[uri] = (result_id, data)
        kept.move_to_end(uri)
        while len(kept) > _KEPT:
            kept.popitem(last=False)
        return result_id

    @ls.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def full(params: lsp.SemanticTokensParams) -> lsp.SemanticTokens | None:
        data = await data_of(params.text_document.uri, None)
        if data is None:
            return None
        return lsp.SemanticTokens(data=data, result_id=keep(params.text_document.uri, data))

    @ls.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
    async def full_delta(
        params: lsp.SemanticTokensDeltaParams,
    ) -> lsp.SemanticTokens | lsp.SemanticTokensDelta | None:
        uri = params.text_document.uri
        data = await data_of(uri, None)
        if data is None:
            return None
        previous = kept.get(uri)
        result_id = keep(uri, data)
        if previous is None or previous[0] != params.previous_result_id:
            return lsp.SemanticTokens(data=data, result_id=result_id)
        return lsp.SemanticTokensDelta(edits=delta(previous[1], data), result_id=result_id)

    @ls.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
    async def in_range(params: lsp.SemanticTokensRangeParams) -> lsp.SemanticTokens | None:
        r = params.range
        data = await data_of(params.text_document.uri, (r.start.line + 1, r.end.line + 1))
        return None if data is None else lsp.SemanticTokens(data=data)
