"""Static types of expressions, from declarations and the catalog's signatures: what the
unknown-api rule checks members against, and what completion offers after `x.` or `x->`."""

from __future__ import annotations

from ascend_tools.catalog import Catalog
from ascend_tools.parse.expr import Expr
from ascend_tools.parse.facts import Chunk
from ascend_tools.parse.model import KernelModel


def _clean(type_text: str, catalog: Catalog) -> str | None:
    """The class a declared type names, without qualifiers and template arguments; None for a
    class of another namespace than the catalog's class of that name (a torch extension's
    `at::Tensor` is not gert's Tensor)."""
    t = type_text.replace("const", "").replace("*", "").replace("&", "").strip()
    qualified = t.split("<")[0].strip()
    name = qualified.rsplit("::", 1)[-1].strip()
    space = qualified.rsplit("::", 1)[0].rsplit("::", 1)[-1].strip() if "::" in qualified else ""
    known = catalog.get(name) if space else None
    if known is not None and known.namespace and space != known.namespace:
        return None
    return name


def expr_type(model: KernelModel, catalog: Catalog, expr: Expr | None, chunk: Chunk,
              order: int | None = None, depth: int = 0) -> str | None:
    """The class an expression evaluates to, as far as declarations and the catalog's
    signatures tell (`context->GetInputShape(0)->GetStorageShape()` -> Shape)."""
    if expr is None or depth > 12:
        return None
    tag = expr[0]
    if tag == "id":
        d = model.variable_decl(chunk, expr[1], order)
        if d is not None:
            if d.type_base == "auto":
                return expr_type(model, catalog, d.init, chunk, order, depth + 1)
            return _clean(d.type_text, catalog)
        p = model.param_type(chunk, expr[1])
        return _clean(p, catalog) if p is not None else None
    if tag == "f" and expr[1] == ("this",):
        d = model.members(chunk.class_name).get(expr[2]) if chunk.class_name else None
        return _clean(d.type_text, catalog) if d is not None else None
    if tag in ("u", "cast"):
        return _clean(expr[1], catalog) if tag == "cast" and expr[1] else expr_type(
            model, catalog, expr[2], chunk, order, depth + 1)
    if tag == "c":
        if expr[2] is None and catalog.members(expr[1]):
            return str(expr[1])  # a constructor call: PlatformAscendC(...)
        owner = expr_type(model, catalog, expr[2], chunk, order, depth + 1) if expr[2] else None
        if expr[2] is not None and owner is None:
            return None
        return catalog.return_type(owner, expr[1])
    return None
