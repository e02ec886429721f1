"""Facts extracted from one chunk of source (a function, a class, a top-level declaration).

Plain slotted dataclasses rather than pydantic: thousands are made per parse and most are reused
across keystrokes, so construction cost matters. Positions are byte offsets relative to the chunk,
which moves as a whole when text above it changes (`Chunk.base`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_tools.parse.expr import Expr


@dataclass(slots=True, eq=False)
class Chunk:
    kind: str  # "function" | "class" | "other"
    name: str
    class_name: str
    base: int
    length: int
    calls: list[Call] = field(default_factory=list)
    decls: list[Decl] = field(default_factory=list)
    assigns: list[Assign] = field(default_factory=list)
    function: Function | None = None
    klass: ClassDef | None = None
    defines: list[Define] = field(default_factory=list)
    file: str = ""
    returns: list[Expr] = field(default_factory=list)
    """Expressions of the function's return statements (for inlining small helpers)."""
    memo: dict[str, object] = field(default_factory=dict)
    """Derived per-chunk facts rules compute once; reused with the chunk across edits."""
    tiling_macro: list[tuple[str, str, int]] = field(default_factory=list)
    """GET_TILING_DATA-style bindings: (variable, struct type or "", relative offset)."""

    @property
    def qualified(self) -> str:
        return f"{self.class_name}::{self.name}" if self.class_name else self.name


@dataclass(slots=True, eq=False)
class Located:
    chunk: Chunk
    rel_start: int
    rel_end: int

    @property
    def start(self) -> int:
        return self.chunk.base + self.rel_start

    @property
    def end(self) -> int:
        return self.chunk.base + self.rel_end


@dataclass(slots=True, eq=False)
class Arg(Located):
    text: str
    expr: Expr


@dataclass(slots=True, eq=False)
class Call(Located):
    name: str
    qualifier: str
    receiver: Expr | None
    receiver_text: str
    template_args: list[str]
    args: list[Arg]
    name_start: int
    name_end: int
    order: int
    loop_depth: int
    in_branch: bool
    block: tuple[int, int] = (-1, -1)
    """Relative span of the innermost `{...}` block around the call ((-1, -1): the chunk)."""

    @property
    def receiver_name(self) -> str | None:
        """The variable or member the call is made on (`pipe` for `this->pipe->InitBuffer`)."""
        r = self.receiver
        while r is not None:
            if r[0] == "id":
                return str(r[1])
            if r[0] == "f":
                return str(r[2])
            if r[0] == "u" and r[1] == "*":
                r = r[2]
                continue
            return None
        return None

    @property
    def abs_name_start(self) -> int:
        return self.chunk.base + self.name_start

    @property
    def abs_name_end(self) -> int:
        return self.chunk.base + self.name_end


@dataclass(slots=True, eq=False)
class Decl(Located):
    """A variable, member or constant declaration."""

    name: str
    type_text: str
    type_base: str
    template_args: list[str]
    init: Expr | None
    is_const: bool
    is_member: bool
    order: int
    loop_depth: int
    init_start: int = -1
    init_end: int = -1
    loop_bound: tuple[str, Expr] | None = None
    """For a `for` loop counter: the comparison ("<" or "<=") and the bound it runs to."""
    block: tuple[int, int] = (-1, -1)
    """Relative span of the innermost `{...}` block the declaration lives in (its lifetime)."""


@dataclass(slots=True, eq=False)
class Assign(Located):
    target: Expr
    op: str
    value: Expr
    order: int
    loop_depth: int
    in_branch: bool
    guard: tuple[Expr, bool] | None = None
    """The innermost `if` condition around the assignment and whether it must hold (True in
    the then-branch, False in the else-branch); None when not directly under an if."""


@dataclass(slots=True, eq=False)
class Define(Located):
    """`#define NAME value` or an enumerator; value start/end locate the editable number."""

    name: str
    value: Expr
    value_text: str
    value_start: int
    value_end: int


@dataclass(slots=True, eq=False)
class Param:
    type_text: str
    name: str
    source: str = ""
    """The declaration as written (qualifiers kept), for fixes that reorder parameters."""


@dataclass(slots=True, eq=False)
class Function(Located):
    params: list[Param]
    is_entry: bool
    body_end: int
    """Relative offset of the closing brace of the body."""
    params_start: int = -1
    params_end: int = -1
    """Relative span of the parameter list, parentheses included."""


@dataclass(slots=True, eq=False)
class ClassDef(Located):
    fields: list[Decl]
    bases: list[str]
    template_params: list[str]
