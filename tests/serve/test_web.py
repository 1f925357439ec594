"""``panelbot web``: the terminal app in a real headless Chromium (Debian's, driven by playwright: no browser
download), and the server's guards (loopback Host, same-origin socket, the key) over real HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import ServerProcess, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
QUESTION = "How do you deal with a KV cache that keeps growing?"

# Hands the page's xterm.js terminal to the test: textual-serve's page keeps it in a closure, and its
# constructor sets ``this.fitAddon`` right after ``this.terminal``; a setter on Object.prototype sees that
# assignment once, keeps the object and steps aside.
_CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  set(value) {
    if (this.terminal && !window.__panelbotTerminal) window.__panelbotTerminal = this.terminal;
    Object.defineProperty(this, "fitAddon", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
_SCREEN_TEXT = """() => {
  const t = window.__panelbotTerminal;
  if (!t) return "";
  const b = t.buffer.active, rows = [];
  for (let y = 0; y < b.length; y++) rows.push(b.getLine(y).translateToString(true));
  return rows.join("\\n");
}"""


@pytest.fixture
def start_web(
    isolated_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[..., ServerProcess]]:
    """Start ``panelbot web --port <free> EXTRA...`` and wait until it serves; stopped after the test."""
    started: list[ServerProcess] = []

    def start(*extra: str, env: dict[str, str] | None = None) -> ServerProcess:
        port = free_port()
        web = ServerProcess(
            ["web", "--port", str(port), *extra], {**isolated_env, **(env or {})}, port, tmp_path
        )
        started.append(web)
        web.wait_ready("/static/css/xterm.css")
        return web

    yield start
    for web in started:
        web.stop()


def _expected_quote_ids(env: dict[str, str]) -> list[str]:
    r = subprocess.run(
        [sys.executable, "-m", "panelbot", "ask", "--offline", "--json", "--no-log", QUESTION],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return [q["id"] for q in json.loads(r.stdout)["quotes"]]


def _wait_for(page, predicate: Callable[[str], bool], timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = page.evaluate(_SCREEN_TEXT)
        if predicate(text):
            return text
        time.sleep(0.25)
    raise AssertionError(f"the page never showed what was awaited; it shows:\n{text}")


@pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="needs Debian's chromium (apt-get install chromium)"
)
def test_the_app_answers_in_headless_chromium(start_web, isolated_env, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    expected = _expected_quote_ids(isolated_env)
    web = start_web()
    elsewhere: list[
        str
    ] = []  # any request the page makes beyond this server (fonts, scripts): none

    def only_here(route) -> None:
        url = route.request.url
        if url.startswith(web.url + "/"):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(_CATCH_TERMINAL)
            page.route("**/*", only_here)
            page.goto(web.url + "/")
            _wait_for(page, lambda s: "Ask the panel anything" in s)
            page.locator(".xterm-screen").click(position={"x": 600, "y": 745})
            page.keyboard.type(QUESTION)
            page.keyboard.press("Enter")
            shown = _wait_for(page, lambda s: all(f"[{i}]" in s for i in expected))
            shot = tmp_path / "panelbot-web.png"
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    print(f"\nscreenshot of panelbot web answering: {shot}")
    assert shot.stat().st_size > 10_000
    assert f"You  {QUESTION}" in shown  # the question as the app echoes it
    assert elsewhere == []
    # the conversation went into the same history the terminal app and `panelbot history` use
    r = subprocess.run(
        [sys.executable, "-m", "panelbot", "history", "--json"],
        capture_output=True,
        text=True,
        env=isolated_env,
        timeout=60,
    )
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 1, r.stdout + r.stderr


def test_a_non_loopback_address_needs_the_key(run_cli) -> None:
    r = run_cli("web", "--host", "0.0.0.0", "--port", str(free_port()))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "PANELBOT_SERVE_KEY" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_bad_panel_fails_before_serving(run_cli) -> None:
    r = run_cli("web", "--panel", "no-such-panel", "--port", str(free_port()))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "no-such-panel" in r.stderr


def test_only_loopback_hosts_and_the_page_own_socket(start_web) -> None:
    web = start_web()
    page = httpx.get(web.url + "/", timeout=10)
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert f"ws://127.0.0.1:{web.port}/ws" in page.text  # the socket's address follows the page's
    # a DNS-rebinding page (its name now resolving to 127.0.0.1) is not served
    assert httpx.get(web.url + "/", headers={"Host": "evil.example"}, timeout=10).status_code == 403
    ws_headers = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13"}
    ws_headers["Sec-WebSocket-Key"] = "dGhlIHNhbXBsZSBub25jZQ=="
    foreign = httpx.get(
        web.url + "/ws", headers={**ws_headers, "Origin": "http://evil.example"}, timeout=10
    )
    assert foreign.status_code == 403
    with httpx.stream(
        "GET", web.url + "/ws", headers={**ws_headers, "Origin": web.url}, timeout=10
    ) as own:
        assert own.status_code == 101


def test_the_key_sets_a_cookie_once_then_every_request_needs_it(start_web) -> None:
    key = "s3cret-web-key"
    web = start_web(env={"PANELBOT_SERVE_KEY": key})
    assert httpx.get(web.url + "/", timeout=10).status_code == 401
    assert httpx.get(web.url + "/static/js/textual.js", timeout=10).status_code == 401
    assert httpx.get(web.url + "/?key=wrong", timeout=10).status_code == 401
    with httpx.Client(base_url=web.url, timeout=10) as browser:
        first = browser.get(f"/?key={key}")
        assert first.status_code == 303 and first.headers["location"] == "/"
        cookie = first.headers["set-cookie"]
        assert key not in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert browser.get("/").status_code == 200  # the cookie now
        assert browser.get("/static/css/xterm.css").status_code == 200
    bearer = {"Authorization": f"Bearer {key}"}
    assert httpx.get(web.url + "/", headers=bearer, timeout=10).status_code == 200
    out = web.stop()
    assert key not in out


def test_behind_a_reverse_proxy_the_public_url_is_the_page_own(start_web) -> None:
    web = start_web("--public-url", "https://panel.example.org/")
    page = httpx.get(web.url + "/", timeout=10)
    assert "wss://panel.example.org/ws" in page.text
    ws_headers = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13"}
    ws_headers["Sec-WebSocket-Key"] = "dGhlIHNhbXBsZSBub25jZQ=="
    with httpx.stream(
        "GET",
        web.url + "/ws",
        headers={**ws_headers, "Origin": "https://panel.example.org"},
        timeout=10,
    ) as proxied:
        assert proxied.status_code == 101
    other = {**ws_headers, "Origin": "https://evil.example"}
    assert httpx.get(web.url + "/ws", headers=other, timeout=10).status_code == 403


def test_a_public_url_must_be_an_address(run_cli) -> None:
    r = run_cli("web", "--public-url", "panel.example.org", "--port", str(free_port()))
    assert r.returncode == 2 and "--public-url" in r.stderr and r.stderr.count("\n") == 1
