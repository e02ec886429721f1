"""Values of `#define` bodies, which tree-sitter keeps as raw text."""

from __future__ import annotations

from functools import cache

from ascend_tools.parse.expr import Expr, to_expr
from ascend_tools.parse.treesitter import new_parser


@cache
def parse_value_text(value: str) -> Expr:
    """The expression of a macro body (`(16 * 1024)` -> a binary expression)."""
    if not value or value.startswith("#") or "\n" in value:
        return ("?", value)
    src = f"auto __kernelgen_v = ({value});".encode()
    tree = new_parser().parse(src)
    node = tree.root_node
    decl = node.named_children[0] if node.named_children else None
    if decl is None or decl.type != "declaration" or decl.has_error:
        return ("?", value)
    init = decl.child_by_field_name("declarator")
    val = init.child_by_field_name("value") if init is not None else None
    return to_expr(val) if val is not None else ("?", value)
