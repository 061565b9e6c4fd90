"""The trainer's half of bench/robustness/experiment_fuzz.mjs: what `train` does first with each experiment file — load_experiment,
then the resolved config written as JSON (run.json's `config`) — in a forked child per file, under a time limit and an
address-space cap, so a crash, a hang or a memory blow-up is counted instead of taking the benchmark down.

    python bench/robustness/experiment_fuzz_trainer.py DIR [--timeout 20] [--memory-gb 3]

Prints one JSON object per file ({file, outcome, seconds, detail}); outcome: accepted | rejected | crash | hang | memory.
Which trainer is measured is whatever `seed_trainer` imports (PYTHONPATH selects another checkout).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sys
import time
import traceback
from pathlib import Path


def _judge(path: Path, write) -> None:
    from seed_trainer.experiment.config import ExperimentError
    from seed_trainer.experiment.loading import load_experiment

    try:
        config = load_experiment(path)
        json.dumps(config.model_dump(mode="json", by_alias=True), allow_nan=False)
        write({"outcome": "accepted"})
    except ExperimentError as exc:
        write({"outcome": "rejected", "detail": str(exc).splitlines()[0][:300]})
    except MemoryError:
        write({"outcome": "memory", "detail": "MemoryError"})
    except BaseException as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
        write({"outcome": "crash", "detail": f"{type(exc).__name__}{where}: {str(exc)[:200]}"})


def judge(path: Path, timeout: float, memory_gb: float) -> dict:
    read, write_end = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read)
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        sys.setrecursionlimit(10_000)
        with os.fdopen(write_end, "w") as out:
            _judge(path, lambda result: out.write(json.dumps(result)))
        os._exit(0)
    os.close(write_end)
    deadline = started + timeout
    status = None
    while time.perf_counter() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.005)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read)
        return {"outcome": "hang", "seconds": round(time.perf_counter() - started, 3), "detail": f"> {timeout} s"}
    with os.fdopen(read) as result_in:
        text = result_in.read()
    seconds = round(time.perf_counter() - started, 3)
    if not text:
        signal_number = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
        outcome = "memory" if signal_number in (signal.SIGKILL, signal.SIGSEGV) else "crash"
        return {"outcome": outcome, "seconds": seconds, "detail": f"child ended without a verdict (status {status})"}
    return {**json.loads(text), "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--memory-gb", type=float, default=3.0)
    args = parser.parse_args()
    import seed_trainer.experiment.config  # noqa: F401 — imported once in the parent, inherited by every fork

    for path in sorted(Path(args.dir).glob("*.seed.yaml")):
        result = judge(path, args.timeout, args.memory_gb)
        sys.stdout.write(json.dumps({"file": path.name, **result}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
