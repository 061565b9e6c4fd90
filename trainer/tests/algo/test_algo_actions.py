"""Action parsing and step validity (DESIGN §2 step 1), against the verl-agent ALFWorld projection convention."""

from seed_trainer.algo.actions import (
    INVALID_TAIL_CHARS,
    ParsedAction,
    invalid_reason,
    parse_action,
)


def test_well_formed_response_gives_lowercased_stripped_action():
    response = "<think>The mug is in the sink.</think>\n<action> Take Mug 1 from SinkBasin 1 </action>"
    assert parse_action(response) == ParsedAction("take mug 1 from sinkbasin 1", True)
    assert invalid_reason(response) is None


def test_first_action_block_wins():
    response = "<think>two ideas</think><action>go to fridge 1</action> or maybe <action>go to sinkbasin 1</action>"
    assert parse_action(response) == ParsedAction("go to fridge 1", True)


def test_tags_match_case_insensitively():
    assert parse_action("<THINK>ok</THINK><Action>Open Drawer 1</ACTION>") == ParsedAction("open drawer 1", True)


def test_missing_action_block_is_invalid_and_env_gets_the_tail():
    response = "<think>hmm</think> I will go to the fridge now"
    # "<think>hmm</think>" is 18 characters and " I will go to the fridge now" 28, so 46 in all; the environment
    # receives the last 30 of the lower-cased text: characters 16..45 = "k>" + " i will go to the fridge now".
    assert len(response) == 46
    assert parse_action(response) == ParsedAction("k> i will go to the fridge now", False)
    assert invalid_reason(response) == "no <action>…</action> block"


def test_short_invalid_response_is_sent_whole():
    assert parse_action("Look Around") == ParsedAction("look around", False)
    assert len("look around") < INVALID_TAIL_CHARS


def test_unclosed_or_reversed_action_tags_are_invalid():
    assert parse_action("<think>x</think><action>go to desk 1")[1] is False
    # A close tag before the open tag does not close it; the reference's plain find() would send "" as valid.
    assert parse_action("<think>x</think></action> <action>go to desk 1")[1] is False
    # ...but a later close tag does.
    assert parse_action("<think>x</think></action><action>go to desk 1</action>") == ParsedAction("go to desk 1", True)


def test_empty_action_is_invalid():
    response = "<think>x</think><action>   </action>"
    action, valid = parse_action(response)
    assert not valid
    assert invalid_reason(response) == "empty <action></action> block"
    assert action == response.lower()[-INVALID_TAIL_CHARS:]


def test_think_block_is_required_unless_disabled():
    response = "<action>look</action>"
    # The action is still extracted and sent; only the validity flag (and so the penalty) changes.
    assert parse_action(response) == ParsedAction("look", False)
    assert invalid_reason(response) == "no <think>…</think> block"
    assert parse_action(response, require_think=False) == ParsedAction("look", True)
    assert parse_action("</think> backwards <think><action>look</action>")[1] is False


def test_cjk_characters_make_the_step_invalid():
    response = "<think>我需要杯子</think><action>take mug 1 from sinkbasin 1</action>"
    assert parse_action(response) == ParsedAction("take mug 1 from sinkbasin 1", False)
    assert invalid_reason(response) == "contains CJK characters"
