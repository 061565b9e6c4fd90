"""The static skill library of the household environment, by task type (the SDAR baseline's teacher context and the
"static offline skill library" ablation).

Type-level rules only — the same text for every task of a type, no instance facts. `examples/household-skills/` holds
it as the markdown folder `seed_trainer.analyzers.static_bank.SkillBank` reads (`general.md` + `<task_type>.md`); a
test keeps the two the same.
"""

from __future__ import annotations

from seed_trainer.envs.household.catalogue import CLEAN, COOL, HEAT, LOOK, PICK, TWO

GENERAL = (
    'Choose only actions from the admissible list, and never repeat an action that answered "Nothing happens.". '
    "Look where the object usually is first, check each place once, and open closed receptacles to look inside."
)

BY_TYPE = {
    PICK: "To put an object somewhere: find it, take it, go to the target receptacle, open it if closed, and put the "
    "object in it.",
    TWO: "To put two objects somewhere: find one, take it and put it in the target; then find the second one and put "
    "it in the same target.",
    LOOK: "To look at an object under a lamp: find the object and take it, then go to the lamp and use it while "
    "holding the object.",
    CLEAN: "To clean an object and place it: find it and take it, go to the sinkbasin and clean it there first, then "
    "go to the target and put it in.",
    HEAT: "To heat an object and place it: find it and take it, go to the microwave and heat it there first, then go "
    "to the target and put it in.",
    COOL: "To cool an object and place it: find it and take it, go to the fridge and cool it there first, then go to "
    "the target and put it in.",
}


def static_skill_text(task_type: str) -> str:
    """What the bank gives a task of `task_type` (general part, then the type's part), as SkillBank.for_task_type."""
    return "\n\n".join(part for part in (GENERAL, BY_TYPE.get(task_type, "")) if part)
