"""The teacher pass (DESIGN §2 Stage 2 step 4): log-probs ℓ^skill of the sampled response under the skill prompt.

For every step of a trajectory with a valid skill, the teacher prompt is H(h_t, s) re-tokenized through the chat
template, and the *same* response tokens are scored with the π_old weights, without gradients, before the update.
Truncation: the student prompt is left-truncated like any prompt; a teacher prompt that is too long loses tokens from
the middle (just after the skill block) instead, so the task line, the skill and the current observation survive.
Under `opd.skill_control` the teacher reads another trajectory's skill or a fixed text (`controlled_skills`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from seed_trainer.algo.estimator_table import estimator_row
from seed_trainer.algo.estimators import resolved_top_k
from seed_trainer.algo.skill_controls import Written, teacher_skills
from seed_trainer.algo.skills import insert_skill, skill_block
from seed_trainer.compute.distributed import QuietWriter
from seed_trainer.compute.policy import Policy
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.rl.rollout import Episode
from seed_trainer.runlog import RunWriter

Insert = Callable[[str, str], str]


def teacher_prompt_ids(
    policy: Policy, prompt: str, skill: str, max_prompt_tokens: int, insert: Insert = insert_skill
) -> list[int]:
    """Token ids of the chat-templated teacher prompt, at most `max_prompt_tokens` long."""
    teacher = insert(prompt, skill)
    ids = policy.encode_chat(teacher, max_prompt_tokens=10**9)
    if len(ids) <= max_prompt_tokens:
        return ids
    block = skill_block(skill)
    at = teacher.find(block)
    if at == -1:  # no block (empty skill, or a custom insert): plain left truncation
        return ids[-max_prompt_tokens:]
    rendered = policy.tokenizer.apply_chat_template(
        [{"role": "user", "content": teacher}], add_generation_prompt=True, tokenize=False
    )
    cut = rendered.find(block) + len(block)
    head = policy.tokenizer.encode(rendered[:cut], add_special_tokens=False)
    tail = policy.tokenizer.encode(rendered[cut:], add_special_tokens=False)
    keep = max_prompt_tokens - len(head)
    if keep <= 0:  # the block alone overflows: keep its end and the prompt's end
        return (head + tail)[-max_prompt_tokens:]
    return head + tail[-keep:]


def teacher_pass(
    policy: Policy,
    episodes: Sequence[Episode],
    *,
    max_prompt_tokens: int,
    temperature: float,
    micro_batch_size: int,
    max_tokens: int | None = None,
    insert: Insert = insert_skill,
    skill_of: Callable[[Episode], str | None] | None = None,
    estimator: str = "sample",
    beta: float = 5.0,
    top_k: int | None = None,
) -> int:
    """Fills `step.teacher_logp` for every step of every episode that has a skill; returns the number of steps scored.

    `skill_of(episode)` gives the skill text (default: the episode's valid self-analysis; the static-library ablation
    passes its own). With `estimator` baseline or expected the same pass also runs the student prompt through π_old
    and fills `step.gate_baseline` (b(s), with the gate's `beta`) and, for expected, the soft targets (`top_k`:
    `opd.expected_top_k`).
    """
    skill_of = skill_of or (lambda e: e.skill.skill if e.skill is not None and e.skill.valid else None)
    prompts, responses, targets = [], [], []
    for episode in episodes:
        skill = skill_of(episode)
        if not skill:
            continue
        for step in episode.steps:
            prompts.append(teacher_prompt_ids(policy, step.prompt, skill, max_prompt_tokens, insert))
            responses.append(step.response_ids)
            targets.append(step)
    if not targets:
        return 0
    row = estimator_row(estimator)
    if not row.needs_distributions:
        for step, logp in zip(
            targets, policy.score(prompts, responses, temperature, micro_batch_size, max_tokens=max_tokens)
        ):
            step.teacher_logp = logp
        return len(targets)
    kept = resolved_top_k(policy.runner.get_output_embeddings().weight.shape[0], top_k)
    keep = "baseline" if row.keeps == "baseline" else ("full" if kept is None else "top_k")
    scored = policy.score_gate_targets(
        [s.prompt_ids for s in targets],
        prompts,
        responses,
        beta=beta,
        keep=keep,
        top_k=kept,
        temperature=temperature,
        micro_batch_size=micro_batch_size,
        max_tokens=max_tokens,
    )
    for step, result in zip(targets, scored):
        step.teacher_logp, step.gate_baseline = result.teacher_logp, result.baseline
        step.target_ids, step.target_weights, step.target_tail = (
            result.target_ids,
            result.target_weights,
            result.target_tail,
        )
    return len(targets)


def controlled_skills(
    episodes: Sequence[Episode], config: ExperimentConfig, writer: RunWriter | QuietWriter, update: int
) -> Callable[[Episode], str | None] | None:
    """Under `opd.skill_control` (algo/skill_controls.py), the teacher pass's skill of each episode, and a
    `skill_control` event that says whose skill each trajectory's teacher read; None (the own skills) without one.
    Under torchrun the donors are this process's task groups."""
    control = config.opd.skill_control
    if control == "none":
        return None
    written = [
        Written(e.group, e.index, e.won, e.skill.skill if e.skill is not None and e.skill.valid else None)
        for e in episodes
    ]
    chosen = teacher_skills(written, control)
    donors = [
        {"group": w.group, "index": w.index, "donor_group": c.group, "donor_index": c.index}
        | ({} if c.group is not None else {"text": c.text})
        for w, c in zip(written, chosen)
        if c is not None
    ]
    missing = sum(1 for w, c in zip(written, chosen) if w.skill is not None and c is None)
    writer.event(
        "skill_control",
        f"update {update}: `{control}` skills for {len(donors)} trajectories"
        + (f"; {missing} with a valid own skill had no donor and are not distilled" if missing else ""),
        step=update,
        control=control,
        donors=donors,
    )
    by_episode = {id(e): c.text if c is not None else None for e, c in zip(episodes, chosen)}
    return lambda episode: by_episode.get(id(episode))
