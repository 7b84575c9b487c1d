"""The websocket client of tests/streamlit_ws.py against the real server: a page opened, its main control moved,
the session resumed on a new socket, all without a browser."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import APP
from tests.e2e.test_browser import streamlit_server
from tests.streamlit_ws import Session


@pytest.fixture(scope="module")
def server():
    with streamlit_server(APP, "ws-client-server.log") as (url, _):
        yield url


def _metric(run, label: str) -> str:
    return next(el.metric.body for el in run.kinds("metric") if el.metric.label == label)


def test_a_change_of_b_redraws_manifolds(server):
    async def drive():
        async with await Session.connect(server) as s:
            first = await s.open("manifolds")
            assert first.status == "FINISHED_SUCCESSFULLY"
            assert not first.exceptions, first.exceptions
            assert s.session_id
            b = s.widgets["man.B"]
            assert b.kind == "slider" and list(b.proto.value or [b.proto.default[0]]) == [12]
            assert "Manifolds: Locally Linear Embedding" in first.texts
            changed = await s.change("man.B", 9)
            assert not changed.exceptions, changed.exceptions
            return s.session_id, first, changed

    sid, first, changed = asyncio.run(drive())
    assert _metric(first, "B") == "12" and _metric(changed, "B") == "9"
    # the page's main output, the LLE fit, is a new one: its reconstruction error moved with B
    assert _metric(changed, "reconstruction error") != _metric(first, "reconstruction error")
    assert "Point 0 in black, its 9 neighbours in red." in " ".join(changed.texts)


def test_a_session_resumed_on_a_new_socket_keeps_its_state(server):
    async def drive():
        async with await Session.connect(server) as s:
            await s.open("sets")
            await s.change("sets.K", 6)
            sid, cookies = s.session_id, s.cookies
        async with await Session.connect(server, session_id=sid, cookies=cookies) as again:
            run = await again.open("sets")
            return sid, again.session_id, again.widgets["sets.K"].proto.value, run

    sid, resumed, k, run = asyncio.run(drive())
    assert resumed == sid
    assert list(k) == [6]  # the slider kept the value set before the socket closed
    assert not run.exceptions, run.exceptions
