"""Plotly figure builders for the book, and `show`, which renders them so they work offline in the static HTML."""

import os

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from lengthgen.analysis.variance import loglog_slope

BOOK_ENV = "LENGTHGEN_BOOK"  # set by `lengthgen book`: figures become plain divs using the book's plotly.js


def in_book() -> bool:
    """True while `lengthgen book` executes a chapter (no live user, no widgets)."""
    return bool(os.environ.get(BOOK_ENV))


def show(fig: go.Figure) -> None:
    """Display a figure: in the book build as an HTML div without plotly.js inside (the book serves plotly.js
    once from _static); in a live notebook with plotly's default renderer."""
    if in_book():
        from IPython.display import HTML, display

        display(HTML(fig.to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})))
    else:
        fig.show()


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


def accuracy_curves(df: pd.DataFrame, title: str, color: str = "variant") -> go.Figure:
    """Mean accuracy (± 95% CI over seeds) against set size N, one panel per task."""
    agg = df.groupby(["task", color, "length"]).value.agg(["mean", "std", "count"]).reset_index()
    agg["ci"] = 1.96 * agg["std"].fillna(0) / np.sqrt(agg["count"])
    fig = px.line(agg, x="length", y="mean", color=color, facet_col="task", error_y="ci", markers=True, log_x=True,
                  labels={"mean": "accuracy (%)", "length": "set size N"}, title=title)
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("task=", "")))
    return fig.update_layout(height=420)


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
