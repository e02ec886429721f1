"""Chunking of a parsed file and fact extraction per chunk.

A chunk is a function definition (free or method), a class/struct (its fields; methods are
chunks of their own) or any other top-level declaration. Chunks are found by a shallow walk
through namespaces, `extern "C"`, templates and preprocessor conditionals; each chunk's facts are
cached by its text, so an edit re-extracts only the chunk it touches.
"""

from __future__ import annotations

from tree_sitter import Node

from ascend_tools.parse.consts import parse_value_text
from ascend_tools.parse.expr import Expr, callee_parts, inner_declarator, text, to_expr
from ascend_tools.parse.facts import (
    Arg,
    Assign,
    Call,
    Chunk,
    ClassDef,
    Decl,
    Define,
    Function,
    Param,
)

_CONTAINERS = {
    "translation_unit", "namespace_definition", "linkage_specification", "declaration_list",
    "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
    "template_declaration",
}
_LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}
_BRANCHES = {"if_statement", "conditional_expression", "switch_statement", "case_statement"}
_TILING_MACROS = {"GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_MEMBER"}


def iter_chunk_nodes(root: Node, window: tuple[int, int] | None = None,
                     ) -> list[tuple[ChunkNode, str]]:
    """(node, enclosing class name) for every chunk, in source order; with a window, only
    subtrees overlapping it are visited."""
    out: list[tuple[ChunkNode, str]] = []
    lo, hi = window if window is not None else (0, 1 << 62)

    def visit(node: Node, cls: str) -> None:
        for child in node.children:
            if child.end_byte < lo or child.start_byte > hi or child.start_byte == child.end_byte:
                continue  # outside the window, or an empty (MISSING) node with no facts
            t = child.type
            if t in _CONTAINERS:
                visit(child, cls)
                continue
            spec = child if t in ("class_specifier", "struct_specifier") else (
                _class_in(child) if t == "declaration" else None)
            if spec is not None and spec.child_by_field_name("body") is not None:
                name_node = spec.child_by_field_name("name")
                name = text(name_node) if name_node is not None else ""
                body = spec.child_by_field_name("body")
                assert body is not None
                out.append((_Wrapped(spec, body.start_byte), name))
                for m in body.children:
                    if m.type == "function_definition":
                        out.append((m, name))
                    elif m.type == "template_declaration":
                        visit(m, name)
                    elif m.type in ("field_declaration", "declaration", "enum_specifier"):
                        out.append((_Field(m), name))
            elif child.is_named and t != "comment":
                out.append((child, cls))

    visit(root, "")
    return out


class _Wrapped:
    """A class header (name, bases, template parameters) as its own chunk; each field and each
    method is a chunk of its own, so typing in a method leaves the class facts untouched."""

    def __init__(self, node: Node, body_start: int) -> None:
        self.node = node
        self.type = "class_chunk"
        self.start_byte = node.start_byte
        self.end_byte = body_start


