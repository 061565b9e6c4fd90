"""Chunked selective log-softmax and entropy: equal to the full-vocabulary computation, values and gradients."""

import math

import pytest
import torch

from seed_trainer.algo.logprobs import entropy_from_logits, selective_log_softmax


def _reference_logp(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, ids.unsqueeze(-1)).squeeze(-1)


def _reference_entropy(logits: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)


def _batch(seed: int = 0, shape=(3, 5), vocab: int = 11, dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    logits = (3 * torch.randn(*shape, vocab, generator=gen)).to(dtype)
    ids = torch.randint(0, vocab, shape, generator=gen)
    return logits, ids


def test_hand_computed_values():
    # logits [0, ln3] → p = [1/4, 3/4]: log p[1] = ln 0.75 = −0.287682, log p[0] = ln 0.25 = −1.386294
    # entropy = 0.25·1.386294 + 0.75·0.287682 = 0.346574 + 0.215762 = 0.562335
    logits = torch.tensor([[0.0, math.log(3.0)], [0.0, math.log(3.0)]])
    assert selective_log_softmax(logits, torch.tensor([1, 0])).tolist() == pytest.approx(
        [-0.287682, -1.386294], abs=1e-6
    )
    assert entropy_from_logits(logits).tolist() == pytest.approx([0.562335] * 2, abs=1e-6)


@pytest.mark.parametrize("chunk_rows", [None, 1, 2, 4, 100])
def test_matches_full_log_softmax_for_any_chunking(chunk_rows):
    logits, ids = _batch()
    got = selective_log_softmax(logits, ids, chunk_rows=chunk_rows)
    assert got.shape == ids.shape and got.dtype == torch.float32
    torch.testing.assert_close(got, _reference_logp(logits, ids))
    torch.testing.assert_close(entropy_from_logits(logits, chunk_rows=chunk_rows), _reference_entropy(logits))


def test_gradients_match_autograd_through_full_log_softmax():
    logits, ids = _batch(seed=1)
    weights = torch.randn(ids.shape, generator=torch.Generator().manual_seed(2))

    mine = logits.clone().requires_grad_()
    (
        (selective_log_softmax(mine, ids, chunk_rows=2) * weights).sum() + entropy_from_logits(mine, chunk_rows=3).sum()
    ).backward()
    ref = logits.clone().requires_grad_()
    ((_reference_logp(ref, ids) * weights).sum() + _reference_entropy(ref).sum()).backward()
    torch.testing.assert_close(mine.grad, ref.grad)


def test_gradcheck_in_float64():
    logits, ids = _batch(seed=3, shape=(2, 3), vocab=5, dtype=torch.float64)
    logits.requires_grad_()
    assert torch.autograd.gradcheck(lambda x: selective_log_softmax(x, ids, chunk_rows=2), (logits,))
    assert torch.autograd.gradcheck(lambda x: entropy_from_logits(x, chunk_rows=4), (logits,))


def test_non_contiguous_slice_of_logits():
    # The usual call: logits of the whole sequence, sliced to the positions that predict the response tokens.
    full, _ = _batch(seed=4, shape=(2, 9))
    ids = torch.randint(0, 11, (2, 6), generator=torch.Generator().manual_seed(5))
    sliced = full[:, 2:8]
    assert not sliced.is_contiguous()
    torch.testing.assert_close(selective_log_softmax(sliced, ids, chunk_rows=4), _reference_logp(sliced, ids))

    leaf = full.clone().requires_grad_()
    selective_log_softmax(leaf[:, 2:8], ids, chunk_rows=4).sum().backward()
    ref = full.clone().requires_grad_()
    _reference_logp(ref[:, 2:8], ids).sum().backward()
    torch.testing.assert_close(leaf.grad, ref.grad)


def test_bfloat16_logits_give_float32_results():
    logits, ids = _batch(seed=6, dtype=torch.bfloat16)
    got = selective_log_softmax(logits, ids, chunk_rows=2)
    assert got.dtype == torch.float32
    # the same as an fp32 log_softmax of the bf16 values: no bf16 rounding of the result
    torch.testing.assert_close(got, _reference_logp(logits, ids))
    torch.testing.assert_close(entropy_from_logits(logits, chunk_rows=2), _reference_entropy(logits))

    leaf = logits.clone().requires_grad_()
    selective_log_softmax(leaf, ids, chunk_rows=2).sum().backward()
    assert leaf.grad.dtype == torch.bfloat16
    ref = logits.float().requires_grad_()
    _reference_logp(ref, ids).sum().backward()
    torch.testing.assert_close(leaf.grad.float(), ref.grad, atol=1e-2, rtol=1e-2)


def test_banned_tokens_with_minus_infinity_logits():
    # [0, 0, −inf]: two equally likely tokens → entropy ln 2 = 0.693147, log p = −0.693147
    logits = torch.tensor([[0.0, 0.0, float("-inf")]], requires_grad=True)
    entropy = entropy_from_logits(logits)
    assert entropy.tolist() == pytest.approx([math.log(2.0)])
    entropy.sum().backward()
    assert torch.isfinite(logits.grad).all()
    assert selective_log_softmax(logits.detach(), torch.tensor([0])).tolist() == pytest.approx([-math.log(2.0)])


def test_shape_mismatch_is_rejected():
    with pytest.raises(ValueError):
        selective_log_softmax(torch.zeros(2, 3, 5), torch.zeros(2, 4, dtype=torch.long))
