"""The chat format's token layout (`rollout.prompt_format: chat`): an episode as one conversation through the model's
own chat template — a system turn, then per step a user turn and the policy's response as the assistant turn — built
turn by turn, so that a step's prompt is the previous step's prompt, its response and the next user turn.

Responses are kept as the token ids the policy produced (in agent SFT: the reply's tokens and the end-of-turn token),
never re-tokenized from their text. What the template writes between a response and the next user turn (ChatML:
`<|im_end|>\\n<|im_start|>user\\n…<|im_end|>\\n<|im_start|>assistant\\n`) is read off the template itself: the
conversation is rendered with a placeholder for each response, and the text a new user turn adds is tokenized on its
own. A template that renders earlier turns differently once a later one exists (one that strips earlier reasoning, say)
is refused: its prompts would not be prefixes of each other.

Truncation, for a conversation longer than `max_tokens`: the system turn stays and whole turns (a user turn and its
response) are dropped from the oldest until the conversation takes at most half of `max_tokens` (or, where no cut
gets it that short, as few as make it fit); the current user turn always stays. The next steps keep that first turn
until the limit is reached again. Dropping a batch of turns at once, rather than one per step, lets agent SFT's packed
layout train several steps as one sequence even in long episodes (each dropped turn starts a new sequence). Where the
system and the current turn alone do not fit, the ids are left-truncated as a one-turn prompt is (`Policy.encode_chat`).
A step's prompt depends on the steps before it only through that first kept turn, so a conversation is built step by
step, in order, by the rollout and by agent SFT alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from transformers import PreTrainedTokenizerBase

PLACEHOLDER = "<SEED response placeholder>"  # stands for a response while the template is rendered as text


def end_of_turn_id(tokenizer: PreTrainedTokenizerBase) -> int:
    """The token that ends an assistant turn (ChatML `<|im_end|>`, else end of sequence)."""
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if isinstance(im_end, int) and im_end != tokenizer.unk_token_id and im_end is not None:
        return im_end
    return tokenizer.eos_token_id


class ChatConversation:
    """One episode's conversation under one system turn: `prompt_ids` of any step, with the template's pieces cached
    (an episode asks for every step's prompt, and a truncated one for several starting turns)."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, system: str) -> None:
        self.tokenizer = tokenizer
        self.system = system
        self.end = end_of_turn_id(tokenizer)
        # first kept turn -> the ids of [system, its user turn] and the generation prompt
        self._heads: dict[int, list[int]] = {}
        # (first kept turn, turn j) -> the ids between turn j-1's response and turn j's generation prompt
        self._joins: dict[tuple[int, int], list[int]] = {}

    def _render(self, users: Sequence[str]) -> str:
        messages = [{"role": "system", "content": self.system}]
        for k, user in enumerate(users):
            if k:
                messages.append({"role": "assistant", "content": PLACEHOLDER})
            messages.append({"role": "user", "content": user})
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def _head(self, first: int, users: Sequence[str]) -> list[int]:
        if first not in self._heads:
            messages = [{"role": "system", "content": self.system}, {"role": "user", "content": users[first]}]
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            self._heads[first] = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
        return self._heads[first]

    def _join(self, first: int, turn: int, users: Sequence[str]) -> list[int]:
        """The ids the template puts after turn−1's response text up to the generation prompt of `turn`, its own
        leading end-of-turn token included."""
        key = (first, turn)
        if key not in self._joins:
            before, after = self._render(users[first:turn]), self._render(users[first : turn + 1])
            if not after.startswith(before + PLACEHOLDER):
                raise ValueError(
                    "the chat format needs a chat template that renders earlier turns unchanged when a turn is added; "
                    "this model's template does not (use rollout.prompt_format: step)"
                )
            self._joins[key] = self.tokenizer.encode(after[len(before) + len(PLACEHOLDER) :], add_special_tokens=False)
        return self._joins[key]

    def ids(self, users: Sequence[str], responses: Sequence[Sequence[int]], first: int = 0) -> list[int]:
        """[system, users[first], responses[first], …, users[-1]] and the generation prompt, untruncated
        (len(users) == len(responses) + 1)."""
        if len(users) != len(responses) + 1:
            raise ValueError(f"{len(users)} user turns need {len(users) - 1} responses, not {len(responses)}")
        ids = list(self._head(first, users))
        for turn in range(first + 1, len(users)):
            response, join = list(responses[turn - 1]), self._join(first, turn, users)
            if response and response[-1] == self.end:  # the response closed its turn itself
                if not join or join[0] != self.end:
                    raise ValueError("the chat template does not close an assistant turn with its end-of-turn token")
                join = join[1:]
            ids += response + join
        return ids

    def prompt_ids(
        self, users: Sequence[str], responses: Sequence[Sequence[int]], max_tokens: int, first: int = 0
    ) -> tuple[list[int], int]:
        """The prompt of the step that answers users[-1], at most `max_tokens` long, and the first turn it keeps
        (the module's truncation rule); `first` is the previous step's first kept turn."""
        ids = self.ids(users, responses, first)
        if len(ids) <= max_tokens:
            return ids, first
        fitting = None  # the least cut that fits, should none get to half
        for start in range(first + 1, len(users)):
            ids = self.ids(users, responses, start)
            if len(ids) <= max_tokens // 2:
                return ids, start
            if fitting is None and len(ids) <= max_tokens:
                fitting = (ids, start)
        return fitting if fitting is not None else (ids[-max_tokens:], len(users) - 1)
