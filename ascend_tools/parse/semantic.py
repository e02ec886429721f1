"""Semantic classification of AscendC source: which identifier is an AscendC API, a queue or
tensor type, a TPosition value, a tiling field, a parameter, ... as typed token spans.

A C++ grammar colours AscendC poorly (its qualifiers are unknown words, its APIs plain calls);
editors colour these spans instead. The work is one tree-sitter query over the (qualifier
blanked) tree plus a constant amount per identifier, so it is linear in the file and never
raises on half-written code: ERROR nodes only lose their context, not their identifiers."""

from __future__ import annotations

import re
from bisect import bisect_right
from enum import Enum
from functools import cache
from typing import NamedTuple

from pydantic import BaseModel
from tree_sitter import Node, Query, QueryCursor, Tree

from ascend_tools.catalog import ApiEntry, ApiKind, Catalog
from ascend_tools.parse.source import LineIndex, blank_qualifiers
from ascend_tools.parse.treesitter import cpp_language, new_parser

MAX_BYTES = 2 * 1024 * 1024
"""Larger texts get no tokens (the work stays bounded; the editor's grammar still colours)."""


class TokenType(str, Enum):
    NAMESPACE = "namespace"
    TYPE = "type"
    CLASS = "class"
    STRUCT = "struct"
    ENUM = "enum"
    TYPE_PARAMETER = "typeParameter"
    PARAMETER = "parameter"
    VARIABLE = "variable"
    PROPERTY = "property"
    ENUM_MEMBER = "enumMember"
    FUNCTION = "function"
    METHOD = "method"
    MACRO = "macro"
    KEYWORD = "keyword"


class TokenModifier(str, Enum):
    DECLARATION = "declaration"
    READONLY = "readonly"
    DEFAULT_LIBRARY = "defaultLibrary"
    """An AscendC (CANN) name from the API catalog."""
    UNAVAILABLE = "unavailable"
    """A catalog API the target chip does not support (the catalog has no deprecation marks;
    completion flags the same names)."""


class SemanticToken(NamedTuple):
    """One classified span on one line: 1-based line, 1-based character column, length in
    characters (the core's units; the server converts to the client's). A tuple, not a model
    of its own: a big file has thousands and building models doubled the time."""

    line: int
    column: int
    length: int
    text: str
    type: TokenType
    modifiers: tuple[TokenModifier, ...] = ()


class SemanticTokens(BaseModel):
    """The tokens of one text, in source order."""

    tokens: list[SemanticToken]
    skipped: str = ""
    """Why no tokens were made ("" when they were)."""


_T = TokenType
_M = TokenModifier
_LIB = (_M.DEFAULT_LIBRARY,)
_DECL = (_M.DECLARATION,)

_KIND_TYPE: dict[ApiKind, TokenType] = {
    ApiKind.FUNCTION: _T.FUNCTION,
    ApiKind.MEMBER: _T.METHOD,
    ApiKind.CLASS: _T.CLASS,
    ApiKind.STRUCT: _T.STRUCT,
    ApiKind.ENUM: _T.ENUM,
    ApiKind.ENUM_VALUE: _T.ENUM_MEMBER,
    ApiKind.TYPE_ALIAS: _T.TYPE,
    ApiKind.TYPE: _T.TYPE,
    ApiKind.MACRO: _T.MACRO,
    ApiKind.CONSTANT: _T.VARIABLE,
    ApiKind.QUALIFIER: _T.KEYWORD,
}
"""Token type of each catalog kind."""

