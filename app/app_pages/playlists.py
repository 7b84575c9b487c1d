import json
import time

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.services import data as data_service
from app.services import playlists as svc
from app.ui import charts, plots, runs
from app.ui.sidebar import data_source
from app.ui.text import html_escape, md_escape

st.title("Playlists: Latent Markov Embedding")
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
st.latex(r"P(s \mid s') = \frac{e^{-\lVert u_s - v_{s'}\rVert^2}}{Z(s')},\qquad "
         r"Z(s') = \sum_{s''} e^{-\lVert u_{s''} - v_{s'}\rVert^2},\qquad "
         r"\max_{U,V} \frac{1}{T}\sum_{\text{transitions}} \log P(p_{j} \mid p_{j-1}) "
         r"- \frac{\lambda}{S}\left(\lVert U\rVert^2 + \lVert V\rVert^2\right)")
st.caption("T is the number of training transitions and S the number of songs, so λ weighs the average over songs "
           "of ‖u‖² + ‖v‖² against the average log-likelihood per transition (in the single-point model u = v). "
           f"With tags a second penalty, {svc.LME().tag_weight:g}/S times the sum of every point's squared distance "
           "to its tags' mean, is subtracted too. Z sums over every song, the current one included (with the approximate "
           "Z of the sidebar: exactly over the nearest songs, estimated from landmarks for the rest). Training is "
           "gradient ascent on that objective; the step grows by 20% after every improvement and halves after "
           "a worse step.")

seed = data_service.seed()
sb = st.sidebar
source, pdata = data_source("playlists", "pl", default="planted_single")
model_kind = sb.radio("Model", ["single", "dual"], key="pl.model", horizontal=True, bind="query-params",
                      help="single: one point per song. dual: an entry and an exit point per song.")
dim = sb.slider("Dimensions", 2, 5, 2, key="pl.dim", help="The map shows the first two.")
reg_exp = sb.slider("log10(regularisation λ)", -5.0, 0.0, -3.0, 0.5, key="pl.reg",
                    help="Pulls every point towards the centre; protects rarely played songs from drifting.")
iters = sb.slider("Iterations (at most)", 50, 3000, 600, 50, key="pl.iters")
test_size = sb.slider("Held-out share of playlists", 0.1, 0.5, 0.2, 0.05, key="pl.test")
playlists = pdata.playlists
n_songs = len({s for p in playlists for s in p})
z_mode = sb.radio("Partition function Z", ["exact", "approximate"], key="pl.z_mode", horizontal=True,
                  help="exact: every song in every Z (S x S work per step; at most "
                  f"{svc.MAX_EXACT_Z_SONGS:,} songs, above that the approximation is used). approximate: the m "
                  "songs nearest to each exit point and its observed successors exactly, the rest from m random "
                  "landmarks; for large song sets.")
exact_cost = svc.partition_cost(n_songs)
auto_approx = z_mode == "exact" and not exact_cost["exact_allowed"]
z_m = sb.slider("m (near songs and landmarks)", 10, 1000, 50, 10, key="pl.z_m",
                disabled=z_mode == "exact" and not auto_approx,
                help="Used when 3m is below the number of songs; otherwise Z is computed exactly.")
z_approx = None if z_mode == "exact" and not auto_approx else z_m
reg = float(10**reg_exp)

with st.expander("What the controls change, and how the picture can mislead"):
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

data_key = f"{data_service.source_key(source)}:{seed}"
train_pl, test_pl = svc.split(data_key, test_size, seed, _playlists=playlists)
if not any(len(p) >= 2 for p in train_pl):
    st.error("After the split no training playlist has two songs. Lower the held-out share or upload longer playlists.")
    st.stop()
tags = getattr(pdata, "tags", None)
truth = getattr(pdata, "truth", None)
params = dict(model=model_kind, n_components=dim, reg=reg, max_iter=iters, random_state=seed,
              z_approx=z_approx)
key = svc.model_key(data_key + f":{test_size}", params)

cols = st.columns(5)
cols[0].metric("songs", f"{n_songs:,}")
cols[1].metric("playlists (train / test)", f"{len(train_pl):,} / {len(test_pl):,}")
cols[2].metric("training transitions", f"{sum(max(len(p) - 1, 0) for p in train_pl):,}")
if pdata.description:
    st.caption(md_escape(pdata.description))

if auto_approx:
    st.info(f"{n_songs:,} songs is above the exact Z's limit of {svc.MAX_EXACT_Z_SONGS:,} "
            f"({exact_cost['terms'] / 1e6:,.0f} million kernel terms per step; a {n_songs:,} x {n_songs:,} float64 "
            f"matrix is {exact_cost['dense_bytes'] / 1e9:.1f} GB), so training uses the approximate Z with m = {z_m} "
            "(sidebar: Partition function Z, m).")

