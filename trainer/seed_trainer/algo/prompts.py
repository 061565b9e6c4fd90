"""The per-step policy prompt h_t (DESIGN §2): task, history window, current observation, admissible actions, format.

Its structure follows verl-agent's ALFWorld template (the one SEED trains with): a task line "Your task is to: …",
how many steps were taken, the last H observation/action pairs as `[Observation k: '…', Action k: '…']`, the step
number and current observation, the admissible actions, and a closing paragraph that starts with "Now it's your turn"
and asks for reasoning in <think></think> and one action in <action></action>. The wording is our own.

Two choices differ from verl-agent, which switches to a history-free template at step 0 and whenever H = 0 and then
relies on ALFWorld's first observation to carry the task: here the task line is always present (so the skill
insertion of `skills.insert_skill` always lands right after it), and with H = 0 the step count is still stated.

The chat format (`rollout.prompt_format: chat`, opt-in) plays an episode as one conversation instead: a system turn
with the opening sentence, the task line and the instructions (`chat_system_prompt`), then per step a user turn with
the current observation and the admissible actions (`chat_user_turn`) and the policy's response as the assistant turn.
Its token layout and truncation are compute/conversation.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

INTRO = "You are an expert agent acting in a text-based household environment."
TURN_INSTRUCTIONS = (
    "Now it's your turn to take an action. First reason step by step about the current situation, and put that "
    "reasoning inside <think> </think> tags. Then choose exactly one admissible action for this step and put it "
    "inside <action> </action> tags."
)


CHAT_INSTRUCTIONS = (
    "At every step you see your current observation and the actions admissible in it. First reason step by step about "
    "the current situation, and put that reasoning inside <think> </think> tags. Then choose exactly one admissible "
    "action for this step and put it inside <action> </action> tags."
)


def format_history(history: Sequence[tuple[str, str]], history_length: int) -> str:
    """The last `history_length` (observation, action) pairs, numbered by their step (1-based) in the episode."""
    if history_length <= 0 or not history:
        return ""
    first = max(0, len(history) - history_length)
    return "\n".join(
        f"[Observation {k + 1}: '{observation}', Action {k + 1}: '{action}']"
        for k, (observation, action) in enumerate(history[first:], start=first)
    )


_PLACE_ACTION = re.compile(r"^(?:go to|open) (?P<place>.+)$")
_SEEN = re.compile(r"you see (?P<things>.+?)\.?$")
_ARTICLE = re.compile(r"^(?:and )?(?:an? |the )")


def places_memory(history: Sequence[tuple[str, str]], observation: str) -> str:
    """One line of what the episode has seen where: every place the agent went to or opened, in the order first
    visited, with what the observation after that action showed there the last time ("closed" when it was closed).

    It reads the whole history, not the window of H pairs, so a policy with a short window still knows which places
    it already searched. It relies only on the ALFWorld-style text ("You arrive at X. On the X, you see a Y 1, and a
    Z 2.", "The X is closed."): an observation that names the place without a listing gives "visited", one that does
    not name it (a refused action) adds nothing. Empty when no place was visited."""
    seen: dict[str, str] = {}
    after = [obs for obs, _ in history[1:]] + [observation]
    for (_, action), result in zip(history, after):
        match = _PLACE_ACTION.match(action.strip())
        if match is None:
            continue
        place = match["place"]
        things = _SEEN.search(result)
        if things is not None:
            items = [_ARTICLE.sub("", item.strip()) for item in things["things"].split(",")]
            seen[place] = ", ".join(item for item in items if item) or "nothing"
        elif f"{place} is closed" in result:
            seen[place] = "closed"
        elif place in result:  # arrived, but no listing it can read
            seen[place] = seen.get(place, "visited")
    if not seen:
        return ""
    return (
        "Places you have searched so far and what you saw there: "
        + "; ".join(f"{place}: {things}" for place, things in seen.items())
        + "."
    )


def format_admissible(actions: Sequence[str]) -> str:
    return ", ".join(f"'{action}'" for action in actions)


def build_step_prompt(
    *,
    task: str,
    observation: str,
    admissible_actions: Sequence[str],
    history: Sequence[tuple[str, str]] = (),
    history_length: int = 5,
    memory: bool = False,
) -> str:
    """h_t for the step after `history` (every earlier (observation, action) pair of the episode, oldest first).

    The actions in `history` are what the environment received (the parsed action, or the fallback text of an
    invalid step). An empty task omits the task line; an empty admissible list omits that line. `memory` (opt-in,
    `rollout.memory`) adds `places_memory`'s line before the current observation; off, the prompt is unchanged.
    """
    steps_taken = len(history)
    lines = [INTRO]
    if task.strip():
        lines.append(f"Your task is to: {task.strip()}")
    if steps_taken:
        window = format_history(history, history_length)
        if window:
            shown = min(steps_taken, history_length)
            lines.append(
                f"Before this step you have taken {steps_taken} step(s). Your last {shown} observation(s) and the "
                f"action you took after each:\n{window}"
            )
        else:
            lines.append(f"Before this step you have taken {steps_taken} step(s).")
    lines += _current_state(history, observation, admissible_actions, memory)
    return "\n".join(lines) + "\n\n" + TURN_INSTRUCTIONS


def _current_state(
    history: Sequence[tuple[str, str]], observation: str, admissible_actions: Sequence[str], memory: bool
) -> list[str]:
    """The lines that end a step prompt and make a chat user turn: `places_memory`'s line (with `memory`, after the
    first step), the step number (after the first) with the current observation, and the admissible actions."""
    lines = []
    if history:
        remembered = places_memory(history, observation) if memory else ""
        if remembered:
            lines.append(remembered)
        lines.append(f"You are now at step {len(history) + 1}. Your current observation is: {observation}")
    else:
        lines.append(f"Your current observation is: {observation}")
    if admissible_actions:
        lines.append(
            f"Your admissible actions for the current situation are: [{format_admissible(admissible_actions)}]."
        )
    return lines


def chat_system_prompt(task: str, intro: str = INTRO) -> str:
    """The chat format's system turn: the opening sentence, the task line (where `skills.insert_skill` puts a skill),
    and the instructions, which hold for every step of the conversation."""
    lines = [intro]
    if task.strip():
        lines.append(f"Your task is to: {task.strip()}")
    return "\n".join(lines) + "\n\n" + CHAT_INSTRUCTIONS


def chat_user_turn(
    *,
    observation: str,
    admissible_actions: Sequence[str],
    history: Sequence[tuple[str, str]] = (),
    memory: bool = False,
) -> str:
    """The chat format's user turn for the step after `history` (as in `build_step_prompt`): `places_memory`'s line
    when `memory` is on, the step number after the first with the current observation, and the admissible actions.
    The earlier steps are the conversation's own turns, so there is no history window."""
    return "\n".join(_current_state(history, observation, admissible_actions, memory))