# Macro arguments that name something, by position (the catalog's signatures of these
# macros, source "AscendC API reference: Host > tiling registration" and "Kernel > tiling").
_MACRO_ARGS: dict[str, tuple[tuple[TokenType, tuple[TokenModifier, ...]] | None, ...]] = {
    "BEGIN_TILING_DATA_DEF": ((_T.STRUCT, _DECL),),  # (ClassName)
    "TILING_DATA_FIELD_DEF": ((_T.TYPE, ()), (_T.PROPERTY, _DECL)),  # (type, name)
    "TILING_DATA_FIELD_DEF_ARR": ((_T.TYPE, ()), None, (_T.PROPERTY, _DECL)),  # (type, count, name)
    "TILING_DATA_FIELD_DEF_STRUCT": ((_T.STRUCT, ()), (_T.PROPERTY, _DECL)),  # (StructType, name)
    "REGISTER_TILING_DATA_CLASS": (None, (_T.STRUCT, ())),  # (OpType, ClassName)
    "GET_TILING_DATA": ((_T.VARIABLE, _DECL), None),  # (var, tiling)
    "GET_TILING_DATA_WITH_STRUCT": ((_T.STRUCT, ()), (_T.VARIABLE, _DECL), None),
    "GET_TILING_DATA_MEMBER": ((_T.STRUCT, ()), (_T.PROPERTY, ()), (_T.VARIABLE, _DECL), None),
}

_MACRO_ARGS_BYTES = {k.encode(): v for k, v in _MACRO_ARGS.items()}

_NAMES = ("identifier", "type_identifier", "field_identifier", "namespace_identifier")
_QUERY_TEXT = "\n".join(f"({n}) @{n}" for n in _NAMES) + "\n(function_definition) @function"
_WRAPPERS = {
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "init_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
}
_CALLEES = {"call_expression"}
_CXX_CASTS = {"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"}
"""C++ keywords tree-sitter-cpp parses as identifiers of a template call."""
_SCOPE_KINDS = {ApiKind.ENUM, ApiKind.CLASS, ApiKind.STRUCT, ApiKind.TYPE_ALIAS}


@cache
def _query() -> Query:
    return Query(cpp_language(), _QUERY_TEXT)


def _base_type(node: Node | None) -> str:
    """`AscendC::TQue<...>` -> `TQue` (the class whose members a variable has); "" when the
    declaration does not name one (`auto`, `int`)."""
    while node is not None and node.type in ("qualified_identifier", "template_type"):
        node = node.child_by_field_name("name")
    if node is None or node.type != "type_identifier" or not node.text:
        return ""
    return node.text.decode("utf-8", "replace")


class _Decl:
    __slots__ = ("modifiers", "owner", "type")

    def __init__(self, type_: TokenType, modifiers: tuple[TokenModifier, ...], owner: str) -> None:
        self.type, self.modifiers, self.owner = type_, modifiers, owner


def _is_const(decl: Node) -> bool:
    for c in decl.children:
        if c.type == "type_qualifier" and c.text in (b"const", b"constexpr"):
            return True
    return False


def _is_declarator(parent: Node, child: Node) -> bool:
    """`child` is one of `parent`'s declarators (`T a, b;` has two)."""
    return any(d == child for d in parent.children_by_field_name("declarator"))


def _declaration(
    node: Node, parent: Node
) -> tuple[TokenType, tuple[TokenModifier, ...], Node | None] | None:
    """(type, modifiers, the declaring node) when `node` is the name a declaration declares."""
    child: Node = node
    function = False
    while parent is not None and parent.type in _DECLARATORS:
        if not _is_declarator(parent, child):
            return None
        function |= parent.type == "function_declarator"
        child, parent = parent, parent.parent  # type: ignore[assignment]
    if parent is None:
        return None
    t = parent.type
    if t == "function_definition" or (function and t in ("declaration", "field_declaration")):
        method = node.type == "field_identifier" or (
            parent.parent is not None and (parent.parent.type == "field_declaration_list")
        )
        return (_T.METHOD if method else _T.FUNCTION), _DECL, parent
    if not _is_declarator(parent, child):
        return None
    if t in ("parameter_declaration", "optional_parameter_declaration"):
        return _T.PARAMETER, _DECL, parent
    if t == "field_declaration":
        return _T.PROPERTY, _DECL + ((_M.READONLY,) if _is_const(parent) else ()), parent
    if t == "declaration":
        return _T.VARIABLE, _DECL + ((_M.READONLY,) if _is_const(parent) else ()), parent
    return None


