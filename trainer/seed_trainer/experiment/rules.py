"""Rules between fields of the experiment file (experiment/config.py): what one setting requires of others, which settings cannot
go together, and which `builtin:` model names exist. They are exported into the JSON Schema as `allOf` of `if`/`then`,
which both the trainer and the editor check; the model checks the exclusive ones again once validated."""

from __future__ import annotations

from typing import Any

from seed_trainer.algo.estimator_table import OPD_ESTIMATORS
from seed_trainer.algo.skill_controls import SELF_SKILL_ALGORITHMS, SKILL_CONTROL_TABLE
from seed_trainer.algo.variants import ALGORITHM_VARIANTS
from seed_trainer.models.builtin import BUILTIN_MODELS, BUILTIN_PREFIX

# Under `grpo_opsd` g = ½ on every token, and so is b(s): the estimators that weigh the sampled token by g less ½ or
# b(s) have no gradient at all there. One that weighs the vocabulary (soft targets) keeps a pull toward π_old.
CANCELLED_BY_GRPO_OPSD = [
    name for name, row in OPD_ESTIMATORS.items() if row.subtracts != "nothing" and row.keeps != "soft_targets"
]
GRPO_OPSD_ESTIMATORS = [name for name in OPD_ESTIMATORS if name not in CANCELLED_BY_GRPO_OPSD]
# The teacher prompt re-encodes a step's prompt as one user turn with the skill inserted: not a conversation yet.
NO_TEACHER_ALGORITHMS = [name for name, variant in ALGORITHM_VARIANTS.items() if not variant.teacher]

# Rules between fields: when the field (dotted path) holds the value, the listed fields must be non-empty strings.
# They are exported into the JSON Schema (`allOf` of `if`/`then`), which both the trainer and the editor check; the
# message is the rule's `description` after the field's path.
CROSS_FIELD_RULES: list[tuple[str, str, list[str], str]] = [
    ("algorithm", "sdar", ["sdar.skill_bank"], "`sdar` needs `sdar.skill_bank`: a folder of markdown skill files"),
    (
        "analyzer.kind",
        "external",
        ["analyzer.base_url", "analyzer.model"],
        "`external` needs `analyzer.base_url` and `analyzer.model`",
    ),
]


# Settings that cannot go together: when the field holds the value, `then` (a JSON Schema) must hold as well. Exported
# into the same `allOf`, so the editor and the trainer report them at the field, with the description.
EXCLUSIVE_RULES: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "distributed.strategy",
        "fsdp",
        {"properties": {"model": {"properties": {"lora": {"type": "null"}}}}},
        "`fsdp` shards a full fine-tune; LoRA trains with `replicate` (its adapters are small: every process keeps them)",
    ),
    (
        "distributed.strategy",
        "fsdp",
        {"properties": {"rollout": {"properties": {"engine": {"const": "hf"}}}}},
        "`fsdp` generates with `rollout.engine: hf`; the vLLM engine is not fed from sharded weights yet",
    ),
    *(
        (
            "opd.estimator",
            name,
            {"properties": {"distributed": {"properties": {"strategy": {"const": "replicate"}}}}},
            f"`{name}` needs `distributed.strategy: replicate`; the sharded forward does not return the logits its "
            "soft targets are gathered from yet",
        )
        for name, row in OPD_ESTIMATORS.items()
        if row.keeps == "soft_targets"
    ),
    (
        "algorithm",
        "grpo_opsd",
        {"properties": {"opd": {"properties": {"estimator": {"enum": GRPO_OPSD_ESTIMATORS}}}}},
        f"`grpo_opsd` has g = ½ on every token: {' and '.join(f'`{name}`' for name in CANCELLED_BY_GRPO_OPSD)} "
        "subtract all of it (zero gradient, plain GRPO); `expected` keeps ½·Σ_v π_old(v)·∇log π_θ(v), zero at θ = "
        "π_old and a pull back toward π_old from an update's second optimizer step on (the proximal control)",
    ),
    (
        "sft.mode",
        "agent",
        {"properties": {"environment": {"properties": {"name": {"const": "household"}}}}},
        "`agent` trains on the demonstrations of the built-in household environment (`environment.name: household`)",
    ),
    (
        "sft.mode",
        "agent",
        {"properties": {"model": {"properties": {"lora": {"type": "null"}}}}},
        "`agent` fine-tunes all weights (`model.lora: null`); the experiment that starts from its model may use LoRA",
    ),
    (
        "rollout.prompt_format",
        "chat",
        # required: the default algorithm (seed) has a teacher pass, so the editor must see it named
        {"required": ["algorithm"], "properties": {"algorithm": {"enum": NO_TEACHER_ALGORITHMS}}},
        "`chat` is read by the rollout, evaluation and collection; the teacher pass still builds its prompt as one "
        f"user turn, so Stage 2 in this format runs {', '.join(f'`{a}`' for a in NO_TEACHER_ALGORITHMS)} only",
    ),
    *(
        (
            "opd.skill_control",
            control,
            {"properties": {"algorithm": {"enum": SELF_SKILL_ALGORITHMS}}},
            f"`{control}` replaces the policy's own skills: it needs an algorithm that writes them "
            f"({', '.join(f'`{a}`' for a in SELF_SKILL_ALGORITHMS)})",
        )
        for control, row in SKILL_CONTROL_TABLE.items()
        if row.replaces_own_skill
    ),
]


