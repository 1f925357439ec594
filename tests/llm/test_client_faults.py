"""Every fault against a real HTTP server on 127.0.0.1: one clear line naming the URL and the cause."""

from __future__ import annotations

import pytest

from panelbot.answer.llm.client import ChatClient, LLMError, answer_char_cap, parse_retry_after
from panelbot.errors import ConfigError

from .conftest import SECRET, run, settings, take_then_cancel
from .fakeserver import DEFAULT_ANSWER, FakeHTTPServer, refused_port, unanswering_port

MSGS = [{"role": "user", "content": "hi"}]


async def _complete(client: ChatClient) -> str:
    try:
        return await client.complete(MSGS)
    finally:
        await client.aclose()


def complete(url: str, **kw) -> str:
    return run(_complete(ChatClient(settings(url, **kw))))


def failure(url: str, **kw) -> LLMError:
    with pytest.raises(LLMError) as info:
        complete(url, **kw)
    err = info.value
    assert str(err).startswith(err.url + ": ")
    assert "\n" not in str(err)
    assert SECRET not in str(err) and SECRET[:8] not in str(err)
    return err


def test_streams_the_answer_and_sends_the_request(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("ok")) == DEFAULT_ANSWER
    (req,) = fake.state.requests
    assert req.path == "/b/ok/v1/chat/completions"
    assert req.headers["Authorization"] == f"Bearer {SECRET}"
    assert req.body["stream"] is True and req.body["model"] == "fake-model"
    assert (
        req.body["temperature"] == 0.0 and req.body["seed"] == 7 and req.body["max_tokens"] == 100
    )


def test_crlf_comments_and_keepalives(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("crlf")) == DEFAULT_ANSWER


def test_events_and_characters_split_across_reads(fake: FakeHTTPServer) -> None:
    fake.state.answer = "Na\u00efve \u2014 \u201cquoted\u201d \u65e5\u672c [dan-1]."
    assert complete(fake.url("dribble")) == fake.state.answer


def test_server_that_does_not_stream_answers_in_json(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("json-only")) == DEFAULT_ANSWER


def test_server_that_refuses_stream_is_asked_again_without(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("no-stream-400")) == DEFAULT_ANSWER
    assert [r.body["stream"] for r in fake.state.requests] == [True, False]


def test_parameters_the_model_refuses_are_adapted_once(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("strict-params")) == DEFAULT_ANSWER
    last = fake.state.requests[-1].body
    assert (
        last["max_completion_tokens"] == 100
        and "max_tokens" not in last
        and "temperature" not in last
    )
    assert fake.state.counts["strict-params"] == 3


def test_a_plain_400_is_not_retried(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("400"))
    assert (
        "HTTP 400: request refused (context too long (request by ***;" in err.cause
    )  # key echoed, masked
    assert (
        fake.state.counts["400"] == 1
        and SECRET not in err.cause
        and SECRET.upper() not in err.cause
    )


def test_stream_false_setting(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("ok"), stream=False) == DEFAULT_ANSWER
    assert fake.state.requests[0].body["stream"] is False


def test_no_key_no_authorization_header(fake: FakeHTTPServer) -> None:
    complete(fake.url("ok"), api_key="")
    assert "Authorization" not in fake.state.requests[0].headers


def test_model_discovered_when_not_set(fake: FakeHTTPServer) -> None:
    complete(fake.url("ok"), model="")
    assert [r.path for r in fake.state.requests] == ["/b/ok/v1/models", "/b/ok/v1/chat/completions"]
    assert fake.state.requests[1].body["model"] == "fake-model"


def test_connection_refused() -> None:
    err = failure(f"http://127.0.0.1:{refused_port()}/v1")
    assert err.kind == "refused" and "connection refused" in err.cause


def test_unknown_host() -> None:
    err = failure("http://panelbot-test.invalid/v1")  # RFC 6761: never resolves
    assert err.kind == "dns" and "unknown host 'panelbot-test.invalid'" in err.cause


def test_connect_timeout() -> None:
    with unanswering_port() as port:
        err = failure(f"http://127.0.0.1:{port}/v1", connect_timeout=0.3)
    assert err.kind == "timeout" and "connect timeout" in err.cause


def test_read_timeout_before_any_reply(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("stall-headers"), read_timeout=0.3)
    assert err.kind == "timeout" and "no reply within 0.3 s (read timeout)" in err.cause


