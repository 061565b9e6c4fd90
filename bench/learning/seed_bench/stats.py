"""The learning reports' statistics: means, quantiles and 95 % intervals across seeds, over pooled episodes (Wilson,
Newcombe) and paired by seed or by task."""

from __future__ import annotations

import math
import statistics

T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
}


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def quantiles(values: list[float]) -> dict | None:
    if not values:
        return None
    ordered = sorted(values)
    return {q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.05, 0.25, 0.5, 0.75, 0.95)}


def interval(values: list[float]) -> dict:
    """Mean and 95 % t-interval across seeds."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "lo": None, "hi": None, "n": n}
    half = T_975.get(n - 1, 1.96) * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n}


def wilson(successes: float, n: int) -> dict:
    """95 % Wilson interval of a pooled success count (episode-level sampling error only)."""
    if n == 0:
        return {"p": None, "lo": None, "hi": None, "n": 0}
    z, p = 1.96, successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"p": p, "lo": centre - half, "hi": centre + half, "n": n}


def difference(finals: list[tuple[float, int]], baseline: list[tuple[float, int]]) -> dict:
    """Final success of one algorithm minus the baseline's, each a list of (success, episodes) per seed, with two
    95 % intervals: across seeds (Welch's t, the degrees of freedom rounded down; seed-to-seed variation included;
    None with fewer than two seeds on either side) and over the pooled episodes (Newcombe's interval from the two
    Wilson intervals; episode sampling only, so too narrow when seeds differ)."""
    a, b = [f[0] for f in finals], [f[0] for f in baseline]
    d = sum(a) / len(a) - sum(b) / len(b)
    across = {"d": d, "lo": None, "hi": None, "seeds": [len(a), len(b)]}
    if len(a) >= 2 and len(b) >= 2:
        va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
        if va + vb > 0:
            df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
            half = T_975.get(max(1, math.floor(df)), 1.96) * math.sqrt(va + vb)
            across.update(lo=d - half, hi=d + half)
    wa = wilson(sum(p * n for p, n in finals), sum(n for _, n in finals))
    wb = wilson(sum(p * n for p, n in baseline), sum(n for _, n in baseline))
    dp = wa["p"] - wb["p"]
    pooled = {
        "d": dp,
        "lo": dp - math.hypot(wa["p"] - wa["lo"], wb["hi"] - wb["p"]),
        "hi": dp + math.hypot(wa["hi"] - wa["p"], wb["p"] - wb["lo"]),
        "episodes": [wa["n"], wb["n"]],
    }
    return {"across_seeds": across, "pooled_episodes": pooled}


def paired_difference(finals: dict[int, tuple[float, int]], baseline: dict[int, tuple[float, int]]) -> dict:
    """Final success minus the baseline's over the seeds both completed, each a {seed: (success, episodes)}: the mean
    per-seed difference with a paired 95 % t-interval (None with one common seed). A seed fixes the start checkpoint's
    evaluation and the evaluation tasks for every algorithm, so pairing by seed takes out how hard each seed's task
    set is, which the unpaired Welch interval of `difference` counts as noise."""
    common = sorted(set(finals) & set(baseline))
    stats = (
        interval([finals[s][0] - baseline[s][0] for s in common]) if common else {"mean": None, "lo": None, "hi": None}
    )
    return {"d": stats["mean"], "lo": stats["lo"], "hi": stats["hi"], "seeds": common}


def change_over_start(pairs: list[tuple[tuple[float, int], tuple[float, int]]]) -> dict:
    """Final success minus the start, from (final, start) pairs of one seed each, (success, episodes) both: the mean
    change with a paired 95 % t-interval across seeds (None with one seed), and the pooled finals against the pooled
    starts (Newcombe, as in `difference`, which takes the two as independent samples)."""
    across = interval([final[0] - start[0] for final, start in pairs])
    pooled = difference([final for final, _ in pairs], [start for _, start in pairs])["pooled_episodes"]
    return {
        "across_seeds": {"d": across["mean"], "lo": across["lo"], "hi": across["hi"], "seeds": across["n"]},
        "pooled_episodes": pooled,
    }


def paired_by_task(pairs: list[tuple[dict | None, dict | None]]) -> dict:
    """One evaluation minus another, task by task: each pair is two `eval_outcomes` of one seed (say, final and
    start), used only when both played the same tasks in the same order. The mean per-task difference with a 95 %
    t-interval over all those tasks. Pairing takes out how hard each task is, which the pooled interval counts as
    noise; the interval holds the evaluation's sampling only, not the spread between training seeds (across_seeds
    and paired_seeds have that), so with one seed it says whether that run's change is more than evaluation noise."""
    diffs = [
        int(a) - int(b)
        for x, y in pairs
        if x and y and x["tasks"] == y["tasks"] and len(x["success"]) == len(y["success"])
        for a, b in zip(x["success"], y["success"])
    ]
    if len(diffs) < 2:
        return {"d": None, "lo": None, "hi": None, "episodes": len(diffs)}
    stats = interval(diffs)
    return {"d": stats["mean"], "lo": stats["lo"], "hi": stats["hi"], "episodes": len(diffs)}
