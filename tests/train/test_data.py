"""Ascend-CoT data: JSONL and data card, dedup and decontamination, imports through a mapping
and from project folders, the edit store's migration and the preference pairs its samples
make, and the registry's pointer. (The seed set's reasoning is checked in test_refresh.py,
the file that builds the seed slice, so a parallel run builds it once.)"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from kernelgen_lm.train.formats import preference_pairs, prompt_of, sft_examples
from kernelgen_lm.train.from_store import store_records
from kernelgen_lm.train.importer import import_records, parse_mapping
from kernelgen_lm.train.records import (
    SCHEMA_VERSION,
    Answer,
    CotRecord,
    DataError,
    Instruction,
    Metadata,
    Validation,
    decontaminate,
    dedup,
    read_dataset,
    read_jsonl,
    to_hf_dataset,
    write_jsonl,
)
from kernelgen_lm.train.registry import (
    Registry,
    RegistryError,
    VersionMeta,
    no_regression,
    served_version,
)
from kernelgen_lm.train.seed import is_held_out
from kernelgen_lm.train.store import EditStore
from server.cli import main
from tests.train.conftest import REPO, SEED_STUB, STUBS


def _rec(text: str, answer: str = "a", task: str = "", ref: str | None = None) -> CotRecord:
    return CotRecord(instruction=Instruction(kind="qa", text=text, reference=ref),
                     answer=Answer(text=answer), metadata=Metadata(origin="import", task=task))


def test_dedup_decontamination_and_jsonl(tmp_path: Path, held) -> None:
    held_stub = next(p for p in sorted(STUBS.glob("*.py")) if is_held_out(p.stem))
    reformatted = "# a comment\n" + held_stub.read_text().replace("\n", "\n\n")
    records = [_rec("q1"), _rec("q1"), _rec("q2", task=held_stub.stem),
               _rec("q3", ref=reformatted), _rec("q4", ref=SEED_STUB.read_text())]
    kept, dropped = decontaminate(dedup(records), held)
    assert [r.instruction.text for r in kept] == ["q1", "q4"] and dropped == 2
    path = tmp_path / "d.jsonl"
    assert write_jsonl(kept, path) == 2
    assert read_jsonl(path) == kept
    hf = to_hf_dataset(kept)
    assert hf.num_rows == 2 and json.loads(hf[1]["instruction"])["text"] == "q4"
    line = json.loads(path.read_text().splitlines()[0])
    assert set(line) == {"schema_version", "instruction", "reasoning", "answer", "metadata"}
    line["schema_version"] = SCHEMA_VERSION + 1
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(DataError, match="schema version"):
        read_jsonl(path)


def test_import_through_a_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "mine.jsonl"
    rows = [
        {"q": "write add", "meta": {"cot": "tiles of 64"},
         "resp": '<reasoning>ignored</reasoning>\n'
                 '<file path="op_kernel/add.cpp">\nint a;\n</file>'},
        {"q": "what is UB?", "meta": {"cot": ""}, "resp": "the unified buffer"},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mapping = parse_mapping('{"instruction": "q", "reasoning": "meta.cot", "answer": "resp", '
                            '"licence": "=CC-BY-4.0"}')
    got = import_records(src, mapping)
    assert got[0].instruction.kind == "generate" and got[0].reasoning == "tiles of 64"
    assert got[0].answer.files == {"op_kernel/add.cpp": "int a;\n"}
    assert got[1].instruction.kind == "qa" and got[1].answer.text == "the unified buffer"
    assert {r.metadata.licence for r in got} == {"CC-BY-4.0"}
    with pytest.raises(DataError, match=r"mine\.jsonl:1: field 'nope'"):
        import_records(src, parse_mapping('{"instruction": "nope", "answer": "resp"}'))
    out = tmp_path / "ds"
    code = main(["train", "data", "-o", str(out), "--limit", "0", "--catalog-limit", "0",
                 "--import", str(src), "--mapping", json.dumps(mapping), "--format", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["counts"] == {"import": 2}
    assert "| CC-BY-4.0 | 2 |" in (out / "DATACARD.md").read_text()
    for bad in (["--mapping", '{"answer": "resp"}'], ["--mapping", "not json"]):
        assert main(["train", "data", "-o", str(out), "--limit", "0", "--import", str(src),
                     *bad]) == 2
        assert "kernelgen train:" in capsys.readouterr().err


@pytest.mark.slow  # two validations on the emulator: about 20 s of CPU
def test_import_a_folder_of_projects_validates_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "tasks"
    good = tasks / "add_unaligned"
    shutil.copytree(REPO / "bench" / "examples" / "add_unaligned", good)
    bad = tasks / "add_broken"
    shutil.copytree(good, bad)
    kernel = bad / "op_kernel" / "add_custom.cpp"
    kernel.write_text(kernel.read_text().replace("Add(", "Addd(", 1))
    out = tmp_path / "ds"
    assert main(["train", "data", "-o", str(out), "--limit", "0", "--catalog-limit", "0",
                 "--import", str(tasks), "--mapping", "projects", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {"import": 2}
    recs = {r.metadata.task: r for r in read_dataset(out)}
    assert recs["add_unaligned"].metadata.validation.ok is True
    assert recs["add_broken"].metadata.validation.compiled is False
    assert "op_kernel/add_custom.cpp" in recs["add_broken"].answer.files
    pairs = preference_pairs(list(recs.values()))
    assert pairs == []  # different tasks: no pair across them


V1_SCHEMA = """
CREATE TABLE edits (id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('completion', 'generated')), created REAL NOT NULL,
    file TEXT NOT NULL, prefix TEXT NOT NULL DEFAULT '', suffix TEXT NOT NULL DEFAULT '',
    suggestion TEXT NOT NULL, source TEXT NOT NULL DEFAULT '', validation TEXT,
    meta TEXT NOT NULL DEFAULT '{}');
