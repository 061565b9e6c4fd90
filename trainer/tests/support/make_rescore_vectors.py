"""Writes test/fixtures/rescore/ (committed; the Python and TypeScript tests read it): the tiny household policy's
ONNX export and `vectors.json`, the shared rescoring vectors.

Each case is one step of a trajectory: the user turn h_t, the response tokens, and for the student prompt and for
two skills the chat-templated prompt text, its token ids (after the trainer's truncation) and the log-probs PyTorch
gives the response tokens — computed by the trainer's own `encode_chat`, `teacher_prompt_ids` and `Policy.score`.
A rescorer that rebuilds the same ids and log-probs from the export alone agrees with the trainer's teacher pass.

    .venv/bin/python trainer/tests/support/make_rescore_vectors.py            # rewrite test/fixtures/rescore/
    .venv/bin/python trainer/tests/support/make_rescore_vectors.py OUT_DIR    # write elsewhere
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

from seed_trainer.algo.prompts import build_step_prompt
from seed_trainer.algo.skills import insert_skill
from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy
from seed_trainer.compute.policy import Policy
from seed_trainer.export.model_export import export
from seed_trainer.rl.teacher import teacher_prompt_ids

REPO = Path(__file__).resolve().parents[3]
ASSET = REPO / "trainer" / "seed_trainer" / "assets" / "household-tiny"
DEFAULT_OUT = REPO / "test" / "fixtures" / "rescore"
EXPORT_NAME = "household-tiny-onnx"
BETA = 5.0

ADMISSIBLE = ["go to cabinet 1", "go to countertop 1", "go to microwave 1", "inventory", "look"]
HISTORY = [
    (
        "You are in the middle of a kitchen. Looking quickly around you, you see a cabinet 1, a countertop 1, and a microwave 1.",
        "go to cabinet 1",
    ),
    ("You arrive at cabinet 1. The cabinet 1 is closed.", "open cabinet 1"),
]
SKILLS = [
    "Heat the mug with the microwave before you put it in the countertop.",
    # a second line, a quote, a non-ASCII character and surrounding spaces: insertion strips, the template keeps
    '  Search where mugs usually are — cabinets first.\nAfter "Nothing happens." never repeat that action.  ',
]
RESPONSE = "<think>The mug is not here; the microwave heats it.</think><action>go to microwave 1</action>"


def cases() -> list[dict]:
    """(name, user turn, max prompt tokens, temperature): a task line, no task line, and a teacher prompt that needs
    the middle truncation (and a student prompt the left one)."""
    with_task = build_step_prompt(
        task="heat some mug and put it in countertop.",
        observation="You open the cabinet 1. The cabinet 1 is open. In it, you see a café mug 1.",
        admissible_actions=ADMISSIBLE,
        history=HISTORY,
        history_length=5,
    )
    without_task = build_step_prompt(task="", observation="You arrive at countertop 1.", admissible_actions=ADMISSIBLE)
    return [
        {"name": "task line", "prompt": with_task, "max_prompt_tokens": 2048, "temperature": 1.0},
        {"name": "no task line", "prompt": without_task, "max_prompt_tokens": 2048, "temperature": 0.7},
        {"name": "truncated", "prompt": with_task, "max_prompt_tokens": 64, "temperature": 1.0},
    ]


def _floats(values: torch.Tensor) -> list[float]:
    return [float(v) for v in values.tolist()]


def build_vectors(policy: Policy) -> dict:
    response_ids = policy.tokenizer.encode(RESPONSE, add_special_tokens=False) + [policy.stop_ids[0]]
    out = []
    for case in cases():
        limit, temperature = case["max_prompt_tokens"], case["temperature"]
        student_ids = policy.encode_chat(case["prompt"], limit)
        teachers = []
        for skill in SKILLS:
            teacher_text = insert_skill(case["prompt"], skill)
            teachers.append(
                {
                    "skill": skill,
                    "teacher_prompt": teacher_text,
                    "ids": teacher_prompt_ids(policy, case["prompt"], skill, limit),
                }
            )
        prompts = [student_ids] + [t["ids"] for t in teachers]
        scores = policy.score(prompts, [response_ids] * len(prompts), temperature, micro_batch_size=1)
        student_logp = scores[0]
        for teacher, logp in zip(teachers, scores[1:]):
            delta = logp - student_logp
            teacher.update(logp=_floats(logp), delta=_floats(delta), gate=_floats(torch.sigmoid(BETA * delta)))
        out.append(
            {
                **case,
                "rendered": policy.tokenizer.apply_chat_template(
                    [{"role": "user", "content": case["prompt"]}], add_generation_prompt=True, tokenize=False
                ),
                "student": {"ids": student_ids, "logp": _floats(student_logp)},
                "teachers": teachers,
            }
        )
    return {
        "about": "Shared rescoring vectors (trainer/tests/support/make_rescore_vectors.py): ids exact, log-probs float32 from PyTorch.",
        "export": EXPORT_NAME,
        "beta": BETA,
        "response": RESPONSE,
        "response_ids": response_ids,
        "cases": out,
    }


def main(argv: list[str]) -> None:
    out = (Path(argv[0]) if argv else DEFAULT_OUT).resolve()
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    os.chdir(REPO)  # export.json names its source as given: a repository-relative path, the same on every machine
    export(ASSET.relative_to(REPO), "onnx", out / EXPORT_NAME)
    policy = load_checkpoint_policy(ASSET, device="cpu", dtype="float32")
    vectors = build_vectors(policy)
    (out / "vectors.json").write_text(json.dumps(vectors, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
