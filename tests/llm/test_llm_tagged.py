"""The tagged answer format: what the parser accepts, repairs and refuses."""

from __future__ import annotations

import pytest

from kernelgen_lm.llm.tagged import AnswerFormatError, parse_answer, render_files


def test_reasoning_and_files_are_separated() -> None:
    answer = (
        "<reasoning>\ntile 128 floats\n</reasoning>\n"
        '<file path="op_kernel/add_custom.cpp">\nint k;\n</file>\n'
        '<file path="op_host/add_custom_tiling.h">\n#pragma once\n</file>'
    )
    parsed = parse_answer(answer)
    assert parsed.reasoning == "tile 128 floats"
    assert parsed.files == {
        "op_kernel/add_custom.cpp": "int k;\n",
        "op_host/add_custom_tiling.h": "#pragma once\n",
    }


def test_tolerates_quotes_case_fences_crlf_and_dot_slash() -> None:
    answer = (
        "Sure! Here it is.\r\n<FILE name='./k.cpp'>\r\n```cpp\r\nint a;\r\n```\r\n</File>\r\n"
        "<file path=op_host/x.h>\nint b;\n</file >"
    )
    assert parse_answer(answer).files == {"k.cpp": "int a;\n", "op_host/x.h": "int b;\n"}


def test_tags_mentioned_inside_reasoning_are_not_files() -> None:
    answer = (
        '<think>I will write <file path="../evil.cpp"> later</think><file path="a.cpp">x\n</file>'
    )
    assert list(parse_answer(answer).files) == ["a.cpp"]


def test_fenced_blocks_with_a_path_are_accepted_without_tags() -> None:
    answer = "```cpp add_custom.cpp\nint a;\n```\ntext\n```cpp\n// file: op_host/t.h\nint b;\n```"
    files = parse_answer(answer).files
    assert files["add_custom.cpp"] == "int a;\n"
    assert files["op_host/t.h"].endswith("int b;\n")


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../outside.cpp", "leaves the project"),
        ("op_kernel/../../x.cpp", "leaves the project"),
        ("/etc/passwd.h", "absolute"),
        ("C:/x.cpp", "absolute"),
        ("~/x.cpp", "absolute"),
        ("run.sh", r"not a C\+\+ source"),
    ],
)
def test_paths_that_escape_or_are_not_sources_are_rejected(path: str, why: str) -> None:
    with pytest.raises(AnswerFormatError, match=why):
        parse_answer(f'<file path="{path}">\nint a;\n</file>')


def test_unclosed_block_is_rejected_with_reason() -> None:
    with pytest.raises(AnswerFormatError, match="not closed"):
        parse_answer('<file path="a.cpp">\nint a;\n')


def test_answer_without_files_is_rejected() -> None:
    with pytest.raises(AnswerFormatError, match="no <file"):
        parse_answer("I think the kernel should add things.")


def test_render_then_parse_round_trips() -> None:
    files = {"op_kernel/a.cpp": "int a;\n", "op_host/a.cpp": "int b;\n"}
    assert parse_answer(render_files(files)).files == files
