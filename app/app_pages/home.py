import streamlit as st

from app.pages import PAGES, pages_by_section

st.title("Embedding Lab")
st.markdown(
    """
An embedding turns things that are hard to compute with (sets of items, category
names, words, songs, points on a curved surface) into vectors whose distances mean
something. This lab lets you build classic embeddings yourself, turn their knobs and
watch the result redraw: on the bundled data sets, or on your own file.

Use it to **teach** (every page explains its technique, its key formula, what each
control does and how the picture can mislead), to **explore** a technique before
using it, or to **eyeball hyperparameters** on your own data before committing to them.
"""
)
st.latex(r"f:\ \text{objects} \longrightarrow \mathbb{R}^d,\qquad \lVert f(a)-f(b)\rVert \text{ small} \iff a \text{ and } b \text{ alike}")

st.subheader("Where to go")
for section, specs in pages_by_section().items():
    for spec in specs:
        if spec.path.endswith("home.py"):
            continue
        with st.container(border=True):
            st.page_link(spec.path, label=f"{section}: {spec.title}" if section != "Lab" else spec.title, icon=spec.icon)
            st.caption(spec.blurb)

st.subheader("How to use it")
st.markdown(
    """
* **Data.** Every page opens on a bundled data set. To use your own, drop a file on
  *Your data* in the sidebar; the **Data** page shows how it was read (rows, columns,
  anything dropped and why), and every page that can use it lists it as a data set.
* **Seed.** The sidebar's random seed drives every random choice; the same seed
  gives the same picture, so a screenshot can be reproduced. It is kept in the URL.
* **Speed.** Cheap changes redraw at once; expensive runs (benchmarks, comparisons)
  start from a button and show their progress.
"""
)
st.caption(f"{len(PAGES)} pages. Nothing is sent anywhere: all computation runs on this server.")
