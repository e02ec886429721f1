"""Language server census over a folder of real projects: does every editor feature hold on code
written by others? Each project gets its own `kernelgen serve` over stdio, initialized with the
project folder as root (background validation off: it compiles, and this census measures the
editor features only). Every kernel and host source file is opened; on each one: documentSymbol,
semanticTokens/full, inlayHint over the whole file, codeLens, and at sampled positions
(identifier starts after `.`, `->` or `::`, plus random offsets) completion, hover, definition
and references, and codeAction over the published diagnostics. Then one didChange inserts a
character in the middle of a function body and one deletes a line, each followed by the same
requests.

Recorded: error responses, requests without a response within the timeout, results that are
absurd (positions outside the document, a selectionRange outside its range, semantic tokens past
a line's end), server stderr (tracebacks, error logs), `window/logMessage` errors, the server
dying; and latency percentiles per method. The summary groups failures by (method, kind,
message) with the first project/file/position where each happened.

    python -m bench.lsp_corpus DIR [--only A,B] [--limit N] [--members 40] [--random 20]
                                   [--timeout 30] [--seed 0] [--json OUT]
(also `kernelgen bench lsp-corpus ...`)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.lsp_wire import Session, spawn_server

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".asc", ".h", ".hpp")
"""What the server analyses (`ascend_tools.project.SOURCE_SUFFIXES`; the bench stays a shell)."""
SETTINGS = {"validateOnSave": False, "recordAcceptedEdits": False,
            "completion": {"backend": "embedded"}}
"""Editor features only: no validation (it compiles), no edit store written into the corpus."""
POSITION_METHODS = ("textDocument/completion", "textDocument/hover", "textDocument/definition",
                    "textDocument/references")
_MEMBER = re.compile(r"(?:\.|->|::)([A-Za-z_]\w*)")
_FRAME = re.compile(r'File "([^"]*/(?:ascend_tools|server|kernelgen_lm|bench)/[^"]+)", line (\d+)')
_EXC_LINE = re.compile(r"^([\w.]+(?:Error|Exception|Exit|Interrupt|Warning))(?::\s*(.*))?$")


# ---------------------------------------------------------------------- documents
def u16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


class Text:
    """An open document's current text as the editor holds it (UTF-16 columns, as LSP says
    unless another encoding is negotiated)."""

    def __init__(self, text: str) -> None:
        self.set(text)

    def set(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.widths = [u16(line.removesuffix("\r")) for line in self.lines]

    def offset(self, line: int, char: int) -> int:
        """The string index of an LSP position (clamped)."""
        before = sum(len(x) + 1 for x in self.lines[:line])
        units, i, s = 0, 0, self.lines[line]
        while i < len(s) and units < char:
            units += u16(s[i])
            i += 1
        return before + i

    def position(self, index: int) -> dict[str, int]:
        line = self.text.count("\n", 0, index)
        start = self.text.rfind("\n", 0, index) + 1
        return {"line": line, "character": u16(self.text[start:index])}

    def replace(self, start: dict[str, int], end: dict[str, int], new: str) -> None:
        a = self.offset(start["line"], start["character"])
        b = self.offset(end["line"], end["character"])
        self.set(self.text[:a] + new + self.text[b:])

    def bad_position(self, p: Any) -> str | None:
        if not isinstance(p, dict) or not isinstance(p.get("line"), int) \
                or not isinstance(p.get("character"), int):
            return f"not a position: {p!r}"
        line, char = p["line"], p["character"]
        if line < 0 or char < 0:
            return "negative position"
        if line >= len(self.lines):
            return "line past the end of the document"
        if char > self.widths[line]:
            return "character past the end of its line"
        return None

    def bad_range(self, r: Any) -> str | None:
        if not isinstance(r, dict):
            return f"not a range: {r!r}"
        for key in ("start", "end"):
            why = self.bad_position(r.get(key))
            if why:
                return f"range {key}: {why}"
        if not _inside({"start": r["start"], "end": r["start"]}, r):
            return "range ends before it starts"
        return None


def _inside(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    def key(p: dict[str, int]) -> tuple[int, int]:
        return p["line"], p["character"]

    return key(outer["start"]) <= key(inner["start"]) and key(inner["end"]) <= key(outer["end"])


def sample_positions(doc: Text, rng: random.Random, members: int, randoms: int,
                     ) -> list[dict[str, int]]:
    """Identifier starts after `.`, `->`, `::` (at most `members`, spread over the file) and
    `randoms` random offsets."""
    starts = [m.start(1) for m in _MEMBER.finditer(doc.text)]
    if len(starts) > members:
        starts = sorted(rng.sample(starts, members))
    out = [doc.position(i) for i in starts]
    for _ in range(randoms):
        out.append(doc.position(rng.randrange(len(doc.text) + 1)))
    return out


def edit_sites(doc: Text) -> tuple[dict[str, int], int] | None:
    """(where to insert a character: the middle of a line inside braces near the middle of the
    file, which line to delete), or None for a file without a braced body."""
    depth, inside = 0, []
    for n, line in enumerate(doc.lines):
        if depth > 0 and line.strip() and not line.strip().startswith(("//", "*", "/*")):
            inside.append(n)
        depth = max(depth + line.count("{") - line.count("}"), 0)
    if not inside:
        return None
    n = inside[len(inside) // 2]
    width = doc.widths[n]
    indent = u16(doc.lines[n]) - u16(doc.lines[n].lstrip())
    at = {"line": n, "character": min(indent + (width - indent) // 2, width)}
    return at, inside[(len(inside) * 3) // 4]


# ---------------------------------------------------------------------- results
@dataclass
class Failure:
    method: str
    kind: str  # error | timeout | absurd | stderr | log-error | died
    message: str
    project: str
    file: str
    position: dict[str, int] | None = None
    phase: str = ""


@dataclass
class Census:
    projects: int = 0
    files: int = 0
    requests: int = 0
    failures: list[Failure] = field(default_factory=list)
    latency: dict[str, list[float]] = field(default_factory=dict)
    died: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def groups(self) -> list[tuple[tuple[str, str, str], list[Failure]]]:
        by: dict[tuple[str, str, str], list[Failure]] = {}
        for f in self.failures:
            by.setdefault((f.method, f.kind, _normal(f.message)), []).append(f)
        return sorted(by.items(), key=lambda kv: -len(kv[1]))

    def figures(self) -> dict[str, Any]:
        lat = {}
        for method, xs in sorted(self.latency.items()):
            xs = sorted(xs)
            lat[method] = {"n": len(xs), "p50_ms": round(_pct(xs, 0.5), 1),
                           "p99_ms": round(_pct(xs, 0.99), 1), "max_ms": round(xs[-1], 1)}
        kinds: dict[str, int] = {}
        for f in self.failures:
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
        return {
            "projects": self.projects, "files": self.files, "requests": self.requests,
            "failures": len(self.failures), "failures_by_kind": kinds,
            "servers_died": self.died, "seconds": round(self.seconds, 1), "latency": lat,
            "groups": [{"method": m, "kind": k, "message": msg, "count": len(fs),
                        "projects": len({f.project for f in fs}),
                        "first": {"project": fs[0].project, "file": fs[0].file,
                                  "position": fs[0].position, "phase": fs[0].phase,
                                  "message": fs[0].message[:2000]}}
                       for (m, k, msg), fs in self.groups()],
        }


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else 0.0


def _normal(message: str) -> str:
    """A failure message with its numbers and quoted names folded, so one cause is one group."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message.splitlines()[0] if message else "")
    return re.sub(r"\d+", "N", text)[:200]


