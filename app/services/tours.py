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
    Step("Thirty planes, one partitioning",
         "The post's **K = 30, N = 1**: 2³⁰ buckets, but in {dims} dimensions 30 planes make at most {regions:,} "
         "regions, and the {items:,} items fall in only {occupied:,} of them. {alone:,} items have a bucket of their "
         "own and the rest share, up to {largest:,} in one: {near:.0%} of near pairs share a bucket against "
         "{far:.0%} of random pairs, so the geometry is still there.",
         {"sets.K": 30, "sets.N": 1},
         (Claim("30 planes in the items' dimensions make far fewer regions than 2³⁰, and the items occupy no more",
                lambda f: f["occupied"] <= f["regions"] * f["N"] < 2 ** f["K"]),
          Claim("the items share buckets: fewer buckets are occupied than there are items",
                lambda f: f["occupied"] < f["items"]),
          Claim("fewer than half the items have a bucket of their own", lambda f: f["alone"] < f["items"] / 2),
          Claim("only the occupied buckets are kept as columns", lambda f: f["columns"] == f["occupied"]),
          Claim("a near pair shares a bucket more than five times as often as a random pair",
                lambda f: f["near"] > 5 * f["far"]))),
    Step("Halves, many times",
         "**K = 1, N = 1000**: each partitioning only halves the space, but a thousand independent halvings "
         "together give {told_apart:,} of the {items:,} items a code no other item has. Watch the bucket map's "
         "single line and the width: 2 × 1000 = {width:,} columns.",
         {"sets.K": 1, "sets.N": 1000},
         (Claim("one plane per partitioning, two buckets each: 2 × 1000 columns",
                lambda f: f["K"] == 1 and f["width"] == 2 * f["N"] == 2000),
          Claim("almost every item gets a code of its own", lambda f: f["told_apart"] >= 0.95 * f["items"]))),
    Step("In between",
         "**K = 8, N = 30**, from the middle of the post's grid: each cut leaves about {per_partition:.0f} occupied "
         "buckets, holding {per_bucket:.0f} items each on average, regions rather than single items. Over the 30 "
         "cuts a near pair shares a bucket {near:.0%} of the time and a random pair {far:.0%}, and {told_apart:,} of "
         "the {items:,} items get a code of their own.",
         {"sets.K": 8, "sets.N": 30},
         (Claim("an occupied bucket holds several items on average", lambda f: f["per_bucket"] >= 3),
          Claim("a near pair shares a bucket at least four times as often as a random pair",
                lambda f: f["near"] >= 4 * f["far"]),
          Claim("almost every item gets a code of its own", lambda f: f["told_apart"] >= 0.95 * f["items"]))),
    Step("Sketches add",
         "A sketch is a sum over a set's items, so the sketch of two sets pooled is the sum of their sketches, "
         "bucket by bucket: for sets {add_a} and {add_b}, over the {touched:,} buckets they touch, the largest "
         "difference is {max_difference:g}.",
         {"sets.tab": "Additivity"},
         (Claim("the pooled sketch is the sum of the two, bucket by bucket", lambda f: f["max_difference"] == 0),
          Claim("the two sets touch some bucket", lambda f: f["touched"] > 0))),
    Step("Choosing K",
         "As K grows from {curve_k_first} to {curve_k_last}, near pairs share a bucket less often "
         "({curve_near_first:.0%} to {curve_near_last:.0%}) and random pairs too ({curve_far_first:.0%} to "
         "{curve_far_last:.0%}). The curves never meet on these items: they are furthest apart at K = "
         "{curve_apart_k} ({curve_apart:.2f}) and closest at K = {curve_close_k}, where the buckets are too coarse.",
         {"sets.tab": "K and N"},
         (Claim("near pairs share a bucket less often at the largest K than at the smallest",
                lambda f: f["curve_near_last"] < f["curve_near_first"]),
          Claim("random pairs share a bucket less often at the largest K than at the smallest",
                lambda f: f["curve_far_last"] < f["curve_far_first"]),
          Claim("near pairs share a bucket more often than random pairs at every K", lambda f: f["curve_always_apart"]),
          Claim("the curves are closest at the smallest K", lambda f: f["curve_close_k"] == f["curve_k_first"]))),
]

