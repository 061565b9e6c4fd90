"""The premise report's sections (schemas/premise.schema.json) from scored rows: no model here.

- `expert_section`: P(Δ(a*) > Δ(m)) per skill source and mistake kind, and each source against its placebo (the same
  states scored with the same-outcome skill of another task), as paired differences;
- `outcome_section`: the AUC of a step's Δ between successful and failed episodes, own skill against placebo;
- `gate_band`: per skill source and token kind, how many tokens' gates leave the viewer's neutral band.
Every interval is a task-clustered percentile bootstrap (algo/premise_stats.cluster_interval).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from seed_trainer.algo.premise_stats import (
    NEUTRAL_DELTA,
    NEUTRAL_GATE,
    Scored,
    auc,
    cluster_interval,
    outside_neutral,
    win_rate,
)

# Each skill source and the placebo it is compared with.
PLACEBO_OF = {"oracle": "placebo_oracle", "own": "placebo_own", "recorded": "placebo_recorded"}


@dataclass(frozen=True)
class PairRow:
    task: str
    state: int
    kind: str  # the mistake kind
    source: str
    expert: Scored
    mistake: Scored


@dataclass(frozen=True)
class StepRow:
    task: str
    trajectory: str
    step: int
    success: bool
    source: str
    scored: Scored


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _interval(pair: tuple[float, float]) -> list[float | None]:
    return [_number(pair[0]), _number(pair[1])]


def _by_task(rows: Iterable) -> dict[str, list]:
    clusters: dict[str, list] = defaultdict(list)
    for row in rows:
        clusters[row.task].append(row)
    return dict(clusters)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _win(rows: Sequence[PairRow], whole: bool = False) -> float:
    if whole:
        return win_rate([(r.expert.total, r.mistake.total) for r in rows])
    return win_rate([(r.expert.action_sum, r.mistake.action_sum) for r in rows])


def _source_summary(rows: list[PairRow], resamples: int, seed: int) -> dict:
    clusters = _by_task(rows)
    by_kind = {}
    for kind in sorted({r.kind for r in rows}):
        kind_rows = [r for r in rows if r.kind == kind]
        by_kind[kind] = {
            "pairs": len(kind_rows),
            "tasks": len({r.task for r in kind_rows}),
            "win_rate": _number(_win(kind_rows)),
            "interval": _interval(cluster_interval(_by_task(kind_rows), _win, resamples=resamples, seed=seed)),
        }
    return {
        "status": "ok",
        "pairs": len(rows),
        "tasks": len(clusters),
        "win_rate": _number(_win(rows)),
        "interval": _interval(cluster_interval(clusters, _win, resamples=resamples, seed=seed)),
        "whole_response": {
            "win_rate": _number(_win(rows, whole=True)),
            "interval": _interval(
                cluster_interval(clusters, lambda rs: _win(rs, whole=True), resamples=resamples, seed=seed)
            ),
        },
        "mean_delta_expert": _mean([r.expert.action_sum for r in rows]),
        "mean_delta_mistake": _mean([r.mistake.action_sum for r in rows]),
        "by_kind": by_kind,
    }


def _paired(rows: list, source: str, placebo: str, statistic, resamples: int, seed: int) -> dict | None:
    """statistic(source rows) − statistic(placebo rows) over the tasks that have both, with its clustered interval."""
    both = {r.task for r in rows if r.source == source} & {r.task for r in rows if r.source == placebo}
    kept = [r for r in rows if r.task in both and r.source in (source, placebo)]
    if len(both) < 2:
        return None

    def difference(pool: list) -> float:
        return statistic([r for r in pool if r.source == source]) - statistic([r for r in pool if r.source == placebo])

    return {
        "source": source,
        "placebo": placebo,
        "tasks": len(both),
        "difference": _number(difference(kept)),
        "interval": _interval(cluster_interval(_by_task(kept), difference, resamples=resamples, seed=seed)),
    }


def expert_section(rows: list[PairRow], missing: dict[str, str], *, states: int, resamples: int, seed: int) -> dict:
    """`missing`: skill sources that could not be scored, with the reason (e.g. no parseable own skill)."""
    sources: dict[str, dict] = {name: {"status": "n/a", "reason": reason} for name, reason in missing.items()}
    for source in sorted({r.source for r in rows}):
        sources[source] = _source_summary([r for r in rows if r.source == source], resamples, seed)
    contrasts = [
        c
        for source, placebo in PLACEBO_OF.items()
        if (c := _paired(rows, source, placebo, _win, resamples, seed)) is not None
    ]
    return {"status": "ok", "states": states, "pairs": len(rows), "sources": sources, "contrasts": contrasts}


def _auc(rows: Sequence[StepRow]) -> float:
    return auc([r.scored.action_sum for r in rows if r.success], [r.scored.action_sum for r in rows if not r.success])


def outcome_section(rows: list[StepRow], missing: dict[str, str], *, resamples: int, seed: int) -> dict:
    """`missing`: skill sources that could not be scored, with the reason."""
    sources: dict[str, dict] = {name: {"status": "n/a", "reason": reason} for name, reason in missing.items()}
    for source in sorted({r.source for r in rows}):
        own = [r for r in rows if r.source == source]
        wins, losses = sum(r.success for r in own), sum(not r.success for r in own)
        if not wins or not losses:
            sources[source] = {"status": "n/a", "reason": f"{wins} steps of successful and {losses} of failed episodes"}
            continue
        sources[source] = {
            "status": "ok",
            "trajectories": len({r.trajectory for r in own}),
            "tasks": len({r.task for r in own}),
            "steps_success": wins,
            "steps_failure": losses,
            "auc": _number(_auc(own)),
            "interval": _interval(cluster_interval(_by_task(own), _auc, resamples=resamples, seed=seed)),
        }
    contrasts = [
        c
        for source, placebo in PLACEBO_OF.items()
        if sources.get(source, {}).get("status") == "ok" and sources.get(placebo, {}).get("status") == "ok"
        if (c := _paired(rows, source, placebo, _auc, resamples, seed)) is not None
    ]
    return {"status": "ok", "sources": sources, "contrasts": contrasts}


def gate_band(scored: Iterable[tuple[str, Scored]], beta: float) -> dict:
    """Per skill source and token kind: tokens, how many gates leave the neutral band, the mean |Δ|."""
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for source, item in scored:
        for delta, kind in zip(item.delta, item.kinds):
            totals[source][kind].append(delta)
    return {
        "beta": beta,
        "neutral_band": {"gate": NEUTRAL_GATE, "delta": NEUTRAL_DELTA},
        "sources": {
            source: {
                kind: {
                    "tokens": len(deltas),
                    "outside": (outside := outside_neutral(deltas, beta)),
                    "share_outside": outside / len(deltas),
                    "mean_abs_delta": sum(abs(d) for d in deltas) / len(deltas),
                }
                for kind, deltas in sorted(kinds.items())
            }
            for source, kinds in sorted(totals.items())
        },
    }
