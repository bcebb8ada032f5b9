"""The chapter's explorer for a live notebook: ipywidgets controls that redraw a plotly figure. The static book
shows its code only (no kernel there)."""

from lengthgen.analysis import attention, figures
from lengthgen.display import show


def attention_explorer(models: dict[tuple[str, str], tuple], splits: list[str], examples: int = 50):
    """Pick a (task, mechanism) model, a split and an example: its attention map, decoded live."""
    import ipywidgets as widgets

    def draw(task_mechanism, split, index):
        model, task = models[task_mechanism]
        d = attention.seq2seq_attention(model, task, [task.examples(split, index + 1)[index]])[0]
        show(figures.attention_heatmaps({task_mechanism[1]: [dict(d, label=f"{split} #{index}")]},
                                        task_mechanism[0]))

    return widgets.interact(draw, task_mechanism=widgets.Dropdown(options=[(f"{t} / {m}", (t, m)) for t, m in models]),
                            split=widgets.Dropdown(options=splits), index=widgets.IntSlider(0, 0, examples - 1))
