"""A Streamlit session driven over its own websocket protocol, without a browser.

The browser's part of the protocol is small: open ``ws://host:port/_stcore/stream`` (subprotocol
``streamlit``; a second entry carries an XSRF token, a third the id of a session to resume), send a
``BackMsg`` whose ``rerun_script`` is a ``ClientState`` (the page, the query string, the widgets'
values), then read ``ForwardMsg`` s (a ``new_session``, the elements as ``delta`` s) until a
``script_finished`` that is not "finished early for a rerun". :class:`Session` does that and keeps
what a test or a load benchmark asks about a run: the widgets of the page by their user key, the
elements' text, whether an exception element arrived, how long the run took.

Example
-------
>>> async def main(url):                                        # doctest: +SKIP
...     async with await Session.connect(url) as s:
...         await s.open("manifolds")
...         run = await s.change("man.B", 9)
...         assert not run.exceptions, run.exceptions
...         return run.seconds

Cookies and headers are sent as given (a proxy's sticky-session cookie, say); the cookies the
handshake answered with are kept in :attr:`Session.cookies`, and ``Session.connect(url,
session_id=old.session_id, cookies=old.cookies)`` resumes a session whose socket closed (Streamlit
keeps a disconnected session for ``server.disconnectedSessionTTL`` seconds).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

__all__ = ["Run", "ScriptError", "Session", "Widget", "stream_url"]

#: The ``WidgetState`` field each kind of widget element reports its value in (Streamlit's ``value_type``).
VALUE_FIELD = {
    "slider": "double_array_value",
    "select_slider": "string_array_value",
    "number_input": "double_value",
    "checkbox": "bool_value",
    "radio": "string_value",
    "selectbox": "string_value",
    "multiselect": "string_array_value",
    "button_group": "string_array_value",
    "text_input": "string_value",
    "text_area": "string_value",
    "color_picker": "string_value",
    "button": "trigger_value",
}

#: Element fields whose text :attr:`Run.texts` collects, and the attribute holding it.
_TEXT = {"markdown": "body", "text": "body", "heading": "body", "alert": "body", "code": "code_text",
         "exception": "message", "metric": "body", "caption": "body"}


class ScriptError(RuntimeError):
    """The server closed the socket or did not finish a run in time."""


def stream_url(url: str) -> str:
    """The websocket address of the app served at ``url``.

    Parameters
    ----------
    url : str
        ``http://host:port`` (with a base path if the app has one), or already a ``ws://`` address.

    Returns
    -------
    str
        ``ws://host:port[/base]/_stcore/stream``.

    Examples
    --------
    >>> stream_url("http://127.0.0.1:8501")
    'ws://127.0.0.1:8501/_stcore/stream'
    >>> stream_url("https://lab.example.org/class/")
    'wss://lab.example.org/class/_stcore/stream'
    """
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith("/_stcore/stream"):
        path += "/_stcore/stream"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


@dataclass
class Widget:
    """A widget as the page last drew it.

    Attributes
    ----------
    key : str or None
        The user key given in the script (``key="man.B"``), None for a widget without one.
    id : str
        Streamlit's element id, which a ``WidgetState`` names.
    kind : str
        The element's type (``"slider"``, ``"selectbox"``, ...; ``"select_slider"`` for the slider element
        a select slider is drawn as).
    proto : google.protobuf.message.Message
        The element's own message (its label, options, bounds, default).
    """

    key: str | None
    id: str
    kind: str
    proto: Any

    def state(self, value: Any, field: str | None = None) -> WidgetState:
        """The ``WidgetState`` that sets this widget to ``value``, as the browser would send it.

        Parameters
        ----------
        value : object
            The new value: a number or a pair for a slider, an option (or its displayed text) for a
            select box, radio or select slider, a bool for a checkbox or toggle, True for a button.
        field : str, optional
            The ``WidgetState`` field to use, for a kind not in :data:`VALUE_FIELD`.

        Returns
        -------
        streamlit.proto.WidgetStates_pb2.WidgetState
        """
        field = field or VALUE_FIELD.get(self.kind)
        if field is None:
            raise ValueError(f"no known value field for a {self.kind} widget ({self.key}); pass field=")
        ws = WidgetState(id=self.id)
        if field == "double_array_value":
            values = value if isinstance(value, (list, tuple)) else [value]
            ws.double_array_value.data.extend(float(v) for v in values)
        elif field == "string_array_value":
            values = value if isinstance(value, (list, tuple)) else [value]
            ws.string_array_value.data.extend(str(v) for v in values)
        elif field == "double_value":
            ws.double_value = float(value)
        elif field == "int_value":
            ws.int_value = int(value)
        elif field in ("bool_value", "trigger_value"):
            setattr(ws, field, bool(value))
        else:
            setattr(ws, field, value)
        return ws


@dataclass
class Run:
    """What one script run sent.

    Attributes
    ----------
    status : str
        The ``script_finished`` status (``"FINISHED_SUCCESSFULLY"``, ...).
    seconds : float
        From sending the rerun to its ``script_finished``.
    elements : dict
        Delta path (a tuple of ints) to the ``Element`` drawn there in this run.
    messages : int
        How many ForwardMsgs the run took.
    """

    status: str = ""
    seconds: float = 0.0
    elements: dict[tuple[int, ...], Element] = field(default_factory=dict)
    messages: int = 0

    @property
    def texts(self) -> list[str]:
        """The text of every text-like element (markdown, headings, alerts, code, metrics, exceptions)."""
        out = []
        for el in self.elements.values():
            kind = el.WhichOneof("type")
            if kind in _TEXT:
                out.append(getattr(getattr(el, kind), _TEXT[kind], ""))
            if kind == "metric":
                out.append(el.metric.label)
        return out

    @property
    def exceptions(self) -> list[str]:
        """``"Type: message"`` of every exception element (an uncaught error the page showed)."""
        return [f"{el.exception.type}: {el.exception.message}"
                for el in self.elements.values() if el.WhichOneof("type") == "exception"]

    def kinds(self, kind: str) -> list[Element]:
        """The elements of one type (``"plotly_chart"``, ``"alert"``, ...), in delta-path order."""
        return [el for _, el in sorted(self.elements.items()) if el.WhichOneof("type") == kind]


class Session:
    """One Streamlit session over a websocket: a tab of the app without the browser.

    Make one with :meth:`connect`; close it with :meth:`close` or ``async with``.

    Attributes
    ----------
    session_id : str or None
        The server's id of this session, known after the first run.
    widgets : dict
        User key (or element id, for a widget without a key) to :class:`Widget`, from the runs so far.
    cookies : dict
        The cookies sent, updated with the ones the handshake answered with.
    page : str
        The page (its URL path) the last run was on.
    """

    def __init__(self, conn: WebSocketClientConnection, cookies: dict[str, str]) -> None:
        self._conn = conn
        self.cookies = cookies
        self.session_id: str | None = None
        self.page = ""
        self.page_script_hash = ""
        self.query = ""
        self.widgets: dict[str, Widget] = {}
        self._values: dict[str, WidgetState] = {}

    @classmethod
    async def connect(cls, url: str, *, cookies: dict[str, str] | None = None,
                      headers: dict[str, str] | None = None, session_id: str | None = None,
                      xsrf_token: str | None = None, timeout: float = 30.0) -> Session:
        """Open the websocket of the app at ``url``.

        Parameters
        ----------
        url : str
            The app's address, ``http://host:port`` (see :func:`stream_url`).
        cookies : dict, optional
            Cookies to send with the handshake (a proxy's sticky-session cookie, Streamlit's XSRF cookie).
        headers : dict, optional
            Other handshake headers (``Origin``, a trusted user header).
        session_id : str, optional
            The id of a session to resume (its state is kept if the server still holds it).
        xsrf_token : str, optional
            The value of the ``_streamlit_xsrf`` cookie, needed only for the auth cookie to be read.
        timeout : float
            Seconds to wait for the handshake.

        Returns
        -------
        Session
        """
        cookies = dict(cookies or {})
        hdrs = dict(headers or {})
        if cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        protocols = ["streamlit"]
        if xsrf_token or session_id:
            protocols.append(xsrf_token or "")
        if session_id:
            protocols.append(session_id)
        request = HTTPRequest(stream_url(url), headers=hdrs, connect_timeout=timeout, request_timeout=timeout)
        conn = await websocket_connect(request, subprotocols=protocols, max_message_size=1 << 30)
        for raw in conn.headers.get_list("Set-Cookie") if conn.headers else []:
            jar = SimpleCookie()
            jar.load(raw)
            cookies.update({k: m.value for k, m in jar.items()})
        session = cls(conn, cookies)
        session.session_id = session_id
        return session

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket (the server keeps the session for its disconnected-session TTL)."""
        self._conn.close()

    async def open(self, page: str = "", query: str = "", timeout: float = 300.0) -> Run:
        """Run ``page`` as a browser opening ``/page?query`` would.

        Parameters
        ----------
        page : str
            The page's URL path (``"manifolds"``); empty for the default page.
        query : str
            The query string, without ``?``.
        timeout : float
            Seconds to wait for the run to finish.

        Returns
        -------
        Run
        """
        self.page, self.query, self.page_script_hash = page, query, ""
        self._values.clear()
        return await self.rerun(timeout=timeout)

    async def change(self, key: str, value: Any, *, field: str | None = None, timeout: float = 300.0) -> Run:
        """Set the widget with user key ``key`` to ``value`` and rerun, as a person moving it would.

        Parameters
        ----------
        key : str
            The widget's user key (or element id); it must have been drawn by an earlier run.
        value : object
            The new value (see :meth:`Widget.state`).
        field : str, optional
            The ``WidgetState`` field, for a kind of widget :data:`VALUE_FIELD` does not know.
        timeout : float
            Seconds to wait for the run to finish.

        Returns
        -------
        Run
        """
        try:
            widget = self.widgets[key]
        except KeyError:
            raise KeyError(f"no widget {key!r} on {self.page or 'the page'}; known: {sorted(map(str, self.widgets))}") from None
        return await self.rerun({key: widget.state(value, field)}, timeout=timeout)

    async def rerun(self, states: dict[str, WidgetState] | None = None, timeout: float = 300.0) -> Run:
        """Send a rerun with the widget values set so far (and ``states``) and read until it finishes.

        Parameters
        ----------
        states : dict, optional
            Key to ``WidgetState`` to set before the run; a trigger (a button press) is sent once.
        timeout : float
            Seconds to wait for the run to finish.

        Returns
        -------
        Run
        """
        states = states or {}
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_name = self.page
        cs.page_script_hash = self.page_script_hash
        for s in {**self._values, **states}.values():
            cs.widget_states.widgets.append(s)
        self._values.update({k: s for k, s in states.items() if s.WhichOneof("value") != "trigger_value"})
        t0 = time.perf_counter()
        await self._conn.write_message(msg.SerializeToString(), binary=True)
        run = Run()
        try:
            await asyncio.wait_for(self._read_run(run), timeout)
        except asyncio.TimeoutError:
            raise ScriptError(f"the run of {self.page or 'the page'} did not finish in {timeout:g} s") from None
        run.seconds = time.perf_counter() - t0
        return run

    async def _read_run(self, run: Run) -> None:
        while True:
            raw = await self._conn.read_message()
            if raw is None:
                raise ScriptError(f"the server closed the socket ({self._conn.close_code} {self._conn.close_reason})")
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            run.messages += 1
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fm.new_session.initialize.session_id or self.session_id
                run.elements.clear()  # a rerun the script asked for starts the page again
            elif kind == "navigation":  # the page this run is on (new_session names the main script)
                self.page_script_hash = fm.navigation.page_script_hash
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                run.elements[tuple(fm.metadata.delta_path)] = el
                self._note_widget(el)
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(fm.script_finished)
                if status != "FINISHED_EARLY_FOR_RERUN":
                    run.status = status
                    return

    def _note_widget(self, el: Element) -> None:
        kind = el.WhichOneof("type")
        proto = getattr(el, kind)
        wid = getattr(proto, "id", "") if hasattr(type(proto), "DESCRIPTOR") and "id" in type(proto).DESCRIPTOR.fields_by_name else ""
        if not wid:
            return
        if kind == "slider" and proto.type == proto.SELECT_SLIDER:  # one element type for both sliders
            kind = "select_slider"
        user_key = wid.split("-", maxsplit=2)[-1]
        key = wid if user_key == "None" else user_key
        self.widgets[key] = Widget(None if user_key == "None" else user_key, wid, kind, proto)
