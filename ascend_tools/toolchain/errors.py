"""Compiler and linker output -> `Diagnostic`s at the project's own files and lines.

An error inside an emulator header is moved to the project location that led there (the
innermost `required from` line in the project, else the `#include` chain), so the developer sees
it on their call, with the header's message. Unknown-name errors get a hint naming close AscendC
API names from the API catalog; a project helper that collides with one of the undocumented
helpers CANN's headers define and the emulator provides (`catalog/tables/vendor_internal.json`)
is told how to keep its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ascend_tools.catalog import load_catalog
from ascend_tools.catalog.vendor import vendor_internal
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity

SOURCE = "kernelgen-compile"

_LOCATED = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s+"
    r"(?P<kind>fatal error|error|warning|note):\s*(?P<msg>.*)$"
)
_CONTEXT = re.compile(
    r"^(?:In file included from|\s+from)\s+(?P<file>[^:]+):(?P<line>\d+)(?::(?P<col>\d+))?[,:]?$"
    r"|^(?P<file2>[^:\s][^:]*):(?P<line2>\d+):(?P<col2>\d+):\s+(?P<what>required from)"
)
_LINKER = re.compile(
    r"(?:^|: )(?:(?P<file>[^:\s]+):\(\.\w+[^)]*\): )?(?P<msg>undefined reference to .*)$"
)
# (pattern, name group, owner group or None, member?) for gcc's and clang's unknown-name errors.
_UNKNOWN_NAME: tuple[tuple[re.Pattern[str], bool], ...] = (
    (
        re.compile(
            r"'(?:class |struct )?(?:[\w:]*::)?(?P<owner>\w+)(?:<[^']*>)?'"
            r" has no member named '(?P<name>\w+)'"
        ),
        True,
    ),
    (
        re.compile(
            r"no member named '(?P<name>\w+)' in '(?:class |struct )?(?:[\w:]*::)?(?P<owner>\w+)"
        ),
        True,
    ),
    (re.compile(r"'(?:[\w:]*::)?(?P<name>\w+)' is not a member of"), False),
    (re.compile(r"'(?P<name>\w+)' was not declared in this scope"), False),
    (re.compile(r"use of undeclared identifier '(?P<name>\w+)'"), False),
    (re.compile(r"'(?P<name>\w+)' does not name a type"), False),
    (re.compile(r"'(?P<name>\w+)' has not been declared"), False),
    (re.compile(r"there are no arguments to '(?P<name>\w+)' that depend on a template"), False),
)
# gcc's errors when a project's own helper meets one of CANN's undocumented ones that the
# emulator provides (vendor_internal.h): a call both match equally, or the same template again.
_VENDOR_CLASH = (
    re.compile(r"call of overloaded '(?P<name>\w+)\([^']*\)' is ambiguous"),
    re.compile(r"redefinition of '[^']*\bAscendC::(?P<name>\w+)\("),
)


def vendor_internal_hint(message: str) -> str:
    """`" (X is also CANN's undocumented helper ...)"` when the error is a project's own helper
    colliding with one that CANN's kernel_operator.h (and so the emulator) defines in namespace
    AscendC: the fix is to call the project's own qualified, or rename it."""
    for pattern in _VENDOR_CLASH:
        m = pattern.search(message)
        entry = vendor_internal().get(m.group("name")) if m else None
        if entry is not None:
            return (f" ({entry['name']} is also an undocumented helper that CANN's "
                    f"{entry['header']} defines in namespace AscendC, and the emulator provides "
                    f"it as CANN does: call the project's own one qualified (::{entry['name']} or "
                    "its namespace) or give it another name)")
    return ""


def unknown_name_hint(message: str) -> str:
    """`" (did you mean X, Y?)"` for an unknown-name error, from the API catalog; for a real
    AscendC name the emulator lacks, says so instead (the code is right, the emulator is not); for
    an undocumented CANN-internal helper the project's own collides with, says so
    (`vendor_internal_hint`)."""
    internal = vendor_internal_hint(message)
    if internal:
        return internal
    for pattern, member in _UNKNOWN_NAME:
        m = pattern.search(message)
        if not m:
            continue
        name = m.group("name")
        owner = m.groupdict().get("owner")
        known = load_catalog().lookup(name)
        if known and not any(e.emulated for e in known):
            return (f" ({name} is AscendC API ({known[0].group}) that the emulator does not "
                    "implement yet)")
        names = load_catalog().closest(
            name, 3, owner=owner, member=member if owner is None else None
        )
        names = [c for c in names if c != name]
        return f" (did you mean {', '.join(names)}?)" if names else ""
    return ""


def unknown_names(messages: Iterable[str]) -> list[str]:
    """The names gcc/clang call undeclared or unknown in these messages, in order, once each."""
    names: list[str] = []
    for message in messages:
        for pattern, _ in _UNKNOWN_NAME:
            m = pattern.search(message)
            if m and m.group("name") not in names:
                names.append(m.group("name"))
                break
    return names


# Names listed per missing header, at most.
_MISSING_NAMES_SHOWN = 12


