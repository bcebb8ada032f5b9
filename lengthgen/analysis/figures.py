"""Plotly figure builders for the book (`display.show` renders them so that they work offline in the static HTML)."""

import itertools

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lengthgen.analysis.variance import loglog_slope
from lengthgen.train.evaluate import first_error


def loglog(df: pd.DataFrame, x: str, y: str, color: str, title: str, fit_from: int = 1) -> go.Figure:
    """Log-log lines of y against x per `color` group; the legend gives each group's fitted slope
    (fitted on x >= fit_from)."""
    fig = go.Figure()
    for name, g in df.groupby(color, sort=False):
        g = g.sort_values(x)
        fit = g[g[x] >= fit_from]
        slope = loglog_slope(fit[x], fit[y]) if len(fit) > 1 else float("nan")
        fig.add_scatter(x=g[x], y=g[y], mode="lines+markers", name=f"{name} (slope {slope:+.2f})")
    fig.update_xaxes(type="log", title=x)
    fig.update_yaxes(type="log", title=y)
    return fig.update_layout(title=title, legend_title=color, height=420)


PANELS_PER_ROW = 4  # accuracy_curves wraps its task panels into rows of at most this many
MOST_TICKS = 8  # length ticks per panel of accuracy_curves


def length_ticks(lengths, most: int = MOST_TICKS) -> list:
    """The tick values of a log length axis: the lengths tested, or where there are more than `most`, `most` of them
    spread evenly in log scale (the first and the last always), so that every label is a whole length tested, never
    the lone leading digit of a log axis' minor tick ("2" for 20)."""
    values = sorted(set(lengths))
    if len(values) <= most:
        return values
    logs = np.log(values)
    targets = np.linspace(logs[0], logs[-1], most)
    return sorted({values[int(np.abs(logs - t).argmin())] for t in targets})


def accuracy_curves(df: pd.DataFrame, title: str, color: str = "variant", x_label: str = "set size N",
                    center: str = "mean") -> go.Figure:
    """Accuracy over seeds (their `center`: "mean" or "median") against length (labelled `x_label`), one panel per
    task; the bars span the seeds' range (lowest to highest), which with a few seeds says more than a
    normal-approximation interval and stays within 0-100%."""
    if center not in ("mean", "median"):
        raise ValueError(f"unknown center {center!r}; valid: mean, median")
    agg = df.groupby(["task", color, "length"]).value.agg([center, "min", "max", "count"]).reset_index()
    agg["above"], agg["below"] = agg["max"] - agg[center], agg[center] - agg["min"]
    wrap = min(agg.task.nunique(), PANELS_PER_ROW)
    rows = -(-agg.task.nunique() // wrap)
    fig = px.line(agg, x="length", y=center, color=color, facet_col="task", facet_col_wrap=wrap,
                  facet_row_spacing=0.5 / (rows * 2) if rows > 1 else None, error_y="above", error_y_minus="below",
                  markers=True, log_x=True, hover_data={"min": ":.1f", "max": ":.1f", "count": True},
                  labels={center: "accuracy (%)", "length": x_label, "count": "seeds"}, title=title)
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("task=", "")))
    fig.update_xaxes(matches=None, showticklabels=True)  # tasks test different lengths (Parity to 48 bits)
    tested: dict[str, set] = {}  # each panel's x axis ("xaxis", "xaxis2", ...) -> the lengths its traces test
    for trace in fig.data:
        tested.setdefault("xaxis" + trace.xaxis[1:], set()).update(trace.x)
    for axis, lengths in tested.items():
        fig.layout[axis].tickvals = length_ticks(lengths)
    return fig.update_layout(height=420 + 300 * (rows - 1))


