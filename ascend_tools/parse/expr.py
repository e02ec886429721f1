"""Expressions as small immutable tuples, converted once from tree-sitter nodes so the evaluator
never touches the tree again (facts of unchanged functions are reused across keystrokes).

Forms: ("n", number) ("id", name) ("this",) ("f", base, field) ("b", op, left, right)
("u", op, operand) ("sz", type) ("c", name, receiver | None, args, template_args)
("t", cond, then, else) ("ix", base, index) ("cast", type, operand) ("?", text)
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

Expr = tuple[Any, ...]

_WRAPPERS = {"parenthesized_expression", "expression_statement", "condition_clause"}


def text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def inner_declarator(node: Node) -> Node | None:
    """The declarator one level inside `node`. tree-sitter-cpp gives a reference_declarator
    (`&`, `&&`) no `declarator` field, its inner declarator is a plain child, so the field
    alone loses the name of everything declared as a reference, `T& Get()` included."""
    inner = node.child_by_field_name("declarator")
    if inner is None and node.type == "reference_declarator":
        inner = next(iter(node.named_children), None)
    return inner


def number(literal: str) -> int | float | None:
    s = literal.replace("'", "").rstrip("uUlLfF")
    try:
        if s.lower().startswith("0x"):
            return int(s, 16)
        if s.lower().startswith("0b"):
            return int(s[2:], 2)
        if "." in s or "e" in s.lower():
            return float(s)
        if len(s) > 1 and s.startswith("0"):
            return int(s, 8)
        return int(s)
    except ValueError:
        return None


def callee_parts(fn: Node) -> tuple[str, Node | None, list[str], str]:
    """(name, receiver node, template args, qualifier) of a call's function node."""
    receiver: Node | None = None
    qualifier = ""
    targs: list[str] = []
    node = fn
    if node.type == "field_expression":
        receiver = node.child_by_field_name("argument")
        node = node.child_by_field_name("field") or node
    while node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:
            qualifier = f"{qualifier}::{text(scope)}" if qualifier else text(scope)
        node = node.child_by_field_name("name") or node
        if node is fn:
            break
    if node.type == "dependent_name" and node.named_children:
        node = node.named_children[0]  # `x.template Get<T>()`: the template keyword's wrapper
    if node.type in ("template_function", "template_method"):
        args = node.child_by_field_name("arguments")
        if args is not None:
            targs = [text(c) for c in args.named_children]
        node = node.child_by_field_name("name") or node
    return text(node), receiver, targs, qualifier


_MAX_NESTING = 150


def to_expr(node: Node | None, depth: int = 0) -> Expr:
    """The expression tuple of a node; nesting deeper than any real code becomes unknown."""
    if node is None or depth > _MAX_NESTING:
        return ("?", "")
    t = node.type
    if t in _WRAPPERS:
        inner = node.named_children
        return to_expr(inner[0], depth + 1) if inner else ("?", text(node))
    if t == "number_literal":
        v = number(text(node))
        return ("n", v) if v is not None else ("?", text(node))
    if t in ("true", "false"):
        return ("n", int(t == "true"))
    if t == "char_literal":
        return ("?", text(node))
    if t in ("identifier", "field_identifier", "namespace_identifier", "type_identifier"):
        return ("id", text(node))
    if t == "qualified_identifier":
        return ("id", text(node).rsplit("::", 1)[-1])
    if t == "this":
        return ("this",)
    if t == "field_expression":
        return ("f", to_expr(node.child_by_field_name("argument"), depth + 1),
                text(node.child_by_field_name("field")))  # type: ignore[arg-type]
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        return ("b", text(op) if op else "?", to_expr(node.child_by_field_name("left"), depth + 1),
                to_expr(node.child_by_field_name("right"), depth + 1))
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        return ("u", text(op) if op else "?", to_expr(arg, depth + 1))
    if t == "sizeof_expression":
        ty = node.child_by_field_name("type")
        if ty is not None:
            return ("sz", text(ty).strip())
        val = node.child_by_field_name("value")
        return ("sz", text(val).strip("() ") if val is not None else "")
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None:
            return ("?", text(node))
        name, receiver, targs, _ = callee_parts(fn)
        args = node.child_by_field_name("arguments")
        arg_exprs = tuple(to_expr(a, depth + 1) for a in args.named_children) if args else ()
        if name in ("static_cast", "reinterpret_cast") and arg_exprs:
            return ("cast", targs[0] if targs else "", arg_exprs[0])
        recv = to_expr(receiver, depth + 1) if receiver is not None else None
        return ("c", name, recv, arg_exprs, tuple(targs))
    if t == "conditional_expression":
        return ("t", to_expr(node.child_by_field_name("condition"), depth + 1),
                to_expr(node.child_by_field_name("consequence"), depth + 1),
                to_expr(node.child_by_field_name("alternative"), depth + 1))
    if t == "subscript_expression":
        idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
        if idx is not None and idx.type == "subscript_argument_list":
            idx = idx.named_children[0] if idx.named_children else None
        base = node.child_by_field_name("argument")
        return ("ix", to_expr(base, depth + 1), to_expr(idx, depth + 1))
    if t == "cast_expression":
        ty = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        return ("cast", text(ty) if ty else "", to_expr(value, depth + 1))
    if t in ("initializer_list", "compound_literal_expression"):
        return ("?", text(node))
    return ("?", text(node))


