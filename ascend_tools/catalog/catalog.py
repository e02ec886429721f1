"""The API catalog: every AscendC name the project knows, loaded from the JSON files beside
this module. The single source for completion, hover, the unknown-api rule and generator prompts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import cache
from importlib import resources

from ascend_tools.catalog.models import ApiEntry, ApiKind

_NOT_CALLABLE = {ApiKind.ENUM_VALUE, ApiKind.QUALIFIER}
# `[template <...>] [static|const|inline ...] Type[<...>][*&] \0(` with \0 marking the name.
_RETURN = re.compile(
    r"^(?:template\s*<.*?>\s*)?(?:(?:static|const|inline|explicit|virtual)\s+)*"
    r"([\w:]+)\s*(?:<.*>)?\s*[*&]*\s*\0\(")


def _edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein (optimal string alignment): a swapped pair costs one edit."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def similarity(query: str, candidate: str) -> float:
    """Case-insensitive closeness in [0, 1]: the better of edit distance and difflib's ratio,
    with a bonus when one name contains the other (`Datacopy` -> `DataCopyPad`)."""
    q, c = query.lower(), candidate.lower()
    if q == c:
        return 1.0
    by_edit = 1.0 - _edit_distance(q, c) / max(len(q), len(c))
    by_blocks = SequenceMatcher(None, q, c).ratio()
    score = max(by_edit, by_blocks)
    if len(q) >= 4 and (q in c or c in q):
        score = max(score, 0.75 + 0.2 * min(len(q), len(c)) / max(len(q), len(c)))
    return min(score, 0.99)


class Catalog:
    """Lookups over the entries. A name may have several entries (`DataType` is both an enum and
    an OpDef builder member), so `lookup` returns all and `get` the preferred one."""

    def __init__(self, entries: Iterable[ApiEntry]) -> None:
        self.entries: list[ApiEntry] = list(entries)
        self._by_name: dict[str, list[ApiEntry]] = {}
        self._by_qualified: dict[str, ApiEntry] = {}
        self._members: dict[str, list[ApiEntry]] = {}
        for entry in self.entries:
            self._by_name.setdefault(entry.name, []).append(entry)
            self._by_qualified.setdefault(entry.qualified_name, entry)
            for owner in entry.owners:
                self._members.setdefault(owner, []).append(entry)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def lookup(self, name: str) -> list[ApiEntry]:
        """All entries for a simple name, or the one for a qualified name (`AscendC::Add`)."""
        if name in self._by_name:
            return list(self._by_name[name])
        entry = self._by_qualified.get(name)
        if entry is None and "::" in name:
            return self.lookup(name.rsplit("::", 1)[1])
        return [entry] if entry else []

    def get(self, name: str) -> ApiEntry | None:
        """The preferred entry: device side before host side, free names before members."""
        found = self.lookup(name)
        if not found:
            return None
        return min(found, key=lambda e: (e.side != "device", e.is_member))

    def _lineage(self, owner: str) -> list[str]:
        """The class and its catalogued base classes, nearest first."""
        out, todo = [], [owner]
        while todo:
            cls = todo.pop(0)
            if cls in out:
                continue
            out.append(cls)
            for e in self._by_name.get(cls, []):
                todo += e.bases
        return out

    def members(self, owner: str) -> list[ApiEntry]:
        """Members of a class (`TQue`, `LocalTensor`, `TilingContext`, ...), inherited ones
        included."""
        return [e for cls in self._lineage(owner) for e in self._members.get(cls, [])]

    def has_member(self, owner: str, name: str) -> bool:
        return any(e.name == name for e in self.members(owner))

    def return_type(self, owner: str | None, name: str) -> str | None:
        """The class a member (or free function, owner None) returns, read from its first
        signature: `const StorageShape* GetInputShape(size_t i)` -> StorageShape."""
        pool = self.members(owner) if owner else [
            e for e in self._by_name.get(name, []) if not e.is_member]
        for e in pool:
            if e.name == name and e.signatures:
                m = _RETURN.match(e.signatures[0].replace(name + "(", "\0(", 1))
                if m:
                    return m.group(1).rsplit("::", 1)[-1]
        return None

    def prompt_lines(self, names: Iterable[str]) -> list[str]:
        """`brief()` lines of the named APIs (unknown names skipped), for generator prompts."""
        out = []
        for name in names:
            entry = self.get(name)
            if entry is not None:
                out.append(entry.brief())
        return out

    def owners(self) -> list[str]:
        return sorted(self._members)

    def closest(
        self, name: str, n: int = 3, *, owner: str | None = None, member: bool | None = None,
        cutoff: float = 0.6,
    ) -> list[str]:
        """Known names closest to a misspelled or invented one, best first.

        `owner` restricts to members of that class (the "no member named X in TQue" case);
        `member=False` to free names (functions, types, macros), `member=True` to any member.
        """
        if owner is not None and self.members(owner):
            pool = {e.name for e in self.members(owner)}
        else:
            pool = {
                e.name
                for e in self.entries
                if e.kind not in _NOT_CALLABLE and (member is None or e.is_member == member)
            }
        scored = sorted(((similarity(name, c), c) for c in pool), key=lambda t: (-t[0], t[1]))
        return [c for s, c in scored if s >= cutoff][:n]


@cache
def load_catalog() -> Catalog:
    """All `*.json` catalog files of this package (cached: the catalog is immutable)."""
    entries: list[ApiEntry] = []
    for item in sorted(resources.files(__package__).iterdir(), key=lambda p: p.name):
        if item.name.endswith(".json"):
            data = json.loads(item.read_text())
            entries.extend(ApiEntry(**raw) for raw in data["entries"])
    return Catalog(entries)
