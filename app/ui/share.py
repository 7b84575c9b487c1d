"""Share and reproduce: a link to this view and a download that recomputes it, in the sidebar of every page."""

from __future__ import annotations

import math

import streamlit as st

from app.ui.text import md_escape

#: A button that copies the page's current address (every setting is in it) and shows it for copying by hand.
COPY_LINK = """
<div class="lab-share">
  <button type="button" class="lab-copy" style="width:100%;padding:0.4rem;border:1px solid #ccc;border-radius:0.5rem;
    background:white;cursor:pointer">Copy link to this view</button>
  <input class="lab-link" readonly aria-label="Link to this view" style="width:100%;margin-top:0.4rem;font-size:0.8rem;
    border:1px solid #ddd;border-radius:0.3rem;padding:0.2rem;display:none">
</div>
<script>
  for (const box of document.querySelectorAll('.lab-share')) {
    const button = box.querySelector('.lab-copy'), field = box.querySelector('.lab-link');
    button.onclick = async () => {
      field.value = window.location.href;
      field.style.display = 'block';
      field.select();
      try { await navigator.clipboard.writeText(field.value); button.textContent = 'Copied: paste it anywhere'; }
      catch (e) { button.textContent = 'Selected below: press Ctrl+C'; }
    };
  }
</script>
"""


def panel(page: str, make_zip, *, uploaded: bool = False, what: str = "the arrays shown") -> None:
    """The sidebar's share panel: the link to this view (with a copy button) and the reproducible zip.

    ``make_zip`` is called only when the download is clicked (app.services.reproduce.lazy); when it is None
    there is nothing to reproduce here and ``what`` says why.
    """
    with st.sidebar.expander("Share and reproduce", icon=":material/share:"):
        # The address as the browser has it at the click: sections that rerun on their own (fragments) change
        # the URL without redrawing this panel, so a link written here by the script could be out of date.
        st.html(COPY_LINK, unsafe_allow_javascript=True)
        if uploaded:
            st.caption("The link names your upload by its SHA-1: whoever opens it must upload the same file.")
        if make_zip is None:
            st.caption(what)
            return
        st.download_button("Download to reproduce (.zip)", data=make_zip, file_name=f"embedding-lab-{page}.zip",
                           mime="application/zip", key=f"{page}.reproduce", icon=":material/download:",
                           on_click="ignore", width="stretch")
        st.caption(f"The zip holds {what}, the settings and seed, the data's id (or your upload's SHA-1), the "
                   "versions of every library, and reproduce.py, which recomputes the arrays with embedcore and "
                   "compares them with the export.")


# ------------------------------------------------------------------ opening a link

#: Query parameter naming the upload a view was made from (the first characters of its SHA-1).
UPLOAD_PARAM = "upload"


def link_request() -> dict | None:
    """The URL's parameters on a session's first run (what a shared link asks for), else None."""
    if st.session_state.get("share.link_read"):
        return None
    st.session_state["share.link_read"] = True
    return st.query_params.to_dict()


def refused_link_value(value, value_type: str) -> bool:
    """Whether a bound control of this kind cannot take ``value`` from a link (pure; see :func:`guard_links`).

    Streamlit decodes a number given to a whole-number ``number_input`` with ``int(float(text))``, which raises
    on ``inf``, ``-inf``, ``1e309`` or a 10,000-digit number (each past the float range) and stops the page at
    that control. The lab refuses such values before Streamlit decodes them; the page then uses its default and
    :func:`report_link` names the setting, as it does for every other value a control cannot take.

    Parameters
    ----------
    value : str or list of str
        The link's value for one key (a list when the key is repeated, of which a single-value control reads
        the last).
    value_type : str
        The kind of value the control keeps, as Streamlit registers a bound widget: ``"double_value"`` (a
        ``number_input``), ``"double_array_value"`` (sliders), ``"bool_value"``, ``"string_value"``, ...

    Returns
    -------
    bool
        For a ``number_input``, True unless the value is a finite number (or empty, which clears a control that
        may be empty); for a slider, True when a part is a number that is not finite (a part that is not a
        number may still be one of a ``select_slider``'s options); False for every other kind, whose values
        Streamlit checks itself.

    Examples
    --------
    >>> [refused_link_value(v, "double_value") for v in ("inf", "nan", "1e309", "abc", "2.5", "")]
    [True, True, True, True, False, False]
    >>> refused_link_value(["1", "inf"], "double_array_value"), refused_link_value("inf", "string_value")
    (True, False)
    """
    parts = [value] if isinstance(value, str) else list(value)
    if value_type == "double_value":
        text = parts[-1] if parts else ""
        return text != "" and not _finite(text)
    if value_type == "double_array_value":
        return any(_number(p) and not _finite(p) for p in parts)
    return False