c_train, c_stop, c_note = st.columns([1, 1, 4])
# A Stop click reruns the page: this run then keeps the latest state of the training it stopped.
run = runs.StoppableRun("pl.run", key)
if run.stopped:
    st.session_state["pl.stopped_" + key] = True
    if run.latest is None:
        st.info("Stopped before the first step was accepted; there is no model to keep. Press Train to start again.")
    else:
        st.session_state[key] = svc.stopped_model(*run.latest)
        st.info(f"Stopped after {st.session_state[key].n_iter_} iterations; the model so far is kept.")
auto = key not in st.session_state and n_songs <= 500 and not st.session_state.get("pl.stopped_" + key)
clicked = c_train.button("Train", key="pl.train", type="primary")
if n_songs > 500 and key not in st.session_state:
    step = svc.partition_cost(n_songs, z_approx)
    c_note.caption(f"{n_songs:,} songs: press Train to start (roughly {step['seconds']:.2g} s per step; "
                   "it redraws as it learns and Stop keeps the model so far).")
elif "pl.redraw_rate" in st.session_state:
    n_draws, secs = st.session_state["pl.redraw_rate"]
    c_note.caption(f"Last training: {secs:.1f} s, the map redrawn {n_draws} times "
                   f"({n_draws / max(secs, 1e-9):.1f} per second).")

live_map = st.empty()
live_curve = st.empty()


def draw_live(model, it, ll, final=False):
    xy = model.embedding_[:, :2]
    fig = go.Figure(go.Scattergl(x=xy[:, 0], y=xy[:, 1], mode="markers", marker=dict(size=6, color=charts.PALETTE[0]),
                                 hoverinfo="skip"))
    fig.update_yaxes(scaleanchor="x")
    plots.show(live_map, charts.layout(fig, f"Training: iteration {it}, log-likelihood {ll:.4f}", 420),
                          key=f"pl.chart.live.{it}")
    curve = pd.DataFrame({"step": np.arange(len(model.log_likelihood_curve_)), "ll": model.log_likelihood_curve_})
    plots.show(live_curve, charts.lines(curve, "step", {"ll": "training log-likelihood"}, height=260,
                                         title="Average log-likelihood per transition", y_title="nats"),
                            key=f"pl.chart.livecurve.{it}")


if clicked or auto:
    st.session_state.pop("pl.stopped_" + key, None)
    last, redraws = [0.0], [0]
    t0 = time.perf_counter()

    def on_step(model, it, ll):
        # the live model holds this accepted step until the next one; if Stop ends training
        # (inside a later step), it is the latest state, and no later step will change it
        now = time.perf_counter()
        run.save((model, it, now - t0))
        if now - last[0] >= 0.3:  # about three redraws a second
            last[0] = now
            redraws[0] += 1
            draw_live(model, it, ll)
        return False

    try:
        with run.running(c_stop, button_key="pl.stop_button", help="Keep the model as it is now."):
            model = svc.train(train_pl, tags, params, on_step, should_stop=run.check)
    except ValueError as err:
        st.error(md_escape(err))
        st.stop()
    st.session_state[key] = model
    seconds = time.perf_counter() - t0
    st.session_state["pl.redraw_rate"] = (redraws[0], seconds)
    live_map.empty()
    live_curve.empty()

model = st.session_state.get(key)
held_set = svc.held_out_set(data_key, test_size, seed, _train=train_pl, _test=test_pl)
if model is None:
    base = svc.baselines(data_key, test_size, seed, _train=train_pl, _test=test_pl)
    st.dataframe(pd.DataFrame({"model": list(base), "held-out log-likelihood": list(base.values())}),
                 hide_index=True, key="pl.base_only")
    st.caption(svc.left_out_line(held_set))
    st.stop()

# scored once per model (up to 10^8 kernel terms, about a second), not on every rerun
scored = st.session_state.get("pl.held_out")
if scored is None or scored[0] is not model:
    scored = (model, svc.held_out(model, held_set, should_stop=runs.check))
    st.session_state["pl.held_out"] = scored
held = scored[1]
base = svc.baselines(data_key, test_size, seed, _train=train_pl, _test=test_pl)
cols[3].metric("iterations", f"{model.n_iter_:,}", help=f"{model.fit_seconds_:.1f} s" if hasattr(model, "fit_seconds_") else None)
cols[4].metric("held-out log-likelihood", f"{held:.4f}" if held is not None else "n/a",
               delta=f"{held - base['bigram (Witten-Bell)']:+.3f} vs bigram" if held is not None else None)

table = svc.song_table(model, playlists, tags)
tabs = st.tabs(["Song map", "A song's next songs", "Sample a playlist", "Likelihood", "Tags", "Download"])
song_names = list(table["song"])

