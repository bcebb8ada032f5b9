"""The chapter's explorer for a live notebook: ipywidgets controls that redraw a plotly figure. The static book
shows its code only (no kernel there)."""

from lengthgen.analysis import figures
from lengthgen.display import show
from lengthgen.papers.sparsity import readings as sparsity
from lengthgen.seeding import fixed_generator


def parity_explorer(models: dict[str, tuple], max_k: int, lengths: list[int], examples: int = 10):
    """Pick a trained sparse-parity model, a test sparsity k, a length and an example: where its answer position
    attends (every layer and head), and its answer, computed live."""
    import ipywidgets as widgets

    def draw(model_name, k, length, example):
        model, task = models[model_name]
        batch = task.with_k(k).sample(example + 1, length, fixed_generator(1000 * length + k))
        answer = task.vocab.tokens[int(model.predict(batch.slice(example, example + 1)).tokens[0, 0])]
        truth = task.vocab.tokens[int(batch.answer[example, 0])]
        verdict = "right" if answer == truth else "wrong"
        label = f"k={k}, {length} pairs, example {example}: answers {answer} ({verdict})"
        show(figures.answer_attention_figure([sparsity.answer_attention(model, task, batch, example)
                                              | {"label": label}], model_name))

    return widgets.interact(draw, model_name=widgets.Dropdown(options=list(models)),
                            k=widgets.IntSlider(1, 1, max_k), length=widgets.SelectionSlider(options=lengths),
                            example=widgets.IntSlider(0, 0, examples - 1))
