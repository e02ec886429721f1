"""The one place that builds tree-sitter objects for C++."""

from __future__ import annotations

from functools import cache

import tree_sitter_cpp
from tree_sitter import Language, Parser


@cache
def cpp_language() -> Language:
    return Language(tree_sitter_cpp.language())


def new_parser() -> Parser:
    return Parser(cpp_language())
