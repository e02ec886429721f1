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