def _number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _finite(text: str) -> bool:
    """True for a finite number, False for anything else (a word, inf, nan, a number past the float range)."""
    try:
        return math.isfinite(float(text))
    except (TypeError, ValueError):
        return False


def guard_links() -> None:
    """Check every link value a bound control is seeded from before Streamlit decodes it (once per process).

    Streamlit seeds a control made with ``bind="query-params"`` from the address the session opened with
    (its own copy, which ``st.query_params`` does not change) when the control is first drawn, in
    ``SessionState._seed_widget_from_url``: the one place where the control's kind is known (Streamlit's own
    registration of the widget) and the text is decoded. This wraps that place: a value
    :func:`refused_link_value` refuses, or one whose decoding fails in arithmetic (an overflow no check here
    foresaw), leaves the URL as Streamlit's own invalid values do, and the control starts at its default;
    :func:`report_link` then names it. Every page and every control is covered, in whatever tab it is drawn.
    """
    from streamlit.runtime.state.session_state import SessionState

    seed = getattr(SessionState, "_seed_widget_from_url", None)
    if seed is None or getattr(seed, "lab_guarded", False):
        return  # a Streamlit without the method: tests/app/test_hostile_links.py says so

    def guarded(self, metadata, user_key, widget_id, url_value):
        if refused_link_value(url_value, metadata.value_type):
            self._clear_url_param(user_key)
            return False
        try:
            return seed(self, metadata, user_key, widget_id, url_value)
        except ArithmeticError:
            self._clear_url_param(user_key)
            return False

    guarded.lab_guarded = True
    SessionState._seed_widget_from_url = guarded


def _same(value, text: str) -> bool:
    if str(value) == text or (isinstance(value, bool) and str(value).lower() == text.lower()):
        return True
    try:
        return float(value) == float(text)
    except (TypeError, ValueError):
        return False


def link_problems(requested: dict, now: dict, state, prefix: str) -> list[str]:
    """One sentence per setting of a link that this page could not take as given (pure; see :func:`report_link`).

    Streamlit clamps a value outside a control's range and drops one that is malformed or not among the
    options, silently; this names each such setting and the value used instead. ``prefix`` limits the check
    to this page's controls.
    """
    out = []
    for key, want in requested.items():
        if not key.startswith(prefix + ".") or now.get(key) == want:
            continue
        value = state.get(key)
        if now.get(key) is None and value is not None and _same(value, want):
            continue  # the link asked for the default, which Streamlit leaves out of the URL
        used = "its default" if value is None else repr(value)
        out.append(link_line(key, want, used))
    return out


def cut(text, limit: int = 80) -> str:
    """``text`` as a warning shows it: at most ``limit`` characters, the last an ellipsis when it was longer.

    Parameters
    ----------
    text : object
        What a link asked for (turned into a string).
    limit : int, default 80
        The most characters shown.

    Returns
    -------
    str
        ``text`` itself when it is short enough, else its first ``limit - 1`` characters and "…".

    Examples
    --------
    >>> cut("12"), cut("9" * 100, 5)
    ('12', '9999…')
    """
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def link_line(key: str, want, used: str) -> str:
    """The sentence for one setting a link asked for and did not get; the link's value cut to 80 characters."""
    return f"The link's {key[:80]} = {cut(want)!r} is not possible here, so {used} is used."


def report_link(where, requested: dict | None, prefix: str) -> None:
    """After the page ran: say which of the link's settings it could not take, and name a missing upload."""
    if not requested:
        return
    now = st.query_params.to_dict()
    # the page's own controls and the sidebar's, which every page draws (global.align_maps)
    lines = [line for p in (prefix, "global") for line in link_problems(requested, now, st.session_state, p)]
    wanted = requested.get(UPLOAD_PARAM)
    if wanted:
        from app.services import data as data_service

        up = data_service.current_upload()
        if up is None or not up.digest.startswith(wanted):
            shown = cut(wanted + "…")  # the first characters of a SHA-1; a longer value is cut as every value is
            lines.insert(0, f"This view was made from an uploaded file (SHA-1 {shown}): upload the same file "
                         "(sidebar, Your data) to see it; until then the page shows its own data.")
            lines = [x for x in lines if ".dataset" not in x]
    if lines:
        where.warning("\n\n".join(md_escape(x) for x in lines), icon=":material/link_off:")


def name_upload_in_link(chosen: str, digest: str | None) -> None:
    """Keep the upload's SHA-1 (12 characters) in the URL while a page shows it, so a link says what it needs."""
    if chosen == "upload" and digest:
        st.query_params[UPLOAD_PARAM] = digest[:12]
    elif UPLOAD_PARAM in st.query_params:
        del st.query_params[UPLOAD_PARAM]