INSERT INTO edits (kind, created, file, prefix, suffix, suggestion)
    VALUES ('completion', 1.0, 'k.cpp', 'void f() {', '}', 'DataCopy(x, y, n);');
PRAGMA user_version=1;
"""


def test_store_v1_migrates_and_samples_make_preference_pairs(tmp_path: Path) -> None:
    path = tmp_path / "edits.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(V1_SCHEMA)
    store = EditStore(path)
    meta = {"task": "add", "op": "add_custom", "chip": "ascend910b2", "prompt": "write add"}
    good = '<reasoning>r</reasoning>\n<file path="op_kernel/add_custom.cpp">\nok\n</file>'
    store.add("sample", "add.cpp", good, validation={"ok": True, "compile": {"ok": True}},
              meta=meta)
    store.add("sample", "add.cpp", "no files here", validation={"ok": False}, meta=meta)
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    records = store_records(path)
    assert [r.metadata.origin for r in records] == [
        "store-completion", "store-sample", "store-sample"]
    fim = records[0]
    assert fim.instruction.prefix == "void f() {" and fim.answer.text == "DataCopy(x, y, n);"
    assert "<|cursor|>" in prompt_of(fim)[-1]["content"]
    assert records[2].metadata.validation.stage == "parse"  # unparsable answer
    pairs = preference_pairs(records)
    assert len(pairs) == 1 and pairs[0].task == "add"
    assert "ok" in pairs[0].chosen[0]["content"]
    assert pairs[0].rejected[0]["content"] == "no files here"
    # The failed sample feeds only the pair, never SFT.
    assert len(sft_examples(records)) == 2


def test_a_markedly_faster_validated_kernel_is_preferred() -> None:
    def gen(speedup: float, body: str) -> CotRecord:
        return CotRecord(
            instruction=Instruction(kind="generate", text="write add", chip="ascend910b2"),
            answer=Answer(files={"op_kernel/add.cpp": body}),
            metadata=Metadata(origin="store-sample", task="add", speedup=speedup,
                              validation=Validation(ok=True)))

    fast, slow, close = gen(2.0, "fast"), gen(1.0, "slow"), gen(1.95, "close")
    pairs = preference_pairs([slow, close, fast])
    assert len(pairs) == 1  # 1.95 is within 10 % of 2.0: no preference
    assert "fast" in pairs[0].chosen[0]["content"] and "slow" in pairs[0].rejected[0]["content"]


def test_bad_refresh_input_is_exit_code_2(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    reg = str(tmp_path / "reg")
    assert main(["train", "refresh", "--base", "tiny", "--registry", reg]) == 2
    assert "no training data" in capsys.readouterr().err
    assert main(["train", "refresh", "--base", "no-such-model", "--registry", reg]) == 2
    assert "not a model directory" in capsys.readouterr().err
    assert main(["train", "refresh", "--base", "tiny", "--registry", reg, "--data",
                 str(tmp_path / "missing")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["train", "refresh", "--base", "tiny", "--registry", reg, "--grpo-steps", "1",
                 "--grpo-generations", "1"]) == 2
    assert "--grpo-generations >= 2" in capsys.readouterr().err
    assert main(["train", "refresh", "--base", "tiny", "--registry", reg, "--vllm-url",
                 "localhost:8000"]) == 2
    assert "must start with http://" in capsys.readouterr().err
    assert main(["model", "eval", "--registry", reg]) == 2
    assert not (tmp_path / "reg" / "versions").exists()


def _stage(root: Path, name: str) -> Path:
    d = root / name
    (d / "model").mkdir(parents=True)
    (d / "model" / "config.json").write_text("{}")
    return d


def _meta(metrics: dict[str, float]) -> VersionMeta:
    return VersionMeta(created=0, base="tiny", kind="merged", serve_path="model",
                       data_hash="h", metrics=metrics)


def test_registry_promote_rollback_and_the_regression_rule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reg = Registry(tmp_path / "reg")
    v1 = reg.add(_stage(tmp_path, "a"), _meta({"gen_pass_rate": 0.5, "inline_exact": 0.2}))
    reg.promote(v1)
    worse = {"gen_pass_rate": 0.25, "inline_exact": 0.3}
    v2 = reg.add(_stage(tmp_path, "b"), _meta(worse))
    ok, why = no_regression(worse, reg.meta(reg.promoted()).metrics)
    assert (v1, v2) == ("v0001", "v0002") and not ok and "gen_pass_rate" in why
    assert no_regression({"gen_pass_rate": 0.5, "inline_exact": 0.2}, reg.meta(v1).metrics)[0]
    assert main(["model", "promote", v2, "--registry", str(reg.root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"promoted": v2, "history": [v1], "servers": []}
    assert (reg.root / "current").resolve() == (reg.versions_dir / v2).resolve()
    served = served_version(str(reg.root / "current" / "model"))
    assert served is not None and (served.version, served.promoted) == (v2, True)
    assert served_version(str(reg.versions_dir / v1 / "model")).promoted is False
    assert served_version("Qwen/Qwen2.5-Coder-7B-Instruct") is None
    assert main(["model", "list", "--registry", str(reg.root), "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["versions"]
    assert [(v["version"], v["promoted"]) for v in listed] == [(v1, False), (v2, True)]
    assert set(listed[0]) >= {"version", "promoted", "metrics", "created"}
    assert main(["model", "rollback", "--registry", str(reg.root)]) == 0
    assert reg.promoted() == v1 and (reg.root / "current").resolve().name == v1
    assert main(["model", "rollback", "--registry", str(reg.root)]) == 2
    assert "nothing to roll back" in capsys.readouterr().err
    assert main(["model", "promote", "v0009", "--registry", str(reg.root)]) == 2
    with pytest.raises(RegistryError, match="no version"):
        reg.meta("v0009")
