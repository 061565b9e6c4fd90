"""Δ of a response under a skill: the same response tokens scored after the plain prompt h and after the teacher prompt
H(h, s), with the trainer's own prompt rule (`rl.teacher.teacher_prompt_ids`) and scoring (`Policy.score`).

Every distinct (prompt, response) pair is scored once: the plain prompt of a state serves every skill, and a state's
candidates share its prompts. The skill block sits right after the task line, near the top of the prompt, so the plain
and the skilled prompt share only the intro and the task line (a few dozen of several hundred tokens); no key-value
cache is carried between them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from seed_trainer.algo.premise_stats import Scored, response_kinds
from seed_trainer.compute.policy import Policy
from seed_trainer.rl.teacher import teacher_prompt_ids
from seed_trainer.stages.sft import end_of_turn_id

Ids = tuple[int, ...]


@dataclass(frozen=True)
class Response:
    ids: Ids
    kinds: tuple[str, ...]  # per token: action | think | format (algo/premise_stats.token_kinds)


# Pairs scored per call of Policy.score: a progress line after each chunk.
CHUNK = 256


class Scorer:
    def __init__(
        self,
        policy: Policy,
        *,
        max_prompt_tokens: int,
        temperature: float,
        micro_batch_size: int,
        progress: Callable[[str], None] = lambda _message: None,
    ) -> None:
        self.policy, self.max_prompt_tokens = policy, max_prompt_tokens
        self.temperature, self.micro_batch_size, self.progress = temperature, micro_batch_size, progress
        self.seconds = 0.0  # spent in forward passes
        self.tokens = 0  # prompt + response tokens run through the model

    def response(self, text: str) -> Response:
        """A response written as text, tokenized as SFT targets are (reply + end of turn)."""
        ids = tuple(self.policy.tokenizer.encode(text, add_special_tokens=False)) + (end_of_turn_id(self.policy),)
        return self.response_of_ids(ids)

    def response_of_ids(self, ids: Sequence[int]) -> Response:
        """A response given as token ids (e.g. a recorded trajectory's); kinds from the decoded text's spans."""
        tokenizer, ids = self.policy.tokenizer, tuple(int(i) for i in ids)
        return Response(ids, tuple(response_kinds(lambda part: tokenizer.decode(part, skip_special_tokens=True), ids)))

    def plain_prompt(self, prompt: str) -> Ids:
        return tuple(self.policy.encode_chat(prompt, self.max_prompt_tokens))

    def skill_prompt(self, prompt: str, skill: str) -> Ids:
        return tuple(teacher_prompt_ids(self.policy, prompt, skill, self.max_prompt_tokens))

    def deltas(self, rows: Sequence[tuple[Ids, Ids, Response]]) -> list[Scored]:
        """Δ of each (plain prompt, skilled prompt, response) row."""
        pairs = sorted({(p, r.ids) for plain, skilled, r in rows for p in (plain, skilled)})
        by_pair = {}
        for start in range(0, len(pairs), CHUNK):
            chunk = pairs[start : start + CHUNK]
            started = time.perf_counter()
            logps = self.policy.score(
                [p for p, _ in chunk], [r for _, r in chunk], self.temperature, self.micro_batch_size
            )
            self.seconds += time.perf_counter() - started
            self.tokens += sum(len(p) + len(r) for p, r in chunk)
            by_pair |= {pair: logp.tolist() for pair, logp in zip(chunk, logps)}
            self.progress(f"scored {start + len(chunk)} of {len(pairs)} prompt-response pairs ({self.seconds:.0f} s)")
        out = []
        for plain, skilled, response in rows:
            teacher, student = by_pair[(skilled, response.ids)], by_pair[(plain, response.ids)]
            out.append(Scored(tuple(t - s for t, s in zip(teacher, student)), response.kinds))
        return out