def course_curves(course: pd.DataFrame, title: str) -> go.Figure:
    """Exact match along a retraining (rows: factor, rule, length, step, mean, min, max over seeds): one panel per
    factor (rows) and test length (columns), one line per rule, bars spanning the seeds' range."""
    course = course.assign(above=course["max"] - course["mean"], below=course["mean"] - course["min"],
                           digits=course.length.map("{} digits".format))
    fig = px.line(course, x="step", y="mean", color="rule", facet_row="factor", facet_col="digits",
                  error_y="above", error_y_minus="below", markers=True, range_y=[-5, 105], title=title,
                  hover_data={"min": ":.1f", "max": ":.1f"},
                  labels={"mean": "exact match (%)", "step": "retraining steps"})
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    fig.for_each_yaxis(lambda axis: axis.update(title=None))
    return fig.update_layout(height=160 + 170 * course.factor.nunique(), yaxis_title="exact match (%)")


def trajectory_figure(points: pd.DataFrame, title: str) -> go.Figure:
    """`variance.trajectory`'s points: one panel per measure (own y axis), the median over seed pairs against the
    training steps (log x) per variant, bars spanning the seeds' range."""
    agg = points.groupby(["measure", "variant", "steps"], sort=False).value.agg(["median", "min", "max"]).reset_index()
    agg["above"], agg["below"] = agg["max"] - agg["median"], agg["median"] - agg["min"]
    fig = px.line(agg, x="steps", y="median", color="variant", facet_col="measure", error_y="above",
                  error_y_minus="below", markers=True, log_x=True, title=title,
                  labels={"median": "median over seed pairs", "steps": "training steps"})
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("measure=", "")))
    fig.update_yaxes(matches=None, showticklabels=True)
    return fig.update_layout(height=400)


def feature_histograms(df: pd.DataFrame, title: str) -> go.Figure:
    """Fig. 2: distributions of a few attention-output components (rows: variant, columns: N)."""
    fig = px.histogram(df, x="value", color="component", facet_row="variant", facet_col="length", nbins=60,
                       barmode="overlay", opacity=0.6, histnorm="probability density", title=title)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    fig.update_yaxes(matches=None, showticklabels=False)
    return fig.update_layout(height=520)


def global_stats_figure(df: pd.DataFrame, title: str) -> go.Figure:
    """Fig. 3: global mean and global variance of attention outputs against N, per variant."""
    long = df.melt(id_vars=["variant", "length"], value_vars=["global_mean", "global_var"], var_name="statistic")
    fig = px.line(long, x="length", y="value", color="variant", facet_col="statistic", markers=True, log_x=True,
                  title=title)
    fig.update_yaxes(matches=None, showticklabels=True)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    return fig.update_layout(height=400)


def topk_heatmap(weights: np.ndarray, variants: list[str], lengths: list[int], title: str) -> go.Figure:
    """Fig. 4: top-k attention weights (examples x rank), a panel per variant, a slider over N.

    Args:
        weights: array (len(lengths), len(variants), examples, k).
    """
    fig = px.imshow(weights, animation_frame=0, facet_col=1, color_continuous_scale="Viridis", zmin=0, zmax=1,
                    labels={"x": "rank", "y": "example", "color": "weight", "animation_frame": "N"}, title=title)
    for i, name in enumerate(variants):
        fig.layout.annotations[i].text = name
    for step, n in zip(fig.layout.sliders[0].steps, lengths, strict=True):
        step.label = str(n)
    return fig.update_layout(height=480)


def attention_heatmaps(maps: dict[str, list[dict]], title: str) -> go.Figure:
    """Decoder step x encoder position heatmaps, one column per example, a dropdown choosing the mechanism.

    Args:
        maps: mechanism -> examples, each a dict with weights (T, S), a "label" and source/prediction tokens.
    """
    mechanisms = list(maps)
    n_cols = len(maps[mechanisms[0]])
    fig = make_subplots(rows=1, cols=n_cols, subplot_titles=[e["label"] for e in maps[mechanisms[0]]],
                        horizontal_spacing=0.08)
    for i, mechanism in enumerate(mechanisms):
        for j, ex in enumerate(maps[mechanism]):
            fig.add_trace(go.Heatmap(z=np.round(ex["weights"], 2), coloraxis="coloraxis", visible=i == 0,
                                     name=mechanism, hovertemplate="step %{y}, position %{x}: %{z}<extra></extra>"),
                          row=1, col=j + 1)
    titles = {m: f"{title}: {m} (" + ", ".join("correct" if e["prediction"] == e["target"] else "wrong"
                                               for e in maps[m]) + ")" for m in mechanisms}
    buttons = [{"label": m, "method": "update",
                "args": [{"visible": [k // n_cols == i for k in range(len(mechanisms) * n_cols)]},
                         {"title.text": titles[m]}]} for i, m in enumerate(mechanisms)]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 1.0, "y": 1.18, "xanchor": "right"}],
                      coloraxis={"colorscale": "Viridis", "cmin": 0, "cmax": 1}, height=460,
                      title=titles[mechanisms[0]])
    fig.update_xaxes(title="encoder position (0 = START)")
    fig.update_yaxes(title="decoder step", autorange="reversed")
    return fig


