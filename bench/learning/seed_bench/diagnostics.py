"""A train run's OPD diagnostics (gate, parse rate, Δ over all response tokens and over the action's), and how faithful
its self-written skills are to their task."""

from __future__ import annotations

import re
from pathlib import Path

from seed_bench.stats import mean, quantiles
from seed_trainer.runlog import RunReader, decode_float32


def diagnostics(train_run: Path, rows: list[dict], faithfulness: bool = True) -> dict:
    """Gate statistics, parse rate, Δ quantiles (all response tokens, and the tokens inside <action>…</action>, where
    a skill should change the choice), how faithful the self-written skills are to their task, and sample skills."""
    names = (
        "gate/mean",
        "gate/frac_gt_half",
        "delta/mean",
        "opd/active_ratio",
        "skill/parse_rate",
        "loss/opd",
        "loss/pg",
        "loss/kl",
        "loss/entropy",
        "skill/summary_names_task",
        "skill/names_task_target",
    )
    series = {n: [r.get(n) for r in rows] for n in names}
    summary = {n: mean([v for v in values if v is not None]) for n, values in series.items()}
    last_third = rows[len(rows) * 2 // 3 :]
    summary["last_third"] = {n: mean([r.get(n) for r in last_third if r.get(n) is not None]) for n in names}
    reader = RunReader(train_run)
    index = reader.trajectory_index()
    deltas, action_deltas, skills, faithful = [], [], [], []
    last_update = max((row.get("update") or 0 for row in index if row.get("phase") == "train"), default=0)
    for row in index:
        if row.get("phase") != "train":
            continue
        trajectory = reader.trajectory(row)  # the row, not its id: an id is looked up by rereading the index
        skill = trajectory.get("skill")
        if faithfulness and skill and skill.get("valid") and skill.get("source") == "self":
            faithful.append(skill_matches_task(skill.get("text") or "", trajectory["task"]))
        if skill and row.get("update") == last_update and len(skills) < 6:
            skills.append(
                {
                    "task": trajectory["task"].get("description"),
                    "success": trajectory["success"],
                    "valid": skill.get("valid"),
                    "skill": (skill.get("text") or "")[:400],
                    "reason": skill.get("reason"),
                }
            )
        for step in trajectory["steps"]:
            tokens = step.get("tokens") or {}
            if not tokens.get("delta"):
                continue
            values = decode_float32(tokens["delta"])
            deltas.extend(values)
            inside = action_token_mask(tokens.get("text") or [])
            action_deltas.extend(v for v, keep in zip(values, inside) if keep)
    summary["delta_quantiles"] = quantiles(deltas)
    summary["delta_quantiles_action_tokens"] = quantiles(action_deltas)
    summary["delta_positive_share"] = sum(d > 0 for d in deltas) / len(deltas) if deltas else None
    if faithful:
        summary["self_skills_checked"] = len(faithful)
        for key in ("target", "transform"):
            summary[f"self_skills_naming_the_task_{key}"] = sum(f[key] for f in faithful) / len(faithful)
    summary["sample_skills_last_update"] = skills
    return summary


def action_token_mask(texts: list[str]) -> list[bool]:
    """Which response tokens overlap the text between <action> and </action> (tags split across tokens)."""
    joined = "".join(texts)
    start = joined.find("<action>")
    if start < 0:
        return [False] * len(texts)
    start += len("<action>")
    end = joined.find("</action>", start)
    end = len(joined) if end < 0 else end
    mask, at = [], 0
    for text in texts:
        mask.append(at < end and at + len(text) > start)
        at += len(text)
    return mask


TRANSFORMS = {
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}


def skill_matches_task(skill: str, task: dict) -> dict:
    """Does a skill name the task's target receptacle, and the transform its type needs (and no other)?"""
    words = set(re.findall(r"[a-z]+", skill.lower()))
    description = (task.get("description") or "").lower().rstrip(".")
    target = description.rsplit(" ", 1)[-1] if " in " in description or " on " in description else None
    needed = TRANSFORMS.get(task.get("type"))
    named = {verb for verb in TRANSFORMS.values() if verb in words}
    return {"target": target is None or target in words, "transform": named == ({needed} if needed else set())}