TOURS["cat"] = [
    Step("The weekday matrix",
         "The article's hand-made similarity of the {days} days. Its spectrum has {zeros} zero eigenvalue, one small "
         "one ({l2:.2f}), then a gap of {gap:.2f} up to {l3:.2f}: the eigengap keeps **{k}** number per day.",
         {"cat.kind": "given matrix"},
         (Claim("the graph is connected: one zero eigenvalue", lambda f: f["zeros"] == 1),
          Claim("the largest gap comes right after λ₂, so the eigengap keeps one number",
                lambda f: f["gap_after"] == 2 and f["k"] == 1),
          Claim("that gap is wider than any gap after it", lambda f: f["gap"] > f["next_gap"]))),
    Step("The code",
         "The kept eigenvector {code_col} gives {negative} one sign and {positive} the other, with {nearest_zero} "
         "nearest 0 ({nearest_value:+.3f}): sorted by it the days go {order}. Alike days got alike numbers: the more "
         "alike two days, the closer their numbers (rank correlation {agreement:.2f} over the {pairs} pairs).",
         {"cat.tab": "Eigenvectors"},
         (Claim("Monday to Thursday get one sign, Friday to Sunday the other",
                lambda f: {f["negative"], f["positive"]} == {"Mon, Tue, Wed, Thu", "Fri, Sat, Sun"}),
          Claim("Friday is nearest 0, between Monday to Thursday and the weekend",
                lambda f: f["nearest_zero"] == "Fri" and f["order"].split(", ")[4:] == ["Fri", "Sat", "Sun"]),
          Claim("the more alike two days, the closer their numbers", lambda f: f["agreement"] > 0.8))),
    Step("Two numbers per day",
         "Keep **two** components: the spectrum colours {kept} eigenvalues as kept ({kept_names}) and the map beside "
         "it places each day by its {width} numbers. The second, {second_col}, runs through the week: sorted by it "
         "the days go {second_order}.",
         {"cat.ncomp_mode": "fixed", "cat.n_fixed": 2, "cat.tab": "Eigenvectors"},
         (Claim("two eigenvalues are coloured as kept and each day has two numbers",
                lambda f: f["kept"] == f["width"] == 2),
          Claim("the second kept eigenvector puts Monday to Friday in the week's order",
                lambda f: [d for d in f["second_order"].split(", ") if d not in ("Sat", "Sun")]
                in (["Mon", "Tue", "Wed", "Thu", "Fri"], ["Fri", "Thu", "Wed", "Tue", "Mon"])))),
    Step("Liquor sales at γ = 20",
         "KL distances between the days' liquor sales at the article's **γ = {article_gamma:g}**: the page's "
         "eigenvalues match the ones the article printed to within {article_diff:.0e}. One 0, λ₂ = {l2:.3f}, a gap "
         "of {gap:.2f}, then the other {rest_n} between {rest_lo:.2f} and {rest_hi:.2f}.",
         {"cat.graph": "liquor_kl", "cat.tab": "Spectrum"},
         (Claim("the page's γ is the article's", lambda f: f["gamma"] == f["article_gamma"]),
          Claim("the eigenvalues match the article's", lambda f: f["article_diff"] < 1e-6),
          Claim("one zero eigenvalue, then λ₂, then the largest gap",
                lambda f: f["zeros"] == 1 and f["gap_after"] == 2),
          Claim("the eigenvalues past the gap lie closer together than the gap is wide",
                lambda f: f["rest_hi"] - f["rest_lo"] < f["gap"]))),
    Step("Sweeping γ",
         "The same matrix at γ from {sweep_low:g} to {sweep_high:g} times the article's: at {sweep_low:g}× the "
         "{sweep_n} non-zero eigenvalues bunch within {sweep_low_spread:.3f}, at {sweep_high:g}× they spread from "
         "{sweep_high_l2:.0e} to {sweep_high_top:.2f}, λ₂ so near 0 that the graph nearly splits. The useful γ shows "
         "a gap: {sweep_here_gap:.2f} at the article's, against {sweep_low_gap:.3f} at {sweep_low:g}×.",
         {"cat.graph": "liquor_kl", "cat.tab": "γ sweep"},
         (Claim("the smallest γ bunches the non-zero eigenvalues", lambda f: f["sweep_low_spread"] < 0.01),
          Claim("the largest γ spreads them over most of [0, 2]",
                lambda f: f["sweep_high_top"] - f["sweep_high_l2"] > 1.5),
          Claim("at the largest γ λ₂ is near 0: the graph nearly splits", lambda f: f["sweep_high_l2"] < 1e-3),
          Claim("the article's γ shows a far wider gap than the smallest γ",
                lambda f: f["sweep_here_gap"] > 10 * f["sweep_low_gap"]))),
]