def _nested(path: str, leaf: dict[str, Any]) -> dict[str, Any]:
    """`{"properties": {"a": {"properties": {"b": leaf}, "required": ["b"]}}, "required": ["a"]}` for `a.b`."""
    schema = leaf
    for part in reversed(path.split(".")):
        schema = {"properties": {part: schema}, "required": [part]}
    return schema


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if key == "properties":
            out[key] = {**out.get(key, {})}
            for name, sub in value.items():
                out[key][name] = _merge(out[key].get(name, {}), sub)
        elif key == "required":
            out[key] = sorted(set(out.get(key, [])) | set(value))
        else:
            out[key] = value
    return out


def field_value(config: Any, field: str) -> Any:
    """The value of a dotted field path (`distributed.strategy`) in the validated `config`."""
    for part in field.split("."):
        config = getattr(config, part)
    return config


def holds(config: Any, then: dict[str, Any]) -> bool:
    """Whether the validated `config` satisfies an EXCLUSIVE_RULES `then` (its `null` / `const` / `enum` leaves)."""
    for name, sub in then.get("properties", {}).items():
        value = getattr(config, name)
        if "properties" in sub:
            if not holds(value, sub):
                return False
        elif sub.get("type") == "null" and value is not None:
            return False
        elif "const" in sub and value != sub["const"]:
            return False
        elif "enum" in sub and value not in sub["enum"]:
            return False
    return True


def cross_field_schema(schema: dict[str, Any]) -> None:
    """Add the rules to the model's JSON Schema as its `allOf` (with the rule that names the built-in models)."""
    rules = []
    for field, value, needs, description in CROSS_FIELD_RULES:
        then: dict[str, Any] = {}
        for need in needs:
            then = _merge(then, _nested(need, {"type": "string", "minLength": 1}))
        rules.append({"description": description, "if": _nested(field, {"const": value}), "then": then})
    for field, value, then, description in EXCLUSIVE_RULES:
        rules.append({"description": description, "if": _nested(field, {"const": value}), "then": then})
    builtins = [BUILTIN_PREFIX + name for name in BUILTIN_MODELS]
    rules.append(
        {
            "description": f"unknown built-in model; the built-in ones are {', '.join(f'`{b}`' for b in builtins)}",
            "if": _nested("model.path", {"type": "string", "pattern": f"^{BUILTIN_PREFIX}"}),
            "then": _nested("model.path", {"enum": builtins}),
        }
    )
    schema["allOf"] = rules
