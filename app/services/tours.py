"""Every topic page's guided tour: steps made of settings of the page's own controls.

A step names controls by their session-state keys (each bound to the URL) and the values to give them; a
control of the tour that a step does not name goes back to its default. The texts say what to look at,
in the terms of the source each page follows.

A step's sentence is a claim about the picture, so its numbers are not written here: a ``{field}`` in the text is
filled from the facts the page computes for the state it shows (:func:`app.ui.tour.tell`), and each
:class:`Claim` is a test of those facts that must hold for the sentence to be true. The page says so when one does
not hold on the data on show, and ``tests/app/test_tours.py`` opens every step's link and checks every claim.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Claim:
    """What a step's sentence asserts (``says``, in words), and the test of the page's facts that makes it true."""

    says: str
    holds: Callable[[dict], bool]


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    settings: dict = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()

    @property
    def fields(self) -> set[str]:
        """The facts the text names (``{trust:.2f}`` names ``trust``)."""
        return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(self.text) if name}

    def needs(self) -> bool:
        return bool(self.fields or self.claims)

    def filled(self, facts: dict) -> str | None:
        """The text with the page's facts in it, or None while a fact it names is still missing."""
        try:
            return self.text.format(**facts)
        except (KeyError, IndexError):
            return None

    def failing(self, facts: dict) -> list[str] | None:
        """The claims the facts do not bear out, or None while a fact a claim needs is still missing."""
        out = []
        for claim in self.claims:
            try:
                if not claim.holds(facts):
                    out.append(claim.says)
            except KeyError:
                return None
        return out


TOURS: dict[str, list[Step]] = {}

TOURS["man"] = [
    Step("Torn", "With **B = 5** the neighbourhoods barely overlap: the map keeps the roll's order only in pieces "
         "(rank correlation of the colour with the map's better axis {order:.2f}), and trustworthiness falls to "
         "{trust:.3f}, from {trust_12:.3f} at B = 12.", {"man.B": 5},
         (Claim("the order is kept only in pieces (rank correlation under 0.9)", lambda f: f["order"] < 0.9),
          Claim("trustworthiness is lower than at B = 12", lambda f: f["trust"] < f["trust_12"]))),
    Step("Unrolled", "At **B = 12** the neighbourhoods overlap along the whole sheet: one axis of the map puts the "
         "points in the roll's order (rank correlation {order:.2f}) and {folded:.1%} of its neighbour pairs come "
         "from far along the roll. LLE bends the sheet into an arc, not a flat rectangle, but nothing is folded.",
         {"man.B": 12},
         (Claim("the order along the roll is kept (rank correlation at least 0.95)", lambda f: f["order"] >= 0.95),
          Claim("no fold: under 1% of the map's neighbour pairs come from far along the roll",
                lambda f: f["folded"] < 0.01))),
    Step("Folded", "With **B = 40** the neighbourhoods reach across the roll's layers ({across:,} of the graph's "
         "edges join points a quarter of the roll apart): the map folds the layers onto each other, {folded:.0%} "
         "of its neighbour pairs come from far along the roll and the order's rank correlation drops to "
         "{order:.2f}.", {"man.B": 40, "man.graph": True},
         (Claim("some of the graph's edges jump between layers", lambda f: f["across"] > 0),
          Claim("the map folds: over 3% of its neighbour pairs come from far along the roll",
                lambda f: f["folded"] > 0.03),
          Claim("the order is lost (rank correlation under 0.5)", lambda f: f["order"] < 0.5))),
    Step("Thick", "Noise of **0.75** makes the sheet as thick as the gap between its layers: at B = 12 the "
         "neighbourhoods cross the gap, the order's rank correlation falls to {order:.2f} and trustworthiness to "
         "{trust:.3f} ({trust_clean:.3f} on the same points without noise).", {"man.B": 12, "man.noise": 0.75},
         (Claim("the order is lost (rank correlation under 0.5)", lambda f: f["order"] < 0.5),
          Claim("trustworthiness is lower than without the noise", lambda f: f["trust"] < f["trust_clean"]))),
]

TOURS["sets"] = [
    Step("One bucket per item", "The post's **K = 30, N = 1**: 2³⁰ buckets, of which only the occupied ones are "
         "kept. Almost every item has a bucket of its own, so a set's sketch is little more than a list of its "
         "items: the geometry is gone.", {"sets.K": 30, "sets.N": 1}),
    Step("Halves, many times", "**K = 1, N = 1000**: each partitioning only halves the space, but a thousand "
         "independent halvings together say finely where a set is dense. Watch the bucket map's single line "
         "and the width: 2 × 1000 columns.", {"sets.K": 1, "sets.N": 1000}),
    Step("In between", "**K = 8, N = 30**, from the middle of the post's grid: buckets small enough to tell "
         "regions apart, repeated often enough that bad luck in one cut averages out.", {"sets.K": 8, "sets.N": 30}),
    Step("Sketches add", "A sketch is a sum over a set's items, so the sketch of two sets pooled is the sum of "
         "their sketches, bucket by bucket: the largest difference shown is 0.", {"sets.tab": "Additivity"}),
    Step("Choosing K", "As K grows, near pairs and random pairs share a bucket less often; good sketches keep "
         "the two curves far apart. Where they meet, buckets are too coarse; where near pairs stop sharing, too "
         "fine.", {"sets.tab": "K and N"}),
]

