"""The page registry: one line here adds a page to the app and to every test layer.

The app's navigation, the AppTest suite and the browser test all iterate
over :data:`PAGES`, so a page that is listed is shown and tested, and a page
that is not listed does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    path: str  # relative to app/
    title: str
    icon: str
    section: str
    url: str
    blurb: str
    default: bool = False
    data: tuple[str, ...] = ()  # kinds of bundled data the page offers in its "Data set" box
    key: str = ""  # prefix of the page's session-state keys


PAGES: list[PageSpec] = [
    PageSpec("app_pages/home.py", "Home", ":material/home:", "Lab", "home", "What the lab is for and where to start.", default=True, key="home"),
    PageSpec("app_pages/maps.py", "Maps", ":material/bubble_chart:", "Lab", "maps", "Your own embeddings: choose the vector columns, map every row by PCA, t-SNE, UMAP, Isomap or LLE, colour, search, filter, isolate, cluster and export, with the trust tools beside the map.", data=("vectors",), key="maps"),
    PageSpec("app_pages/data.py", "Data", ":material/upload_file:", "Lab", "data", "Upload your own file and see exactly how it was read.", data=(), key="data"),
    PageSpec("app_pages/categories.py", "Spectral encoding", ":material/category:", "Categories", "categories", "Encode a categorical column by the smooth eigenvectors of a similarity graph; watch gamma, the eigengap and a downstream test.", data=("table",), key="cat"),
    PageSpec("app_pages/graphs.py", "Spectral clustering", ":material/hub:", "Graphs", "graphs", "Cut a graph with its Fiedler vector: the Rayleigh quotient, splits at 0, the median and the best sweep, k parts by recursive bisection, plain against normalised Laplacian.", key="graphs"),
    PageSpec("app_pages/manifolds.py", "Locally linear embedding", ":material/waves:", "Manifolds", "manifolds", "Locally Linear Embedding taken apart: neighbours, weights, the bottom eigenvectors, a neighbourhood sweep and every other map method side by side.", data=("vectors",), key="man"),
    PageSpec("app_pages/foundations.py", "Linear algebra", ":material/functions:", "Foundations", "foundations", "PCA two ways and the scaling pitfall, PCA versus Johnson-Lindenstrauss, SVD energy, autoencoders and feature hashing as experiments.", data=("vectors",), key="found"),
    PageSpec("app_pages/playlists.py", "Latent Markov embedding", ":material/queue_music:", "Playlists", "playlists", "Latent Markov Embedding of playlists trained live into a song map, with sampled playlists, baselines and tags for new songs.", data=("playlists",), key="pl"),
    PageSpec("app_pages/words.py", "PMI word vectors", ":material/text_fields:", "Words", "words", "Word vectors from PMI and SVD: the spectrum, nearest words and analogies, live t-SNE/UMAP word maps, Word2Vec comparison, document vectors and label embedding.", data=("documents",), key="words"),
    PageSpec("app_pages/text.py", "Bag of words, TF-IDF and LSA", ":material/article:", "Words", "text", "Documents as sparse vectors: the document-term matrix, tf and idf against scikit-learn's, sparse inner products, n-grams, feature hashing and LSA's concept space.", data=("documents", "labelled_documents"), key="text"),
    PageSpec("app_pages/sets.py", "EMDE sketches", ":material/scatter_plot:", "Sets", "sets", "Sketch sets of vectors with EMDE: buckets, density, additivity and a benchmark against one-hot and mean vectors.", data=("item_sets",), key="sets"),
]

SECTION_ORDER = ["Lab", "Sets", "Categories", "Graphs", "Manifolds", "Words", "Playlists", "Foundations"]


def pages_by_section() -> dict[str, list[PageSpec]]:
    out: dict[str, list[PageSpec]] = {}
    for section in SECTION_ORDER:
        found = [p for p in PAGES if p.section == section]
        if found:
            out[section] = found
    return out
