"""The LSP-free pieces: settings layering, project and reference lookup, the edit store, and
the LLM suggestion cleanup and cache."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import tomllib

from ascend_tools.catalog import load_catalog
from ascend_tools.config import write_reference
from kernelgen_lm.complete.llm import SuggestionCache, clean_suggestion
from kernelgen_lm.train.store import SCHEMA_VERSION, EditStore, StoreError
from server.lsp.config import resolve
from server.lsp.project import find_reference, find_root
from server.lsp.semantic import delta


def test_settings_layers_override_the_environment_and_bad_values_are_skipped() -> None:
    env = {"KERNELGEN_LLM_BASE_URL": "http://h:8000", "KERNELGEN_LLM_MODEL": "m",
           "KERNELGEN_LLM_API_KEY": "sk-env"}
    s, problems = resolve({"chip": "ascend310p", "lintDebounceMs": 5},
                          {"kernelgen": {"completion": {"backend": "llm"}, "chip": "nochip",
                                         "validateOnSave": "sometimes"}}, env=env)
    assert s.chip == "ascend310p" and s.lint_debounce_ms == 5
    assert s.completion.backend == "llm" and s.validate_on_save is True
    assert s.llm.base_url == "http://h:8000" and s.llm_env()["KERNELGEN_LLM_API_KEY"] == "sk-env"
    assert len(problems) == 2 and any("chip" in p for p in problems)
    assert "sk-env" not in str(s.public()) and "sk-env" not in repr(s)
    assert resolve("not an object", env={})[1]


def test_project_root_and_reference_lookup(tmp_path: Path) -> None:
    project = tmp_path / "op"
    (project / "op_kernel").mkdir(parents=True)
    kernel = project / "op_kernel" / "k.cpp"
    kernel.write_text("")
    assert find_root(kernel) == (project, True)
    lone = tmp_path / "lone" / "k.cpp"
    lone.parent.mkdir()
    lone.write_text("")
    assert find_root(lone) == (lone.parent, False)
    (lone.parent / "k_host.cpp").write_text("namespace ops { OP_ADD(K); }\n")
    lone.write_text('extern "C" __global__ __aicore__ void k(GM_ADDR x) {}\n')
    assert find_root(lone) == (lone.parent, True)  # a flat OpDef project
    (lone.parent / "k_host.cpp").unlink()
    assert find_reference(project) is None
    (project / "ref.py").write_text("")
    assert find_reference(project) == (project / "ref.py").resolve()
    other = project / "refs" / "other.py"
    other.parent.mkdir()
    other.write_text("")
    (project / "kernelgen.toml").write_text("[lint]\nchip = \"ascend910b2\"\n")
    write_reference(project, other)
    data = tomllib.loads((project / "kernelgen.toml").read_text())
    assert data["reference"] == "refs/other.py" and data["lint"]["chip"] == "ascend910b2"
    assert find_reference(project) == other.resolve()
    write_reference(project, project / "ref.py")  # replaced, not duplicated
    text = (project / "kernelgen.toml").read_text()
    assert text.count("reference =") == 1 and find_reference(project) == (
        project / "ref.py").resolve()


def test_edit_store_is_wal_versioned_and_survives_reopening(tmp_path: Path) -> None:
    store = EditStore.in_workspace(tmp_path)
    store.add("completion", "k.cpp", "DataCopy(x, y, n);", prefix="a", suffix="b",
              source="embedded")
    store.add("generated", "op/k.cpp", "// kernel", validation={"ok": True}, meta={"op": "add"})
    store.close()
    again = EditStore.in_workspace(tmp_path)
    rows = again.edits()
    assert [r.kind for r in rows] == ["completion", "generated"]
    assert rows[1].validation == {"ok": True} and rows[1].meta == {"op": "add"}
    assert again.export_jsonl(tmp_path / "edits.jsonl") == 2
    again.close()
    with sqlite3.connect(tmp_path / ".kernelgen" / "edits.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="schema version"):
        EditStore.in_workspace(tmp_path)


def test_llm_suggestions_are_cut_at_the_scope_end_and_filtered() -> None:
    cat = load_catalog()
    assert clean_suggestion("Add(z, x, y, n);\n    }\n    void Other() {}", "", set(), cat) == (
        "Add(z, x, y, n);")
    assert clean_suggestion("x;", "", set(), cat) is None  # under 4 characters
    assert clean_suggestion("inQueue.EnQue(x);", "\n    inQueue.EnQue(x);\n}", set(), cat) is None
    assert clean_suggestion("FancyAdd(z, x, y);", "", set(), cat) is None  # unknown API
    assert clean_suggestion("FancyAdd(z, x, y);", "", {"FancyAdd"}, cat) == "FancyAdd(z, x, y);"


def test_suggestion_cache_follows_the_user_typing_along() -> None:
    cache = SuggestionCache(size=2)
    cache.put("abc", "DataCopy(x);")
    assert cache.get("abc") == "DataCopy(x);"
    assert cache.get("abcData") == "Copy(x);"
    assert cache.get("abcX") is None
    cache.put("d", "1234")
    cache.put("e", "5678")
    assert cache.get("abc") is None  # evicted (least recently used)


def test_free_completion_leaves_out_apis_the_chip_lacks() -> None:
    from ascend_tools.chips import get_chip
    from kernelgen_lm.complete.members import complete

    cat = load_catalog()
    on_910b = [c.label for c in complete("    DataCo", None, "k.cpp", 0, cat,
                                         get_chip("ascend910b2")).items]
    on_910 = [c.label for c in complete("    DataCo", None, "k.cpp", 0, cat,
                                        get_chip("ascend910")).items]
    assert "DataCopyPad" in on_910b and "DataCopy" in on_910b
    assert "DataCopyPad" not in on_910 and "DataCopy" in on_910


@pytest.mark.asyncio
async def test_finished_notification_handlers_are_not_kept_by_the_protocol() -> None:
    """pygls 2.1 keeps every async notification's future (with its params) forever: a server
    that grows with each keystroke. KernelgenProtocol lets them go once done."""
    import asyncio

    from pygls.lsp.server import LanguageServer

    from server.lsp.protocol import KernelgenProtocol

    ls = LanguageServer("t", "0", protocol_cls=KernelgenProtocol)
    seen: list[int] = []

    @ls.feature("kernelgen/ping")
    async def ping(params):  # unannotated: pygls would structure params by the annotation
        await asyncio.sleep(0)
        seen.append(1)

    for _ in range(200):
        ls.protocol._handle_notification("kernelgen/ping", None)
    for _ in range(500):  # the handlers finish within a few loop turns
        if len(seen) == 200:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)
    assert len(seen) == 200
    assert ls.protocol._request_futures == {}



@pytest.mark.asyncio
async def test_shutdown_cancels_a_pending_command_without_breaking_the_future_table() -> None:
    """pygls' shutdown cancels every pending future while iterating the table; a command's
    result future runs its callbacks inside `cancel()`, so dropping it there must wait."""
    import asyncio

    from pygls.lsp.server import LanguageServer

    from server.lsp.protocol import KernelgenProtocol

    ls = LanguageServer("t", "0", protocol_cls=KernelgenProtocol)
    never = asyncio.Event()

    async def wait_forever() -> None:
        await never.wait()

    def command(params):  # unannotated: a generator handler as pygls runs commands
        return (yield wait_forever, (), None)

    ls.protocol._execute_handler("cmd-1", command, lambda _f: None, args=(None,))
    await asyncio.sleep(0.01)
    assert len(ls.protocol._request_futures) == 2  # the command and what it waits on
    list(ls.protocol.lsp_shutdown())  # raised "dictionary changed size during iteration"
    await asyncio.sleep(0.05)
    assert ls.protocol._request_futures == {}


def test_semantic_token_delta_of_equal_results_is_empty_and_otherwise_one_edit() -> None:
    assert delta([1, 2, 3], [1, 2, 3]) == []
    (edit,) = delta([0, 1, 2, 3, 4], [0, 1, 9, 9, 3, 4])
    assert (edit.start, edit.delete_count, edit.data) == (2, 1, [9, 9])
    (cut,) = delta([5, 5, 5], [5, 5])
    assert (cut.start, cut.delete_count, cut.data) == (2, 1, [])