TOURS["cat"] = [
    Step("The weekday matrix", "The article's hand-made similarity of the 7 days. Its spectrum has one zero, one "
         "small eigenvalue (0.57), then a gap: the eigengap keeps **one** number per day.", {}),
    Step("The code", "The kept eigenvector orders the days: the five weekdays on one side, Saturday and Sunday on "
         "the other, Friday in between. Alike days got alike numbers.", {"cat.tab": "Eigenvectors"}),
    Step("Two numbers per day", "Keep **two** components: the second eigenvector spreads the weekdays out, and "
         "the code is the 2-D map on the right of the first screen.",
         {"cat.ncomp_mode": "fixed", "cat.n_fixed": 2, "cat.tab": "Eigenvectors"}),
    Step("Liquor sales at γ = 20", "KL distances between the days' liquor sales, at the article's **γ = 20**: "
         "the page's eigenvalues match the ones the article printed, one 0, a gap, then a cluster near 1.25.",
         {"cat.graph": "liquor_kl", "cat.tab": "Spectrum"}),
    Step("Sweeping γ", "The same matrix at γ from 0.01 to 100 times the article's: small γ bunches every "
         "eigenvalue, large γ spreads them and finally splits the graph. The useful γ shows a gap.",
         {"cat.graph": "liquor_kl", "cat.tab": "γ sweep"}),
]

TOURS["graphs"] = [
    Step("Karate club, unweighted", "Zachary's club split in two (shapes). Cut at the Fiedler vector's sign with "
         "every tie counted as 1: members 3 and 9 (ringed) land on the other side from their club.",
         {"graphs.weighted": False}),
    Step("With the ties' weights", "Weigh each tie by how often the two met: member 3 moves to its club's side, "
         "and only 9, who joined the other club, is misplaced.", {}),
    Step("The best sweep cut", "Try every threshold along the sorted vector and keep the least conductance: on "
         "the karate club it is the split at 0; the sweep profile below shows why.", {"graphs.rule": "sweep"}),
    Step("Recursive bisection", "Cut in two, then cut the largest part again by its own Fiedler vector, until "
         "there are **4** parts.", {"graphs.tab": "k parts", "graphs.k": 4}),
    Step("Two Laplacians", "The plain L = D − A against the normalised one, which weighs every node by its "
         "degree: the nodes drawn off the diagonal are where the two disagree.", {"graphs.tab": "Two Laplacians"}),
]

TOURS["found"] = [
    Step("Units decide PCA", "Multiply feature **x** by 1000 (millimetres for metres): the first component "
         "turns onto the x axis, whatever the cloud's shape.", {"found.pca_feature": "x", "found.pca_scale": 3.0}),
    Step("Standardise first", "Divide every feature by its standard deviation before PCA: the rescaling no "
         "longer matters and the components come back.",
         {"found.pca_feature": "x", "found.pca_scale": 3.0, "found.pca_std": True}),
    Step("PCA against random projections", "PCA keeps the most variance for its k; a random projection keeps "
         "every distance roughly, at the cost of more dimensions.", {"found.tab": "PCA vs JL"}),
    Step("The JL bound as k grows", "The Johnson-Lindenstrauss bound says how many dimensions keep every "
         "pairwise distance within ε; the measured distortion falls as k grows, well inside the bound.",
         {"found.tab": "Johnson-Lindenstrauss"}),
]

TOURS["words"] = [
    Step("Window context", "Neighbours by a window of 5 words: words that can stand in for one another.",
         {"words.tab": "Nearest words"}),
    Step("Document context", "Two words co-occur once for every document holding both: the neighbours become "
         "words of the same topic.", {"words.tab": "Nearest words", "words.context": "document"}),
    Step("The shift", "Subtract **log 5** from every PMI: weak associations drop to 0 and the matrix thins "
         "(see the non-zero entries beside the chart).", {"words.tab": "Spectrum", "words.shift": 5}),
    Step("The map", "The most frequent words placed by t-SNE: near words share contexts, but the gaps and the "
         "sizes of the groups mean little.", {"words.tab": "Word map"}),
]

TOURS["pl"] = [
    Step("Single point", "Each song is one point, trained on playlists planted from a known map: the learned "
         "map (left) matches the true one (right) up to a turn.", {}),
    Step("Dual point", "An entry and an exit point per song: on these symmetric playlists it fits no better, "
         "and its held-out log-likelihood (beside the map) is a little lower.", {"pl.model": "dual"}),
    Step("Playlists with a direction", "Playlists planted from a dual-point model, where A then B is likely and "
         "B then A is not: here the dual model wins.", {"pl.dataset": "planted_dual", "pl.model": "dual"}),
    Step("Cold start by tags", "A song no playlist has played can be placed from its tags alone, at the mean of "
         "the songs that share them.", {"pl.tab": "Cold start"}),
]

TOURS["text"] = [
    Step("Sparse", "300 news articles over thousands of terms: under 2% of the matrix is non-zero. The slice "
         "drawn holds the most frequent terms (the, to, of), so it is far denser than the whole.", {}),
    Step("tf-idf", "Weight each count by how rare the term is across documents: the words that say what a "
         "document is about rise to the top.", {"text.tab": "TF and IDF"}),
    Step("Hashing collisions", "Fold the whole vocabulary into **2⁶ = 64** buckets: most buckets hold many "
         "terms, and the collisions show in the inner products.", {"text.tab": "Feature hashing", "text.bits": 6}),
    Step("LSA", "Factorise the tf-idf matrix into a few concepts: documents and terms share one space.",
         {"text.tab": "LSA"}),
]
