"""``panelbot serve --help`` names every endpoint the server answers."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")


def test_serve_help_names_every_endpoint_the_server_answers(run_cli):
    from starlette.routing import Route

    from panelbot.serve.openai_api import create_app

    app = create_app()
    served = {
        (method, route.path)
        for route in app.routes
        if isinstance(route, Route) and route.path.startswith("/v1/") and "{" not in route.path
        for method in (route.methods or ()) - {"HEAD"}
    }
    assert ("POST", "/v1/responses") in served  # the endpoint the help once left out
    proc = run_cli("serve", "--help")
    assert proc.returncode == 0, proc.stderr
    text = re.sub(r"\s+", " ", proc.stdout)
    for method, path in sorted(served):
        assert f"{method} {path}" in text, (method, path)
