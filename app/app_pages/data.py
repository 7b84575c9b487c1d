import streamlit as st

from app.services import data as data_service
from app.services import reproduce
from app.ui import share
from app.ui.report import show_report
from app.ui.text import md_escape

st.title("Data")
st.markdown(
    """
Every technique needs data in one of a few shapes. Upload a file with **Your data**
in the sidebar and read it here as any of them: you see how many rows were read,
the type of each column, a preview, and every row that was left out with the reason.
A file the lab cannot use gets a message that says what to fix; nothing is cut
short without saying so, and large files are sampled with a notice.
"""
)

EXAMPLES = {
    "vectors": ("points.csv", "x,y,z,name\n0.1,0.2,0.3,apple\n0.4,0.1,0.9,pear\n"),
    "item_sets": ("items.csv + sets.tsv", "items.csv:\nname,x,y\nchorizo,0.2,-0.4\nbanana,0.7,-1.2\n\nsets.tsv:\nmeat\tchorizo chorizo\nmixed\tbanana,chorizo\n"),
    "sets": ("baskets.tsv", "meat\tchorizo salami\nfruit\tbanana,apple,pear\n"),
    "playlists": ("playlists.txt", "song1 song2 song3\nsong3 song1\n"),
    "table": ("tips.csv", "day,tip\nMon,1.5\nSat,3.0\n"),
    "documents": ("corpus.txt", "the cat sat on the mat\ndogs chase cats\n"),
}

with st.expander("Accepted formats, with a tiny example of each"):
    for kind, (fname, example) in EXAMPLES.items():
        st.markdown(f"**{data_service.KIND_LABELS[kind]}**, e.g. `{fname}`")
        st.code(example, language=None)
    st.markdown(
        """
Vectors may also be a `.npy` array (plain numbers only: the lab never loads pickled objects), word
vectors as text (GloVe's `word v1 v2 ...`, word2vec's with a `count dim` first line, fastText's `.vec`;
every word is a label as written, `nan` and `null` included), or an Embedding Projector pair: upload
the vectors TSV and a metadata TSV whose name contains `metadata` together.

What spreadsheets write is read as they write it:

| File | How it is read |
|---|---|
| `a;b` rows with `1,5;2,25` | `;`, tab or `\\|` between fields is found from the first lines; decimal commas become points |
| `x,y,z,` on every line | the empty column after the last separator is left out |
| Windows-1252 or Latin-1 text | read with a notice naming the encoding (UTF-8 and UTF-16 with a byte-order mark as they are) |
| `.xlsx`, `.xls`, `.ods` | the first sheet, as a table of text; the notice names it |
| `.parquet` | a table, or vectors (its numeric columns) with labels |
| one long line of prose | documents, split at sentence ends (windows of 50 words for longer sentences) |

Every reading comes with the notices that say what was changed."""
    )

upload = data_service.current_upload()
kinds = list(data_service.READERS)
if upload is None:
    st.info(
        "No upload yet: drop a file on **Your data** in the sidebar. Meanwhile, here is "
        "how a bundled data set reads.",
        icon=":material/upload_file:",
    )
    catalogue = data_service.catalogue()
    ids = list(catalogue)
    chosen = st.selectbox(
        "Bundled data set", ids, format_func=lambda i: catalogue[i].title, key="data.bundled",
        bind="query-params",
    )
    st.caption(catalogue[chosen].description)
    show_report(data_service.bundled(chosen, data_service.seed()), key="data.report")
else:
    guessed = data_service.KIND_LABELS[upload.kind].split(" (")[0].lower()
    if st.session_state.get("data.kind_for") != upload.digest:  # a new upload is read as its guess
        if st.session_state.get("data.kind_for") is not None or "data.kind" not in st.query_params:
            st.session_state["data.kind"] = upload.kind
        st.session_state["data.kind_for"] = upload.digest
    st.markdown(f"**Guessed: {guessed}.** Why: {md_escape(upload.reason)} If that is wrong, choose what it is below.")
    kind = st.radio(
        "Read it as",
        kinds,
        index=kinds.index(upload.kind),
        format_func=data_service.KIND_LABELS.get,
        key="data.kind",
        horizontal=True,
        bind="query-params",
    )
    result, error = data_service.parse_upload(kind, upload.digest, upload, data_service.seed(), progress=True)
    st.subheader(md_escape(upload.label))
    if error is not None:
        st.error(md_escape(error), icon=":material/error:")
        st.caption("Fix the file and upload it again, or try reading it as another kind of data above.")
    else:
        st.success(f"Read as {data_service.KIND_LABELS[kind].split(' (')[0].lower()}.", icon=":material/check:")
        if kind == "vectors":  # her own embeddings: the page made for them comes first
            st.page_link("app_pages/maps.py", label="Explore these vectors on Maps: your embeddings",
                         icon=":material/bubble_chart:")
        show_report(result, key="data.report")

if upload is None:
    shown = data_service.DataRef(catalogue[chosen].kind, chosen, data_service.seed())
else:
    share.name_upload_in_link("upload", upload.digest)
    shown = None if error is not None else data_service.DataRef(kind, f"upload:{upload.digest}", data_service.seed())
if shown is not None:
    share.panel("data", reproduce.lazy(lambda: reproduce.data_recipe(shown)), uploaded=upload is not None,
                what="the data as the lab read it (numbers, and text as strings)")