def test_stall_mid_stream(fake: FakeHTTPServer) -> None:
    pieces: list[str] = []

    async def go() -> None:
        client = ChatClient(settings(fake.url("stall-mid"), read_timeout=1.0))
        try:
            async for p in client.stream(MSGS):
                pieces.append(p)
        finally:
            await client.aclose()

    with pytest.raises(LLMError) as info:
        run(go())
    assert pieces == ["I said "]
    assert "stalled mid-answer" in info.value.cause


def test_total_timeout(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("slow"), total_timeout=0.3)
    assert err.kind == "timeout" and "total timeout" in err.cause


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_says_key_wrong_and_never_prints_it(fake: FakeHTTPServer, status: int) -> None:
    err = failure(fake.url(str(status)))
    assert err.kind == "auth"
    assert "API key was refused" in err.cause and "$PANELBOT_API_KEY" in err.cause


def test_auth_failure_without_key_says_missing(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("401"), api_key="")
    assert "no API key is set" in err.cause


def test_unknown_model(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("404"), model="no-such-model")
    assert err.kind == "not-found" and "unknown model 'no-such-model'" in err.cause


def test_429_retries_honouring_retry_after(fake: FakeHTTPServer) -> None:
    fake.state.retry_after = "7"
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    async def go() -> str:
        return await _complete(ChatClient(settings(fake.url("429-once")), sleep=sleep))

    assert run(go()) == DEFAULT_ANSWER
    assert waits == [7.0] and fake.state.counts["429-once"] == 2


def test_429_gives_up_after_bounded_retries(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("429"), max_retries=2)
    assert err.kind == "rate-limit" and fake.state.counts["429"] == 3


def test_retry_after_too_long_fails_at_once(fake: FakeHTTPServer) -> None:
    fake.state.retry_after = "3600"
    err = failure(fake.url("503"))
    assert "retry after 3600 s" in err.cause and fake.state.counts["503"] == 1


def test_503_once_then_answer(fake: FakeHTTPServer) -> None:
    assert complete(fake.url("503-once")) == DEFAULT_ANSWER


def test_500_is_not_retried(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("500"))
    assert err.kind == "server" and "HTTP 500" in err.cause and fake.state.counts["500"] == 1


def test_non_json_body(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("html"))
    assert "not JSON (text/html)" in err.cause


def test_malformed_sse(fake: FakeHTTPServer) -> None:
    assert "malformed event" in failure(fake.url("malformed")).cause


@pytest.mark.parametrize("behaviour", ["truncated", "cut-mid-event"])
def test_truncated_sse(fake: FakeHTTPServer, behaviour: str) -> None:
    assert "truncated" in failure(fake.url(behaviour)).cause


@pytest.mark.parametrize("stream", [True, False])
def test_empty_choices(fake: FakeHTTPServer, stream: bool) -> None:
    assert "no choices" in failure(fake.url("empty-choices"), stream=stream).cause


def test_error_event_mid_stream(fake: FakeHTTPServer) -> None:
    assert "model overloaded" in failure(fake.url("error-event")).cause


def test_endless_answer_is_capped(fake: FakeHTTPServer) -> None:
    err = failure(fake.url("endless"), max_tokens=50)
    assert err.kind == "endless" and str(answer_char_cap(50)) in err.cause


def test_redirect_is_not_followed_so_the_key_stays_home(fake: FakeHTTPServer) -> None:
    other = FakeHTTPServer().start()
    try:
        fake.state.redirect_to = other.url("ok") + "/chat/completions"
        err = failure(fake.url("redirect"))
        assert err.kind == "redirect"
        assert other.state.requests == []
    finally:
        other.close()


def test_cancelling_the_consumer_closes_the_stream(fake: FakeHTTPServer) -> None:
    async def go() -> list[str]:
        client = ChatClient(settings(fake.url("slow")))
        got = await take_then_cancel(client.stream(MSGS), 2)
        await client.aclose()
        return got

    assert run(go())[:2] == ["w0 ", "w1 "]
    assert fake.state.disconnected.wait(5)


def test_bad_base_urls_are_config_errors() -> None:
    for url in ("", "ftp://x/v1", "127.0.0.1:8080", "http://user:pw@host/v1"):
        with pytest.raises(ConfigError):
            ChatClient(settings(url))


def test_repr_never_shows_the_key(fake: FakeHTTPServer) -> None:
    c = ChatClient(settings(fake.url()))
    assert SECRET not in repr(c) and SECRET not in repr(c.settings)


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