TOURS["graphs"] = [
    Step("Karate club, unweighted",
         "Zachary's club split in two (shapes). Cut at the Fiedler vector's sign with every tie counted as 1: "
         "members {misplaced} (ringed) land on the other side from their club.",
         {"graphs.graph": "karate", "graphs.weighted": False},
         (Claim("the split at 0 puts members 3 and 9 on the other side from their club",
                lambda f: f["rule"] == "at 0" and not f["weighted"] and f["misplaced"] == "3 and 9"),)),
    Step("With the ties' weights",
         "Weigh each tie by how often the two met: member 3 moves to its club's side, and only member {misplaced}, "
         "who joined {club}'s club, is still on the other side.",
         {},
         (Claim("with the weights only member 9 is on the other side from its club",
                lambda f: f["weighted"] and f["misplaced"] == "9"),
          Claim("without the weights member 3 was on the other side too",
                lambda f: f["misplaced_other"] == "3 and 9"))),
    Step("The best sweep cut",
         "Try every threshold along the sorted vector and keep the least conductance: on the karate club the best "
         "threshold is {sweep_threshold:.4f} (conductance {sweep_conductance:.3f}), and it cuts off the same "
         "{sweep_below} members as the split at 0. The median's cut costs more ({median_conductance:.3f}), as the "
         "sweep profile below shows.",
         {"graphs.rule": "sweep"},
         (Claim("the best sweep cut has the same sides as the split at 0", lambda f: f["sweep_same_as_zero"]),
          Claim("no split has a lower conductance than the best sweep cut",
                lambda f: f["sweep_conductance"] <= min(f["zero_conductance"], f["median_conductance"])),
          Claim("the median's cut has a higher conductance",
                lambda f: f["median_conductance"] > f["sweep_conductance"]))),
    Step("Recursive bisection",
         "Cut in two, then cut the largest part again by its own Fiedler vector, until there are **{parts}** parts, "
         "of {part_sizes} members.",
         {"graphs.tab": "k parts", "graphs.k": 4},
         (Claim("three cuts make four parts", lambda f: f["parts"] == 4 and f["steps"] == 3),
          Claim("every cut split the largest part there was", lambda f: f["largest_each_time"]))),
    Step("Two Laplacians",
         "The plain L = D − A against the normalised one, which weighs every node by its degree: λ₂ is "
         "{l2_plain:.3f} against {l2_normalised:.3f}, yet their best sweep cuts put all {laplacians_agree} members "
         "on the same sides.",
         {"graphs.tab": "Two Laplacians"},
         (Claim("both Laplacians' best sweep cuts put every member on the same side",
                lambda f: f["cmp_rule"] == "best sweep cut" and f["laplacians_agree"] == f["nodes"]),
          Claim("the two λ₂ differ", lambda f: abs(f["l2_plain"] - f["l2_normalised"]) > 0.1))),
]