def exception_summary(text: str) -> str:
    """`Type: message @ deepest repository frame` of a traceback in `text`, else its first
    line."""
    exc = ""
    for line in text.splitlines():
        m = _EXC_LINE.match(line.strip())
        if m:
            exc = line.strip()
    frames = _FRAME.findall(text)
    where = ""
    if frames:
        path, line = frames[-1]
        where = f" @ {path.split('/')[-2]}/{path.split('/')[-1]}:{line}"
    if exc or where:
        return f"{exc or 'traceback'}{where}"
    return text.strip().splitlines()[0] if text.strip() else ""


def absurd(method: str, result: Any, doc: Text, docs: dict[str, Text], legend_types: int,
           ) -> str | None:
    """Why a result cannot be right for the document it answers about, or None."""
    if result is None:
        return None
    if method == "textDocument/documentSymbol":
        for sym in _walk_symbols(result):
            for key in ("range", "selectionRange"):
                why = doc.bad_range(sym.get(key))
                if why:
                    return f"symbol {sym.get('name')!r} {key}: {why}"
            if not _inside(sym["selectionRange"], sym["range"]):
                return f"symbol {sym.get('name')!r}: selectionRange outside its range"
            if not sym.get("name"):
                return "symbol with an empty name"
    elif method == "textDocument/semanticTokens/full":
        data = result.get("data", [])
        if len(data) % 5:
            return "semantic token data not a multiple of 5"
        line = start = 0
        for i in range(0, len(data), 5):
            dl, ds, length, typ, _ = data[i:i + 5]
            if min(dl, ds, length, typ) < 0:
                return "negative value in semantic tokens"
            line, start = line + dl, (start + ds if dl == 0 else ds)
            if line >= len(doc.lines):
                return "semantic token past the last line"
            if length == 0 or start + length > doc.widths[line]:
                return "semantic token past the end of its line"
            if typ >= legend_types:
                return "semantic token type outside the legend"
    elif method == "textDocument/inlayHint":
        for hint in result:
            why = doc.bad_position(hint.get("position"))
            if why:
                return f"inlay hint: {why}"
    elif method == "textDocument/codeLens":
        for lens in result:
            why = doc.bad_range(lens.get("range"))
            if why:
                return f"code lens: {why}"
    elif method in ("textDocument/definition", "textDocument/references"):
        for loc in result if isinstance(result, list) else [result]:
            target = docs.get(loc.get("uri", "")) or _disk(loc.get("uri", ""))
            if target is None:
                return f"location in a file that does not exist: {loc.get('uri')}"
            why = target.bad_range(loc.get("range"))
            if why:
                return f"location: {why}"
    elif method == "textDocument/hover":
        if "range" in result and result["range"] is not None:
            why = doc.bad_range(result["range"])
            if why:
                return f"hover range: {why}"
    elif method == "textDocument/completion":
        items = result.get("items", []) if isinstance(result, dict) else result
        for item in items:
            edit = item.get("textEdit")
            if edit:
                why = doc.bad_range(edit.get("range") or edit.get("replace"))
                if why:
                    return f"completion {item.get('label')!r} textEdit: {why}"
    elif method == "textDocument/codeAction":
        for action in result:
            for uri, edits in ((action.get("edit") or {}).get("changes") or {}).items():
                target = docs.get(uri) or _disk(uri)
                for e in edits:
                    why = target.bad_range(e.get("range")) if target else "file does not exist"
                    if why:
                        return f"code action {action.get('title')!r}: {why}"
    return None


