"""The chapter's explorer for a live notebook: ipywidgets controls that redraw a plotly figure. The static book
shows its code only (no kernel there)."""

from lengthgen.analysis import figures
from lengthgen.display import show
from lengthgen.papers.abc import readings as arithmetic


def arithmetic_explorer(models: dict[str, tuple], lengths: list[int], examples: int = 10):
    """Pick an arithmetic model, an example, its operand length, a decoder layer, self- or cross-attention and a head:
    where that head looks (teacher-forced), computed live."""
    import ipywidgets as widgets

    def draw(model_name, example, length, layer, kind, head):
        model, task = models[model_name]
        chosen = task.examples(str(length), example + 1)[example]
        maps = arithmetic.example_attention(model, task, chosen, f"{length} digits, example {example}")
        m = next(m for m in maps if m["label"].endswith(f"layer {layer} {kind}"))
        one = m | {"weights": m["weights"][head:head + 1]}
        show(figures.head_heatmaps([one], f"{model_name}, head {head}"))

    first = next(iter(models.values()))[0]
    return widgets.interact(draw, model_name=widgets.Dropdown(options=list(models)),
                            example=widgets.IntSlider(0, 0, examples - 1),
                            length=widgets.SelectionSlider(options=lengths),
                            layer=widgets.IntSlider(0, 0, len(first.decoder.blocks) - 1),
                            kind=widgets.Dropdown(options=["cross", "self"]),
                            head=widgets.IntSlider(0, 0, first.cfg.heads - 1))