with tabs[0]:
    sizes = 6 + 14 * np.sqrt(table["plays"] / max(table["plays"].max(), 1))
    tag_first = [t.split(", ")[0] if t else "untagged" for t in table["tags"]]
    fig = go.Figure()
    for i, tg in enumerate(sorted(set(tag_first))):
        m = np.array(tag_first) == tg
        fig.add_trace(go.Scattergl(
            x=table["x"][m], y=table["y"][m], mode="markers", name=html_escape(tg),
            marker=dict(size=sizes[m], color=charts.PALETTE[i % len(charts.PALETTE)], line=dict(width=0.5, color="white")),
            text=[f"{html_escape(s)}<br>tags: {html_escape(t) or '-'}<br>plays: {p}"
                  for s, t, p in zip(table["song"][m], table["tags"][m], table["plays"][m])], hoverinfo="text"))
    fig.update_yaxes(scaleanchor="x")
    c1, c2 = st.columns(2)
    plots.show(c1, charts.layout(fig, "The learned song map (size: plays; colour: first tag)", 520), key="pl.chart.map")
    if truth is not None:
        aligned, true_xy, disparity = svc.aligned_to_truth(model, truth)
        fig = go.Figure()
        seg = np.full((len(aligned) * 3, 2), np.nan)
        seg[0::3], seg[1::3] = true_xy, aligned
        fig.add_trace(go.Scatter(x=seg[:, 0], y=seg[:, 1], mode="lines", line=dict(color="#ced4da", width=1),
                                 name="error", hoverinfo="skip"))
        fig.add_trace(go.Scattergl(x=true_xy[:, 0], y=true_xy[:, 1], mode="markers", name="true",
                                   marker=dict(size=6, color="#adb5bd")))
        fig.add_trace(go.Scattergl(x=aligned[:, 0], y=aligned[:, 1], mode="markers", name="learned (aligned)",
                                   marker=dict(size=6, color=charts.PALETTE[1])))
        fig.update_yaxes(scaleanchor="x")
        plots.show(c2, charts.layout(fig, f"Learned map aligned to the true one (Procrustes disparity {disparity:.3f})",
                                       520), key="pl.chart.truth")
    else:
        curve = pd.DataFrame({"step": np.arange(len(model.log_likelihood_curve_)), "ll": model.log_likelihood_curve_})
        plots.show(c2, charts.lines(curve, "step", {"ll": "training log-likelihood"}, height=520,
                                     title="Training curve", y_title="nats per transition"), key="pl.chart.curve")

with tabs[1]:
    song = st.selectbox("Song", song_names, key="pl.song")
    sid = model.songs_[song_names.index(song)]
    proba = model.transition_proba(sid)
    c1, c2 = st.columns([3, 2])
    fig = go.Figure(go.Scattergl(x=table["x"], y=table["y"], mode="markers",
                                 marker=dict(size=8, color=proba.to_numpy(), colorscale="YlOrRd", showscale=True,
                                             colorbar=dict(title=dict(text="P(next)"))),
                                 text=[html_escape(s) for s in song_names], hoverinfo="text", name="songs"))
    i = song_names.index(song)
    if model.model == "dual":
        u, v = model.entry_[i, :2], model.exit_[i, :2]
        fig.add_annotation(x=v[0], y=v[1], ax=u[0], ay=u[1], xref="x", yref="y", axref="x", ayref="y",
                           showarrow=True, arrowhead=3, arrowwidth=2, arrowcolor="#212529")
        fig.add_trace(go.Scatter(x=[v[0]], y=[v[1]], mode="markers", name="exit point v",
                                 marker=dict(size=12, symbol="x", color="#212529")))
    fig.add_trace(go.Scatter(x=[table["x"][i]], y=[table["y"][i]], mode="markers", name=f"{html_escape(song)} (entry)",
                             marker=dict(size=14, symbol="diamond", color="#212529")))
    fig.update_yaxes(scaleanchor="x")
    plots.show(c1, charts.layout(fig, f"Where playback goes after {html_escape(song)}", 500), key="pl.chart.next")
    top = proba.sort_values(ascending=False).head(15)
    c2.dataframe(pd.DataFrame({"next song": [str(s) for s in top.index], "probability": top.to_numpy().round(4)}),
                 hide_index=True, key="pl.next_table", height=460)
    if model.model == "single" and not model.exclude_self:
        st.caption(f"In the single-point model a song is at distance 0 from itself, so it is always its own likeliest "
                   f"next song (here {proba[sid]:.4f}): like the paper's, the model allows a song to follow itself.")
    if model.model == "dual":
        st.caption("The arrow runs from the song's entry point (where songs that lead into it sit) to its exit point "
                   "(which decides what comes next).")

