"""compute/optimizer.py: the fused AdamW kernel where every parameter allows it, torch's default elsewhere; the same
update as the default within float rounding."""

from __future__ import annotations

import torch

from seed_trainer.compute.optimizer import adamw, fusable


def test_plain_float_parameters_step_fused_and_others_do_not():
    weights = [torch.nn.Parameter(torch.ones(3)), torch.nn.Parameter(torch.ones(2, 2, dtype=torch.bfloat16))]
    assert adamw(weights, lr=1e-3, weight_decay=0.0).param_groups[0]["fused"] is True
    assert not fusable([torch.nn.Parameter(torch.ones(3, dtype=torch.float64))])
    assert not fusable([])
    assert adamw([torch.nn.Parameter(torch.ones(3, dtype=torch.float64))], lr=1e-3, weight_decay=0.0).param_groups[0][
        "fused"
    ] in (None, False)


def test_the_fused_step_is_the_default_update_within_rounding():
    torch.manual_seed(0)
    start = [torch.randn(64, 32), torch.randn(32)]
    grads = [torch.randn_like(w) for w in start]
    results = []
    for make in (
        lambda p: adamw(p, lr=1e-2, weight_decay=0.1),
        lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1),
    ):
        params = [torch.nn.Parameter(w.clone()) for w in start]
        optimizer = make(params)
        for _ in range(3):
            for p, g in zip(params, grads):
                p.grad = g.clone()
            optimizer.step()
        results.append([p.detach() for p in params])
    for fused, default, first in zip(*results, start):
        assert not torch.equal(fused, first)  # it moved
        torch.testing.assert_close(fused, default, rtol=0, atol=1e-6)
