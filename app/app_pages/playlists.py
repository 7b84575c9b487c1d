import math

import streamlit as st

from app.services import data as data_service
from app.services import maps
from app.services import playlists as svc
from app.services import reproduce
from app.ui import playlists_charts as pcharts
from app.ui import plots, runs, share, tour
from app.ui.controls import ranged_slider
from app.ui.layout import instrument, lazy_tabs, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import equations, md_escape

#: Seconds between two runs of the training section, each drawing one frame of the live map (four a second).
FRAME_S = 0.25
#: Training that ends within this many seconds of the run that started it is shown finished, without a live map:
#: the default data train in 0.2-0.4 s, and one live frame of that is not worth the page's second run (a first
#: visit took 1.5-1.8 s instead of 0.6-0.8 s when the training ran past a frame).
AT_ONCE_S = 0.5
#: How long a tour's step waits for its model (data that train at once take a second or two).
TOUR_WAIT_S = 30.0


def _last(key: str, options: list | None = None, default=None):
    """What a control in a tab was last set to (tabs that are not open draw nothing, so their widgets forget)."""
    value = st.session_state.get(key + ".last", default)
    if options is None:
        return value
    if isinstance(value, list):
        return [v for v in value if v in options]
    return options.index(value) if value in options else 0


def _keep(key: str, value) -> None:
    st.session_state[key + ".last"] = value


page_header("Playlists: Latent Markov Embedding",
            "Every song gets a point so that the chance of playing one song after another falls with their "
            "distance: trained on playlists, the points draw a map of the music.", "pl")


def intro() -> None:
    st.markdown(
        """
A playlist is a walk through songs. **Latent Markov Embedding** gives every song a point
so that the chance of playing song *s* after song *s′* falls with their squared distance.
Fitting the points to many playlists by maximum likelihood draws a **map of the music**:
songs that follow each other sit together. In the *single-point* model each song is one
point (transitions are almost symmetric); in the *dual-point* model it has an entry point
*u* and an exit point *v*, so "A then B" can be likely while "B then A" is not.
"""
    )
    equations(st, r"P(s \mid s') = \frac{e^{-\lVert u_s - v_{s'}\rVert^2}}{Z(s')},\qquad "
              r"Z(s') = \sum_{s''} e^{-\lVert u_{s''} - v_{s'}\rVert^2}",
              r"\max_{U,V} \frac{1}{T}\sum_{\text{transitions}} \log P(p_{j} \mid p_{j-1}) "
              r"- \frac{\lambda}{S}\left(\lVert U\rVert^2 + \lVert V\rVert^2\right)")
    st.caption("T is the number of training transitions and S the number of songs, so λ weighs the average over songs "
           "of ‖u‖² + ‖v‖² against the average log-likelihood per transition (in the single-point model u = v). "
           f"With tags a second penalty, {svc.TAG_WEIGHT:g}/S times the sum of every point's squared distance "
           "to its tags' mean, is subtracted too. Z sums over every song, the current one included (with the approximate "
           "Z of the sidebar: exactly over the nearest songs, estimated from landmarks for the rest). Training is "
           "gradient ascent on that objective; the step grows by 20% after every improvement and halves after "
           "a worse step.")