def accuracy_grid(df: pd.DataFrame, title: str) -> go.Figure:
    """Table 2 as heatmaps: mechanism x (task, split) accuracy, one panel per source (e.g. paper / ours). `df` has
    columns source, variant, task, split and value (as from `compare.paper_and_ours`).

    Rows and columns keep their order of first appearance in `df`, so every panel lines up with the first; a cell
    a source lacks (a run not made) is blank, labelled "–".
    """
    df = df.assign(column=df.task + " " + df.split)
    sources = list(dict.fromkeys(df.source))
    rows, columns = list(dict.fromkeys(df.variant))[::-1], list(dict.fromkeys(df.column))
    panel, gap = 300, 200  # pixels: the gap holds the rotated column labels and the next panel's title
    height = panel * len(sources) + gap * (len(sources) - 1) + 120
    fig = make_subplots(rows=len(sources), cols=1, subplot_titles=sources, vertical_spacing=gap / height)
    for i, source in enumerate(sources):
        g = df[df.source == source].pivot_table(index="variant", columns="column", values="value")
        g = g.reindex(index=[r for r in rows if r in g.index], columns=[c for c in columns if c in g.columns])
        text = [["–" if np.isnan(v) else f"{round(v, 1):g}" for v in row] for row in g.values]
        fig.add_trace(go.Heatmap(z=g.values, x=list(g.columns), y=list(g.index), coloraxis="coloraxis",
                                 text=text, texttemplate="%{text}",
                                 hovertemplate="%{y}, %{x}: %{z:.1f}%<extra></extra>"), row=i + 1, col=1)
    fig.update_layout(coloraxis={"colorscale": "RdYlGn", "cmin": 0, "cmax": 100}, title=title, height=height)
    return fig


def highlight_prefix(rows: list[dict]) -> str:
    """Table 10 as HTML: input, oracle and prediction, the prediction's correct prefix highlighted in cyan."""
    import html

    out = ["<table class='lengthgen-failures'><tr><th>model</th><th>task</th><th>example</th></tr>"]
    for r in rows:
        pred, gold = r["prediction"], r["target"]
        k = first_error(pred, gold)
        k = len(pred) if k is None else k
        good = html.escape(" ".join(pred[:k]))
        rest = html.escape(" ".join(pred[k:]))
        out.append(
            f"<tr><td>{html.escape(r['model'])}</td><td>{html.escape(r['task'])}</td><td>"
            f"<b>Input:</b> {html.escape(' '.join(r['source']))}<br><b>Oracle:</b> {html.escape(' '.join(gold))}<br>"
            f"<b>Prediction:</b> <span style='background:#7fffd4'>{good}</span> {rest}</td></tr>")
    return "\n".join(out + ["</table>"])


