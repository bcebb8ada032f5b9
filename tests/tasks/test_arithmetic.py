"""The arithmetic tasks of the attention-bias-calibration chapter, checked against Python's own arithmetic and the
paper's examples."""

import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS
from lengthgen.tasks.arithmetic import INTERPOLATION_RANGE, Addition, ListOpsSum, Parity, Successor, TimesDigit

NAMES = ("successor", "addition", "parity", "times_digit", "listops_sum", "listops_max", "listops_min",
         "listops_sum_balanced")
FOLD = {"sum": lambda a, b: (a + b) % 10, "max": max, "min": min}


def operands(task, source: tuple[str, ...]) -> tuple[list[str], ...]:
    """The operands' digit strings read back from a source, in either format."""
    if task.name in ("successor", "parity"):
        return ("".join(source),)
    if task.name.startswith("listops"):
        return ("".join(source[1:]),)
    if task.aligned:  # op a_n b_n ... a_1 b_1 (N x 1: op a_n b ... a_1 b)
        return "".join(source[1::2]), "".join(source[2::2])[: 1 if task.name == "times_digit" else None]
    return tuple("".join(source).split("+" if task.name == "addition" else "*"))


def reference(task, source: tuple[str, ...]) -> tuple[list[int], list[str]]:
    """(the operands, the target computed by Python) of a source."""
    ops = operands(task, source)
    if task.name == "parity":
        bits = [int(b) for b in reversed(ops[0])]
        return [int(ops[0], 2)], [str(sum(bits[: i + 1]) % 2) for i in range(len(bits))]
    if task.name.startswith("listops"):
        digits, out = [int(d) for d in ops[0]], []
        for d in reversed(digits):
            out.append(d if not out else FOLD[source[0]](out[-1], d))
        return [int(ops[0])], [str(v) for v in out]
    numbers = [int(o) for o in ops]
    value = {"successor": lambda: numbers[0] + 1, "addition": lambda: sum(numbers),
             "times_digit": lambda: numbers[0] * numbers[1]}[task.name]()
    return numbers, list(reversed(str(value).zfill(len(ops[0]))))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("aligned", [False, True])
def test_every_split_agrees_with_python_arithmetic(name, aligned):
    task = TASKS[name](aligned=aligned)
    for split in ("train", "dev", "1", "7", "50"):
        examples = task.examples(split, 40 if split != "1" else None)
        for source, target in examples:
            operands, expected = reference(task, source)
            assert list(target) == expected, (name, split, source)
            if split == "7":  # the first operand has exactly 7 digits (bits for parity; list items for ListOps)
                assert len(format(operands[0], "b" if name == "parity" else "d")) == 7
        if split in ("1", "7", "50"):
            assert len(set(examples)) == len(examples)  # distinct, as the paper's samples of each length
        else:
            assert all(n <= INTERPOLATION_RANGE for source, _ in examples for n in reference(task, source)[0][:1])


@pytest.mark.parametrize("name", ["successor", "addition", "parity", "times_digit"])
def test_a_fixed_width_pads_every_example_to_it_and_keeps_the_arithmetic(name):
    task = TASKS[name](aligned=name == "addition", width=24)  # parity: 2^20 has 21 bits
    assert list(task.splits)[-1] == "23"  # lengths up to width - 1: room for the carry
    shapes = set()
    for split in ("train", "3", "23"):
        for source, target in task.examples(split, min(30, task.splits[split].size)):
            assert list(target) == reference(task, source)[1], (name, split, source)
            shapes.add((len(source), len(target)))
    assert len(shapes) == 1  # one sequence length for every example, as the public code's FIXED_LEN


def test_a_width_too_small_or_on_listops_names_what_is_valid():
    with pytest.raises(LengthgenError, match="valid: width >= 8"):
        Successor(width=7)  # 2^20 has 7 digits, plus the carry
    with pytest.raises(LengthgenError, match="valid: width >= 22"):
        Parity(width=12)  # 21 bits
    with pytest.raises(LengthgenError, match="valid: width None"):
        ListOpsSum(width=20)


