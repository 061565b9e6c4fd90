"""The two timed sides of the peer comparison (bench/speed/peer_trl.py), each run in a process of its own so that its
peak memory is its own: `run_trl` trains TRL's GRPOTrainer with its phases timed, `run_ours` runs our trainer's
`train` command in this process (what `python -m seed_trainer train` does) after noting its thread count.

How TRL's phases are timed: its own methods, wrapped on the trainer instance (the trainer calls them as
`self.<method>`, so the wrappers see every call) — `_generate` (chat template, Hugging Face generate, decoding),
`_calculate_rewards` (the reward function), `_generate_and_score_completions` (the whole preparation: generation,
rewards, the reference pass, advantages), `_get_per_token_logps_and_entropies` (each scoring forward: inside the
preparation the reference pass, otherwise the update's forward) — and a TrainerCallback whose `on_step_begin` and
`on_step_end` bound one update (one optimizer step, the generation included). Per update:
rollout = _generate + _calculate_rewards; logprobs = the rest of the preparation; update = the step − the preparation.
Ours: the loop's own `time/*` metrics (stages/train.py's phase timers).
"""

from __future__ import annotations

import json
import time
from pathlib import Path


class PhaseTimer:
    """Seconds per update of each wrapped method of a GRPOTrainer, and the update's completion tokens and rewards."""

    WRAPPED = {
        "_generate": "generation",
        "_calculate_rewards": "reward",
        "_generate_and_score_completions": "prepare",
        "_get_per_token_logps_and_entropies": "scoring",
    }

    def __init__(self, trainer) -> None:
        self.updates: list[dict] = []
        self.current: dict = {}
        self.active: set[str] = set()  # the wrapped methods running now
        self.autocast: dict[str, set[bool]] = {}  # per phase: whether the decoder ran under CPU autocast
        self._depth_prepare = 0
        for method, phase in self.WRAPPED.items():
            setattr(trainer, method, self._timed(getattr(trainer, method), phase))

    def _timed(self, function, phase: str):
        def wrapper(*args, **kwargs):
            if phase == "prepare":
                self._depth_prepare += 1
            started = time.perf_counter()
            self.active.add(phase)
            try:
                result = function(*args, **kwargs)
            finally:
                self.active.discard(phase)
                seconds = time.perf_counter() - started
                if phase == "prepare":
                    self._depth_prepare -= 1
                name = phase if phase != "scoring" else ("reference_pass" if self._depth_prepare else "update_forward")
                self.current[name] = self.current.get(name, 0.0) + seconds
            if phase == "prepare":
                self.current["completion_tokens"] = int(result["completion_mask"].sum())
            if phase == "reward":
                self.current["reward_mean"] = float(result.float().mean())
            return result

        return wrapper

    def probe(self, layer) -> None:
        """Notes, per phase, whether `layer` (a decoder layer) runs under CPU autocast: TRL's bf16 is accelerate's
        autocast, and generation runs outside TRL's own autocast context."""
        import torch

        def hook(module, inputs):
            phase = "generation" if "generation" in self.active else "scoring_and_update"
            self.autocast.setdefault(phase, set()).add(torch.is_autocast_enabled("cpu"))

        layer.register_forward_pre_hook(hook)

    def callback(self):
        from transformers import TrainerCallback

        timer = self

        class _Bounds(TrainerCallback):
            def on_step_begin(self, args, state, control, **kwargs):
                timer.current = {"_started": time.perf_counter()}

            def on_step_end(self, args, state, control, **kwargs):
                timer.close_update()

        return _Bounds()

    def close_update(self) -> None:
        now = time.perf_counter()
        c = self.current
        total = now - c.pop("_started")
        rollout = c.get("generation", 0.0) + c.get("reward", 0.0)
        prepare = c.get("prepare", 0.0)
        self.updates.append(
            {
                "phases_s": {
                    "rollout": rollout,
                    "logprobs": prepare - rollout,
                    "update": total - prepare,
                    "total": total,
                },
                "detail_s": {k: c[k] for k in ("generation", "reward", "reference_pass", "update_forward") if k in c},
                "completion_tokens": c.get("completion_tokens"),
                "reward_mean": c.get("reward_mean"),
            }
        )


def run_trl(settings_json: str, model_dir: str, updates: int, overrides_json: str, out: str) -> int:
    """Trains `updates` TRL updates; writes {threads, updates: [...]} to `out`."""
    import torch
    from datasets import Dataset
    from peer_settings import PeerSettings, trl_config_kwargs
    from peer_task import sum_reward, trl_rows
    from trl import GRPOConfig, GRPOTrainer

    settings = PeerSettings(**json.loads(settings_json))
    torch.set_num_threads(settings.threads)
    with_overrides = {**trl_config_kwargs(settings, str(Path(out).parent / "trl-output"), updates)}
    with_overrides.update(json.loads(overrides_json))
    args = GRPOConfig(**with_overrides)
    rows = trl_rows(settings.seed, updates, settings.prompts)
    trainer = GRPOTrainer(model=model_dir, reward_funcs=sum_reward, args=args, train_dataset=Dataset.from_list(rows))
    timer = PhaseTimer(trainer)
    timer.probe(trainer.model.model.layers[0])
    trainer.add_callback(timer.callback())
    trainer.train()
    autocast = {phase: sorted(seen) for phase, seen in timer.autocast.items()}
    record = {"threads": torch.get_num_threads(), "autocast": autocast, "updates": timer.updates}
    Path(out).write_text(json.dumps(record), encoding="utf-8")
    return 0


def run_ours(experiment: str, run_dir: str, out: str) -> int:
    """Our `train` command in this process, after writing its torch thread count to `out`."""
    import torch

    from seed_trainer.cli import main

    Path(out).write_text(json.dumps({"threads": torch.get_num_threads()}), encoding="utf-8")
    return main(["train", experiment, "--run-dir", run_dir])


def ours_updates(run_dir: Path) -> list[dict]:
    """Per update of a finished run of ours: its phases (the loop's `time/*`), completion tokens and mean reward."""
    from seed_trainer.runlog import RunReader
    from seed_trainer.runlog.tokens import decode_int32

    reader = RunReader(run_dir)
    rows = [r for r in reader.metrics() if r["kind"] == "update"]
    updates = []
    for row in rows:
        steps = [s for _, t in reader.iter_trajectories(f"it-{row['step']:06d}.jsonl") for s in t["steps"]]
        phases = {k[len("time/") :]: v for k, v in row.items() if k.startswith("time/")}
        updates.append(
            {
                "phases_s": {k: phases.get(k, 0.0) for k in ("rollout", "logprobs", "update", "total")},
                "detail_s": {k: v for k, v in phases.items() if k in ("analysis", "teacher")},
                "completion_tokens": sum(len(decode_int32(s["tokens"]["ids"])) for s in steps),
                "reward_mean": sum(s["score"] for s in steps) / max(len(steps), 1),
            }
        )
    return updates
