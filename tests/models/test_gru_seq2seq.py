"""The GRU seq2seq model: padding-free encoding, greedy vs teacher forcing, <eos> stopping."""

import pytest
import torch

from lengthgen.data import EOS, PAD, Seq2SeqBatch
from lengthgen.models.gru_seq2seq import Seq2SeqConfig
from lengthgen.train.evaluate import strip


def test_encoding_does_not_depend_on_padding(model_and_task):
    model, task = model_and_task()
    short, long = task.examples("iid", 2)[0], task.examples("30", 1)[0]
    alone = task.batch([short])
    padded = task.batch([short, long])
    a, b = model.encode(alone.src, alone.src_len), model.encode(padded.src, padded.src_len)
    n = int(a.n[0])
    assert torch.allclose(a.enc[0, :n], b.enc[0, :n], atol=1e-6) and torch.allclose(a.cls[0], b.cls[0], atol=1e-6)
    assert b.mask[0].sum() == n and b.mask[1].sum() == 32  # 30 tokens + START + END


def test_start_and_end_are_encoded_with_the_source(model_and_task):
    """Revision 2, as the public code: START/END are embedded and encoded, so the encoder's final states are its
    outputs at END (forward) and START (backward), and both positions carry the source."""
    model, task = model_and_task()
    batch = task.batch(task.examples("iid", 1))
    other = batch.src.clone()
    zero, one = task.vocab.encode(["0", "1"])
    other[0, 0] = one if other[0, 0] == zero else zero  # another first digit
    m, m2 = model.encode(batch.src, batch.src_len), model.encode(other, batch.src_len)
    n, half = int(m.n[0]), m.enc.shape[2] // 2
    assert torch.allclose(m.cls[0, :half], m.enc[0, n - 1, :half])
    assert torch.allclose(m.cls[0, half:], m.enc[0, 0, half:])
    assert not torch.allclose(m.enc[0, [0, n - 1]], m2.enc[0, [0, n - 1]], atol=1e-4)
    with pytest.raises(ValueError, match="revision 1 cannot be built"):
        Seq2SeqConfig(revision=1)


@pytest.mark.parametrize("attention", ["content", "relative", "bi_rope", "locattn", "mix_onestep_pr", "mono"])
def test_greedy_matches_teacher_forcing_on_its_own_output(attention, model_and_task):
    model, task = model_and_task(attention)
    batch = task.batch(task.examples("15", 6))
    out = model.predict(batch, 20)
    fed = out.clone()
    fed[fed == PAD] = EOS  # positions after <eos> are never compared
    tf = model.teacher_forced(Seq2SeqBatch(batch.src, batch.src_len, fed, batch.tgt_len)).argmax(-1)
    for row_out, row_tf in zip(strip(out), strip(tf), strict=True):
        assert row_tf[: len(row_out)] == row_out


def test_greedy_stops_when_every_sequence_emitted_eos(model_and_task):
    model, task = model_and_task()
    batch = task.batch(task.examples("100", 4))
    with torch.no_grad():
        model.out_bias[EOS] = 1e4
    assert model.predict(batch, 50).shape == (4, 1)
    with torch.no_grad():
        model.out_bias[EOS] = -1e4
    assert model.predict(batch, 50).shape == (4, 50)