def training_curves(history: pd.DataFrame, title: str) -> go.Figure:
    """Per-epoch training loss (log scale, top) and dev score, one line per variant, a dropdown choosing the task;
    where `history` records it (column `direction_gate`, NaN for mechanisms without one), a third panel with the
    mean direction gate on the dev set. `history` has columns task, variant, epoch, train_loss, dev_score (one seed
    per task and variant)."""
    tasks, variants = list(dict.fromkeys(history.task)), list(dict.fromkeys(history.variant))
    colors = dict(zip(variants, itertools.cycle(px.colors.qualitative.Plotly), strict=False))
    panels = ["train_loss", "dev_score"] + (["direction_gate"] if "direction_gate" in history
                                            and history.direction_gate.notna().any() else [])
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.08)
    owner = []  # the task of every trace, in order
    for task in tasks:
        for variant, g in history[history.task == task].groupby("variant", sort=False):
            for row, column in enumerate(panels, start=1):
                if g[column].isna().all():
                    continue
                fig.add_scatter(x=g.epoch, y=g[column], mode="lines", name=variant, legendgroup=variant,
                                line={"color": colors[variant]}, showlegend=row == 1, visible=task == tasks[0],
                                hovertemplate=f"{variant}, epoch %{{x}}: %{{y:.4g}}<extra></extra>", row=row, col=1)
                owner.append(task)
    buttons = [{"label": t, "method": "update",
                "args": [{"visible": [o == t for o in owner]}, {"title.text": f"{title}: {t}"}]} for t in tasks]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 1.0, "y": 1.15, "xanchor": "right"}],
                      title=f"{title}: {tasks[0]}", height=280 * len(panels), legend_title="mechanism")
    fig.update_yaxes(type="log", title="training loss", row=1, col=1)
    fig.update_yaxes(title="dev exact match (%)", range=[-2, 102], row=2, col=1)
    if len(panels) == 3:
        fig.update_yaxes(title="dev direction gate", range=[-0.05, 1.05], row=3, col=1)
    fig.update_xaxes(title="epoch", row=len(panels), col=1)
    return fig


def break_points(df: pd.DataFrame, trained: dict[str, int], title: str) -> go.Figure:
    """Where greedy outputs go wrong: the token index of the first error (`first_error`, one point per run and
    test split) per mechanism, one panel per task, with a dashed line at the task's longest training target
    (`trained`). `df` has columns task, variant, split, first_error."""
    tasks = list(dict.fromkeys(df.task))
    fig = px.strip(df, x="variant", y="first_error", color="split", facet_col="task", stripmode="group",
                   category_orders={"task": tasks}, title=title,
                   labels={"variant": "mechanism", "first_error": "first wrong output token", "split": "test split"})
    for i, task in enumerate(tasks):
        fig.add_hline(y=trained[task], line_dash="dash", line_color="gray", row=1, col=i + 1,
                      annotation_text=f"longest training target: {trained[task]}", annotation_position="top left")
    fig.update_yaxes(matches=None, showticklabels=True, rangemode="tozero")
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("task=", "")))
    fig.update_layout(height=480)
    return fig


def sparsity_heatmap(table: pd.DataFrame, title: str) -> go.Figure:
    """Accuracy by test sparsity k (rows) and length (columns), a slider over the training bound K.

    Args:
        table: `analysis.sparsity.by_k` output (variant "K=<K>", k, length, value).
    """
    variants = list(dict.fromkeys(table.variant))
    ks, lengths = sorted(table.k.unique()), sorted(table.length.unique())
    frames = []
    for v in variants:
        grid = table[table.variant == v].pivot_table(index="k", columns="length", values="value")
        grid = grid.reindex(index=ks, columns=lengths)
        text = [["" if np.isnan(x) else f"{x:.0f}" for x in row] for row in grid.values]
        frames.append(go.Frame(name=v, data=[go.Heatmap(
            z=grid.values, x=[str(n) for n in lengths], y=[f"k={k}" for k in ks], text=text, texttemplate="%{text}",
            zmin=0, zmax=100, colorscale="RdYlGn", hovertemplate="%{y}, length %{x}: %{z:.1f}%<extra></extra>")]))
    fig = go.Figure(data=frames[0].data, frames=frames)
    steps = [{"label": v, "method": "animate", "args": [[v], {"mode": "immediate", "frame": {"duration": 0}}]}
             for v in variants]
    fig.update_layout(title=title, height=420, sliders=[{"steps": steps, "currentvalue": {"prefix": "trained on "}}])
    fig.update_xaxes(title="test length (pairs)", type="category")
    return fig.update_yaxes(title="test sparsity", autorange="reversed")


