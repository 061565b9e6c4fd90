"""What an environment server costs per step: the household played in-process, over the env-server protocol with the
client's kept-alive connection, and over the protocol with a new connection per request (what a client without
connection reuse pays). The server is `python -m seed_trainer.envs.serve` in a subprocess on 127.0.0.1; the same
scripted commands are played in each mode (random admissible commands, seeded), so only the transport differs.
Prints one JSON object: steps per second of each mode and the ratios against in-process, in the same process.

    .venv/bin/python bench/speed/env_server.py [--episodes 40] [--steps 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "trainer"))

from seed_trainer.envs.env_server import EnvServerTasks  # noqa: E402
from seed_trainer.envs.household import HouseholdTasks  # noqa: E402


def play(make_env, specs, steps: int, seed: int) -> tuple[int, float]:
    """Plays every spec with seeded random admissible commands; returns (steps played, seconds)."""
    rng, played = random.Random(seed), 0
    started = time.perf_counter()
    for spec in specs:
        env = make_env(spec)
        _, observation = env.reset()
        for _ in range(steps):
            result = env.step(rng.choice(observation.admissible_actions))
            observation, played = result.observation, played + 1
            if result.done:
                break
        getattr(env, "close", lambda: None)()
    return played, time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    local = HouseholdTasks(max_steps=args.steps)
    catalog = local.sample("train", args.episodes, seed=0)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "seed_trainer.envs.serve",
            "household",
            "--split",
            f"train={args.episodes}",
            "--options",
            json.dumps({"max_steps": args.steps}),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "trainer"), os.environ.get("PYTHONPATH")])),
        },
    )
    try:
        url = json.loads(server.stdout.readline())["url"]
        remote = EnvServerTasks(url)
        specs = sorted(remote.sample("train", args.episodes, seed=0), key=lambda s: s.index)
        results = {"in_process": play(lambda s: local.make(catalog[s.index]), specs, args.steps, 1)}
        results["http_keep_alive"] = play(remote.make, specs, args.steps, 1)

        def fresh_connection(spec):  # drop the thread's connection before every request
            env = remote.make(spec)
            for name in ("reset", "step", "close"):
                method = getattr(env, name)
                setattr(env, name, lambda *a, _m=method: (remote.client.close(), _m(*a))[1])
            return env

        results["http_new_connection"] = play(fresh_connection, specs, args.steps, 1)
    finally:
        server.kill()
        server.wait()
    steps = {mode: played for mode, (played, _) in results.items()}
    assert len(set(steps.values())) == 1, steps  # the same commands were played in every mode
    rate = {mode: played / seconds for mode, (played, seconds) in results.items()}
    print(
        json.dumps(
            {
                "episodes": args.episodes,
                "steps": steps["in_process"],
                "steps_per_second": {mode: round(value, 1) for mode, value in rate.items()},
                "ratio_to_in_process": {mode: round(value / rate["in_process"], 4) for mode, value in rate.items()},
                "keep_alive_speedup": round(rate["http_keep_alive"] / rate["http_new_connection"], 2),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