def test_the_papers_examples_and_the_aligned_format_by_hand():
    assert Addition().example((123, 748)) == (tuple("0123+0748"), tuple("1780"))  # the paper's 0123+0748 -> 1780
    assert Addition(aligned=True).example((123, 748)) == (tuple("+00172438"), tuple("1780"))
    assert TimesDigit().example((123, 7)) == (tuple("0123*7"), tuple("1680"))
    assert TimesDigit(aligned=True).example((123, 7)) == (tuple("*07172737"), tuple("1680"))
    assert Successor().example((999,)) == (tuple("0999"), tuple("0001"))
    assert Successor(width=8).example((999,)) == (tuple("00000999"), tuple("00010000"))
    assert Parity().example((0b1101,)) == (tuple("1101"), tuple("1101"))  # y: 1, 1^0, 1^0^1, 1^0^1^1
    assert ListOpsSum().example((975,)) == (("sum", "9", "7", "5"), ("5", "2", "1"))  # 5, 5+7=12, 2+9=11 (mod 10)


def test_interpolation_splits_partition_the_permutation_seven_to_one():
    task = Successor()
    train, dev = task.pool("train"), task.pool("dev")
    assert len(train) + len(dev) == INTERPOLATION_RANGE + 1 and task.splits["train"].size == len(train)
    assert round(len(train) / len(dev)) == 7
    assert torch.equal(torch.sort(torch.cat([train, dev])).values, torch.arange(INTERPOLATION_RANGE + 1))
    assert not torch.equal(Successor(data_seed=1).pool("dev"), dev)  # the data seed reorders


def test_test_split_sizes_follow_the_papers_formula():
    assert [Addition().splits[str(n)].size for n in (1, 2, 3, 4, 5, 50)] == [9, 90, 900, 9000, 10_000, 10_000]
    assert [Parity().splits[str(n)].size for n in (1, 2, 3, 14, 15)] == [1, 2, 4, 8192, 10_000]
    assert len(Parity().examples("3")) == 4  # every 3-bit number: 4, 5, 6, 7


def test_a_training_batch_is_drawn_from_the_training_part_and_is_seeded():
    task = Addition()
    first = task.interpolation_batch(16, torch.Generator().manual_seed(0))
    again = task.interpolation_batch(16, torch.Generator().manual_seed(0))
    assert torch.equal(first.src, again.src) and first.src.shape[0] == 16
    allowed = set(task.pool("train").tolist())
    for row in task.interpolation_numbers("train", 50, torch.Generator().manual_seed(1)):
        assert set(row) <= allowed


def test_balanced_listops_draws_five_six_and_seven_items_equally_from_the_training_pool():
    plain, balanced = ListOpsSum(), TASKS["listops_sum_balanced"]()
    numbers = [n for (n,) in balanced.interpolation_numbers("train", 3000, torch.Generator().manual_seed(0))]
    counts = {k: sum(len(str(n)) == k for n in numbers) / len(numbers) for k in (5, 6, 7)}
    assert sum(counts.values()) == 1 and all(abs(c - 1 / 3) < 0.03 for c in counts.values())
    assert set(numbers) <= set(plain.pool("train").tolist())
    stock = [n for (n,) in plain.interpolation_numbers("train", 3000, torch.Generator().manual_seed(0))]
    assert sum(len(str(n)) == 6 for n in stock) / len(stock) > 0.8  # what the balance corrects
    for split in ("dev", "3", "24"):
        assert balanced.examples(split, 50) == plain.examples(split, 50)


def test_unknown_split_names_the_valid_ones():
    with pytest.raises(LengthgenError, match="unknown split '51' for addition; valid: train, dev, 1, 2"):
        Addition().examples("51")


def test_an_encoder_decoder_trains_on_interpolation_batches():
    from lengthgen.models.transformer import EncoderDecoder, TransformerConfig
    from lengthgen.train.loop import InterpolationTrainConfig, train

    task = Successor()
    torch.manual_seed(0)
    model = EncoderDecoder(TransformerConfig(width=32, heads=2, layers=1, encoder_layers=0, ff=64,
                                             positional="sinusoidal"), len(task.vocab))
    cfg = InterpolationTrainConfig(steps=150, batch_size=32, lr=3e-3, warmup=10, progress=False)
    stats = train(model, task, cfg, torch.Generator().manual_seed(0))
    assert stats["losses"][-1] < 0.7 * stats["losses"][0]  # it learns from the interpolation numbers (2.91 -> 1.77)
    first = cfg.draw(task, 0, torch.Generator().manual_seed(3))
    numbers = {int("".join(t for t in task.vocab.decode(row.tolist()) if t.isdigit())) for row in first.src}
    assert numbers <= set(task.pool("train").tolist())


