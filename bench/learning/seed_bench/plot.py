"""The learning report's figure: held-out success against update per split, mean over the completed seeds with 95 %
bands."""

from __future__ import annotations

from pathlib import Path

from seed_bench.stats import interval, wilson


def _band(entries: list[dict], split: str) -> tuple[list, list, list, list]:
    """Updates, mean success and its 95 % band over the runs' curves: a t-interval across seeds, or where one seed
    has the update, the Wilson interval of that evaluation's episodes."""
    curves = [e["curve"][split] for e in entries]
    updates = sorted({u for c in curves for u, _ in c})
    means, los, his = [], [], []
    for u in updates:
        points = [(s, e) for e, c in zip(entries, curves) for x, s in c if x == u]
        stats = interval([s for s, _ in points])
        if stats["lo"] is None:
            success, entry = points[0]
            episodes = (entry.get("start") or {}).get(split) or entry["final"][split]
            stats = wilson(success * episodes[1], episodes[1]) if episodes else stats
        means.append(stats.get("mean", stats.get("p")))
        los.append(stats["lo"] if stats["lo"] is not None else means[-1])
        his.append(stats["hi"] if stats["hi"] is not None else means[-1])
    return updates, means, los, his


def plot(results: dict, path: Path, splits, env: str = "household") -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "[bench] matplotlib is not installed (pip install -r bench/learning/requirements-learning.txt): no figure",
            flush=True,
        )
        return False
    fig, axes = plt.subplots(1, len(splits), figsize=(5.5 * len(splits), 4.2), sharey=True, squeeze=False)
    axes = axes[0]
    colours = {
        "seed": "#d62728",
        "grpo": "#1f77b4",
        "sdar": "#2ca02c",
        "grpo_opsd": "#9467bd",
        "seed_oracle": "#ff7f0e",
        "opsd_oracle": "#8c564b",
        "seed_other_task": "#e377c2",
        "seed_unrelated": "#7f7f7f",
        "empty": "#bcbd22",
        "grpo_ent0": "#17becf",
        "grpo_entneg": "#393b79",
    }
    for ax, split in zip(axes, splits):
        for algorithm, per_seed in results["algorithms"].items():
            colour = colours.get(algorithm)
            done = [e for e in per_seed.values() if e["curve"][split] and e["status"] == "completed"]
            if done:
                updates, means, los, his = _band(done, split)
                label = f"{algorithm} ({len(done)} seed{'s' if len(done) > 1 else ''})"
                ax.plot(updates, means, label=label, color=colour, marker="o", ms=3)
                ax.fill_between(updates, [max(0, x) for x in los], [min(1, x) for x in his], color=colour, alpha=0.12)
            # an unfinished run: its own curve so far, thin and dashed, kept out of the mean and the band
            for seed, entry in per_seed.items():
                if entry["curve"][split] and entry["status"] != "completed":
                    xs, ys = zip(*entry["curve"][split])
                    ax.plot(
                        xs,
                        ys,
                        color=colour,
                        ls="--",
                        lw=0.9,
                        marker="o",
                        ms=2,
                        label=f"{algorithm} seed {seed} (running, at update {entry['updates_done']})",
                    )
        ax.set_title(f"{split} (plain prompt)")
        ax.set_xlabel("Stage-2 update")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("success rate")
    axes[0].legend(loc="upper left", fontsize=8)
    title = "Household embedded default" if env == "household" else "TextWorld cooking games, tiny policy"
    fig.suptitle(
        f"{title}: held-out success, mean over completed seeds; dashed: a run still in progress\n95 % bands: "
        "t-interval across seeds, or with one seed the Wilson interval of its episodes",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return True
