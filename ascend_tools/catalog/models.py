"""Pydantic models of the API catalog: one `ApiEntry` per AscendC name the project knows."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class ApiKind(str, Enum):
    FUNCTION = "function"
    MEMBER = "member"
    CLASS = "class"
    STRUCT = "struct"
    ENUM = "enum"
    ENUM_VALUE = "enum_value"
    TYPE_ALIAS = "type_alias"
    TYPE = "type"
    MACRO = "macro"
    CONSTANT = "constant"
    QUALIFIER = "qualifier"


class Unit(str, Enum):
    """What a numeric parameter counts: the most common source of wrong sizes."""

    ELEMENTS = "elements"
    BYTES = "bytes"
    BLOCKS32 = "blocks32"
    REPEATS = "repeats"
    COUNT = "count"
    NONE = "none"


class ApiParam(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    meaning: str
    unit: Unit = Unit.NONE


class ApiEntry(BaseModel):
    """One API: a function, a member of one or more classes, a type, an enum value or a macro."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: ApiKind
    namespace: str = "AscendC"
    side: str = "device"
    group: str = ""
    owners: list[str] = []
    signatures: list[str] = []
    doc: str
    params: list[ApiParam] = []
    constraints: list[str] = []
    archs: list[str] = []
    """Chip architectures (`Chip.arch`) that support it; empty means every chip."""
    dtypes: dict[str, list[str]] = {}
    """Element types by chip architecture; key "*" applies to every architecture."""
    related: list[str] = []
    source: str
    bases: list[str] = []
    """Base classes of a class entry: their members are its members too."""
    emulated: bool = False
    """The CPU emulator implements it (kept in step by tests/catalog/test_emulator_sync.py)."""

    @property
    def is_member(self) -> bool:
        return self.kind == ApiKind.MEMBER

    @property
    def qualified_name(self) -> str:
        owner = f"{self.owners[0]}::" if self.is_member and self.owners else ""
        prefix = f"{self.namespace}::" if self.namespace else ""
        return f"{prefix}{owner}{self.name}"

    def supports_arch(self, arch: str) -> bool:
        return not self.archs or arch in self.archs

    def dtypes_for(self, arch: str) -> list[str]:
        return self.dtypes.get(arch, self.dtypes.get("*", []))

    def overloads(self, n_args: int, n_template_args: int) -> list[list[str]]:
        """Parameter lists (`const int32_t count`, ...) of the signatures a call with this many
        arguments and explicit template arguments can name: one overload's count may be another's
        flag (ReduceSum(dst, src, tmp, count) and ReduceSum<T, Pattern>(dst, src, shape, pad))."""
        out = []
        for sig in self.signatures:
            head, _, rest = sig.partition("(")
            tparams = split_top_level(head[head.find("<") + 1:head.rfind(">")]) if (
                head.startswith("template")) else []
            params = split_top_level(rest[:rest.rfind(")")])
            required = sum(1 for p in params if "=" not in p)
            if n_template_args <= len(tparams) and required <= n_args <= len(params):
                out.append(params)
        return out

    def brief(self) -> str:
        """One line for prompts and completion lists: the first signature and the doc's first
        sentence."""
        head = self.signatures[0] if self.signatures else self.qualified_name
        first = self.doc.split(". ")[0].rstrip(".")
        return f"{head}: {first}."

    def markdown(self) -> str:
        """Hover text: signatures, doc, parameters with their units, constraints, chips."""
        parts = []
        if self.signatures:
            parts.append("```cpp\n" + "\n".join(self.signatures) + "\n```")
        parts.append(self.doc)
        if self.params:
            parts.append("\n".join(
                f"- `{p.name}`: {p.meaning}" + (f" ({p.unit.value})" if p.unit != Unit.NONE else "")
                for p in self.params))
        if self.constraints:
            parts.append("Constraints: " + "; ".join(self.constraints) + ".")
        if self.archs:
            parts.append("Chips: " + ", ".join(self.archs) + " only.")
        if self.related:
            parts.append("See also: " + ", ".join(self.related) + ".")
        parts.append(f"_Source: {self.source}_")
        return "\n\n".join(parts)


def split_top_level(text: str) -> list[str]:
    """The comma-separated parts of a parameter list, commas inside <>, () or [] kept."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return [*parts, last] if last or parts else []
