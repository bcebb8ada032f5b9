"""The chapters' explorers for a live notebook: ipywidgets controls that redraw a plotly figure. The static book
shows their code only (no kernel there)."""

from lengthgen.analysis import arithmetic, attention, figures, sparsity, variance
from lengthgen.seeding import fixed_generator


def attention_explorer(models: dict[tuple[str, str], tuple], splits: list[str], examples: int = 50):
    """Pick a (task, mechanism) model, a split and an example: its attention map, decoded live."""
    import ipywidgets as widgets

    def draw(task_mechanism, split, index):
        model, task = models[task_mechanism]
        d = attention.seq2seq_attention(model, task, [task.examples(split, index + 1)[index]])[0]
        figures.show(figures.attention_heatmaps({task_mechanism[1]: [dict(d, label=f"{split} #{index}")]},
                                                task_mechanism[0]))

    return widgets.interact(draw, task_mechanism=widgets.Dropdown(options=[(f"{t} / {m}", (t, m)) for t, m in models]),
                            split=widgets.Dropdown(options=splits), index=widgets.IntSlider(0, 0, examples - 1))


def prop1_explorer(max_power: int = 16, n_sequences: int = 500):
    """Proposition 1 live: vocabulary, width, temperature and the fit's start; the variance of the attention output
    against N on log-log axes."""
    import ipywidgets as widgets

    def draw(vocab, width, temperature, fit_from):
        df = variance.prop1_variance([2**k for k in range(1, max_power + 1)], vocab=vocab, width=width,
                                     temperature=temperature, n_sequences=n_sequences)
        curve = df.groupby("length").variance.mean().reset_index().assign(
            model=f"V={vocab}, D={width}, T={temperature:.2g}")
        figures.show(figures.loglog(curve, "length", "variance", "model", "Prop. 1, interactive", fit_from=fit_from))

    return widgets.interact(draw, vocab=widgets.IntSlider(64, 2, 1024), width=widgets.IntSlider(16, 2, 128),
                            temperature=widgets.FloatLogSlider(1.0, base=10, min=-1, max=1),
                            fit_from=widgets.SelectionSlider(options=[2**k for k in range(1, 15)], value=16))


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
        figures.show(figures.answer_attention_figure([sparsity.answer_attention(model, task, batch, example)
                                                      | {"label": label}], model_name))

    return widgets.interact(draw, model_name=widgets.Dropdown(options=list(models)),
                            k=widgets.IntSlider(1, 1, max_k), length=widgets.SelectionSlider(options=lengths),
                            example=widgets.IntSlider(0, 0, examples - 1))


def arithmetic_explorer(models: dict[str, tuple], lengths: list[int], examples: int = 10):
    """Pick an arithmetic model, an example, its operand length, a decoder layer, self- or cross-attention and a head:
    where that head looks (teacher-forced), computed live."""
    import ipywidgets as widgets

    def draw(model_name, example, length, layer, kind, head):
        model, task = models[model_name]
        chosen = task.examples(str(length), example + 1)[example]
        maps = arithmetic.attention_maps(model, task, chosen, f"{length} digits, example {example}")
        m = next(m for m in maps if m["label"].endswith(f"layer {layer} {kind}"))
        one = m | {"weights": m["weights"][head:head + 1]}
        figures.show(figures.head_heatmaps([one], f"{model_name}, head {head}"))

    first = next(iter(models.values()))[0]
    return widgets.interact(draw, model_name=widgets.Dropdown(options=list(models)),
                            example=widgets.IntSlider(0, 0, examples - 1),
                            length=widgets.SelectionSlider(options=lengths),
                            layer=widgets.IntSlider(0, 0, len(first.decoder.blocks) - 1),
                            kind=widgets.Dropdown(options=["cross", "self"]),
                            head=widgets.IntSlider(0, 0, first.cfg.heads - 1))