def answer_attention_figure(maps: list[dict], title: str) -> go.Figure:
    """Where the answer position attends (heads x positions) for several examples, a dropdown choosing one; the
    special keys and the bits after them are marked below the map.

    Args:
        maps: `analysis.sparsity.answer_attention` outputs, each with a "label".
    """
    fig = go.Figure()
    for i, m in enumerate(maps):
        fig.add_heatmap(z=np.round(m["weights"], 3), y=m["heads"], coloraxis="coloraxis", visible=i == 0,
                        hovertemplate="%{y}, position %{x}: %{z}<extra></extra>")

    def marks(m: dict) -> list[dict]:
        return [{"type": "line", "x0": p, "x1": p, "y0": -0.06, "y1": -0.01, "yref": "paper",
                 "line": {"color": "red" if p in m["special"] else "black", "width": 2}}
                for p in m["special"] + m["bits"]]

    buttons = [{"label": m["label"], "method": "update",
                "args": [{"visible": [j == i for j in range(len(maps))]},
                         {"shapes": marks(m), "title.text": f"{title}: {m['label']}"}]} for i, m in enumerate(maps)]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 1.0, "y": 1.2, "xanchor": "right"}],
                      coloraxis={"colorscale": "Viridis", "cmin": 0, "cmax": 1}, height=420, shapes=marks(maps[0]),
                      title=f"{title}: {maps[0]['label']}")
    fig.update_xaxes(title="position (red: special key *, black: the bit after it)")
    return fig.update_yaxes(title="layer, head", autorange="reversed")


def influence_scatter(points: pd.DataFrame, title: str) -> go.Figure:
    """The paper's Figs. 4 and 6: per test window, what the whole far context gives, (b) - (a), against what its
    k most influential far tokens give, (b) - (c); one panel per (scored model, choosing model), a slider over k.

    Args:
        points: `analysis.language.influence_points` rows for several k, with a `k` column.
    """
    fig = px.scatter(points, x="far_gain", y="recovered", facet_row="lm", facet_col="chooser", animation_frame="k",
                     color=points.seed.astype(str), opacity=0.6, height=620, title=title,
                     labels={"far_gain": "(b) - (a): far context, nats", "recovered": "(b) - (c): k tokens, nats",
                             "color": "seed", "lm": "scored", "chooser": "chosen by"})
    lo, hi = float(points[["far_gain", "recovered"]].min().min()), float(points[["far_gain", "recovered"]].max().max())
    fig.add_shape(type="line", x0=lo, y0=lo, x1=hi, y1=hi, line={"dash": "dot", "color": "grey"}, row="all",
                  col="all")
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("=", ": ")))  # "scored: context 128"
    return fig


def head_heatmaps(maps: list[dict], title: str, colorbar: str = "weight") -> go.Figure:
    """One heatmap per head side by side, a dropdown choosing the map (an attention pattern or a bias matrix).

    Args:
        maps: each with a "label", "weights" (H, rows, cols; NaN cells left blank) and the "rows" and "cols" labels
            (tokens, ids) shown on hover.
    """
    heads = maps[0]["weights"].shape[0]
    fig = make_subplots(rows=1, cols=heads, subplot_titles=[f"head {h}" for h in range(heads)],
                        horizontal_spacing=0.02, shared_yaxes=True)
    for i, m in enumerate(maps):
        text = [[f"{r} -> {c}" for c in m["cols"]] for r in m["rows"]]
        for h in range(heads):
            fig.add_trace(go.Heatmap(z=np.round(m["weights"][h], 3), text=text, coloraxis="coloraxis",
                                     visible=i == 0, hovertemplate="%{y}, %{x} (%{text}): %{z}<extra></extra>"),
                          row=1, col=h + 1)
    buttons = [{"label": m["label"], "method": "update",
                "args": [{"visible": [k // heads == i for k in range(len(maps) * heads)]},
                         {"title.text": f"{title}: {m['label']}"}]} for i, m in enumerate(maps)]
    fig.update_layout(updatemenus=[{"buttons": buttons, "x": 1.0, "y": 1.25, "xanchor": "right"}],
                      coloraxis={"colorscale": "Viridis", "colorbar": {"title": colorbar}}, height=380,
                      title=f"{title}: {maps[0]['label']}")
    fig.update_xaxes(title="key position")
    return fig.update_yaxes(autorange="reversed")