with tabs[2]:
    c1, c2 = st.columns(2)
    start = c1.selectbox("Start", song_names, key="pl.start")
    length = c2.slider("Length", 2, 30, 10, key="pl.length")
    rng = np.random.RandomState(seed)
    sampled = model.sample(model.songs_[song_names.index(start)], length, random_state=rng)
    pos = [song_names.index(str(s)) for s in sampled]
    fig = go.Figure(go.Scattergl(x=table["x"], y=table["y"], mode="markers", marker=dict(size=6, color="#dee2e6"),
                                 hoverinfo="skip", name="songs"))
    fig.add_trace(go.Scatter(x=table["x"][pos], y=table["y"][pos], mode="lines+markers+text",
                             text=[str(k + 1) for k in range(len(pos))], textposition="top center",
                             line=dict(color=charts.PALETTE[1], width=2), marker=dict(size=9), name="playlist",
                             hovertext=[html_escape(s) for s in sampled], hoverinfo="text"))
    fig.update_yaxes(scaleanchor="x")
    plots.show(st, charts.layout(fig, "A sampled playlist as a path on the map", 480), key="pl.chart.sample")
    st.caption(" → ".join(md_escape(s) for s in map(str, sampled)))

with tabs[3]:
    rows = [("LME (this model)", held)] + list(base.items())
    if truth is not None:
        rows.insert(1, ("true model", svc.held_out(truth, held_set)))
    lt = pd.DataFrame(rows, columns=["model", "held-out log-likelihood"]).dropna()
    st.dataframe(lt.round(4), hide_index=True, key="pl.ll_table")
    if len(lt):
        plots.show(st, charts.bars(lt["model"], lt["held-out log-likelihood"], title="Average log-probability per "
                                    "held-out transition (higher is better)", y_title="nats", horizontal=True,
                                    highlight=lambda m: m.startswith("LME")), key="pl.chart.ll")
    st.caption(svc.left_out_line(held_set))
    n_known = len(model.songs_)
    st.caption(f"Uniform is exactly -ln {n_known} = {-np.log(n_known):.4f} (the songs seen in training). Unigram: how "
               "often a song is played; bigram: counts of song pairs, smoothed towards the unigram (Witten-Bell). "
               "All of them, like the model, allow a song to follow itself.")

with tabs[4]:
    if model.tags_ is None:
        st.info("This data set has no tags. The planted sets and the Les Miserables walks have them.")
    else:
        fig = go.Figure(go.Scattergl(x=table["x"], y=table["y"], mode="markers", marker=dict(size=6, color="#dee2e6"),
                                     name="songs", hoverinfo="skip"))
        T = model.tag_embedding_[:, :2]
        fig.add_trace(go.Scatter(x=T[:, 0], y=T[:, 1], mode="markers+text", text=[html_escape(t) for t in model.tags_],
                                 textposition="top center", marker=dict(size=12, symbol="square", color=charts.PALETTE[2]),
                                 name="tags"))
        chosen = st.multiselect("Tags of a new song (no playlists yet)", list(model.tags_), default=list(model.tags_[:1]),
                                key="pl.new_tags")
        if chosen:
            p = model.tag_position(chosen)[:2]
            fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", name="new song",
                                     marker=dict(size=16, symbol="star", color=charts.PALETTE[1])))
        fig.update_yaxes(scaleanchor="x")
        plots.show(st, charts.layout(fig, "Tag points, and where a new song with the chosen tags lands", 500),
                        key="pl.chart.tags")
        st.caption("Training pulls every song towards the mean of its tags' points, and the tags' points towards their "
                   "songs. A song nobody has put in a playlist yet can then be placed at its tags' mean (cold start).")

with tabs[5]:
    meta = {"model": model_kind, "dimensions": dim, "reg": reg, "iterations": int(model.n_iter_), "seed": seed,
            "data": source, "held_out_log_likelihood": held}
    coords = pd.DataFrame(model.entry_, columns=[f"u{j + 1}" for j in range(model.entry_.shape[1])])
    if model.model == "dual":
        coords = pd.concat([coords, pd.DataFrame(model.exit_, columns=[f"v{j + 1}" for j in range(dim)])], axis=1)
    coords.insert(0, "song", song_names)
    st.download_button("Song coordinates (.csv)", "# " + json.dumps(meta) + "\n" + coords.to_csv(index=False),
                       "lme_songs.csv", "text/csv", key="pl.dl_coords")
    probs = model.transition_proba(sid).rename("probability").rename_axis("next_song").reset_index()
    st.download_button(f"Transition probabilities after '{md_escape(song)}' (.csv)", probs.to_csv(index=False),
                       "lme_transitions.csv", "text/csv", key="pl.dl_probs")
