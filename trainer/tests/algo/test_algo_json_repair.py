"""Format verification of analyzer replies: robust to wrapping and repairs, never raising on hostile input."""

import json
import random

import pytest

from seed_trainer.algo.json_repair import MAX_REPLY_CHARS, SkillParse, parse_skill_reply

OK = SkillParse(valid=True, skill="Clean the mug before the coffeemachine.", summary="The agent won.", reason="")
OBJECT = '{"episode_summary": "The agent won.", "episode_skill": "Clean the mug before the coffeemachine."}'


@pytest.mark.parametrize(
    "reply",
    [
        OBJECT,
        f"  {OBJECT}\n",
        f"```json\n{OBJECT}\n```",
        f"```\n{OBJECT}\n```",
        f"```JSON {OBJECT}```",
        f"Here is my analysis:\n```json\n{OBJECT}\n```\nHope it helps!",
        f"Sure, here's the JSON you asked for: {OBJECT} Let me know if you'd like changes.",
        f"```json\n{OBJECT}",  # unclosed fence
        '{"episode_summary": "The agent won.", "episode_skill": "Clean the mug before the coffeemachine.",}',
        '{\n  "episode_summary": "The agent won.",\n  "episode_skill": "Clean the mug before the coffeemachine.",\n}',
        (
            "{\u201cepisode_summary\u201d: \u201cThe agent won.\u201d, "
            "\u201cepisode_skill\u201d: \u201cClean the mug before the coffeemachine.\u201d}"
        ),
        '{"analysis": ' + OBJECT + "}",
        '[{"episode_summary": "The agent won.", "episode_skill": "  Clean the mug before the coffeemachine.\\n"}]',
    ],
    ids=[
        "plain",
        "whitespace",
        "fenced-json",
        "fenced",
        "fenced-inline",
        "fenced-in-prose",
        "prose-with-apostrophes",
        "unclosed-fence",
        "trailing-comma",
        "trailing-comma-multiline",
        "smart-quotes",
        "wrapped",
        "in-a-list",
    ],
)
def test_accepted_wrappings(reply):
    assert parse_skill_reply(reply) == OK


def test_missing_summary_is_still_valid():
    assert parse_skill_reply('{"episode_skill": "Open the fridge first."}') == SkillParse(
        True, "Open the fridge first.", "", ""
    )


def test_raw_newlines_inside_strings_are_tolerated():
    reply = '{"episode_summary": "line one\nline two", "episode_skill": "Step 1: go.\nStep 2: take."}'
    assert parse_skill_reply(reply) == SkillParse(True, "Step 1: go.\nStep 2: take.", "line one\nline two", "")


def test_braces_and_quotes_inside_strings():
    # The string-aware matcher must not close the object at the "}" inside the summary, nor open a string at \".
    reply = (
        'Analysis {draft}: {"episode_summary": "used {curly} braces } and a \\"quote\\" {", '
        '"episode_skill": "Say \\"open fridge 1\\" before {anything}."} trailing }'
    )
    out = parse_skill_reply(reply)
    assert out.valid
    assert out.skill == 'Say "open fridge 1" before {anything}.'
    assert out.summary == 'used {curly} braces } and a "quote" {'


def test_first_object_holding_the_skill_wins():
    reply = '{"note": "no skill here"} {"episode_skill": "first"} {"episode_skill": "second"}'
    assert parse_skill_reply(reply).skill == "first"


def test_an_empty_skill_is_invalid_but_a_later_good_one_is_used():
    assert parse_skill_reply('{"episode_skill": "", "episode_summary": "x"}') == SkillParse(
        False, "", "", '"episode_skill" is empty'
    )
    assert parse_skill_reply('{"episode_skill": "   \\n "}').reason == '"episode_skill" is empty'
    assert parse_skill_reply('{"episode_skill": ""} then {"episode_skill": "Look first."}').skill == "Look first."


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"episode_skill": ["a", "b"]}', '"episode_skill" is not a string (got list)'),
        ('{"episode_skill": null}', '"episode_skill" is not a string (got NoneType)'),
        ('{"episode_summary": "only a summary"}', 'no "episode_skill" field in the reply'),
        ("I could not analyse this episode.", "no JSON object in the reply"),
        ('{"episode_skill": "unterminated', 'the object holding "episode_skill" is not valid JSON, even after repairs'),
        (
            "{'episode_skill': 'python dict'}",
            'the object holding "episode_skill" is not valid JSON, even after repairs',
        ),
        ("", "reply is empty"),
        ("   \n", "reply is empty"),
        (None, "reply is not text (got NoneType)"),
        (42, "reply is not text (got int)"),
        ({"episode_skill": "a dict, not a reply"}, "reply is not text (got dict)"),
    ],
)
def test_invalid_replies_say_why(reply, reason):
    out = parse_skill_reply(reply)
    assert out == SkillParse(False, "", "", reason)


