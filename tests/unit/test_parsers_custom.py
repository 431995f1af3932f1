from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lintel.core.issues import ParseContext, sha256_hex
from lintel.languages.parsers import get_parser, is_known_parser, parser_names
from lintel.languages.parsers.base import ToolOutput

CTX = ParseContext(cwd="/ws", root="/ws")


def test_exit_zero_is_clean() -> None:
    result = get_parser("custom")(ToolOutput("all good\n", "", 0), CTX)
    assert result.recognized
    assert result.issues == []


def test_failure_is_one_custom_issue_signed_by_message_hash() -> None:
    result = get_parser("custom")(ToolOutput("contract broken\n", "\x1b[31mdetails\x1b[0m\n", 1), CTX)
    [issue] = result.issues
    assert issue.kind == "custom"
    assert issue.message == "contract broken\ndetails"
    assert issue.signature == "custom:" + sha256_hex("contract broken\ndetails")
    again = get_parser("custom")(ToolOutput("contract broken\n", "\x1b[31mdetails\x1b[0m\n", 1), CTX)
    assert again.issues[0].signature == issue.signature


def test_silent_failure_still_reported() -> None:
    [issue] = get_parser("custom")(ToolOutput("", "", 7), CTX).issues
    assert "exit code 7" in issue.message


def test_unknown_parser_falls_back_to_custom() -> None:
    assert not is_known_parser("no-such-thing")
    [issue] = get_parser("no-such-thing")(ToolOutput("x", "", 1), CTX).issues
    assert issue.kind == "custom"
    [issue] = get_parser(None)(ToolOutput("x", "", 1), CTX).issues
    assert issue.kind == "custom"


def test_every_registered_parser_imports() -> None:
    for name in parser_names():
        assert callable(get_parser(name))


@given(st.text(), st.text(), st.one_of(st.none(), st.integers(-300, 300)))
def test_every_parser_survives_random_input(stdout: str, stderr: str, code: int | None) -> None:
    for name in parser_names():
        result = get_parser(name)(ToolOutput(stdout, stderr, code, stdout), CTX)
        assert isinstance(result.issues, list)


def test_every_parser_name_is_its_familys() -> None:
    """The names each family declares (read without importing any family) and the family's own table agree, and
    no two families claim one name."""
    from lintel.languages.parsers import families

    declared = [name for family in families() for name in family.names]
    assert len(declared) == len(set(declared))
    for family in families():
        assert set(family.load()) == set(family.names)
    assert sorted(declared) == parser_names()
