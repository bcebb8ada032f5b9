"""The chapter's explorer for a live notebook: ipywidgets controls that redraw a plotly figure. The static book
shows its code only (no kernel there)."""

from lengthgen.analysis import figures, variance
from lengthgen.display import show


def prop1_explorer(max_power: int = 16, n_sequences: int = 500):
    """Proposition 1 live: vocabulary, width, temperature and the fit's start; the variance of the attention output
    against N on log-log axes."""
    import ipywidgets as widgets

    def draw(vocab, width, temperature, fit_from):
        df = variance.prop1_variance([2**k for k in range(1, max_power + 1)], vocab=vocab, width=width,
                                     temperature=temperature, n_sequences=n_sequences)
        curve = df.groupby("length").variance.mean().reset_index().assign(
            model=f"V={vocab}, D={width}, T={temperature:.2g}")
        show(figures.loglog(curve, "length", "variance", "model", "Prop. 1, interactive", fit_from=fit_from))

    return widgets.interact(draw, vocab=widgets.IntSlider(64, 2, 1024), width=widgets.IntSlider(16, 2, 128),
                            temperature=widgets.FloatLogSlider(1.0, base=10, min=-1, max=1),
                            fit_from=widgets.SelectionSlider(options=[2**k for k in range(1, 15)], value=16))
