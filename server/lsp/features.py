"""Read-only features over the KernelModel and the catalog: completion, hover, signature help,
inlay hints, code lens, document symbols, definition and references of tiling fields.

Every request brings the document's analyzer up to the editor's text and builds the model on
the analysis thread (`Cursor`), then converts plain results to LSP types here. The analysis
core is imported on first use, not at import: `initialize` must not wait for it (the server's
warm-up loads it on the analysis thread meanwhile)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from server.lsp.convert import from_units, path_of, to_units, uri_of
from server.lsp.workspace import ProjectState, is_source, set_text, unlintable

if TYPE_CHECKING:
    from ascend_tools.parse.document import Document
    from ascend_tools.parse.model import KernelModel
    from kernelgen_lm.complete.members import Candidate

TRIGGERS = [".", ">", ":", "<"]
_KIND = {
    "method": lsp.CompletionItemKind.Method, "field": lsp.CompletionItemKind.Field,
    "enum_member": lsp.CompletionItemKind.EnumMember, "function": lsp.CompletionItemKind.Function,
    "type": lsp.CompletionItemKind.Class, "macro": lsp.CompletionItemKind.Constant,
    "variable": lsp.CompletionItemKind.Variable,
}
_IDENT = re.compile(r"\w+")


@dataclass
class Cursor:
    """A position in a document, resolved on the analysis thread."""

    state: ProjectState
    path: str
    model: KernelModel
    doc: Document
    line: int  # 1-based
    column: int  # 1-based characters
    line_text: str
    offset: int  # byte offset
    encoding: str

    @property
    def prefix(self) -> str:
        return self.line_text[: self.column - 1]

    def word(self) -> str:
        for m in _IDENT.finditer(self.line_text):
            if m.start() <= self.column - 1 <= m.end():
                return m.group(0)
        return ""

    def lsp_pos(self, file: str, offset: int) -> lsp.Position:
        doc = self.model.documents[file]
        line, col = doc.lines.position(offset)
        return lsp.Position(line - 1, to_units(doc.lines.line_text(line), col, self.encoding))


def _resolve(ls: Any, uri: str, text: str, position: lsp.Position | None, encoding: str,
             ) -> Cursor | None:
    from ascend_tools.parse.model import KernelModel

    path = path_of(uri)
    if path is None or not is_source(path) or unlintable(text):
        return None
    state = ls.kg.project_of(path)
    state.open_files.setdefault(path, -1)
    set_text(state.analyzer, path, text)
    model = KernelModel(state.analyzer.documents)
    doc = state.analyzer.documents[path]
    lines = len(doc.lines.starts)
    line = 1 if position is None else min(max(position.line + 1, 1), lines)
    line_text = doc.lines.line_text(line)
    chars = 0 if position is None else from_units(line_text, position.character, encoding)
    column = chars + 1
    return Cursor(state, path, model, doc, line, column, line_text,
                  doc.lines.offset(line, column), encoding)


async def cursor(ls: Any, uri: str, position: lsp.Position | None) -> Cursor | None:
    got = ls.text_of(uri)
    if got is None:
        return None
    return await ls.kg.run(_resolve, ls, uri, got[0], position, ls.encoding)


# ---------------------------------------------------------------------- completion
def _item(c: Candidate, snippets: bool) -> lsp.CompletionItem:
    use_snippet = c.snippet and snippets and c.insert
    return lsp.CompletionItem(
        label=c.label, kind=_KIND.get(c.kind, lsp.CompletionItemKind.Text), detail=c.detail,
        insert_text=c.insert if use_snippet else c.label,
        insert_text_format=lsp.InsertTextFormat.Snippet if use_snippet
        else lsp.InsertTextFormat.PlainText,
        sort_text=f"{c.rank:02d}{c.label.lower()}",
        data={"api": c.api} if c.api else None,
        tags=[lsp.CompletionItemTag.Deprecated] if c.unsupported else None)


def _snippets(ls: Any) -> bool:
    td = ls.client_capabilities.text_document
    try:
        return bool(td.completion.completion_item.snippet_support)  # type: ignore[union-attr]
    except AttributeError:
        return False


def _ub_report(cur: Cursor) -> tuple[list[Any], float | None, Any]:
    """(InitBuffer evaluations of the project, UB total in bytes or None, chip)."""
    from ascend_tools.catalog import load_catalog
    from ascend_tools.chips import get_chip
    from ascend_tools.lint.context import LintContext
    from ascend_tools.parse.evaluate import Evaluator

    chip = get_chip(cur.state.analyzer.chip.name)
    ev = Evaluator(cur.model, chip, cur.state.analyzer.config.shapes)
    ctx = LintContext(cur.model, ev, chip, load_catalog())
    bufs = [ib for ib in ctx.init_buffers if ib.queue is None or ib.queue.in_ub]
    total: float | None = 0.0
    for ib in bufs:
        b = ib.bytes
        if b is None:
            total = None
            break
        total += b.hi  # type: ignore[operator]
    return ctx.init_buffers, total, chip


def kb(n: float) -> str:
    return f"{n / 1024:g} KB" if n >= 1024 else f"{n:g} B"


def _buffer_label(ib: Any) -> str | None:
    if ib.num is None or ib.length is None:
        return None
    from ascend_tools.lint.context import align32

    size = kb(align32(ib.length.hi))
    return f"{ib.num.fmt()} x {size}"


class _Catalog:
    """The catalog, loaded on first use (not at import: `kernelgen serve` starts fast)."""

    def __getattr__(self, name: str) -> Any:
        from ascend_tools.catalog import load_catalog

        return getattr(load_catalog(), name)


def register(ls: Any) -> None:
    catalog: Any = _Catalog()

    @ls.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(
        trigger_characters=TRIGGERS, resolve_provider=True))
    async def completion(params: lsp.CompletionParams) -> lsp.CompletionList | None:
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        chip = cur.state.analyzer.chip
        prefix = cur.prefix
        if prefix.endswith(">") and not prefix.endswith("->"):
            return lsp.CompletionList(is_incomplete=False, items=[])
        if prefix.endswith(":") and not prefix.endswith("::"):
            return lsp.CompletionList(is_incomplete=False, items=[])
        from ascend_tools.catalog import load_catalog
        from kernelgen_lm.complete.members import complete

        found = complete(prefix, cur.model, cur.path, cur.offset, load_catalog(), chip)
        snippets = _snippets(ls)
        return lsp.CompletionList(is_incomplete=found.incomplete,
                                  items=[_item(c, snippets) for c in found.items])

    @ls.feature(lsp.COMPLETION_ITEM_RESOLVE)
    def resolve(item: lsp.CompletionItem) -> lsp.CompletionItem:
        api = item.data.get("api") if isinstance(item.data, dict) else None
        entry = catalog.get(api) if isinstance(api, str) else None
        if entry is not None:
            item.documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                   value=entry.markdown())
        return item

    @ls.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        return await ls.kg.run(_hover, cur, catalog)

    @ls.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(
        trigger_characters=["(", ","], retrigger_characters=[","]))
    async def signature_help(params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        from kernelgen_lm.complete.members import call_at

        call = call_at(cur.prefix)
        if call is None:
            return None
        name, active = call
        entry = catalog.get(name)
        if entry is None or not entry.signatures:
            return None
        sigs = []
        for sig in entry.signatures:
            params_ = _split_params(sig, entry.name)
            sigs.append(lsp.SignatureInformation(
                label=sig, documentation=lsp.MarkupContent(
                    kind=lsp.MarkupKind.Markdown, value=entry.markdown()),
                parameters=[lsp.ParameterInformation(label=p) for p in params_]))
        best = next((i for i, s in enumerate(sigs) if len(s.parameters or []) > active), 0)
        return lsp.SignatureHelp(signatures=sigs, active_signature=best, active_parameter=active)

    @ls.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    async def inlay_hints(params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        cur = await cursor(ls, params.text_document.uri, None)
        if cur is None:
            return []
        return await ls.kg.run(_inlays, cur, params.range)

    @ls.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        cur = await cursor(ls, params.text_document.uri, None)
        if cur is None:
            return []
        return await ls.kg.run(_lenses, cur)

    @ls.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        cur = await cursor(ls, params.text_document.uri, None)
        if cur is None:
            return []
        return await ls.kg.run(_symbols, cur)

    @ls.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition(params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        found = await ls.kg.run(_tiling_field_definition, cur)
        return found or None

    @ls.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references(params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        cur = await cursor(ls, params.text_document.uri, params.position)
        if cur is None:
            return None
        return await ls.kg.run(_tiling_field_references, cur,
                               params.context.include_declaration)


def _split_params(sig: str, name: str) -> list[str]:
    start = sig.find(name + "(")
    if start < 0:
        return []
    inner, depth, cur, out = sig[start + len(name) + 1:], 0, "", []
    for ch in inner:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            if depth == 0 and ch == ")":
                break
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


# ---------------------------------------------------------------------- on the analysis thread
def _hover(cur: Cursor, catalog: Any) -> lsp.Hover | None:
    word = cur.word()
    if not word:
        return None
    parts: list[str] = []
    bufs, total, chip = _ub_report(cur)
    on_line = [ib for ib in bufs if ib.call.chunk.file == cur.path
               and cur.doc.lines.line_of(ib.call.start) == cur.line]
    queue_bufs = [ib for ib in bufs if ib.queue is not None and ib.queue.name == word]
    shown = on_line or (queue_bufs if word not in ("InitBuffer",) else [])
    for ib in shown:
        label = _buffer_label(ib)
        name = ib.queue.name if ib.queue else ib.call.args[0].text
        b = ib.bytes
        amount = f"{b.fmt()} B" if b is not None else "unknown"
        parts.append(f"**{name}**: {label or '?'} = {amount}"
                     + (f"\n\n{b.why()}" if b is not None and b.notes else ""))
    if shown:
        used = kb(total) if total is not None else "unknown"
        parts.append(f"UB total {used} / {kb(chip.ub_bytes)} on {chip.name}")
    entry = catalog.get(word)
    if entry is not None:
        note = "" if entry.supports_arch(chip.arch) else f"\n\n**Not available on {chip.name}.**"
        parts.append(entry.markdown() + note)
    if not parts:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                value="\n\n---\n\n".join(parts)))


def _inlays(cur: Cursor, want: lsp.Range) -> list[lsp.InlayHint]:
    bufs, _, _ = _ub_report(cur)
    out = []
    for ib in bufs:
        if ib.call.chunk.file != cur.path:
            continue
        label = _buffer_label(ib)
        if label is None:
            continue
        pos = cur.lsp_pos(cur.path, ib.call.end)
        if not (want.start.line <= pos.line <= want.end.line):
            continue
        out.append(lsp.InlayHint(position=pos, label=f" {label}", kind=lsp.InlayHintKind.Type,
                                 padding_left=True))
    return out


def _lenses(cur: Cursor) -> list[lsp.CodeLens]:
    entry = cur.model.entry
    if entry is None or entry.file != cur.path:
        return []
    _, total, chip = _ub_report(cur)
    pos = cur.lsp_pos(cur.path, entry.base)
    at = lsp.Range(start=lsp.Position(pos.line, 0), end=lsp.Position(pos.line, 0))
    uri = uri_of(cur.path)
    used = kb(total) if total is not None else "?"
    last = cur.state.last_validation
    verdict = "not validated yet" if last is None else (
        "last validation: passed" if last.get("ok") else "last validation: FAILED")
    lenses = [
        lsp.CodeLens(range=at, command=lsp.Command(
            title=f"UB {used} / {kb(chip.ub_bytes)}", command="kernelgen.status",
            arguments=[{}])),
        lsp.CodeLens(range=at, command=lsp.Command(
            title=verdict, command="kernelgen.validate", arguments=[{"uri": uri}])),
        lsp.CodeLens(range=at, command=lsp.Command(
            title="Validate", command="kernelgen.validate", arguments=[{"uri": uri}])),
    ]
    ref = cur.state.reference
    if ref is not None:
        lenses.append(lsp.CodeLens(range=at, command=lsp.Command(
            title="Generate from reference", command="kernelgen.generateKernel",
            arguments=[{"uri": uri_of(ref),
                        "outDir": str(cur.state.root / f"{ref.stem}_kernel")}])))
    return lenses


def _span(cur: Cursor, file: str, start: int, end: int) -> lsp.Range:
    return lsp.Range(start=cur.lsp_pos(file, start), end=cur.lsp_pos(file, end))


def _symbols(cur: Cursor) -> list[lsp.DocumentSymbol]:
    """The outline. A symbol needs a name (VS Code rejects the whole answer otherwise): a
    nameless function chunk is the parser's error recovery (a statement at class scope while
    the user types), not a declaration, so it is left out."""
    m = cur.model
    out: list[lsp.DocumentSymbol] = []
    for name, klass in m.classes.items():
        if klass.file != cur.path:
            continue
        children = []
        for c in m.methods(name):
            if c.file == cur.path and c.name:
                r = _span(cur, c.file, c.base, c.base + c.length)
                children.append(lsp.DocumentSymbol(name=c.name, kind=lsp.SymbolKind.Method,
                                                   range=r, selection_range=r))
        for member, decl in m.members(name).items():
            if decl.chunk.file != cur.path or not member:
                continue
            r = _span(cur, cur.path, decl.start, decl.end)
            kind = lsp.SymbolKind.Field
            if decl.type_base in ("TQue", "TQueBind", "TBuf", "TPipe"):
                kind = lsp.SymbolKind.Object
            children.append(lsp.DocumentSymbol(name=member, kind=kind, detail=decl.type_text,
                                               range=r, selection_range=r))
        r = _span(cur, cur.path, klass.base, klass.base + klass.length)
        children.sort(key=lambda s: (s.range.start.line, s.range.start.character))
        last = children[-1].range.end if children else r.end
        full = lsp.Range(start=r.start, end=max(r.end, last, key=lambda p: (p.line, p.character)))
        out.append(lsp.DocumentSymbol(name=name or "(anonymous)", kind=lsp.SymbolKind.Class,
                                      range=full, selection_range=r, children=children))
    for chunks in m.functions.values():
        for c in chunks:
            if c.file == cur.path and not c.class_name and c.function is not None and c.name:
                r = _span(cur, c.file, c.base, c.base + c.length)
                detail = "kernel entry" if c.function.is_entry else ""
                if all(s.name != c.name for s in out):
                    out.append(lsp.DocumentSymbol(name=c.name, kind=lsp.SymbolKind.Function,
                                                  detail=detail, range=r, selection_range=r))
    for s in m.tiling_structs:
        if s.file != cur.path or not s.name:
            continue
        text = cur.model.documents[s.file].text
        fields = []
        for f in s.fields:
            if not f.name:
                continue
            r = _char_range(cur, s.file, text, f.offset, len(f.name))
            fields.append(lsp.DocumentSymbol(name=f.name, kind=lsp.SymbolKind.Field,
                                             detail=f.type_text, range=r, selection_range=r))
        r = _char_range(cur, s.file, text, s.offset, len(s.name))
        out.append(lsp.DocumentSymbol(name=s.name, kind=lsp.SymbolKind.Struct, range=r,
                                      selection_range=r, children=fields))
    out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
    return out


def _char_range(cur: Cursor, file: str, text: str, char_offset: int, length: int) -> lsp.Range:
    """A range from a character offset into a document's text (the host parser's unit)."""
    start = len(text[:char_offset].encode("utf-8"))
    end = start + len(text[char_offset: char_offset + length].encode("utf-8"))
    return _span(cur, file, start, end)


def _tiling_field(cur: Cursor) -> tuple[str, Any] | None:
    word = cur.word().removeprefix("set_")
    for s in cur.model.tiling_structs:
        for f in s.fields:
            if f.name == word:
                return word, f
    return None


def _tiling_field_definition(cur: Cursor) -> list[lsp.Location]:
    hit = _tiling_field(cur)
    if hit is None:
        return []
    _, f = hit
    doc = cur.model.documents.get(f.file)
    if doc is None:
        return []
    text = doc.text
    at = text.find(f.name, f.offset)
    at = at if at >= 0 else f.offset
    return [lsp.Location(uri=uri_of(f.file),
                         range=_char_range(cur, f.file, text, at, len(f.name)))]


def _tiling_field_references(cur: Cursor, include_declaration: bool) -> list[lsp.Location]:
    hit = _tiling_field(cur)
    if hit is None:
        return []
    name, _ = hit
    pattern = re.compile(rf"\b(?:set_)?{re.escape(name)}\b")
    decl = _tiling_field_definition(cur)
    out = []
    for file, doc in cur.model.documents.items():
        for m in pattern.finditer(_code_only(doc.text)):
            start = m.start() + (4 if m.group(0).startswith("set_") else 0)
            loc = lsp.Location(uri=uri_of(file),
                               range=_char_range(cur, file, doc.text, start, len(name)))
            if not include_declaration and decl and loc == decl[0]:
                continue
            out.append(loc)
    return out


def _code_only(text: str) -> str:
    """Comments and strings blanked with spaces (offsets kept), so references are code only."""
    return re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
