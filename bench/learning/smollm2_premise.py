"""SEED's premise on a pretrained LLM: does the policy with a hindsight skill in its prompt (the teacher) beat the same
policy without one (the student)? Measured on SmolLM2-135M-Instruct after agent SFT (seed_trainer.bootstrap.agent_sft).

For every task of the split, in chunks that resume:
1. **plain**: one episode with the plain prompt (what evaluation means);
2. the policy writes a skill about that episode (the analysis prompt of Stage 1 and 2, greedy; format verification as
   everywhere), and the environment's oracle analyzer writes one about the same episode;
3. **oracle** and **own**: one more episode of the same task with that skill inserted into every step prompt (the
   teacher format, algo.skills.insert_skill). A task whose own analysis fails format verification has no own-skill
   episode (as a trajectory without a valid skill gets no distillation); its pairs are left out and counted;
4. **placebo**: one more episode with the oracle's skill about *another* task of the chunk whose plain episode had the
   same outcome (`placebo_skills`): household advice of the same genre and outcome, not about this attempt. A task
   with no such partner in its chunk has no placebo episode.

The differences are paired task by task (95 % t-intervals over tasks): oracle − plain, own − plain, placebo − plain,
and the contrasts that separate "a skill about this attempt" from "a skill in the prompt": oracle − placebo and
own − placebo. The goal the
issue names is a teacher ≥ 20 points better than its student; the tiny policy's was 13–14 points (plain vs the oracle's
workflow skill, docs/research/tiny-policy.md). Tasks are played at the evaluation's temperature 0.4.

    python bench/learning/smollm2_premise.py --model runs-smollm2/agent [--split dev --tasks 200 --chunk 20]

Per-task outcomes go to `<out>.tasks.jsonl` as they are made (a rerun skips the tasks done with the same settings);
the summary to `<out>` (default bench/results/smollm2-premise.json), with examples of skills and what they changed.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "trainer"))

from seed_trainer.algo.json_repair import parse_skill_reply  # noqa: E402
from seed_trainer.algo.prompts import build_step_prompt  # noqa: E402
from seed_trainer.algo.skills import insert_skill  # noqa: E402

T_975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 9: 2.26, 19: 2.09, 29: 2.05}


class SkilledTasks:
    """The household tasks with a per-task skill inserted into every step prompt (the teacher's prompt)."""

    def __init__(self, source, skills: dict[str, str]):
        self._source, self._skills = source, skills

    def __getattr__(self, name):
        return getattr(self._source, name)

    def step_prompt(self, memory: bool = False, **kwargs) -> str:  # `memory` named: the rollout asks for it by name
        return insert_skill(build_step_prompt(memory=memory, **kwargs), self._skills.get(kwargs["task"], ""))


def paired(diffs: list[int]) -> dict:
    if len(diffs) < 2:
        return {"d": None, "lo": None, "hi": None, "tasks": len(diffs)}
    mean = statistics.fmean(diffs)
    half = T_975.get(len(diffs) - 1, 1.96) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return {"d": mean, "lo": mean - half, "hi": mean + half, "tasks": len(diffs)}


def play(policy, source, specs, args):
    from seed_trainer.rl.rollout import play_episodes

    return play_episodes(
        policy,
        source,
        specs,
        group_size=1,
        max_steps=args.max_steps,
        history_length=args.history,
        max_prompt_tokens=args.max_prompt_tokens,
        max_response_tokens=args.max_response_tokens,
        temperature=args.temperature,
        generation_batch_size=args.chunk,
        memory=args.memory,
    )


def play_skilled(policy, tasks, skills: dict[str, str], specs, plain, args) -> dict:
    """One episode of each task that has a skill in `skills` (by its description), that skill in its prompts; the
    episodes by task description (none played when no task has one)."""
    chosen = [s for s, e in zip(specs, plain) if e.task.description in skills]
    if not chosen:
        return {}
    return {e.task.description: e for e in play(policy, SkilledTasks(tasks, skills), chosen, args)}


def placebo_skills(skills: dict[str, str], outcomes: dict[str, bool]) -> dict[str, str]:
    """Each task's placebo: the skill of the next task (in order, cyclically) with the same outcome and another
    description; none when no such task is there."""
    names = list(skills)
    placebo = {}
    for at, name in enumerate(names):
        for other in names[at + 1 :] + names[:at]:
            if other != name and outcomes[other] == outcomes[name]:
                placebo[name] = skills[other]
                break
    return placebo


def chunks_of_distinct_tasks(indices_and_names: list[tuple[int, str]], size: int) -> list[list[int]]:
    """Chunks of at most `size` task indices, in order, none holding two tasks of the same description: the skill of a
    task is found by its description when its prompts are built (SkilledTasks)."""
    chunks: list[list[int]] = []
    names: list[set[str]] = []
    for index, name in indices_and_names:
        for chunk, seen in zip(chunks, names):
            if len(chunk) < size and name not in seen:
                chunk.append(index)
                seen.add(name)
                break
        else:
            chunks.append([index])
            names.append({name})
    return chunks


def chunk_outcomes(policy, tasks, specs, indices, args) -> list[dict]:
    """The three conditions of a chunk of tasks; one record per task."""
    import torch

    from seed_trainer.analyzers.self_analysis import self_analyze

    torch.manual_seed(args.seed * 100_003 + indices[0])
    plain = play(policy, tasks, specs, args)
    oracle_skills, own_skills, own_replies = {}, {}, {}
    for spec, episode in zip(specs, plain):
        oracle_skills[episode.task.description] = parse_skill_reply(tasks.oracle_analysis(spec, episode)).skill or ""
    for episode, (reply, parsed) in zip(
        plain,
        self_analyze(
            policy,
            plain,
            max_tokens=args.analysis_tokens,
            max_prompt_tokens=args.max_prompt_tokens * 2,
            batch_size=args.chunk,
        ),
    ):
        own_replies[episode.task.description] = reply
        if parsed.valid:
            own_skills[episode.task.description] = parsed.skill
    oracle = play(policy, SkilledTasks(tasks, oracle_skills), specs, args)
    placebo = placebo_skills(oracle_skills, {e.task.description: e.won for e in plain})
    placebo_played = play_skilled(policy, tasks, placebo, specs, plain, args)
    own = play_skilled(policy, tasks, own_skills, specs, plain, args)
    records = []
    for index, p, o in zip(indices, plain, oracle):
        task = p.task.description
        mine, sham = own.get(task), placebo_played.get(task)
        records.append(
            {
                "index": index,
                "task": task,
                "type": p.task.type,
                "plain": p.won,
                "oracle": o.won,
                "own": None if mine is None else mine.won,
                "placebo": None if sham is None else sham.won,
                "plain_steps": len(p.steps),
                "oracle_steps": len(o.steps),
                "own_steps": None if mine is None else len(mine.steps),
                "plain_valid": sum(s.valid for s in p.steps) / max(1, len(p.steps)),
                "oracle_skill": oracle_skills[task],
                "own_skill": own_skills.get(task),
                "placebo_skill": placebo.get(task),
                "own_reply": own_replies[task][:600],
                "own_skill_valid": task in own_skills,
                "actions": {
                    "plain": [s.action for s in p.steps][:12],
                    "oracle": [s.action for s in o.steps][:12],
                    "own": None if mine is None else [s.action for s in mine.steps][:12],
                },
            }
        )
    return records


def summary(records: list[dict], settings: dict, seconds: float) -> dict:
    def rate(key, rows):
        rows = [r for r in rows if r.get(key) is not None]
        return {"success": sum(r[key] for r in rows) / len(rows) if rows else None, "tasks": len(rows)}

    records = sorted(records, key=lambda r: r["index"])

    with_own = [r for r in records if r["own"] is not None]
    with_placebo = [r for r in records if r.get("placebo") is not None]  # older records have no placebo
    by_type = {}
    for kind in sorted({r["type"] for r in records}):
        rows = [r for r in records if r["type"] == kind]
        by_type[kind] = {key: rate(key, rows) for key in ("plain", "oracle", "own", "placebo")}
    examples = [
        {k: r[k] for k in ("task", "plain", "oracle", "own", "oracle_skill", "own_skill", "actions")}
        for r in records
        if r["own_skill_valid"]
    ][:6]
    return {
        "settings": settings,
        "tasks": len(records),
        "plain": rate("plain", records),
        "oracle": rate("oracle", records),
        "own": rate("own", with_own),
        "own_parse_rate": len(with_own) / max(1, len(records)),
        "oracle_minus_plain": paired([int(r["oracle"]) - int(r["plain"]) for r in records]),
        "own_minus_plain": paired([int(r["own"]) - int(r["plain"]) for r in with_own]),
        "placebo": rate("placebo", records),
        "placebo_minus_plain": paired([int(r["placebo"]) - int(r["plain"]) for r in with_placebo]),
        "oracle_minus_placebo": paired([int(r["oracle"]) - int(r["placebo"]) for r in with_placebo]),
        "own_minus_placebo": paired([int(r["own"]) - int(r["placebo"]) for r in with_placebo if r["own"] is not None]),
        "plain_valid_action_ratio": statistics.fmean(r["plain_valid"] for r in records) if records else None,
        "by_task_type": by_type,
        "examples": examples,
        "seconds": seconds,
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the agent-SFT model directory (seed_trainer.bootstrap.agent_sft)")
    p.add_argument("--split", default="dev")
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--chunk", type=int, default=20, help="tasks played together (and saved together)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--history", type=int, default=2)
    p.add_argument("--memory", action="store_true", help="rollout.memory: the prompt's line of places searched")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--max-prompt-tokens", type=int, default=1024)
    p.add_argument("--max-response-tokens", type=int, default=48)
    p.add_argument("--analysis-tokens", type=int, default=192)
    p.add_argument("--temperature", type=float, default=0.4)
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--out", default=str(HERE.parent / "results" / "smollm2-premise.json"))
    return p


def shown_path(text: str) -> str:
    """`text` with the user's home directory written as `~`."""
    home = str(Path.home())
    return "~" + text[len(home) :] if text == home or text.startswith(home + "/") else text


def main(argv=None) -> int:
    import torch

    from seed_trainer.compute.policy import Policy
    from seed_trainer.envs.household import HouseholdTasks
    from seed_trainer.experiment.config import ModelConfig

    args = parser().parse_args(argv)
    out = Path(args.out)
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "chunk")}
    settings["model"] = shown_path(args.model)  # results are committed: no home directory in them
    recipe = Path(args.model) / "agent_sft.json"
    settings["agent_sft"] = json.loads(recipe.read_text())["recipe"] if recipe.exists() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_suffix(".tasks.jsonl")
    done: dict[int, dict] = {}
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("settings") == settings:
                done[row["record"]["index"]] = row["record"]
    torch.set_num_threads(max(1, torch.get_num_threads()))
    policy = Policy.load(
        ModelConfig(path=args.model, device="cpu", dtype=args.dtype), with_reference=False, trainable=False
    )
    tasks = HouseholdTasks(max_steps=args.max_steps)
    specs = tasks.sample(args.split, args.tasks, seed=args.seed)
    chunks = chunks_of_distinct_tasks([(i, tasks.make(s).task.description) for i, s in enumerate(specs)], args.chunk)
    started = time.perf_counter()
    records = [done[i] for i in sorted(done) if i < len(specs)]
    for indices in chunks:
        if all(i in done for i in indices):
            continue
        made = chunk_outcomes(policy, tasks, [specs[i] for i in indices], indices, args)
        with log.open("a", encoding="utf-8") as handle:
            for record in made:
                handle.write(json.dumps({"settings": settings, "record": record}) + "\n")
        records += made
        report = summary(records, settings, time.perf_counter() - started)
        words = argv if argv is not None else sys.argv[1:]
        report["command"] = "python bench/learning/smollm2_premise.py " + " ".join(shown_path(w) for w in words)
        report["complete"] = len(records) >= len(specs)
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        own = report["own"]["success"]
        print(
            f"{len(records)}/{len(specs)} tasks: plain {report['plain']['success']:.3f}, oracle "
            f"{report['oracle']['success']:.3f}, own {'-' if own is None else f'{own:.3f}'}, placebo "
            f"{report['placebo']['success']} "
            f"(parse {report['own_parse_rate']:.2f}), {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