TOURS["found"] = [
    Step("Units decide PCA", "Multiply feature “{feature}” by {factor:,.0f} (millimetres for metres): the first "
         "component turns onto the {feature} axis, {angle:.2f}° from it where it was {angle_before:.0f}°, and holds "
         "{share:.1%} of the variance.", {"found.pca_feature": "x", "found.pca_scale": 3.0},
         (Claim("the first component lies along the rescaled feature's axis (under 1°)", lambda f: f["angle"] < 1),
          Claim("it did not before the rescaling (more than 10° from it)", lambda f: f["angle_before"] > 10),
          Claim("it holds nearly all the variance (over 99%)", lambda f: f["share"] > 0.99))),
    Step("Standardise first", "Divide every feature by its standard deviation before PCA: the rescaling no "
         "longer matters. The components are those of the unscaled cloud standardised (none turns by more than "
         "{moved:.0e}°), and PC1 lies {angle:.0f}° from the {feature} axis instead of along it.",
         {"found.pca_feature": "x", "found.pca_scale": 3.0, "found.pca_std": True},
         (Claim("no component turns through the rescaling (under 0.01°)", lambda f: f["moved"] < 0.01),
          Claim("the first component is off the rescaled feature's axis (more than 10°)", lambda f: f["angle"] > 10))),
    Step("PCA against random projections", "PCA keeps the most energy for its k: at k = {k} it loses "
         "{pca_reconstruction:.0%} of it, a random projection {jl_reconstruction:.0%}. The random projection keeps "
         "distances better: their median distortion is {jl_distortion:.2f} against PCA's {pca_distortion:.2f}.",
         {"found.tab": "PCA vs JL"},
         (Claim("PCA loses less energy than the random projection",
                lambda f: f["pca_reconstruction"] < f["jl_reconstruction"]),
          Claim("the random projection distorts distances less than PCA",
                lambda f: f["jl_distortion"] < f["pca_distortion"]))),
    Step("The JL bound as k grows", "For ε = {eps:g} the Johnson-Lindenstrauss bound asks for k = {bound:,} "
         "dimensions; at k = {k:,} the worst of {pairs:,} pairs measured changes its squared distance by "
         "{worst:.0%}, inside ε. At k = {k_small:,} the worst moves by {worst_small:.0%}, and {outside_small:.1%} "
         "of the pairs leave 1 ± ε.", {"found.tab": "Johnson-Lindenstrauss"},
         (Claim("every pair measured stays within 1 ± ε at k", lambda f: f["worst"] <= f["eps"]),
          Claim("the distortion falls as k grows (worse at a quarter of k)",
                lambda f: f["worst_small"] > f["worst"]))),
]

TOURS["words"] = [
    Step("The map", "The map places the {n} most frequent words by t-SNE of their {dims}-dimensional vectors, "
         "“{first}” ({first_count:,} times) to “{last}” ({last_count:,}): more than half ({cover:.0%}) of the "
         "corpus's {tokens:,} running words. Near words share contexts, but the gaps and the sizes of the groups "
         "mean little.", {},
         (Claim("the mapped words are more than half of the running words", lambda f: f["cover"] > 0.5),)),
    Step("Window context", "With a window of {window} words each side, the {near_count} nearest to “{word}” "
         "(ringed on the map) are {near}: {near_numbers} of them are numbers, as are only {numbers_share:.1%} of "
         "the vocabulary. A number stands in for another: they share the words around them.",
         {"words.query": "2", "words.highlight": "2"},
         (Claim("the example word is a number", lambda f: f["word_is_number"]),
          Claim("most of its nearest words are numbers", lambda f: 2 * f["near_numbers"] > f["near_count"]),
          Claim("numbers are far commoner among its nearest words than in the vocabulary",
                lambda f: f["near_numbers"] / f["near_count"] > 5 * f["numbers_share"]))),
    Step("Document context", "Counted over whole documents, the {near_count} nearest to “{word}” become {near}, "
         "{near_numbers} of them numbers (the window gave {win_near_numbers}). They are words of the same "
         "articles: {together:.0%} of the documents that hold them hold {word} too, against {win_together:.0%} for "
         "the window's neighbours.", {"words.query": "2", "words.highlight": "2", "words.context": "document"},
         (Claim("fewer of the nearest words are numbers than with the window",
                lambda f: f["near_numbers"] < f["win_near_numbers"]),
          Claim("the nearest words share more of their documents with the word than the window's do",
                lambda f: f["together"] > f["win_together"]))),
    Step("The shift", "Subtracting **log {shift:g}** from every PMI drops the weak associations to 0: "
         "{nnz:,} non-zero entries are left of {nnz_unshifted:,} ({thinned:.0%} fewer, the figure beside the "
         "map). The spectrum shows what remains: {dims} dimensions keep {energy:.1%} of its energy.",
         {"words.tab": "Spectrum", "words.shift": 5},
         (Claim("the shifted matrix has fewer non-zero entries", lambda f: f["nnz"] < f["nnz_unshifted"]),)),
    Step("An analogy", "“{a} : {b} :: {c} : ?” The word nearest to {b} − {a} + {c} is “{answer}”: {expected} "
         "ranks {rank} of {n_vocab:,} there but {c_rank} among the words nearest to {c} alone, so the offset "
         "found it, not nearness to {c}.", {"words.tab": "Nearest words"},
         (Claim("the expected word answers the analogy", lambda f: f["rank"] == 1),
          Claim("the expected word is not simply one of the words nearest to c",
                lambda f: f["c_rank"] is not None and f["c_rank"] > 10))),
]

