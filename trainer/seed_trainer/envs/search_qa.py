"""`search_qa`: open-domain question answering with a search engine, in the style of Search-R1 (Jin et al.) as SEED
and verl-agent train it. Each step the agent either searches, `<search>query</search>`, and gets the retriever's
top passages back inside `<information>…</information>`, or answers, `<answer>text</answer>`, which ends the episode.
`won` is exact match: the answer, normalised (lower case, no punctuation, no articles, single spaces), equals one of
the question's golden answers normalised the same way. A response with neither block (or both) is an invalid step:
the environment says how to act and the step costs `rl.invalid_penalty` (0.01 in the template). At most `max_steps`
(4) steps; history 4.

Options:
- `data`: `{split: path}` of JSON-lines files, one question per line: `question`, `golden_answers` (a list; `answer`
  or `answers` are read too) and optionally `data_source` (nq, hotpotqa, …), which becomes the task type; relative
  paths are relative to the working directory;
- `retriever_url`: a retrieval server speaking Search-R1's API, `POST <url>/retrieve` with
  `{"queries": [q], "topk": k, "return_scores": true}` → `{"result": [[{"document": {"contents": "Title\\ntext"}, …}]]}`;
- `topk` (3), `max_steps` (4), `timeout`, `max_retries`.
A dead or broken retriever fails the episode (EnvironmentFailure) like a dead environment server.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seed_trainer.algo.prompts import format_history
from seed_trainer.envs.base import EnvironmentFailure, Observation, StepResult, Task
from seed_trainer.envs.json_http import HttpFailure, JsonHttpClient, snippet
from seed_trainer.envs.sampling import draw

DEFAULT_MAX_STEPS = 4
INTRO = "You are an expert research agent answering questions with the help of a search engine."
TURN_INSTRUCTIONS = (
    "Now it's your turn to act. First reason step by step inside <think> </think> tags about what you know and what "
    "you still need. If you need more knowledge, write one search query inside <search> </search> tags and stop: the "
    "results will come back inside <information> </information>. If you know the answer, give it, as a short phrase, "
    "inside <answer> </answer> tags, for example <answer> Paris </answer>."
)
INVALID = (
    "Your previous response was not a valid action. Put a search query between <search> and </search>, or your final "
    "answer between <answer> and </answer>."
)
_BLOCK = re.compile(r"<(search|answer)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation for exact match: lower case, punctuation and articles removed, whitespace collapsed."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(answer: str, golden: Sequence[str]) -> bool:
    normalized = normalize_answer(answer)
    return any(normalized == normalize_answer(g) for g in golden)


def parse_search_response(response: str) -> tuple[str, str | None]:
    """The action a response takes: its first `<search>` or `<answer>` block, re-written canonically, or the invalid
    reason. The text the environment receives for an invalid step is the response's tail (as the household's)."""
    blocks = _BLOCK.findall(response)
    kinds = {kind.lower() for kind, _ in blocks}
    if not blocks:
        return response[-30:].lower(), "no <search>…</search> or <answer>…</answer> block"
    if kinds == {"search", "answer"}:
        return response[-30:].lower(), "both a <search> and an <answer> block"
    kind, content = blocks[0][0].lower(), blocks[0][1].strip()
    if not content:
        return f"<{kind}></{kind}>", f"empty <{kind}> block"
    return f"<{kind}>{content}</{kind}>", None


def search_prompt(
    *,
    task: str,
    observation: str,
    admissible_actions: Sequence[str] = (),
    history: Sequence[tuple[str, str]] = (),
    history_length: int = 4,
) -> str:
    """The per-step prompt: the trainer's structure (task line, step count, the last H observation/action pairs,
    current observation) with the search/answer instructions."""
    lines = [INTRO, f"Your task is to: {task.strip()}"]
    if history:
        window = format_history(history, history_length)
        lines.append(
            f"Before this step you have taken {len(history)} step(s)."
            + (
                f" Your last {min(len(history), history_length)} observation(s) and the action you took after "
                f"each:\n{window}"
                if window
                else ""
            )
        )
        lines.append(f"You are now at step {len(history) + 1}. Your current observation is: {observation}")
    else:
        lines.append(f"Your current observation is: {observation}")
    return "\n".join(lines) + "\n\n" + TURN_INSTRUCTIONS


def format_passages(result: Any) -> str:
    """Search-R1's retrieval reply for one query → numbered passages `Doc k (Title: …) text`."""
    if not isinstance(result, list):
        raise ValueError(f"expected a list of passages, got {snippet(repr(result))}")
    passages = []
    for k, hit in enumerate(result, start=1):
        contents = (hit.get("document") or {}).get("contents") if isinstance(hit, dict) else None
        if not isinstance(contents, str):
            raise ValueError(f"passage {k} has no document.contents: {snippet(repr(hit))}")
        title, _, text = contents.partition("\n")
        passages.append(f"Doc {k} (Title: {title.strip()}) {text.strip()}")
    return "\n".join(passages)


