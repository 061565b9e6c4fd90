"""Where the policy runs and what it costs: the policy (generate, score), engines (HF, vLLM), response scoring, micro-batches,
mixed precision, memory estimates and the torch.distributed pieces (ranks, collectives, FSDP sharding). No stage here."""