class _Field:
    """A member declaration of a class body as its own chunk."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.type = "field_chunk"
        self.start_byte = node.start_byte
        self.end_byte = node.end_byte


def _class_in(decl: Node) -> Node | None:
    ty = decl.child_by_field_name("type")
    if ty is not None and ty.type in ("class_specifier", "struct_specifier") and (
        ty.child_by_field_name("body") is not None
    ):
        return ty
    return None


ChunkNode = Node | _Wrapped | _Field


def chunk_span(node: ChunkNode) -> tuple[int, int]:
    return node.start_byte, node.end_byte


class _Extractor:
    def __init__(self, chunk: Chunk, original: bytes) -> None:
        self.c = chunk
        self.base = chunk.base
        self.original = original
        self.order = 0
        self.loop_updates: set[int] = set()
        self.loop_bounds: dict[int, tuple[str, str, Expr]] = {}

    def src(self, node: Node) -> str:
        """Original text of a node (qualifiers not blanked)."""
        return self.original[node.start_byte: node.end_byte].decode("utf-8", errors="replace")

    def rel(self, node: Node) -> tuple[int, int]:
        return node.start_byte - self.base, node.end_byte - self.base

    def walk(self, node: Node, loop: int = 0, branch: bool = False) -> None:
        stack: list[tuple[Node, int, bool, tuple[Expr, bool] | None, tuple[int, int]]] = [
            (node, loop, branch, None, (-1, -1))]
        while stack:
            n, lp, br, guard, block = stack.pop()
            t = n.type
            if t == "compound_statement":
                block = self.rel(n)
            if t == "call_expression":
                self.call(n, lp, br, block)
            elif t == "declaration":
                self.declaration(n, lp, member=False, block=block)
            elif t == "assignment_expression":
                if n.start_byte not in self.loop_updates:
                    self.assign(n, lp, br, guard)
            elif t == "for_statement":
                self.for_loop(n)
            elif t == "return_statement" and n.named_children:
                self.c.returns.append(to_expr(n.named_children[0]))
            if t in _LOOPS:
                lp += 1
                guard = None
            was_branch = br
            if t in _BRANCHES:
                br = True
            then_start = else_start = -1
            cond_expr: Expr | None = None
            if t in _BRANCHES and was_branch:
                # nested branches: the inner condition alone does not say the code runs
                guard = None
            elif t == "if_statement":
                cond = n.child_by_field_name("condition")
                then = n.child_by_field_name("consequence")
                other = n.child_by_field_name("alternative")
                cond_expr = to_expr(cond) if cond is not None else None
                then_start = then.start_byte if then is not None else -1
                else_start = other.start_byte if other is not None else -1
            elif t in _BRANCHES:
                guard = None  # switch or ?: : no single condition
            for k in reversed(n.children):
                if k.child_count or k.type in ("call_expression",):
                    g = guard
                    if cond_expr is not None and k.start_byte == then_start:
                        g = (cond_expr, True)
                    elif cond_expr is not None and k.start_byte == else_start:
                        g = (cond_expr, False)
                    stack.append((k, lp, br, g, block))

    def for_loop(self, n: Node) -> None:
        """`for (T i = a; i < b; ++i)`: remember i's bound for its declaration, and keep the
        update out of the assignments (it is not a value i has throughout the body)."""
        init = n.child_by_field_name("initializer")
        cond = n.child_by_field_name("condition")
        update = n.child_by_field_name("update")
        if update is not None:
            self.loop_updates.add(update.start_byte)
        if init is None or cond is None or init.type != "declaration":
            return
        if cond.type != "binary_expression":
            return
        op = cond.child_by_field_name("operator")
        left = cond.child_by_field_name("left")
        right = cond.child_by_field_name("right")
        if op is None or left is None or right is None or text(op) not in ("<", "<="):
            return
        if update is None or text(update).replace(" ", "") not in (
                f"{text(left)}++", f"++{text(left)}", f"{text(left)}+=1"):
            return
        self.loop_bounds[init.start_byte] = (text(left), text(op), to_expr(right))

    def call(self, n: Node, loop: int, branch: bool, block: tuple[int, int] = (-1, -1)) -> None:
        fn = n.child_by_field_name("function")
        if fn is None:
            return
        name, receiver, targs, qualifier = callee_parts(fn)
        args_node = n.child_by_field_name("arguments")
        args: list[Arg] = []
        if args_node is not None:
            for a in args_node.named_children:
                if a.type == "comment":
                    continue
                s, e = self.rel(a)
                args.append(Arg(self.c, s, e, self.src(a), to_expr(a)))
        name_node = fn
        if fn.type == "field_expression":
            name_node = fn.child_by_field_name("field") or fn
        while name_node.type in ("qualified_identifier",):
            name_node = name_node.child_by_field_name("name") or name_node
            if name_node.type == "qualified_identifier" and name_node is fn:
                break
        if name_node.type in ("template_function", "template_method"):
            name_node = name_node.child_by_field_name("name") or name_node
        s, e = self.rel(n)
        ns, ne = self.rel(name_node)
        self.order += 1
        if name in _TILING_MACROS and args:
            if name == "GET_TILING_DATA_WITH_STRUCT" and len(args) >= 2:
                self.c.tiling_macro.append((args[1].text, args[0].text, s))
            else:
                self.c.tiling_macro.append((args[0].text, "", s))
        self.c.calls.append(Call(
            self.c, s, e, name, qualifier, to_expr(receiver) if receiver is not None else None,
            text(receiver) if receiver is not None else "", targs, args, ns, ne, self.order,
            loop, branch, block,
        ))

    def declaration(self, n: Node, loop: int, member: bool,
                    block: tuple[int, int] = (-1, -1)) -> None:
        ty = n.child_by_field_name("type")
        if ty is None:
            return
        type_text = text(ty)
        base, targs = _type_parts(ty)
        head = text(n)[: ty.start_byte - n.start_byte]
        is_const = "const" in head.split() or "constexpr" in head.split()
        for d in n.children_by_field_name("declarator"):
            init: Node | None = None
            target = d
            if d.type == "init_declarator":
                target = d.child_by_field_name("declarator") or d
                init = d.child_by_field_name("value")
            target = _unwrap(target, ("pointer_declarator", "reference_declarator",
                                      "array_declarator"))
            if target.type not in ("identifier", "field_identifier"):
                continue
            if init is None and member:
                dv = n.child_by_field_name("default_value")
                init = dv
            init_expr = None
            if init is not None:
                init_expr = to_expr(init.named_children[0]) if init.type in (
                    "initializer_list", "argument_list") and len(init.named_children) == 1 else (
                    to_expr(init))
            s, e = self.rel(n)
            self.order += 1
            decl = Decl(self.c, s, e, text(target), type_text, base, targs, init_expr, is_const,
                        member, self.order, loop, block=block)
            if init is not None:
                decl.init_start, decl.init_end = self.rel(init)
            bound = self.loop_bounds.get(n.start_byte)
            if bound is not None and bound[0] == decl.name:
                decl.loop_bound = (bound[1], bound[2])
            self.c.decls.append(decl)

    def assign(self, n: Node, loop: int, branch: bool,
               guard: tuple[Expr, bool] | None = None) -> None:
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        op = n.child_by_field_name("operator")
        if left is None or right is None:
            return
        s, e = self.rel(n)
        self.order += 1
        self.c.assigns.append(Assign(self.c, s, e, to_expr(left), text(op) if op else "=",
                                     to_expr(right), self.order, loop, branch, guard))


def _type_parts(ty: Node) -> tuple[str, list[str]]:
    """Base name and template arguments of a type (`AscendC::TQue<VECIN, 2>` -> TQue, [...])."""
    node = ty
    while node.type == "qualified_identifier" or node.type == "dependent_type":
        nxt = node.child_by_field_name("name") or (node.named_children[-1]
                                                   if node.named_children else None)
        if nxt is None or nxt is node:
            break
        node = nxt
    if node.type == "template_type":
        name = node.child_by_field_name("name")
        args = node.child_by_field_name("arguments")
        return (text(name) if name else text(node)), (
            [text(a) for a in args.named_children] if args else [])
    return text(node), []


def extract_chunk(node: ChunkNode, cls: str, original: bytes) -> Chunk:
    """Facts of one chunk node."""
    if isinstance(node, _Wrapped):
        return _extract_class(node.node, node.start_byte, node.end_byte)
    if isinstance(node, _Field):
        return _extract_field(node.node, cls, original)
    real = node
    base = real.start_byte
    target = real
    if target.type == "template_declaration":
        inner = next((c for c in target.named_children if c.type == "function_definition"), None)
        if inner is not None:
            target = inner
    if target.type == "function_definition":
        return _extract_function(target, real, cls, base, original)
    chunk = Chunk("other", "", cls, base, real.end_byte - base)
    ex = _Extractor(chunk, original)
    if real.type == "preproc_def":
        _define(chunk, real, base)
    elif real.type == "preproc_function_def":  # a function-like macro: a name, no value
        name = real.child_by_field_name("name")
        if name is not None:
            chunk.name = text(name)
            chunk.defines.append(Define(chunk, 0, real.end_byte - base, chunk.name,
                                        ("?", ""), "", 0, 0))
    elif real.type == "declaration":
        ex.declaration(real, 0, member=False)
        ex.walk(real)
        chunk.decls = _dedupe(chunk.decls)
        ty = real.child_by_field_name("type")
        if ty is not None and ty.type == "enum_specifier":
            _enum(chunk, ty, base)
    elif real.type == "enum_specifier":
        _enum(chunk, real, base)
    else:
        ex.walk(real)
    return chunk


def _dedupe(decls: list[Decl]) -> list[Decl]:
    seen: set[tuple[str, int]] = set()
    out = []
    for d in decls:
        key = (d.name, d.rel_start)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _define(chunk: Chunk, node: Node, base: int) -> None:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    if name is None or value is None:
        return
    raw = text(value)
    stripped = raw.strip()
    lead = len(raw) - len(raw.lstrip())
    vs = value.start_byte - base + lead
    chunk.name = text(name)
    chunk.defines.append(Define(chunk, node.start_byte - base, node.end_byte - base, text(name),
                                parse_value_text(stripped), stripped, vs, vs + len(
                                    stripped.encode())))


def _enum(chunk: Chunk, node: Node, base: int) -> None:
    body = node.child_by_field_name("body")
    if body is None:
        return
    nxt = 0
    for en in body.named_children:
        if en.type != "enumerator":
            continue
        name = en.child_by_field_name("name")
        value = en.child_by_field_name("value")
        if name is None:
            continue
        if value is not None:
            expr = to_expr(value)
            vs, ve = value.start_byte - base, value.end_byte - base
            if expr[0] == "n":
                nxt = int(expr[1]) + 1
            vt = text(value)
        else:
            expr = ("n", nxt)
            vs = ve = en.end_byte - base
            vt = str(nxt)
            nxt += 1
        chunk.defines.append(Define(chunk, en.start_byte - base, en.end_byte - base, text(name),
                                    expr, vt, vs, ve))


def _extract_class(spec: Node, base: int, end: int) -> Chunk:
    name_node = spec.child_by_field_name("name")
    name = text(name_node) if name_node is not None else ""
    chunk = Chunk("class", name, name, base, end - base)
    bases = []
    for c in spec.children:
        if c.type == "base_class_clause":
            bases = [text(b) for b in c.named_children if b.type not in ("access_specifier",)]
    tparams: list[str] = []
    parent = spec.parent
    if parent is not None and parent.type == "declaration":
        parent = parent.parent
    if parent is not None and parent.type == "template_declaration":
        plist = parent.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            names = [c for c in p.named_children if c.type in ("type_identifier", "identifier")]
            if names:
                tparams.append(text(names[-1]))
    chunk.klass = ClassDef(chunk, 0, end - base, [], bases, tparams)
    return chunk


def _extract_field(m: Node, cls: str, original: bytes) -> Chunk:
    base = m.start_byte
    chunk = Chunk("field", "", cls, base, m.end_byte - base)
    ex = _Extractor(chunk, original)
    if m.type == "enum_specifier":
        _enum(chunk, m, base)
        return chunk
    ty = m.child_by_field_name("type")
    if ty is not None and ty.type == "enum_specifier":
        _enum(chunk, ty, base)
    ex.declaration(m, 0, member=True)
    return chunk


def _unwrap(node: Node, kinds: tuple[str, ...]) -> Node:
    """The declarator inside `*`, `&`, `&&` or `[]` wrappers."""
    while node.type in kinds:
        inner = inner_declarator(node)
        if inner is None:
            break
        node = inner
    return node


def _extract_function(fn: Node, outer: Node, cls: str, base: int, original: bytes) -> Chunk:
    decl = fn.child_by_field_name("declarator")
    if decl is not None:
        decl = _unwrap(decl, ("pointer_declarator", "reference_declarator"))
    name = ""
    params: list[Param] = []
    if decl is not None and decl.type == "function_declarator":
        dn = decl.child_by_field_name("declarator")
        if dn is not None:
            full = text(dn)
            if "::" in full:
                cls_part, name = full.rsplit("::", 1)
                cls = cls_part.rsplit("::", 1)[-1].split("<")[0]
            else:
                name = full
        plist = decl.child_by_field_name("parameters")
        if plist is not None:
            for p in plist.named_children:
                if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                    continue
                pt = p.child_by_field_name("type")
                pd = p.child_by_field_name("declarator")
                pname = ""
                while pd is not None:
                    if pd.type in ("identifier",):
                        pname = text(pd)
                        break
                    pd = pd.child_by_field_name("declarator") or (
                        pd.named_children[-1] if pd.named_children else None)
                    if pd is not None and pd.type not in (
                        "identifier", "pointer_declarator", "reference_declarator",
                        "abstract_pointer_declarator"):
                        break
                src = original[p.start_byte: p.end_byte].decode("utf-8", errors="replace")
                params.append(Param(text(pt) if pt else "", pname, src))
    chunk = Chunk("function", name, cls, base, outer.end_byte - base)
    body = fn.child_by_field_name("body")
    head_end = body.start_byte if body is not None else outer.end_byte
    head_start = max(*(original.rfind(ch, 0, outer.start_byte) for ch in (b";", b"}", b"{")), 0)
    head = original[head_start:head_end]
    body_end = (body.end_byte - 1 - base) if body is not None else outer.end_byte - base
    chunk.function = Function(chunk, 0, outer.end_byte - base, params, b"__global__" in head,
                              body_end)
    plist = decl.child_by_field_name("parameters") if decl is not None and (
        decl.type == "function_declarator") else None
    if plist is not None:
        chunk.function.params_start = plist.start_byte - base
        chunk.function.params_end = plist.end_byte - base
    ex = _Extractor(chunk, original)
    if body is not None:
        ex.walk(body)
    # constructor initialiser lists assign members too
    for c in fn.children:
        if c.type == "field_initializer_list":
            for fi in c.named_children:
                fname = fi.child_by_field_name("name") or (fi.named_children[0]
                                                           if fi.named_children else None)
                val = fi.named_children[-1] if fi.named_children else None
                if fname is not None and val is not None and val.named_children:
                    s, e = ex.rel(fi)
                    ex.order += 1
                    chunk.assigns.append(Assign(chunk, s, e, ("f", ("this",), text(fname)), "=",
                                                to_expr(val.named_children[0]), ex.order, 0,
                                                False))
    return chunk