def explain_missing_headers(
    diags: list[Diagnostic], missing: list[str], names: list[str]
) -> list[Diagnostic]:
    """Each "H: No such file or directory" error extended with what the project wanted from H:
    the names that are undeclared once H exists but is empty (`names`, from that second compile),
    so the user sees whether a small local definition replaces the vendor header."""
    shown = ", ".join(names[:_MISSING_NAMES_SHOWN])
    if len(names) > _MISSING_NAMES_SHOWN:
        shown += " ..."
    if names:
        others = " (or the other missing headers)" if len(missing) > 1 else ""
        what = f"the project uses from it{others}: {shown}"
    else:
        what = "nothing the project uses comes from it (the include can go)"
    out = []
    for d in diags:
        header = next((h for h in missing if d.message.startswith(f"{h}: No such file")), None)
        if header is not None:
            d = d.model_copy(update={"message": (
                f"{d.message}: neither the project nor the emulator's stand-in headers have "
                f"{header}; {what}")})
        out.append(d)
    return out


class Locator:
    """Maps compiler paths to project-relative ones; `remap` sends generated files (the kernel
    wrapper) to a fixed project location."""

    def __init__(self, root: Path, fallback: tuple[str, int], remap: dict[Path, tuple[str, int]]):
        self.root = root.resolve()
        self.fallback = fallback
        self.remap = {p.resolve(): loc for p, loc in remap.items()}

    def project_location(self, file: str, line: int) -> tuple[str, int] | None:
        p = Path(file)
        if not p.is_absolute():
            return None
        p = p.resolve()
        if p in self.remap:
            return self.remap[p]
        try:
            return str(p.relative_to(self.root)), line
        except ValueError:
            return None


def parse_compiler_output(text: str, locator: Locator, *, failed: bool) -> list[Diagnostic]:
    """Errors (and project warnings) from g++/ld output; a failed build yields at least one."""
    diags: list[Diagnostic] = []
    movable = False  # the last error sits outside the project; a macro-expansion note may place it
    required: list[tuple[str, int, int]] = []
    included: list[tuple[str, int, int]] = []
    # gcc quotes with typographic quotes under UTF-8 locales.
    for raw in text.replace("\u2018", "'").replace("\u2019", "'").splitlines():
        line = raw.rstrip()
        ctx = _CONTEXT.match(line)
        located = _LOCATED.match(line)
        if ctx and not located:
            file = ctx.group("file") or ctx.group("file2")
            ln = int(ctx.group("line") or ctx.group("line2"))
            col = int(ctx.group("col") or ctx.group("col2") or 1)
            loc = locator.project_location(file, ln)
            if loc:
                target = required if ctx.group("what") else included
                target.append((loc[0], loc[1], col))
            continue
        if located:
            kind = located.group("kind")
            if kind == "note":
                note_loc = locator.project_location(
                    located.group("file"), int(located.group("line"))
                )
                if movable and note_loc and "expansion of macro" in located.group("msg"):
                    col = int(located.group("col") or 1)
                    diags[-1] = diags[-1].model_copy(
                        update={
                            "file": note_loc[0],
                            "line": note_loc[1],
                            "end_line": note_loc[1],
                            "column": col,
                            "end_column": col + 1,
                        }
                    )
                    movable = False
                continue
            file, ln = located.group("file"), int(located.group("line"))
            col = int(located.group("col") or 1)
            msg = located.group("msg")
            loc = locator.project_location(file, ln)
            movable = loc is None
            if loc is None:
                where = f"{Path(file).name}:{ln}"
                pick = required[0] if required else (included[-1] if included else None)
                if kind == "warning":
                    required, included = [], []
                    continue  # warnings inside the emulator are not the developer's concern
                loc, col = ((pick[0], pick[1]), pick[2]) if pick else (locator.fallback, 1)
                msg = f"{msg} (in {where})"
            is_error = kind != "warning"
            hint = unknown_name_hint(msg) if is_error else ""
            diags.append(make_diagnostic(loc, col, msg + hint, is_error))
            required, included = [], []
            continue
        linker = _LINKER.search(line)
        if linker:
            diags.append(
                make_diagnostic(locator.fallback, 1, f"link error: {linker.group('msg')}", True)
            )
            movable = False
    if failed and not any(d.severity == Severity.ERROR for d in diags):
        tail = "\n".join(text.strip().splitlines()[-15:]) or "the compiler failed without output"
        diags.append(make_diagnostic(locator.fallback, 1, f"build failed: {tail}", True))
    return diags


def make_diagnostic(loc: tuple[str, int], col: int, msg: str, is_error: bool) -> Diagnostic:
    return Diagnostic(
        file=loc[0],
        line=loc[1],
        column=col,
        end_line=loc[1],
        end_column=col + 1,
        severity=Severity.ERROR if is_error else Severity.WARNING,
        code=(RuleCode.COMPILE_ERROR if is_error else RuleCode.COMPILE_WARNING).value,
        message=msg,
        source=SOURCE,
    )