TOURS["pl"] = [
    Step("Single point", "Each song is one point, trained on playlists planted from a known map. The right panel "
         "lays the learned map (orange) over the true one (grey) after the best turn, shift and scale: the squared "
         "errors left add up to {disparity:.1%} of the true map's squared spread (Procrustes disparity "
         "{disparity:.3f}).", {},
         (Claim("the learned map matches the true one up to a turn (Procrustes disparity under 0.05)",
                lambda f: f["disparity"] < 0.05),)),
    Step("Dual point", "An entry and an exit point per song: on these symmetric playlists the extra freedom does "
         "not pay, and the held-out log-likelihood (beside the map) is a little lower, {ll_dual:.3f} against the "
         "single-point model's {ll_single:.3f}.", {"pl.model": "dual"},
         (Claim("the dual model's held-out log-likelihood is lower than the single model's",
                lambda f: f["ll_dual"] < f["ll_single"]),
          Claim("lower by a little (under 0.1 nats per transition)", lambda f: f["ll_single"] - f["ll_dual"] < 0.1))),
    Step("Playlists with a direction", "Playlists planted from a dual-point model, where A then B is likely and "
         "B then A is not: here the dual model wins, with a held-out log-likelihood of {ll_dual:.3f} against the "
         "single-point model's {ll_single:.3f}.", {"pl.dataset": "planted_dual", "pl.model": "dual"},
         (Claim("the dual model's held-out log-likelihood is higher than the single model's",
                lambda f: f["ll_dual"] > f["ll_single"]),)),
    Step("Cold start by tags", "A song no playlist has played can be placed from its tags alone, at the mean of "
         "its tags' points. The {cs_songs} songs held out of training, placed there, give their transitions a "
         "log-likelihood of {cs_tags:.2f} each, against {cs_zero:.2f} at the centre and {cs_random:.2f} at random.", {"pl.tab": "Cold start"},
         (Claim("the tags' mean scores better than the centre", lambda f: f["cs_tags"] > f["cs_zero"]),
          Claim("the tags' mean scores better than a random point", lambda f: f["cs_tags"] > f["cs_random"]))),
]

TOURS["text"] = [
    Step("Sparse", "{documents} documents over {terms:,} terms: only {density:.1%} of the matrix is non-zero. The "
         "slice drawn holds the most frequent terms ({slice_terms}), so {slice_density:.0%} of its cells are "
         "non-zero, far more than in the whole.", {},
         (Claim("under 2% of the matrix is non-zero", lambda f: f["density"] < 0.02),
          Claim("the slice is far denser than the whole (over 10 times)",
                lambda f: f["slice_density"] > 10 * f["density"]))),
    Step("tf-idf", "Weight each count by how rare the term is across documents: “{frequent}” occurs most in "
         "document {doc} ({frequent_f} times) but is in {frequent_df} of the {documents} documents, and falls to "
         "place {frequent_rank} of {doc_terms}. “{top}”, in {top_df} documents, rises to the top.",
         {"text.tab": "TF and IDF"},
         (Claim("the document's commonest term drops out of the terms listed",
                lambda f: f["frequent_rank"] > f["listed"]),
          Claim("the top term by tf · idf is in fewer documents than the commonest one",
                lambda f: f["top_df"] < f["frequent_df"]))),
    Step("Hashing collisions", "Fold the whole vocabulary of {terms:,} terms into **2^{bits} = {buckets:,}** "
         "buckets: each holds {fewest} to {most} terms. The collisions show in the inner products: a hashed cosine "
         "is off by {rmse:.3f} (RMS) where the cosines average {mean_cosine:.3f}, and by {rmse_wide:.4f} with "
         "2^{wide_bits} buckets.", {"text.tab": "Feature hashing", "text.bits": 6},
         (Claim("every bucket holds many terms (10 or more)", lambda f: f["fewest"] >= 10),
          Claim("collisions make the hashed cosines far less exact (over 10 times the error with 2^16 buckets)",
                lambda f: f["rmse"] > 10 * f["rmse_wide"]))),
    Step("LSA", "Factorise the tf-idf matrix into a few concepts: documents and terms share one space.",
         {"text.tab": "LSA"}),
]