@dataclass(frozen=True)
class Question:
    split: str
    index: int
    question: str
    golden_answers: tuple[str, ...]
    task_type: str


def load_questions(path: Path, split: str) -> list[Question]:
    """Questions of a JSON-lines file; a bad line is an error naming the file and line."""
    questions = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"environment.options.data.{split}: cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not JSON: {exc}") from None
        golden = row.get("golden_answers", row.get("answers", row.get("answer"))) if isinstance(row, dict) else None
        golden = [golden] if isinstance(golden, str) else golden
        if not isinstance(row.get("question"), str) or not golden or not all(isinstance(g, str) for g in golden):
            raise ValueError(f"{path}:{number}: needs a string `question` and `golden_answers` (strings)")
        task_type = row.get("data_source") if isinstance(row.get("data_source"), str) else "qa"
        questions.append(Question(split, len(questions), row["question"].strip(), tuple(golden), task_type))
    if not questions:
        raise ValueError(f"{path}: no questions")
    return questions


class SearchQAEnv:
    def __init__(self, question: Question, retriever: JsonHttpClient, topk: int, max_steps: int) -> None:
        self.question, self.retriever, self.topk, self.max_steps = question, retriever, topk, max_steps
        self.task = Task(
            f"{question.split}-{question.index}",
            question.task_type,
            f"answer the question: {question.question}",
            question.split,
        )
        self.steps = 0

    def reset(self) -> tuple[Task, Observation]:
        self.steps = 0
        return self.task, Observation(f"Question: {self.question.question}")

    def step(self, action: str) -> StepResult:
        self.steps += 1
        last = self.steps >= self.max_steps
        match = _BLOCK.fullmatch(action.strip())
        if match is None or not match.group(2).strip():
            return StepResult(Observation(INVALID), last, False, {"valid_command": False})
        kind, content = match.group(1).lower(), match.group(2).strip()
        if kind == "answer":
            won = exact_match(content, self.question.golden_answers)
            return StepResult(
                Observation(f"Your answer: {content}"), True, won, {"valid_command": True, "score": float(won)}
            )
        return StepResult(
            Observation(f"<information>{self._search(content)}</information>"), last, False, {"valid_command": True}
        )

    def _search(self, query: str) -> str:
        try:
            reply = self.retriever.post(
                "/retrieve", {"queries": [query], "topk": self.topk, "return_scores": True}, idempotent=True
            )
            results = reply.get("result") if isinstance(reply, dict) else None
            if not isinstance(results, list) or len(results) != 1:
                raise ValueError(f'expected {{"result": [[…passages…]]}}, got {snippet(repr(reply))}')
            return format_passages(results[0])
        except (HttpFailure, ValueError) as exc:
            raise EnvironmentFailure(
                f"episode {self.task.id}: retriever at {self.retriever.base_url}: {exc}", self.task
            ) from None


class SearchQATasks:
    """The TaskSource of search-QA."""

    name = "search_qa"
    step_prompt = staticmethod(search_prompt)
    parse_response = staticmethod(parse_search_response)

    def __init__(
        self,
        data: dict[str, str],
        retriever_url: str,
        *,
        topk: int = 3,
        max_steps: int = DEFAULT_MAX_STEPS,
        timeout: float = 30.0,
        max_retries: int = 3,
    ) -> None:
        if not isinstance(data, dict) or not data:
            raise ValueError("environment.options.data: a mapping of split name to a JSON-lines file of questions")
        if int(max_steps) < 1 or int(topk) < 1:
            raise ValueError("environment.options: max_steps and topk must be at least 1")
        self.questions = {split: load_questions(Path(path), split) for split, path in data.items()}
        self.task_types: Sequence[str] = sorted({q.task_type for qs in self.questions.values() for q in qs})
        self.retriever = JsonHttpClient(retriever_url, timeout=timeout, max_retries=max_retries)
        self.topk, self.max_steps = int(topk), int(max_steps)

    def sample(self, split: str, count: int, seed: int, task_types: Sequence[str] | None = None) -> list[Question]:
        if split not in self.questions:
            raise ValueError(f"search_qa: no questions for split {split!r} (known: {', '.join(self.questions)})")
        pool = [q for q in self.questions[split] if not task_types or q.task_type in task_types]
        if not pool:
            raise ValueError(f"search_qa: split {split!r} has no question of type {', '.join(task_types or [])}")
        return draw(pool, count, seed, key=lambda q: str(q.index))

    def make(self, spec: Question) -> SearchQAEnv:
        return SearchQAEnv(spec, self.retriever, self.topk, self.max_steps)
