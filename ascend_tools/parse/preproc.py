"""Preprocessor conditionals: the `#if` regions of a text, the conditions under which a byte
offset is compiled, and whether those hold for a build whose macros are partly known.

A condition is judged three-valued (True, False, None: cannot tell), so that a rule choosing
between `#ifdef X` and `#else` definitions proves only what the build really picks."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.M)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_COMMENT = re.compile(r"//.*|/\*.*?\*/")

Condition = tuple[tuple[str, bool], ...]
"""`#if` expressions (`#ifdef X` as `defined(X)`) with the truth each must have for a branch to
be compiled: an `#else` needs every earlier expression of its chain false."""

MacroState = tuple[bool | None, int | None]
"""(defined: True, False or None when not known; its integer value when known)."""


@dataclass(frozen=True, slots=True)
class Region:
    """One `#if ... #endif` (include guards left out) and its branches."""

    start: int
    end: int
    text: str
    """The directives, for messages: `#ifdef X / #else`."""
    branches: tuple[tuple[int, int, Condition], ...]


def regions(data: bytes) -> list[Region]:
    """Every conditional region of a text, innermost first where nested."""
    out: list[Region] = []
    # open entries: [start, text, outer condition, expressions so far, branch start,
    #                branch condition, branches, is include guard]
    stack: list[list] = []
    for m in _DIRECTIVE.finditer(data):
        kind = m.group(1).decode()
        rest = _COMMENT.sub("", m.group(2).decode(errors="replace")).strip()
        directive = f"#{kind}{m.group(2).decode(errors='replace').rstrip()}"
        if kind in ("if", "ifdef", "ifndef"):
            outer: Condition = stack[-1][5] if stack else ()
            expr = {"ifdef": f"defined({rest})", "ifndef": f"!defined({rest})"}.get(kind, rest)
            after = data[m.end():m.end() + 200].lstrip()
            guard = kind == "ifndef" and after.startswith(b"#define " + rest.encode())
            cond = outer if guard else (*outer, (expr, True))
            stack.append([m.start(), directive, outer, [] if guard else [expr], m.end(), cond,
                          [], guard])
        elif kind in ("elif", "else") and stack:
            top = stack[-1]
            top[6].append((top[4], m.start(), top[5]))
            earlier = tuple((e, False) for e in top[3])
            top[5] = (*top[2], *earlier, *(((rest, True),) if kind == "elif" else ()))
            if kind == "elif":
                top[3].append(rest)
            top[1], top[4] = f"{top[1]} / {directive}", m.end()
        elif kind == "endif" and stack:
            top = stack.pop()
            top[6].append((top[4], m.start(), top[5]))
            if not top[7]:
                out.append(Region(top[0], m.end(), top[1], tuple(top[6])))
    return out


def condition_at(spans: list[Region], offset: int) -> Condition:
    """The condition under which the byte at `offset` is compiled (() when unconditional)."""
    best: tuple[int, Condition] = (-1, ())
    for region in spans:
        if region.start <= offset < region.end:
            for lo, hi, cond in region.branches:
                if lo <= offset < hi and lo > best[0]:
                    best = (lo, cond)
    return best[1]


def defines(data: bytes) -> list[tuple[str, int]]:
    """(name, offset) of each `#define` of a text."""
    return [(m.group(1).decode(), m.start()) for m in _DEFINE.finditer(data)]


def holds(cond: Condition, macro: Callable[[str], MacroState]) -> bool | None:
    """Whether a condition holds: False as soon as one expression has the wrong truth, None when
    some cannot be told and none is wrong."""
    result: bool | None = True
    for expr, want in cond:
        v = truth(expr, macro)
        if v is None:
            result = None
        elif v != want:
            return False
    return result


_TOKEN = re.compile(r"\s*(?:(\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|[!<>()+\-*/]))")
_BINARY = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/")]


def truth(expr: str, macro: Callable[[str], MacroState]) -> bool | None:
    """The truth of an `#if` expression; None when a macro it needs is not known or the
    expression is beyond this small evaluator (integers, names, defined, ! && || comparisons
    and + - * /)."""
    v = value(expr, macro)
    return None if v is None else v != 0


def value(expr: str, macro: Callable[[str], MacroState]) -> int | None:
    """The integer value of a preprocessor expression (`truth`'s evaluator); None when it
    cannot tell."""
    tokens: list[str] = []
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None or m.end() == pos:
            if expr[pos:].strip():
                return None
            break
        tokens.append(m.group(m.lastindex or 0))
        pos = m.end()
    parser = _Parser(tokens, macro)
    try:
        v = parser.binary(0)
    except (IndexError, ValueError, ZeroDivisionError):
        return None
    if parser.pos != len(tokens):
        return None
    return v


class _Parser:
    """Recursive descent over the tokens; a value is an int, or None when not known."""

    def __init__(self, tokens: list[str], macro: Callable[[str], MacroState]) -> None:
        self.tokens, self.pos, self.macro = tokens, 0, macro

    def binary(self, level: int) -> int | None:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.pos < len(self.tokens) and self.tokens[self.pos] in _BINARY[level]:
            op = self.tokens[self.pos]
            self.pos += 1
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def unary(self) -> int | None:
        tok = self.tokens[self.pos]
        self.pos += 1
        if tok == "!":
            v = self.unary()
            return None if v is None else int(v == 0)
        if tok == "-":
            v = self.unary()
            return None if v is None else -v
        if tok == "(":
            v = self.binary(0)
            if self.tokens[self.pos] != ")":
                raise ValueError(tok)
            self.pos += 1
            return v
        if tok.isdigit():
            return int(tok)
        if tok == "defined":
            paren = self.tokens[self.pos] == "("
            name = self.tokens[self.pos + paren]
            self.pos += 1 + 2 * paren
            defined = self.macro(name)[0]
            return None if defined is None else int(defined)
        if tok[0].isalpha() or tok[0] == "_":
            defined, value = self.macro(tok)
            if defined is False:
                return 0  # an undefined name in #if is 0
            return value
        raise ValueError(tok)


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&" and (a == 0 or b == 0):
        return 0
    if op == "||" and ((a is not None and a != 0) or (b is not None and b != 0)):
        return 1
    if a is None or b is None:
        return None
    ops: dict[str, Callable[[int, int], int]] = {
        "&&": lambda x, y: int(bool(x and y)), "||": lambda x, y: int(bool(x or y)),
        "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
        "<": lambda x, y: int(x < y), ">": lambda x, y: int(x > y),
        "<=": lambda x, y: int(x <= y), ">=": lambda x, y: int(x >= y),
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "/": lambda x, y: int(x / y),
    }
    return ops[op](a, b)