def _walk_symbols(symbols: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for s in symbols:
        yield s
        yield from _walk_symbols(s.get("children") or [])


def _disk(uri: str) -> Text | None:
    from urllib.parse import unquote, urlparse

    path = Path(unquote(urlparse(uri).path))
    try:
        return Text(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


# ---------------------------------------------------------------------- one project
class ProjectRun:
    def __init__(self, census: Census, root: Path, args: argparse.Namespace) -> None:
        self.census, self.root, self.args = census, root, args
        self.rng = random.Random(f"{args.seed}:{root.name}")
        self.docs: dict[str, Text] = {}
        self.versions: dict[str, int] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.published_at: dict[str, float] = {}
        self.stderr: list[str] = []
        self.seen_stderr = 0
        self.legend_types = 0
        self.session: Session | None = None
        self.context: tuple[str, str, dict[str, int] | None, str] = ("startup", "", None, "")

    def fail(self, kind: str, message: str, method: str | None = None) -> None:
        ctx_method, file, pos, phase = self.context
        self.census.failures.append(Failure(method or ctx_method, kind, message, self.root.name,
                                            file, pos, phase))

    def on_notify(self, method: str, params: Any) -> None:
        if method == "textDocument/publishDiagnostics":
            self.diagnostics[params["uri"]] = params["diagnostics"]
            self.published_at[params["uri"]] = time.perf_counter()
            doc = self.docs.get(params["uri"])
            version = params.get("version")
            if doc is not None and (version is None or version == self.versions.get(params["uri"])):
                for d in params["diagnostics"]:
                    why = doc.bad_range(d.get("range"))
                    if why:
                        self.fail("absurd", f"diagnostic {d.get('code')}: {why}", method)
                        break
        elif method == "window/logMessage" and params.get("type") == 1:
            self.fail("log-error", exception_summary(params.get("message", "")) or "error",
                      method)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.stderr.append(line.decode("utf-8", errors="replace"))

    def check_stderr(self) -> None:
        """New stderr output since the last look, as failures of the request just answered."""
        if len(self.stderr) == self.seen_stderr:
            return
        chunk = "".join(self.stderr[self.seen_stderr:])
        self.seen_stderr = len(self.stderr)
        blocks = re.split(r"\n(?=kernelgen-lsp )", chunk)  # a traceback stays with its log line
        for block in blocks:
            if block.strip() and not block.startswith("kernelgen-lsp WARNING"):
                self.fail("stderr", exception_summary(block) + "\n" + block[-1500:])

    async def request(self, method: str, params: dict[str, Any], uri: str,
                      pos: dict[str, int] | None = None, phase: str = "") -> Any:
        s = self.session
        assert s is not None
        self.context = (method, self.rel(uri), pos, phase)
        self.census.requests += 1
        t = time.perf_counter()
        try:
            msg = await s.call(method, params, self.args.timeout)
        except TimeoutError:
            self.fail("timeout", f"no response within {self.args.timeout:g} s")
            return None
        except ConnectionError:
            raise
        finally:
            self.check_stderr()
        self.census.latency.setdefault(method, []).append((time.perf_counter() - t) * 1000)
        if "error" in msg:
            err = msg["error"]
            data = err.get("data")
            detail = exception_summary(data) if isinstance(data, str) else ""
            self.fail("error", f"{err.get('code')}: {err.get('message')}"
                      + (f" ({detail})" if detail else ""))
            return None
        result = msg.get("result")
        doc = self.docs[uri]
        why = absurd(method, result, doc, self.docs, self.legend_types)
        if why:
            self.fail("absurd", why)
        return result

    def rel(self, uri: str) -> str:
        path = uri.removeprefix("file://")
        prefix = str(self.root.resolve()) + "/"
        return path.removeprefix(prefix)

    async def settle(self, uris: list[str], since: float, phase: str) -> None:
        """Waits until every uri got diagnostics published after `since` (the lint ran)."""
        deadline = time.perf_counter() + self.args.timeout * 2
        while any(self.published_at.get(u, 0) < since for u in uris):
            if self.session is None or self.session.closed:
                return
            if time.perf_counter() > deadline:
                late = [u for u in uris if self.published_at.get(u, 0) < since]
                self.context = ("textDocument/publishDiagnostics", self.rel(late[0]), None, phase)
                self.fail("timeout", f"no diagnostics within {self.args.timeout * 2:g} s")
                return
            await asyncio.sleep(0.02)
        self.check_stderr()

    async def round(self, uri: str, phase: str) -> None:
        doc = self.docs[uri]
        ident = {"textDocument": {"uri": uri}}
        whole = {"start": {"line": 0, "character": 0},
                 "end": {"line": len(doc.lines) - 1, "character": doc.widths[-1]}}
        await self.request("textDocument/documentSymbol", ident, uri, None, phase)
        await self.request("textDocument/semanticTokens/full", ident, uri, None, phase)
        await self.request("textDocument/inlayHint", {**ident, "range": whole}, uri, None, phase)
        await self.request("textDocument/codeLens", ident, uri, None, phase)
        for pos in sample_positions(doc, self.rng, self.args.members, self.args.random):
            for method in POSITION_METHODS:
                params: dict[str, Any] = {**ident, "position": pos}
                if method == "textDocument/references":
                    params["context"] = {"includeDeclaration": True}
                await self.request(method, params, uri, pos, phase)
        for d in self.diagnostics.get(uri, [])[: self.args.actions]:
            await self.request("textDocument/codeAction", {
                **ident, "range": d["range"], "context": {"diagnostics": [d]}},
                uri, d["range"]["start"], phase)

    def change(self, uri: str, start: dict[str, int], end: dict[str, int], text: str) -> None:
        assert self.session is not None
        self.versions[uri] += 1
        self.docs[uri].replace(start, end, text)
        self.session.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": self.versions[uri]},
            "contentChanges": [{"range": {"start": start, "end": end}, "text": text}]})

    async def run(self) -> None:
        files = sorted(p for p in self.root.rglob("*") if p.is_file()
                       and p.suffix in SOURCE_SUFFIXES and ".kernelgen" not in p.parts)
        files = files[: self.args.max_files]
        proc = await spawn_server(stderr=asyncio.subprocess.PIPE)
        assert proc.stderr is not None
        drain = asyncio.ensure_future(self._drain_stderr(proc.stderr))
        s = self.session = Session(proc, self.on_notify)
        self.census.projects += 1
        try:
            self.context = ("initialize", "", None, "startup")
            init = await s.call("initialize", {
                "processId": None, "rootUri": self.root.resolve().as_uri(),
                "capabilities": {"textDocument": {"semanticTokens": {
                    "requests": {"full": True}, "tokenTypes": [], "tokenModifiers": [],
                    "formats": ["relative"]}}},
                "initializationOptions": SETTINGS}, self.args.timeout)
            legend = init["result"]["capabilities"].get("semanticTokensProvider", {}).get(
                "legend", {})
            self.legend_types = len(legend.get("tokenTypes", []))
            s.notify("initialized", {})
            t0 = time.perf_counter()
            for f in files:
                uri = f.resolve().as_uri()
                text = f.read_bytes().decode("utf-8", errors="replace")
                self.docs[uri], self.versions[uri] = Text(text), 1
                s.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
            self.census.files += len(files)
            await self.settle(list(self.docs), t0, "open")
            for uri in list(self.docs):
                await self.round(uri, "open")
                sites = edit_sites(self.docs[uri])
                if sites is None:
                    continue
                at, dead = sites
                t = time.perf_counter()
                self.change(uri, at, at, "x")
                await self.settle([uri], t, "insert")
                await self.round(uri, "insert")
                t = time.perf_counter()
                dead = min(dead, len(self.docs[uri].lines) - 2)
                if dead >= 0:
                    self.change(uri, {"line": dead, "character": 0},
                                {"line": dead + 1, "character": 0}, "")
                    await self.settle([uri], t, "delete")
                    await self.round(uri, "delete")
            self.context = ("shutdown", "", None, "end")
            await s.call("shutdown", None, self.args.timeout)
        except TimeoutError:  # initialize or shutdown unanswered: this project stops here
            self.fail("timeout", f"no response within {self.args.timeout:g} s")
        except (ConnectionError, KeyError, TypeError) as exc:
            await asyncio.sleep(0.2)
            self.check_stderr()
            self.fail("died", f"{type(exc).__name__}: {exc}; exit code {proc.returncode}")
            self.census.died.append(self.root.name)
        finally:
            if proc.returncode is None:
                proc.kill()
            await proc.wait()
            s.reader.cancel()
            await asyncio.sleep(0)
            drain.cancel()
            self.check_stderr()


