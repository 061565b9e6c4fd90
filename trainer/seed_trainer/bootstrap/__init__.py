"""Building the tiny built-in policies (`python -m seed_trainer.bootstrap`) and agent SFT of a real model
(`python -m seed_trainer.bootstrap.agent_sft`): the recipe, the SFT examples, the training and the TextWorld variant."""