def names_in(expr: Expr) -> set[str]:
    """Identifiers and fields an expression reads (for dependency questions)."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if not e:
            continue
        tag = e[0]
        if tag == "id":
            out.add(e[1])
        elif tag == "f":
            out.add(e[2])
            stack.append(e[1])
        elif tag in ("b",):
            stack += [e[2], e[3]]
        elif tag in ("u",):
            stack.append(e[2])
        elif tag == "c":
            if e[2] is not None:
                stack.append(e[2])
            stack += list(e[3])
        elif tag == "t":
            stack += [e[1], e[2], e[3]]
        elif tag == "ix":
            stack += [e[1], e[2]]
        elif tag == "cast":
            stack.append(e[2])
    return out


def has_op(expr: Expr, ops: set[str]) -> bool:
    stack = [expr]
    while stack:
        e = stack.pop()
        if not e:
            continue
        if e[0] == "b":
            if e[1] in ops:
                return True
            stack += [e[2], e[3]]
        elif e[0] == "u":
            stack.append(e[2])
        elif e[0] == "c":
            stack += list(e[3])
        elif e[0] == "t":
            stack += [e[1], e[2], e[3]]
        elif e[0] == "cast":
            stack.append(e[2])
    return False


_PRECEDENCE = {"*": 5, "/": 5, "%": 5, "+": 4, "-": 4, "<<": 3, ">>": 3, "<": 2, "<=": 2, ">": 2,
               ">=": 2, "==": 1, "!=": 1, "&": 0, "^": 0, "|": 0, "&&": -1, "||": -2}


def _operand(e: Expr, op: str, right: bool) -> str:
    """An operand of a binary `op`, in parentheses where C++ would need them."""
    text = render(e)
    if e[0] == "t":
        return f"({text})"
    if e[0] != "b":
        return text
    inner, outer = _PRECEDENCE.get(e[1], 9), _PRECEDENCE.get(op, 9)
    return f"({text})" if inner < outer or (right and inner == outer) else text


def render(expr: Expr) -> str:
    """Compact source-like text of an expression, for messages."""
    tag = expr[0]
    if tag == "n":
        return str(expr[1])
    if tag == "id":
        return expr[1]
    if tag == "this":
        return "this"
    if tag == "f":
        base = render(expr[1])
        return expr[2] if base == "this" else f"{base}.{expr[2]}"
    if tag == "b":
        return f"{_operand(expr[2], expr[1], False)} {expr[1]} {_operand(expr[3], expr[1], True)}"
    if tag == "u":
        return f"{expr[1]}{render(expr[2])}"
    if tag == "sz":
        return f"sizeof({expr[1]})"
    if tag == "c":
        recv = f"{render(expr[2])}." if expr[2] is not None else ""
        return f"{recv}{expr[1]}({', '.join(render(a) for a in expr[3])})"
    if tag == "t":
        return f"{render(expr[1])} ? {render(expr[2])} : {render(expr[3])}"
    if tag == "ix":
        return f"{render(expr[1])}[{render(expr[2])}]"
    if tag == "cast":
        return render(expr[2])
    return str(expr[1]) if len(expr) > 1 else "?"