def test_bytes_are_decoded():
    assert parse_skill_reply(OBJECT.encode()) == OK
    assert parse_skill_reply(b"\xff\xfe{").valid is False


def test_too_long_reply_is_rejected_without_parsing():
    out = parse_skill_reply("x" * (MAX_REPLY_CHARS + 1))
    assert not out.valid and out.reason.startswith("reply is too long")


def test_long_prose_before_the_object_is_fine():
    reply = "Let me think. " * 10_000 + OBJECT  # 140k characters, under the limit
    assert len(reply) < MAX_REPLY_CHARS
    assert parse_skill_reply(reply) == OK


@pytest.mark.parametrize(
    "reply",
    [
        "{" * 100_000,
        "}" * 100_000,
        '"' * 100_000,
        "\\" * 100_000,
        "```" * 50_000,
        "[" * 100_000 + '"episode_skill"',
        '{"episode_skill": ' * 10_000,
        '{"episode_skill": "x", ' * 5_000 + "}" * 5_000,
        "{" * 50_000 + '"episode_skill": "deep"' + "}" * 50_000,
        '{"a": ' * 5_000 + '{"episode_skill": "deep but fine"}' + "}" * 5_000,
        "," * 100_000 + "}",
        "\x00\ud800\uffff{}" * 1_000,
    ],
    ids=[
        "open",
        "close",
        "quotes",
        "backslashes",
        "fences",
        "deep-list",
        "repeated-key",
        "unclosed-keys",
        "deep-braces",
        "deep-valid",
        "commas",
        "control-chars",
    ],
)
def test_hostile_inputs_never_raise(reply):
    out = parse_skill_reply(reply)
    assert isinstance(out, SkillParse)
    assert out.valid == bool(out.skill) and (out.reason == "") == out.valid


def test_deeply_nested_but_valid_json_is_found():
    reply = '{"a": ' * 50 + '{"episode_skill": "deep but fine"}' + "}" * 50
    assert parse_skill_reply(reply).skill == "deep but fine"


def test_random_garbage_never_raises():
    rng = random.Random(1234)
    alphabet = "{}[]\":,\\ \n`'ab\u201c\u201d" + "episode_skill"
    for _ in range(2_000):
        reply = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        out = parse_skill_reply(reply)
        assert isinstance(out, SkillParse)
        if out.valid:
            assert out.skill == out.skill.strip() and out.skill


def test_round_trip_of_arbitrary_skill_text():
    rng = random.Random(99)
    for _ in range(200):
        # a word character keeps it a skill: punctuation alone is a placeholder (see test_a_placeholder_skill_is_invalid)
        skill = "x" + "".join(rng.choice('ab {}[]"\\\n\t,:é\u201c') for _ in range(rng.randint(0, 40))).rstrip()
        reply = "Result:\n```json\n" + json.dumps({"episode_summary": "s", "episode_skill": skill}) + "\n```"
        assert parse_skill_reply(reply) == SkillParse(True, skill, "s", "")


@pytest.mark.parametrize("placeholder", ["...", "…", " - ", "[...]"])
def test_a_placeholder_skill_is_invalid(placeholder):
    result = parse_skill_reply(json.dumps({"episode_summary": "...", "episode_skill": placeholder}))
    assert not result.valid and "no words" in result.reason


def test_a_stuttered_key_is_collapsed():
    reply = '{"episode_summary": "Lost.", "episode_skill": "episode_skill": "episode_skill": "Open closed drawers."}'
    parsed = parse_skill_reply(reply)
    assert parsed.valid and parsed.skill == "Open closed drawers." and parsed.summary == "Lost."
    assert parse_skill_reply('{"episode_skill": "episode_summary": "Heat it first."}').valid is False  # other key


def test_a_skill_that_is_only_a_field_name_is_invalid():
    parsed = parse_skill_reply('{"episode_summary": "x", "episode_skill": "episode_skill"}')
    assert not parsed.valid and "field name" in parsed.reason