# ---------------------------------------------------------------------- driver
def projects(root: Path, only: str | None, limit: int | None, seed: int) -> list[Path]:
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if only:
        names = set(only.split(","))
        dirs = [d for d in dirs if d.name in names]
    if limit is not None and limit < len(dirs):
        dirs = sorted(random.Random(seed).sample(dirs, limit))
    return dirs


async def census(dirs: list[Path], args: argparse.Namespace) -> Census:
    """Every project, `args.jobs` servers at a time (each project has its own server)."""
    out = Census()
    t0 = time.perf_counter()
    gate = asyncio.Semaphore(max(args.jobs, 1))
    done = 0

    async def one(d: Path) -> None:
        nonlocal done
        async with gate:
            t = time.perf_counter()
            run = ProjectRun(out, d, args)
            await run.run()
            done += 1
            if args.json:  # kept current, so a long census that is stopped still tells
                write_json(out, args.json)
            if args.progress:
                mine = sum(1 for f in out.failures if f.project == d.name)
                print(f"[{done}/{len(dirs)}] {d.name}: {mine} failures, "
                      f"{time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)

    await asyncio.gather(*(one(d) for d in dirs))
    out.seconds = time.perf_counter() - t0
    return out


def write_json(result: Census, path: Path) -> None:
    fig = result.figures()
    fig["failures_all"] = [f.__dict__ for f in result.failures]
    path.write_text(json.dumps(fig, indent=1))


def summary(fig: dict[str, Any]) -> str:
    lines = [f"projects {fig['projects']}  files {fig['files']}  requests {fig['requests']}  "
             f"failures {fig['failures']} {fig['failures_by_kind']}  "
             f"servers died {len(fig['servers_died'])}  {fig['seconds']} s", "",
             f"{'method':36} {'n':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"]
    for method, v in fig["latency"].items():
        lines.append(f"{method:36} {v['n']:>7} {v['p50_ms']:>8} {v['p99_ms']:>8} "
                     f"{v['max_ms']:>8}")
    if fig["groups"]:
        lines += ["", "failures by class (count, projects): method / kind / message"]
    for g in fig["groups"]:
        first = g["first"]
        lines.append(f"{g['count']:>5} {g['projects']:>4}  {g['method']} / {g['kind']} / "
                     f"{g['message']}")
        lines.append(f"{'':11}first: {first['project']}/{first['file']} "
                     f"{first['position'] or ''} [{first['phase']}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="folder of project folders")
    ap.add_argument("--only", help="comma-separated project names")
    ap.add_argument("--limit", type=int, help="a random sample of this many projects")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--members", type=int, default=40,
                    help="identifier starts after . -> :: sampled per file and round")
    ap.add_argument("--random", type=int, default=20, help="random offsets per file and round")
    ap.add_argument("--actions", type=int, default=10, help="diagnostics per file asked for fixes")
    ap.add_argument("--max-files", type=int, default=60, help="source files opened per project")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds a request may take")
    ap.add_argument("--jobs", type=int, default=1, help="projects run at the same time")
    ap.add_argument("--json", type=Path, help="write the figures and failure groups here")
    ap.add_argument("--progress", action="store_true", help="one line per project on stderr")
    args = ap.parse_args(argv)
    dirs = projects(args.dir, args.only, args.limit, args.seed)
    if not dirs:
        print(f"no project folders under {args.dir}", file=sys.stderr)
        return 2
    result = asyncio.run(census(dirs, args))
    fig = result.figures()
    print(summary(fig))
    if args.json:
        write_json(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