seed = data_service.seed()
source, _ = data_source("playlists", "pl", default="planted_single")
ref = data_service.ref("playlists", source)
main, knobs = instrument("pl")
sb = knobs
whole = svc.one_playlist(ref)
if whole is not None:
    # one playlist cannot be split into training and held-out playlists: cut it into sessions, at a length chosen here
    session = ranged_slider("Session length (songs)", 2, max(2, whole // 2), svc.default_session_length(whole),
                            key="pl.session", where=knobs, bind="query-params",
                            why=f"a playlist of {whole} songs makes two sessions at most",
                            help="Consecutive songs of your one playlist make one session; each session is a playlist "
                            "on this page. Shorter sessions make more playlists to hold out, but cut more transitions "
                            "at their ends.")
    ref = svc.sessions_ref(ref, session)
    main.info(f"Your upload is one playlist of {whole:,} songs. A held-out split needs at least two playlists, so the "
              f"page cuts it into sessions of {session} consecutive songs ({-(-whole // session):,} sessions, each a "
              "playlist here; *Session length* beside the map changes the cut). Songs that follow each other across a "
              "cut are not counted as a transition.")
model_kind = sb.radio("Model", ["single", "dual"], key="pl.model", horizontal=True, bind="query-params",
                      help="single: one point per song. dual: an entry and an exit point per song.")
dim = sb.slider("Dimensions", 2, 5, 2, key="pl.dim", help="The map shows the first two.", bind="query-params")
reg_exp = sb.slider("log10(regularisation λ)", -5.0, 0.0, -3.0, 0.5, key="pl.reg",
                    help="Pulls every point towards the centre; protects rarely played songs from drifting.",
                    bind="query-params")
sb = knobs.expander("More settings", icon=":material/tune:")
iters = sb.slider("Iterations (at most)", 50, 3000, 600, 50, key="pl.iters", bind="query-params")
test_size = sb.slider("Held-out share of playlists", 0.1, 0.5, 0.2, 0.05, key="pl.test", bind="query-params")
facts = svc.facts(ref, test_size)
n_songs = facts["songs"]
z_mode = sb.radio("Partition function Z", ["exact", "approximate"], key="pl.z_mode", horizontal=True,
                  help="exact: every song in every Z (S x S work per step; at most "
                  f"{svc.MAX_EXACT_Z_SONGS:,} songs, above that the approximation is used). approximate: the m "
                  "songs nearest to each exit point and its observed successors exactly, the rest from m random "
                  "landmarks; for large song sets.", bind="query-params")
exact_cost = svc.partition_cost(n_songs)
auto_approx = z_mode == "exact" and not exact_cost.exact_allowed
z_m = sb.slider("m (near songs and landmarks)", 10, 1000, 50, 10, key="pl.z_m",
                disabled=z_mode == "exact" and not auto_approx,
                help="Used when 3m is below the number of songs; otherwise Z is computed exactly.", bind="query-params")
z_approx = None if z_mode == "exact" and not auto_approx else z_m
reg = float(10**reg_exp)



def controls_text() -> None:
    st.markdown("**What the controls change, and how the picture can mislead**")
    st.markdown(
        """
* **Model.** The dual model has twice the parameters and can express direction (an intro
  leads into a song, not back); on symmetric data it overfits a little.
* **Dimensions.** More room fits better; the map then shows only two of them.
* **λ** shrinks the map; songs with few plays stay near the centre.
* **Held-out share** sets how many playlists are kept aside to score the model honestly.
* **Approximate Z** trades exactness for memory: with m near songs and m landmarks per step
  instead of all S, it is close to exact when m is well above the effective number of next
  songs (e to the minus log-likelihood); the reported likelihoods are always exact.
* *Misleading pictures.* The map is defined up to rotation, reflection and shift, and its
  scale only means something through the probabilities (a distance of 1 is a factor e). Songs
  near the centre may be there for lack of data, not because they are "average". A good
  held-out log-likelihood is the number to trust, not how tidy the map looks.
"""
    )

if not facts["trainable"]:
    if whole is not None and whole < 4:
        st.error(f"Your upload is one playlist of {whole} songs: too short to hold out a session and keep one of two "
                 "songs to train on. Upload a playlist of at least 4 songs, or two playlists or more.")
    elif whole is not None:
        st.error("After the split no training session has two songs. Lower the held-out share or the session length.")
    else:
        st.error("After the split no training playlist has two songs. Lower the held-out share or upload longer "
                 "playlists.")
    st.stop()
spec = svc.ModelSpec(ref, test_size, model_kind, dim, reg, iters, z_approx)

cols = [c for _ in range(3) for c in knobs.columns(2)]
cols[0].metric("songs", f"{n_songs:,}")
cols[1].metric("playlists (train / test)", f"{facts['train']:,} / {facts['test']:,}")
cols[2].metric("training transitions", f"{facts['transitions']:,}")
if facts["description"]:
    knobs.caption(md_escape(facts["description"]))

if auto_approx:
    main.info(f"{n_songs:,} songs is above the exact Z's limit of {svc.MAX_EXACT_Z_SONGS:,} "
            f"({exact_cost.terms / 1e6:,.0f} million kernel terms per step; a {n_songs:,} x {n_songs:,} float64 "
            f"matrix is {exact_cost.dense_bytes / 1e9:.1f} GB), so training uses the approximate Z with m = {z_m} "
            "(sidebar: Partition function Z, m).")


TRAINING_NOTE = "Training: the map and the curve redraw as it learns; Stop keeps the model so far."


def training_section(spec, n_songs: int, z_approx) -> None:
    """Train and Stop, and the training running for ``spec`` drawn as it learns.

    While training runs, this section reruns on its own (a fragment with ``run_every``, about four times
    a second) and each of its runs draws the latest accepted step once, into the same map element
    (``pl.map.live``): the points glide from one frame to the next and the rest of the page does not
    rerun. A Stop click reruns only this section too: its callback stops the training at once, and the
    section hands the page the model kept. When training ends the whole page runs and shows the model.
    """
    job = svc.current_job(spec)  # passes on a Stop click made here
    c_train, c_stop, c_note = st.columns([1, 1, 4])
    if job is not None:
        if job.running and job.stopping:
            job.wait(1.0)  # a stopped run ends within a check; show its model at once
        if not job.running:
            st.rerun()  # the page takes in the model (or the message) and shows it
        job.watched()
        c_train.button("Train", key="pl.train", type="primary", disabled=True)
        c_stop.button("Stop", key="pl.stop_button", on_click=svc.ask_stop, help="Keep the model as it is now.")
        c_note.caption(TRAINING_NOTE)
        frame = job.wait_for_frame(0.2)
        if frame is None:
            st.caption("Training has started; the map appears after its first step.")
        else:
            job.draws += 1
            c_map, c_curve = st.columns([3, 2])
            pcharts.live(c_map, c_curve, frame, job.curve(), svc.training_songs(spec.data, spec.test_size))
        return
    if c_train.button("Train", key="pl.train", type="primary"):
        svc.start(spec)
        st.rerun(scope="app")  # the page lays out the training section as live
    if n_songs > svc.AUTO_TRAIN_SONGS and svc.shown_key(spec) is None:
        step = svc.step_seconds(n_songs, z_approx)
        c_note.caption(f"{n_songs:,} songs: press Train to start (roughly {step:.2g} s per step; "
                       "it redraws as it learns and Stop keeps the model so far).")
    elif "pl.redraw_rate" in st.session_state:
        n_draws, secs = st.session_state["pl.redraw_rate"]
        c_note.caption(f"Last training: {secs:.1f} s, the map redrawn {n_draws} time{'' if n_draws == 1 else 's'} "
                       f"({n_draws / max(secs, 1e-9):.1f} per second).")


train_area = main.container()
body = main.container()  # the model's tabs (or the baselines, before there is a model)
with main, theory():
    intro()
    controls_text()
job = svc.current_job(spec)
ahead = svc.prefetching(spec) if job is None else None
if ahead is not None:  # trained in the background since the last run (see svc.prefetch): nearly done
    wait_note = train_area.empty()
    wait_note.caption("These settings are being trained in the background; the map follows in a moment.")
    while ahead.running:
        ahead.watched()
        ahead.wait(0.05)
        runs.check()
    wait_note.empty()
if job is None and svc.auto_trains(spec, n_songs):
    job = svc.start(spec)  # drawn by the training section's own runs, below
    # short training is shown at once, without a live map; a tour's step waits for the model whose numbers it states
    job.wait(AT_ONCE_S if tour.current("pl") is None else TOUR_WAIT_S)
notice = svc.collect(job) if job is not None else None
if job is not None and not job.running and job.draws:
    maps.forget("pl.map.songs")  # the map learned live is shown as its last frames showed it, not turned
live = job is not None and job.running
section = st.fragment(training_section, run_every=FRAME_S if live else None)
with train_area:
    if notice is not None and notice[0] == "error":
        st.error(md_escape(notice[1]))  # may quote the data
    elif notice is not None:
        st.info(notice[1])
    section(spec, n_songs, z_approx)

key = svc.shown_key(spec)
st.session_state["pl.shown"] = key
share.panel("playlists", None if key is None else reproduce.lazy(lambda: svc.recipe(key)),
            uploaded=source == "upload",
            what="Train a model first: the export holds a trained song map." if key is None else
            "the song map, the songs and the training curve")
held_set = svc.held_out_set(ref, test_size)
base = svc.baselines(ref, test_size)
if key is None:
    body.dataframe(svc.baseline_table(base), hide_index=True, key="pl.base_only")
    body.caption(svc.left_out_line(held_set))
    st.stop()

trained = svc.trained(key)
if key.stopped_at is None and n_songs <= svc.AUTO_TRAIN_SONGS:
    # the other point model is one click away: train it now, so the click shows it at once
    svc.prefetch(spec._replace(model="dual" if model_kind == "single" else "single"))
model_info = svc.model_info(key)
held = trained.held_out
if tour.current("pl") is not None:  # what the tour's sentences say: the fit to the true map, both point models
    tour.tell("pl", **svc.truth_fit(key), **svc.point_models(key, n_songs))
cols[3].metric("iterations", f"{model_info['iterations']:,}", help=f"{model_info['seconds']:.1f} s")
cols[4].metric("held-out log-likelihood (Δ vs bigram)", f"{held:.4f}" if held is not None else "n/a",
               delta=f"{held - base['bigram (Witten-Bell)']:+.3f}" if held is not None else None,
               help="Mean log-probability (nats) of a held-out transition under this model; the arrow is the "
                    "difference from the bigram baseline (Witten-Bell smoothing), higher is better.")

table = svc.song_table(key)
song_names = list(table["song"])
labels = ["Song map", "A song's next songs", "Sample a playlist", "Likelihood", "Tags", "Cold start", "Download"]
tabs = lazy_tabs(labels, key="pl.tab", where=body)


@st.fragment
def song_map_tab() -> None:
    """The song map, its selection tools and the pinned comparison: a box, a lasso, a click, Clear, Pin or the
    mouse mode reruns this tab alone (nothing else on the page shows the selection or the inspected song)."""
    tools = MapTools("pl", ref, table["song"], table[["x", "y"]].to_numpy(), labels=table["tags"],
                     space=svc.song_space(key), noun="song", id_name="song", label_name="tags")
    c_map, c_right = st.columns(2)
    tools.draw(c_map, "pl.map.songs", **pcharts.song_map_style(table))
    alignment = svc.truth_alignment(key)
    if alignment is not None:
        pcharts.truth_map(c_right, alignment)
    else:
        plots.show(c_right, pcharts.curve_chart(model_info["curve"], height=560), key="pl.chart.curve")

    def what_joins_them(rows) -> None:
        found = svc.selection_summary(key, tuple(table["song"].iloc[rows]))
        st.caption(f"{found['joined']:,} of the {found['training']:,} training playlists hold two or more of "
                   "the selected songs; those with the most:")
        st.dataframe(found["playlists"], hide_index=True, key="pl.selected_playlists", height=200)
        if len(found["tags"]):
            st.dataframe(found["tags"], hide_index=True, key="pl.selected_tags", height=160)

    tools.panel(what_joins_them, file_name="selected_songs.csv", extra={"plays": table["plays"]})
    if tools.view is not None:
        st.caption(f"The original space is the model's {dim} dimensions; the map shows the first two"
                   + (", so with 2 dimensions both lists agree." if dim == 2 else "."))
    tools.compare(f"{model_kind} model, {dim} dimensions, λ {reg:g}, {model_info['iterations']} iterations",
                  what="model or the dimensions")


with tabs[0]:
    if tabs[0].open:
        song_map_tab()

with tabs[1]:
    if tabs[1].open:
        song = st.selectbox("Song", song_names, key="pl.song", index=_last("pl.song", song_names), bind="query-params")
        _keep("pl.song", song)
        i = song_names.index(song)
        view = svc.next_song_view(key, i)
        c1, c2 = st.columns([3, 2])
        pcharts.next_song_map(c1, table, view, i)
        c2.dataframe(view["top"].round(4), hide_index=True, key="pl.next_table", height=460)
        if not view["dual"] and view["allows_self"]:
            st.caption(f"In the single-point model a song is at distance 0 from itself, so it is always its own "
                       f"likeliest next song (here {view['self']:.4f}): like the paper's, the model allows a song to "
                       "follow itself.")
        st.caption(f"Orange arrows point to the {pcharts.NEXT_ARROWS} likeliest next songs (the song itself aside); "
                   "the likelier, the wider and darker.")
        if view["dual"]:
            st.caption("The black arrow runs from the song's entry point (where songs that lead into it sit) to its "
                       "exit point v, marked x (which decides what comes next): the orange arrows start there.")

with tabs[2]:
    if tabs[2].open:
        c1, c2 = st.columns(2)
        start = c1.selectbox("Start", song_names, key="pl.start", index=_last("pl.start", song_names),
                             bind="query-params")
        _keep("pl.start", start)
        length = c2.slider("Length", 2, 30, _last("pl.length", default=10), key="pl.length", bind="query-params")
        _keep("pl.length", length)
        sampled, positions = svc.sample_playlist(key, song_names.index(start), length)
        pcharts.playlist_path(st, table, positions, sampled)
        st.caption(" → ".join(md_escape(s) for s in sampled))

with tabs[3]:
    if tabs[3].open:
        lt = svc.likelihood_table(key)
        st.dataframe(lt.round(4), hide_index=True, key="pl.ll_table")
        if len(lt):
            plots.show(st, pcharts.likelihood_bars(lt), key="pl.chart.ll")
        st.caption(svc.left_out_line(held_set))
        st.caption(f"Uniform is exactly -ln {len(song_names)} = {-math.log(len(song_names)):.4f} (the songs "
                   "seen in training). Unigram: how often a song is played; bigram: counts of song pairs, smoothed "
                   "towards the unigram (Witten-Bell). All of them, like the model, allow a song to follow itself.")
        with st.expander("A hidden Markov model beside the LME"):
            st.latex(r"P(p, z) = \pi(z_1) \prod_{j \ge 2} a(z_j \mid z_{j-1}) \prod_j b(p_j \mid z_j)")
            st.latex(r"(K - 1) + K(K - 1) + K(|S| - 1) = O(K^2) + O(|S| K)\ \text{parameters}")
            n_states = st.select_slider("Hidden states K", [2, 4, 8, 16, 32], _last("pl.hmm_states", default=8),
                                        key="pl.hmm_states", bind="query-params",
                                        help="More states remember more about the playlist so far, but each "
                                        "state needs its own distribution over every song.")
            _keep("pl.hmm_states", n_states)
            hmm = svc.hmm_baseline(ref, test_size, int(n_states))
            if hmm.problem is not None:
                st.info(hmm.problem)
            else:
                st.dataframe(svc.hmm_table(key, int(n_states)), hide_index=True, key="pl.hmm_table",
                             column_config={"held-out log-likelihood": st.column_config.NumberColumn(format="%.4f")})
                st.caption(f"Baum-Welch ran {hmm.iterations} rounds. The HMM is scored on the same held-out "
                           "transitions: each song's probability given every song before it in its playlist, back to "
                           "any song left out (the forward pass), where the LME looks at the last song only. Its weakness is the lecture's: "
                           "each state needs b(s | z) for every song, learned from the few plays a song has, so "
                           "many states overfit while few states cannot tell songs apart.")

with tabs[4]:
    if tabs[4].open:
        tag_points = svc.tag_points(key)
        if tag_points is None:
            st.info("This data set has no tags. The planted sets and the Les Miserables walks have them.")
        else:
            tags, tag_xy = tag_points
            chosen = st.multiselect("Tags of a new song (no playlists yet)", tags,
                                    default=_last("pl.new_tags", tags, tags[:1]), key="pl.new_tags",
                                    bind="query-params")
            _keep("pl.new_tags", chosen)
            new_point = svc.tag_position(key, chosen) if chosen else None
            pcharts.tag_map(st, table, tags, tag_xy, new_point)
            st.caption("Training pulls every song towards the mean of its tags' points, and the tags' points towards "
                       "their songs. A song nobody has put in a playlist yet can then be placed at its tags' mean "
                       "(cold start).")

with tabs[5]:
    if tabs[5].open:
        st.markdown(
            """
**Cold start** is the new song nobody has put in a playlist yet: the model has no transition
to learn its point from, yet it must say what to play next to it. What it may know is the
song's tags, and training has placed every tag among the songs that carry it.
"""
        )
        st.latex(r"u_{\text{new}} = v_{\text{new}} = \frac{1}{|T_{\text{new}}|}\sum_{t \in T_{\text{new}}} a_t")
        st.caption("a_t is tag t's point and T_new the new song's tags. Here a share of the tagged songs is taken "
                   "out of every training playlist (each playlist is cut where they were), LME is trained with "
                   "tags on the rest, and each held-out song is put back at its tags' mean, at 0 (the centre) or "
                   "at a random point (with the spread of the trained map). Every transition that touches a "
                   "held-out song is then scored, Z summing over all songs.")
        if not facts["has_tags"]:
            st.info("This data set has no tags, so a new song cannot be placed by them. The planted sets and the "
                    "Les Miserables walks have tags; an upload can come with a tag file.")
        else:
            c1, c2 = st.columns(2)
            cs_share = c1.slider("Share of tagged songs held out", 0.05, 0.5, 0.1, 0.05, key="pl.cs_share",
                                 bind="query-params",
                                 help="These songs are removed from training and placed afterwards.")
            cs_tag_exp = c2.slider("log10(tag weight)", -3.0, 1.0, float(math.log10(svc.TAG_WEIGHT)), 0.5,
                                   key="pl.cs_tag", bind="query-params",
                                   help="How strongly training pulls each song to its tags' mean (the control).")
            cs_spec = svc.ColdStartSpec(ref, cs_share, float(10**cs_tag_exp), model_kind, dim, reg, iters, z_approx)
            cs_table = svc.cold_start_result(cs_spec)
            if cs_table is None and tour.current("pl") is not None:  # the tour's step shows the scores (a second)
                try:
                    cs_table = svc.run_cold_start(cs_spec)
                except ValueError:
                    pass  # Run says why
            if st.button("Run", key="pl.cs_run", type="primary",
                         help="Hold the songs out, train and score (a few seconds)."):
                with st.spinner("Training without the held-out songs..."):
                    try:
                        cs_table = svc.run_cold_start(cs_spec)
                    except ValueError as err:
                        st.error(md_escape(str(err)))
            if cs_table is None:
                st.caption("Press Run to train without the held-out songs and score the three placements.")
            else:
                tour.tell("pl", **svc.cold_start_facts(cs_table))
                plots.show(st, pcharts.cold_start_bars(cs_table), key="pl.chart.cold")
                st.dataframe(cs_table.round(4), hide_index=True, key="pl.cs_table")
                st.caption(f"{int(cs_table['held-out songs'].iloc[0]):,} songs held out; "
                           f"{int(cs_table['transitions'].iloc[0]):,} transitions touch one of them and are scored "
                           f"(tag weight {cs_spec.tag_weight:g}; the model, dimensions, λ and iterations are the "
                           "sidebar's).")
        with st.expander("What the controls change, and how the picture can mislead"):
            st.markdown(
                """
* **Share held out.** More held-out songs leave less to train on and more transitions to score;
  many of them are next to each other, so their transitions carry less information.
* **Tag weight** is the control: near 0 the tags barely shape the map, so their points say
  little about where a song belongs; larger, songs gather around their tags and the tags'
  mean becomes a better guess (while the map may fit the playlists a little worse).
* **Run** trains again; the result is kept for these settings and shared with other visitors.
* *Misleading pictures.* On planted data the tags name regions of the true map, so they are
  as informative as tags can be; real tags are noisier. The score is over one seeded draw of
  songs, and "at 0" is only as bad as the map is wide: a map shrunk by a large λ makes the
  centre look better. A song at 0 or at random also changes Z for every other song.
"""
            )

with tabs[6]:
    if tabs[6].open:
        meta = {"model": model_kind, "dimensions": dim, "reg": reg, "iterations": model_info["iterations"],
                "seed": seed, "data": source, "held_out_log_likelihood": held}
        st.download_button("Song coordinates (.csv)", svc.coordinates_csv(key, meta), "lme_songs.csv", "text/csv",
                           key="pl.dl_coords")
        after = st.selectbox("Next-song probabilities after", song_names, key="pl.dl_song",
                             index=_last("pl.song", song_names), bind="query-params")
        st.download_button(f"Transition probabilities after '{md_escape(after)}' (.csv)",
                           svc.transitions_csv(key, song_names.index(after)), "lme_transitions.csv", "text/csv",
                           key="pl.dl_probs")
