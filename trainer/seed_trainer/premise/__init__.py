"""The premise check (`python -m seed_trainer premise`): does a hindsight skill move the model the right way, before
any training? States and skills (household_states), Δ scoring (scoring), the report (report), the command."""