def test_the_public_codes_comparison_ignores_eos_and_the_numbers_leading_zeros_only():
    same = TASKS["successor"].same_number
    target = list("4210000") + ["<eos>"]  # 0001245 written reversed
    assert same(list("42100000"), target) and same(list("421"), target)  # ran on with a zero; stopped early
    assert same(list("4210000") + ["<eos>", "<pad>"], target)
    assert not same(list("4201000"), target) and not same(list("0421000"), target)  # a digit moved: wrong
    assert not same(list("421000") + ["7"], target)  # a digit more that is not a zero: wrong


def test_markers_put_the_source_between_sos_and_eos_and_leave_the_target():
    plain, marked = Successor(width=8).example((999,)), Successor(width=8, markers=True).example((999,))
    assert marked == (("<sos>", *tuple("00000999"), "<eos>"), plain[1]) and plain[0] == tuple("00000999")
    assert ListOpsSum(markers=True).example((123,))[0] == ("<sos>", "sum", "1", "2", "3", "<eos>")
    batch = Successor(width=8, markers=True).batch([marked])
    assert batch.src[0].tolist()[0] == 1 and batch.src[0].tolist()[-1] == 2  # <sos> and <eos>: ids 1 and 2


@pytest.mark.parametrize("cls,aligned,markers,expected", [
    (Successor, False, False, 2), (Successor, False, True, 3),  # 0 1 2 -> step 0 reads "2" (with <eos> after it)
    (Addition, True, False, 5),  # + 0 0 1 2 2 3: step 0 reads the first operand's last digit
    (TimesDigit, False, False, 2),  # 0 1 2 * 3: two keys before the end
    (TimesDigit, True, False, 5), (TimesDigit, True, True, 6)])  # * 0 3 1 3 2 3, then between <sos> and <eos>
def test_the_line_reads_each_steps_digit_by_hand(cls, aligned, markers, expected):
    """The first operand's last digit (12 or 12 + 23 or 12 x 3): its index in the source."""
    task = cls(aligned=aligned, markers=markers)
    source, _ = task.example((12, 23)[: task.arity] if cls is not TimesDigit else (12, 3))
    assert source[len(source) - 1 - task.line_from_end(0)] == "2"
    assert len(source) - 1 - task.line_from_end(0) == expected


@pytest.mark.parametrize("name", ["successor", "addition", "times_digit", "parity"])
@pytest.mark.parametrize("aligned,markers", [(False, False), (True, False), (True, True), (False, True)])
def test_the_line_reads_digit_t_of_the_operand_it_names_at_every_step(name, aligned, markers):
    """On every step of examples of 4 digits, the key `line_from_end` names holds digit t (from the least
    significant) of the last operand, or of the first where the operands are interleaved."""
    task = TASKS[name](aligned=aligned, markers=markers)
    gen = torch.Generator().manual_seed(0)
    for _ in range(5):
        numbers = tuple(task.number(4, gen) for _ in range(task.arity))
        if name == "times_digit":
            numbers = (numbers[0], 7)
        source, _ = task.example(numbers)
        read = numbers[0] if (task.stride == 2 or name == "times_digit") else numbers[-1]
        digits = task.digits(read)[::-1]
        for t, digit in enumerate(digits):
            assert source[len(source) - 1 - task.line_from_end(t)] == digit


@pytest.mark.parametrize("aligned,markers", [(False, False), (True, False), (True, True), (False, True)])
def test_addition_names_both_operands_digits_at_every_step(aligned, markers):
    """Step t reads digit t of a and of b (from the least significant): `operand_lines_from_end` names both keys,
    a's first; one-operand tasks name `line_from_end` alone."""
    task = Addition(aligned=aligned, markers=markers)
    a, b = 4821, 3907
    source, target = task.example((a, b))
    for t in range(4):
        keys = task.operand_lines_from_end(torch.tensor(t), len(target))
        assert [source[len(source) - 1 - int(k)] for k in keys] == [str(a)[::-1][t], str(b)[::-1][t]]
    assert Successor().operand_lines_from_end(torch.tensor(2), 5) == [Successor().line_from_end(torch.tensor(2))]
