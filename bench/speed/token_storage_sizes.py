"""Sizes and decode times of the candidate storages for per-token arrays (docs/run-format.md §Tokens).

Builds one realistic Stage-2 trajectory (30 steps; response lengths drawn like an ALFWorld run with short reasoning,
clipped to 512 tokens; Qwen-sized vocabulary; log-probs mostly near 0 with a heavy tail) and encodes its per-token
arrays four ways. Prints JSON: bytes per token and per trajectory, gzip sizes, parse+decode time, each as a ratio to the
plain-JSON baseline (floats rounded to 4 decimals) measured in the same run, and the projected size of a
200-update × 128-trajectory run.

    .venv/bin/python bench/speed/token_storage_sizes.py [--steps 30] [--mean-tokens 160] [--seed 0]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import math
import random
import struct
import time

from seed_trainer.runlog.tokens import TokenArrays, decode_int32

WORDS = (
    "the a to go take put open close look examine inventory countertop cabinet drawer fridge microwave sinkbasin "
    "shelf desk bed mug apple knife spoon plate bowl lettuce tomato potato egg cellphone keychain book pen pencil "
    "I need find first then should check next is not here so will heat cool clean it with in on from and my"
).split()
PUNCT = [".", ",", " 1", " 2", " 3", "<", ">", "</", "think", "action", "\n", ":"]


def piece(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return rng.choice(PUNCT)
    word = rng.choice(WORDS)
    if len(word) > 6 and rng.random() < 0.5:  # longer words split into two tokens
        return " " + word[: len(word) // 2]
    return " " + word


def step_arrays(rng: random.Random, count: int, beta: float = 5.0) -> TokenArrays:
    ids, text, logp, teacher = [], [], [], []
    for _ in range(count):
        ids.append(rng.randrange(0, 12000) if rng.random() < 0.7 else rng.randrange(12000, 151643))
        text.append(piece(rng))
        lp = -rng.expovariate(40.0) if rng.random() < 0.7 else -rng.expovariate(0.6)
        logp.append(max(lp, -20.0))
        teacher.append(min(0.0, lp + rng.gauss(0.0, 0.6)))
    delta = [t - s for t, s in zip(teacher, logp)]
    gate = [1.0 / (1.0 + math.exp(-beta * d)) for d in delta]
    return TokenArrays(ids=ids, text=text, logp=logp, teacher_logp=teacher, delta=delta, gate=gate)


def trajectory(rng: random.Random, steps: int, mean_tokens: float) -> tuple[dict, list[TokenArrays]]:
    arrays, out_steps = [], []
    for t in range(steps):
        count = max(8, min(512, int(rng.lognormvariate(math.log(mean_tokens), 0.55))))
        tokens = step_arrays(rng, count)
        arrays.append(tokens)
        observation = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(20, 120)))
        out_steps.append(
            {
                "t": t,
                "observation": observation,
                "response": "".join(tokens.text),
                "action": "go to countertop 1",
                "valid": True,
                "score": 10.0,
                "advantage": 0.83,
            }
        )
    record = {
        "id": "it-000001-0000",
        "phase": "train",
        "update": 1,
        "task": {"id": "task-0", "type": "pick_and_place", "description": "put a clean mug in the coffeemachine."},
        "group": 0,
        "sample": 0,
        "success": True,
        "reward": 10.0,
        "length": steps,
        "skill": {"text": "Check the countertops first.", "summary": "Found the mug.", "valid": True, "source": "self"},
        "steps": out_steps,
    }
    return record, arrays


def _b64(fmt: str, values: list) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}{fmt}", *values)).decode("ascii")


def encode(arrays: TokenArrays, how: str) -> dict:
    floats = {"logp": arrays.logp, "teacher_logp": arrays.teacher_logp, "delta": arrays.delta, "gate": arrays.gate}
    if how == "json-4dp":
        return {
            "count": arrays.count,
            "ids": arrays.ids,
            "text": arrays.text,
            **{k: [round(v, 4) for v in vs] for k, vs in floats.items()},
        }
    if how == "json-f32-shortest":
        f32 = {
            k: [float(f"{struct.unpack('<f', struct.pack('<f', v))[0]:.7g}") for v in vs] for k, vs in floats.items()
        }
        return {"count": arrays.count, "ids": arrays.ids, "text": arrays.text, **f32}
    if how == "base64-f32":
        return arrays.encode()
    if how == "base64-f16":
        return {
            "count": arrays.count,
            "ids": _b64("i", arrays.ids),
            "text": arrays.text,
            **{k: _b64("e", vs) for k, vs in floats.items()},
        }
    raise ValueError(how)


def decode(tokens: dict, how: str) -> None:
    if how.startswith("json"):
        return
    if how == "base64-f32":
        TokenArrays.decode(tokens)
        return
    decode_int32(tokens["ids"])
    for key in ("logp", "teacher_logp", "delta", "gate"):
        raw = base64.b64decode(tokens[key])
        struct.unpack(f"<{len(raw) // 2}e", raw)


def measure(record: dict, arrays: list[TokenArrays], how: str, repeats: int) -> dict:
    steps = [{**step, "tokens": encode(a, how)} for step, a in zip(record["steps"], arrays)]
    line = (json.dumps({**record, "steps": steps}, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    token_only = sum(
        len(json.dumps(s["tokens"], ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for s in steps
    )
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        parsed = json.loads(line)
        for step in parsed["steps"]:
            decode(step["tokens"], how)
        best = min(best, time.perf_counter() - t0)
    tokens = sum(a.count for a in arrays)
    return {
        "line_bytes": len(line),
        "gzip_bytes": len(gzip.compress(line, 6)),
        "token_object_bytes": token_only,
        "bytes_per_token_arrays": round(token_only / tokens, 2),
        "bytes_per_token_line": round(len(line) / tokens, 2),
        "parse_decode_ms": round(best * 1000, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--mean-tokens", type=float, default=160.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    record, arrays = trajectory(rng, args.steps, args.mean_tokens)
    tokens = sum(a.count for a in arrays)
    results = {
        how: measure(record, arrays, how, args.repeats)
        for how in ("json-4dp", "json-f32-shortest", "base64-f32", "base64-f16")
    }
    base = results["json-4dp"]
    for result in results.values():
        result["size_ratio_vs_json_4dp"] = round(result["line_bytes"] / base["line_bytes"], 3)
        result["time_ratio_vs_json_4dp"] = round(result["parse_decode_ms"] / base["parse_decode_ms"], 3)
        per_traj = result["line_bytes"]
        result["run_200x128_gib"] = round(per_traj * 128 * 200 / 2**30, 2)
        result["update_file_mib"] = round(per_traj * 128 / 2**20, 1)
        worst = result["bytes_per_token_line"] * 30 * 512
        result["worst_case_trajectory_mib_30x512"] = round(worst / 2**20, 2)
        result["worst_case_update_file_mib"] = round(worst * 128 / 2**20, 1)
    print(
        json.dumps(
            {
                "steps": args.steps,
                "tokens": tokens,
                "mean_tokens_per_step": round(tokens / args.steps, 1),
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