_NAMED_BY: dict[str, TokenType] = {
    "class_specifier": _T.CLASS,
    "struct_specifier": _T.STRUCT,
    "union_specifier": _T.STRUCT,
    "enum_specifier": _T.ENUM,
    "alias_declaration": _T.TYPE,
    "namespace_definition": _T.NAMESPACE,
    "preproc_def": _T.MACRO,
    "preproc_function_def": _T.MACRO,
    "enumerator": _T.ENUM_MEMBER,
}
"""Nodes whose `name` field declares a name of that type."""
_DECLARATORS = _WRAPPERS | {"function_declarator"}
_DECLARING = (
    _DECLARATORS
    | set(_NAMED_BY)
    | {"parameter_declaration", "optional_parameter_declaration", "field_declaration"}
    | {"declaration", "type_parameter_declaration", "type_definition"}
)
"""Parents a declared name can have: any other parent means a use (checked first, cheaply)."""


def _type_declaration(node: Node, parent: Node) -> TokenType | None:
    if parent.child_by_field_name("name") != node:
        if parent.type == "type_parameter_declaration":
            return _T.TYPE_PARAMETER
        if parent.type == "type_definition":
            return _T.TYPE
        return None
    return _NAMED_BY.get(parent.type)


class _Classifier:
    def __init__(self, data: bytes, tree: Tree, catalog: Catalog, arch: str | None) -> None:
        self.data, self.tree, self.catalog, self.arch = data, tree, catalog, arch
        self.file: dict[str, _Decl] = {}
        self.fields: dict[str, _Decl] = {}
        self.local: dict[int, dict[str, _Decl]] = {}
        self.scopes: list[tuple[int, int, int]] = []  # (start, end, id) sorted by start
        self.overrides: dict[int, tuple[TokenType, tuple[TokenModifier, ...]]] = {}
        self.user_methods: set[str] = set()
        self.entries: dict[tuple[str, str | None], ApiEntry | None] = {}

    # -------------------------------------------------------------- declarations
    def scope_of(self, node: Node) -> int | None:
        pos = node.start_byte
        i = bisect_right(self.scopes, (pos, 1 << 62, 0)) - 1
        while i >= 0:
            start, end, ident = self.scopes[i]
            if start <= pos < end:
                return ident
            i -= 1
        return None

    def collect(self, names: list[Node]) -> list[tuple[Node, _Decl | None]]:
        out: list[tuple[Node, _Decl | None]] = []
        for node in names:
            decl: _Decl | None = None
            parent = node.parent
            if parent is None or parent.type not in _DECLARING:
                out.append((node, None))
                continue
            kind_of = node.type
            got = (
                _declaration(node, parent)
                if kind_of in ("identifier", "field_identifier")
                else None
            )
            if got is not None:
                type_, mods, at = got
                owner = _base_type(at.child_by_field_name("type")) if at is not None else ""
                decl = _Decl(type_, mods, owner)
                name = self.name(node)
                scope = self.scope_of(node)
                if type_ in (_T.METHOD, _T.FUNCTION):
                    if type_ == _T.METHOD:
                        self.user_methods.add(name)
                    self.file.setdefault(name, _Decl(type_, (), ""))
                elif type_ == _T.PROPERTY:
                    self.fields.setdefault(name, _Decl(type_, mods[1:], owner))
                elif type_ == _T.PARAMETER and scope is None:
                    pass  # a prototype's parameter names nothing outside it
                elif scope is not None:
                    self.local.setdefault(scope, {})[name] = _Decl(type_, mods[1:], owner)
                else:
                    self.file[name] = _Decl(type_, mods[1:], owner)
            elif kind_of in ("type_identifier", "identifier", "namespace_identifier"):
                kind = _type_declaration(node, parent)
                if kind is not None:
                    name = self.name(node)
                    self.file.setdefault(name, _Decl(kind, (), ""))
                    decl = _Decl(kind, _DECL, "")
            out.append((node, decl))
        return out

    def macro_overrides(self, names: list[Node]) -> None:
        for node in names:
            roles = _MACRO_ARGS_BYTES.get(self.data[node.start_byte : node.end_byte])
            if roles is None or node.type != "identifier":
                continue
            parent = node.parent
            if parent is None:
                continue
            field = (
                "arguments"
                if parent.type == "call_expression"
                else ("parameters" if parent.type == "function_declarator" else "")
            )
            args = parent.child_by_field_name(field) if field else None
            if args is None:
                continue
            items = [c for c in args.named_children if c.type != "comment"]
            for role, arg in zip(roles, items, strict=False):
                if role is None:
                    continue
                leaf = arg
                while leaf.named_child_count == 1 and leaf.type not in _NAMES:
                    leaf = leaf.named_children[0]
                if leaf.type not in _NAMES or leaf.text is None:
                    continue
                self.overrides[leaf.start_byte] = role
                if role[0] == _T.VARIABLE:  # GET_TILING_DATA(var, ...) declares `var`
                    scope = self.scope_of(leaf)
                    table = self.local.setdefault(scope, {}) if scope is not None else self.file
                    table[leaf.text.decode("utf-8", "replace")] = _Decl(_T.VARIABLE, (), "")

    # -------------------------------------------------------------- uses
    def entry(self, name: str, member_of: str | None) -> ApiEntry | None:
        """The catalog entry a use names: a member of `member_of` ("" for an object of
        unknown type: any member), or a free name when `member_of` is None (memoised: a file
        names the same APIs over and over)."""
        key = (name, member_of)
        if key not in self.entries:
            self.entries[key] = self._entry(name, member_of)
        return self.entries[key]

    def _entry(self, name: str, member_of: str | None) -> ApiEntry | None:
        if member_of:
            members = self.catalog.members(member_of)
            if members:
                return next((e for e in members if e.name == name), None)
        found = self.catalog.lookup(name)
        pool = [e for e in found if e.is_member == (member_of is not None)]
        return min(pool, key=lambda e: e.side != "device") if pool else None

    def library(
        self,
        e: ApiEntry,
        type_: TokenType | None = None,
    ) -> tuple[TokenType, tuple[TokenModifier, ...]]:
        mods = _LIB
        if e.kind == ApiKind.CONSTANT:
            mods = (_M.READONLY, *_LIB)
        if self.arch is not None and not e.supports_arch(self.arch):
            mods = (*mods, _M.UNAVAILABLE)
        return type_ or _KIND_TYPE[e.kind], mods

    def lookup(self, node: Node, name: str) -> _Decl | None:
        """Innermost function's parameters and locals, then class fields, then the file."""
        scope = self.scope_of(node)
        found = self.local.get(scope, {}).get(name) if scope is not None else None
        return found or self.fields.get(name) or self.file.get(name)

    def name(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def use(self, node: Node) -> tuple[TokenType, tuple[TokenModifier, ...]] | None:
        name = self.name(node)
        parent = node.parent
        ptype = parent.type if parent is not None else ""
        t = node.type
        if t == "field_identifier":
            holder = parent.parent if ptype == "template_method" else parent
            called = (
                holder is not None
                and holder.type == "field_expression"
                and holder.parent is not None
                and holder.parent.type in _CALLEES
                and holder.parent.child_by_field_name("function") == holder
            )
            owner = ""
            if holder is not None and holder.type == "field_expression":
                obj = holder.child_by_field_name("argument")
                if obj is not None and obj.type == "identifier":
                    d = self.lookup(obj, self.name(obj))
                    owner = d.owner if d is not None else ""
            user_owner = bool(owner) and self.catalog.get(owner) is None
            if not user_owner and not (called and name in self.user_methods and not owner):
                e = self.entry(name, owner)
                if e is not None:
                    return self.library(e, _T.METHOD if called else _T.PROPERTY)
            return (_T.METHOD, ()) if called else (_T.PROPERTY, ())
        if t == "namespace_identifier":
            d = self.file.get(name)
            if d is not None:
                return d.type, ()
            e = self.entry(name, None)
            if e is not None and e.kind in _SCOPE_KINDS:
                return self.library(e)
            known = any(x.namespace == name for x in self.catalog.lookup(name)) or (
                name in _catalog_namespaces(self.catalog)
            )
            return _T.NAMESPACE, _LIB if known else ()
        d = self.lookup(node, name)
        if d is not None:
            if d.type in (_T.FUNCTION, _T.METHOD) and not _is_callee(node):
                pass  # a same-named variable use; fall through to the catalog or leave it
            else:
                return d.type, d.modifiers
        e = self.entry(name, None)
        if e is not None:
            return self.library(e)
        if _is_callee(node):
            return (_T.KEYWORD, ()) if name in _CXX_CASTS else (_T.FUNCTION, ())
        if t == "type_identifier":
            return _T.TYPE, ()
        return None


def _is_callee(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type in ("template_function", "qualified_identifier"):
        node, parent = parent, parent.parent
    return (
        parent is not None
        and parent.type in _CALLEES
        and parent.child_by_field_name("function") == node
    )


@cache
def _catalog_namespaces(catalog: Catalog) -> frozenset[str]:
    return frozenset(e.namespace for e in catalog.entries if e.namespace)


@cache
def _qualifier_pattern(catalog: Catalog) -> re.Pattern[bytes]:
    """The catalog's qualifiers (`__aicore__`, `__gm__`, ...) as whole words."""
    names = [e.name for e in catalog.entries if e.kind == ApiKind.QUALIFIER]
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rb"\b(?:" + alts.encode() + rb")\b")


def classify(
    text: str, catalog: Catalog, arch: str | None = None, lines: tuple[int, int] | None = None
) -> SemanticTokens:
    """Tokens of a source text, in order; `lines` (1-based, inclusive) keeps only those lines.
    Parses the text itself; `classify_tree` reuses a tree the caller keeps."""
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_BYTES:
        return SemanticTokens(tokens=[], skipped=f"{len(data)} bytes; above {MAX_BYTES}")
    blanked = blank_qualifiers(data)
    return classify_tree(data, new_parser().parse(blanked), catalog, arch, lines)


def classify_tree(
    data: bytes,
    tree: Tree,
    catalog: Catalog,
    arch: str | None = None,
    lines: tuple[int, int] | None = None,
) -> SemanticTokens:
    """Tokens of `data` (the original bytes) parsed as `tree` (parsed from the qualifier
    blanked bytes, so offsets agree)."""
    if len(data) > MAX_BYTES:
        return SemanticTokens(tokens=[], skipped=f"{len(data)} bytes; above {MAX_BYTES}")
    index = LineIndex(data)
    lo, hi = 0, len(data)
    if lines is not None:
        lo = index.offset(lines[0], 1)
        hi = index.offset(lines[1] + 1, 1) if lines[1] < len(index.starts) else len(data)
    captures = QueryCursor(_query()).captures(tree.root_node)
    names = sorted((n for k in _NAMES for n in captures.get(k, [])), key=lambda n: n.start_byte)
    c = _Classifier(data, tree, catalog, arch)
    c.scopes = sorted(
        (f.start_byte, f.end_byte, f.start_byte) for f in captures.get("function", [])
    )
    c.macro_overrides(names)
    spans: list[tuple[int, int, TokenType, tuple[TokenModifier, ...]]] = []
    for node, decl in c.collect(names):
        start, end = node.start_byte, node.end_byte
        if end <= lo or start >= hi or start == end:
            continue
        got = c.overrides.get(start)
        if got is None:
            got = (decl.type, decl.modifiers) if decl is not None else c.use(node)
        if got is not None:
            spans.append((start, end, *got))
    for m in _qualifier_pattern(catalog).finditer(data, lo, hi):
        at = tree.root_node.descendant_for_byte_range(m.start(), m.start())
        if at is not None and at.type in (
            "comment",
            "string_content",
            "string_literal",
            "raw_string_literal",
            "system_lib_string",
        ):
            continue
        if at is not None and at.type in _NAMES and at.start_byte == m.start():
            continue  # not blanked (`__forceinline__`): the identifier pass saw it
        spans.append((m.start(), m.end(), _T.KEYWORD, _LIB))
    spans.sort(key=lambda s: s[0])
    tokens = []
    for start, end, type_, mods in spans:
        line, column = index.position(start)
        word = data[start:end].decode("utf-8", "replace")
        tokens.append(SemanticToken(line, column, len(word), word, type_, mods))
    return SemanticTokens.model_construct(tokens=tokens, skipped="")
