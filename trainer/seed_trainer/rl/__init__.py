"""The parts of one on-policy update, in the order the Stage-2 loop runs them: rollout (episodes), the teacher pass
(teacher log-probs under a skill) and the PPO update with the gated distillation term."""
