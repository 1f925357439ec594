"""What a new user's trial (round 3) found in the app: a discussion exported is headed as one."""

from __future__ import annotations

import pytest

from .conftest import type_and_send
from .test_discussion_tui import WIDE, discussing, real

pytestmark = pytest.mark.asyncio


async def test_an_exported_discussion_is_headed_discussion_not_quote_search(
    make_app, tmp_path
) -> None:  # noqa: ANN001
    """/discuss open source, then /export: the host's question and "Where they meet" were headed
    "### Quote search" (the heading of /quote's results); ``history show`` calls them "Discussion"."""
    app = real(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await discussing("/discuss open source")(pilot)
        await type_and_send(pilot, f"/export {tmp_path / 'out.md'}")
        exported = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "Where they meet:" in exported, exported
    assert "### Quote search" not in exported, exported
    assert "### Discussion" in exported, exported
