"""One source file kept parsed: incremental tree-sitter re-parse plus per-chunk fact reuse."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Point, Tree

from ascend_tools.parse.extract import chunk_span, extract_chunk, iter_chunk_nodes
from ascend_tools.parse.facts import Chunk
from ascend_tools.parse.source import LineIndex, blank_qualifiers
from ascend_tools.parse.treesitter import new_parser


@dataclass(frozen=True)
class SourceEdit:
    """A text change in character offsets of the old text (`start` up to `old_end` replaced
    by `new_text`). The language server builds it from a didChange range."""

    start: int
    old_end: int
    new_text: str


def _node_of(node: object) -> Node:
    return node.node if hasattr(node, "node") else node  # type: ignore[attr-defined,return-value]


def _point(data: bytes, offset: int) -> Point:
    line = data.count(b"\n", 0, offset)
    col = offset - (data.rfind(b"\n", 0, offset) + 1)
    return Point(line, col)


def diff_edit(old: str, new: str) -> SourceEdit | None:
    """The single replacement that turns `old` into `new` (common prefix and suffix kept)."""
    if old == new:
        return None
    n = min(len(old), len(new))
    lo, hi = 0, n
    while lo < hi:  # longest common prefix by bisection on slice equality (C-speed compares)
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, n - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    suffix = lo
    return SourceEdit(prefix, len(old) - suffix, new[prefix: len(new) - suffix])


class Document:
    """A file's text, tree and chunk facts. `update` re-parses incrementally and re-extracts
    only chunks whose text changed."""

    def __init__(self, path: str, text: str = "") -> None:
        self.path = path
        self.parser = new_parser()
        self.text = ""
        self.data = b""
        self.blanked = b""
        self.tree: Tree | None = None
        self.chunks: list[Chunk] = []
        self.lines = LineIndex(b"")
        self.reused = 0
        self.extracted = 0
        self.update(text)

    def update(self, text: str, edit: SourceEdit | None = None) -> None:
        if self.tree is not None and text == self.text:
            return
        if self.tree is not None and edit is None:
            edit = diff_edit(self.text, text)
        new_data = text.encode("utf-8")
        old_tree = None
        blanked = None
        window = None
        if self.tree is not None and edit is not None:
            start_b = len(self.text[: edit.start].encode("utf-8"))
            old_end_b = start_b + len(self.text[edit.start: edit.old_end].encode("utf-8"))
            new_end_b = start_b + len(edit.new_text.encode("utf-8"))
            blanked = self._reblank(new_data, start_b, old_end_b, new_end_b)
            self.tree.edit(
                start_byte=start_b, old_end_byte=old_end_b, new_end_byte=new_end_b,
                start_point=_point(self.data, start_b), old_end_point=_point(self.data, old_end_b),
                new_end_point=_point(new_data, new_end_b),
            )
            old_tree = self.tree
            window = (start_b, old_end_b, new_end_b)
        if blanked is None:
            blanked = blank_qualifiers(new_data)
        self.tree = self.parser.parse(blanked, old_tree) if old_tree else self.parser.parse(blanked)
        self.text, self.data, self.blanked = text, new_data, blanked
        self.lines = LineIndex(new_data)
        if old_tree is None or window is None or not self._rechunk_window(old_tree, *window):
            self._rechunk(self.chunks, [], [], 0, len(new_data), None)

    def _reblank(self, new: bytes, start: int, old_end: int, new_end: int) -> bytes:
        """Blanked text after an edit, re-blanking only a window around it (widened to whole
        lines: what blank_qualifiers matches, `q.template EnQue(` included, is on one line)."""
        lo = new.rfind(b"\n", 0, max(0, start - 64)) + 1
        hi = new.find(b"\n", min(len(new), new_end + 64))
        hi = len(new) if hi < 0 else hi
        old_hi = hi - new_end + old_end
        return self.blanked[:lo] + blank_qualifiers(new[lo:hi]) + self.blanked[old_hi:]

    def _rechunk_window(self, old_tree: Tree, start: int, old_end: int, new_end: int) -> bool:
        """Re-chunks only the region an edit (and any structure change tree-sitter reports)
        touched; chunks before it stay, chunks after it move by the size change. False when
        the edit reaches a class header (class context of other chunks) or a boundary moved."""
        assert self.tree is not None
        delta = new_end - old_end
        lo, hi = start, new_end
        for r in old_tree.changed_ranges(self.tree):
            lo, hi = min(lo, r.start_byte), max(hi, r.end_byte)
        old_hi = max(old_end, hi - delta)
        before = [c for c in self.chunks if c.base + c.length < lo]
        after = [c for c in self.chunks if c.base > old_hi]
        middle = self.chunks[len(before): len(self.chunks) - len(after)]
        if any(c.kind == "class" for c in middle):
            return False
        win_lo = before[-1].base + before[-1].length if before else 0
        win_hi = after[0].base + delta if after else len(self.data)
        for c in after:
            c.base += delta
        ok = self._rechunk(middle, before, after, win_lo, win_hi, (win_lo, win_hi))
        if not ok:
            for c in after:
                c.base -= delta
        return ok

    def _rechunk(self, pool_src: list[Chunk], before: list[Chunk], after: list[Chunk],
                 lo: int, hi: int, window: tuple[int, int] | None) -> bool:
        """Chunks of [lo, hi), reusing chunks of `pool_src` whose key (class, node type, text)
        matches; `before` and `after` are kept as they are."""
        assert self.tree is not None
        pool: dict[tuple, list[Chunk]] = {}
        for c in pool_src:
            pool.setdefault(c.memo["key"], []).append(c)  # type: ignore[arg-type]
        chunks: list[Chunk] = []
        self.reused = len(before) + len(after)
        self.extracted = 0
        for node, cls in iter_chunk_nodes(self.tree.root_node, window):
            start, end = chunk_span(node)
            if start < lo or end > hi:
                if window is not None and start < hi and end > lo:
                    return False  # a chunk straddles the window: its boundary moved
                continue
            real = _node_of(node)
            # The same text can parse two ways (`W<a<B>(x)`: a template call or a comparison)
            # and error recovery depends on context, so the key carries the subtree's size
            # too, and chunks with errors are always re-extracted.
            key = (cls, node.type, self.data[start:end], real.descendant_count)
            free = None if real.has_error else pool.get(key)
            if free:
                chunk = free.pop()
                chunk.base = start
                self.reused += 1
            else:
                chunk = extract_chunk(node, cls, self.data)
                chunk.file = self.path
                chunk.memo["key"] = key
                self.extracted += 1
            chunks.append(chunk)
        self.chunks = before + chunks + after
        return True
