"""Share and reproduce: a link to this view and a download that recomputes it, in the sidebar of every page."""

from __future__ import annotations

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


def link_line(key: str, want, used: str) -> str:
    """The sentence for one setting a link asked for and did not get; the link's value cut to 80 characters."""
    want = str(want)
    shown = repr(want if len(want) <= 80 else want[:79] + "…")
    return f"The link's {key[:80]} = {shown} is not possible here, so {used} is used."


def report_link(where, requested: dict | None, prefix: str) -> None:
    """After the page ran: say which of the link's settings it could not take, and name a missing upload."""
    if not requested:
        return
    lines = link_problems(requested, st.query_params.to_dict(), st.session_state, prefix)
    wanted = requested.get(UPLOAD_PARAM)
    if wanted:
        from app.services import data as data_service

        up = data_service.current_upload()
        if up is None or not up.digest.startswith(wanted):
            lines.insert(0, f"This view was made from an uploaded file (SHA-1 {wanted}…): upload the same file "
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
