"""Key redaction, exactly: the spellings searched for, the fragment length, merged masks, how much a
stream holds back, and the registry every exit consults."""

from __future__ import annotations

from panelbot import redact
from panelbot.redact import MASK, Redactor, StreamRedactor, key_forms, register, scrub


def test_key_forms_are_raw_repr_json_and_url_escaped_lowercased() -> None:
    assert key_forms('a"b\\c\r\u00e9/') == [
        'a"b\\c\r\u00e9/',
        'a"b\\\\c\\r\u00e9/',
        'a\\"b\\\\c\\r\\u00e9/',
        'a\\"b\\\\c\\r\u00e9/',
        "a%22b%5cc%0d%c3%a9%2f",
    ]
    assert key_forms("AbC") == ["abc"]
    assert key_forms("") == []


def test_fragments_cases_and_merging() -> None:
    r = Redactor("abcdefgh")
    assert (r.active, r.window) == (True, 6)
    assert r.redact("abcdefghabcdefgh") == MASK == "***"  # touching matches: one mask
    assert r.redact("xxbcdefgyy") == "xx***yy"  # a 6-character fragment
    assert r.redact("abcde fgh") == "abcde fgh"  # 5 characters are not a fragment
    assert r.redact("ABCDEFGH and AbCdEf") == "*** and ***"
    assert r.spans("..abcdefg..bcdefgh") == [(2, 9), (11, 18)]
    assert r.leaks("zzcdefghzz") and not r.leaks("zz")
    assert (
        Redactor("k\u0130y-long-key").redact("K\u0130Y-LONG-KEY") == "***"
    )  # a case change that grows
    assert Redactor('sk"quoted"key').redact('{"k": "sk\\"quoted\\"key"}') == '{"k": "***"}'


def test_short_and_tiny_keys() -> None:
    assert (Redactor("ab").active, Redactor("abc").active) == (False, True)
    assert (
        Redactor("abcde").window == 5 and Redactor("abcde").redact("xabcdex abcd") == "x***x abcd"
    )
    assert Redactor("abcdef").redact("abcdef abcde") == "*** abcde"
    assert Redactor(None).redact("x") == "x" and Redactor(None).spans("x") == []


def test_a_stream_holds_back_exactly_a_fragment_less_one() -> None:
    s = StreamRedactor(Redactor("abcdefgh"))
    assert [s.feed("hello ab"), s.feed("cdefgh world"), s.feed("!"), s.flush()] == [
        "hel",
        "lo *** ",
        "w",
        "orld!",
    ]
    s = StreamRedactor(Redactor("abcdefgh"))
    assert [s.feed("xxabcdefgh"), s.feed(""), s.flush()] == ["xx", "", "***"]
    s = StreamRedactor(Redactor("abcdefgh"))
    assert [s.feed("abc"), s.feed("def"), s.feed("gh tail"), s.flush()] == ["", "", "***", " tail"]
    assert s.flush() == ""
    off = StreamRedactor(Redactor("x"))
    assert off.feed("xyz") == "xyz" and off.flush() == ""


def test_the_registry(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(redact, "_REGISTERED", {})
    assert scrub("my-secret-key-123") == "my-secret-key-123"
    r = register("my-secret-key-123")
    assert register("my-secret-key-123") is r
    register("x")  # not secret: not registered
    assert list(redact._REGISTERED) == ["my-secret-key-123"]
    assert scrub("a my-secret-key-123 b x") == "a *** b x"
