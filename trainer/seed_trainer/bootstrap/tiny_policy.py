"""Bootstrap the embedded default's tiny policy: a model that can act in the household environment, follow a skill
and write one — trained from scratch on CPU in minutes.

A real SEED run starts from a pretrained LLM that can already read a task, follow instructions in its prompt and
write a JSON analysis. The tiny model has none of that, so this recipe gives it the equivalent by supervised training
on text the environment itself produces — this is its "pretraining", not part of SEED:

1. **Demonstrations.** `envs.household.demonstrator.Demonstrator` plays train-split tasks from what it observes, with
   *injected mistakes* (invalid commands and repeating them, revisiting checked places, leaving closed containers
   unopened, placing before heating / cooling / cleaning, taking the wrong object) and always recovers — so the
   demos include invalid-then-recover steps, and a model trained on them acts like a weak policy, not an expert.
2. **Skill conditioning.** In a share of the episodes every step prompt carries a hindsight skill, inserted with
   `algo.skills.insert_skill` (exactly the teacher format of Stage 2): the oracle analyzer's skill of an earlier
   attempt at the same task, and the demo then avoids the mistakes that skill warns against. Another share carries
   the static skill bank in the SDAR prefix format. So the model learns that a skill in the prompt changes what to
   do — what makes a skill-conditioned teacher better than the plain student.
3. **Analyses.** A share of the examples are analysis prompts (`algo.skills.build_analysis_prompt`) answered with the
   oracle analyzer's JSON, so the model can write a parseable skill before Stage 1 refines that on its own rollouts.

The tokenizer (byte-level BPE, `tokenizers`, split at line breaks) is trained on that text; the model is a small Qwen3
from a config (`models.tiny`). The output is an ordinary Hugging Face model directory with a chat template.

    python -m seed_trainer.bootstrap OUT_DIR [--steps 2400] [--episodes 2400] [--eval 60]
    python -m seed_trainer.bootstrap OUT_DIR --env textworld     # the TextWorld cooking policy (bootstrap_textworld)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers.static_bank import SkillBank
from seed_trainer.bootstrap.examples import make_examples
from seed_trainer.bootstrap.recipe import BootstrapConfig, evaluation_summary
from seed_trainer.bootstrap.training import encode_example, tokenizer_corpus, train_model
from seed_trainer.envs.household import HouseholdTasks
from seed_trainer.envs.household.skill_bank import static_skill_text

# --- evaluation -------------------------------------------------------------------------------------------------


def evaluate(
    model_dir: str | Path,
    split: str,
    episodes: int,
    *,
    history: int,
    max_steps: int,
    seed: int = 0,
    temperature: float = 0.4,
    greedy: bool = False,
    max_response_tokens: int = 48,
    skill: str | None = None,
) -> dict:
    """Success of the policy on `episodes` tasks of `split` (overall and per task type).

    `skill` None: the plain prompt (what evaluation means). As a diagnostic of skill following, "workflow" inserts
    the oracle analyzer's success workflow of each task with `insert_skill` (the teacher format), "bank" prefixes
    the static skill bank (the SDAR format).
    """
    import torch

    import seed_trainer.rl.rollout as rollout
    from seed_trainer.compute.policy import Policy
    from seed_trainer.envs.household.oracle_analysis import workflow
    from seed_trainer.experiment.config import ModelConfig

    torch.manual_seed(seed)
    policy = Policy.load(ModelConfig(path=str(model_dir), device="cpu"))
    source = HouseholdTasks(max_steps=max_steps)
    specs = source.sample(split, episodes, seed=seed)
    by_task = {source.make(spec).task.description: spec for spec in specs}
    plain = rollout.build_step_prompt
    if skill == "workflow":

        def with_skill(**kwargs):
            return insert_skill(plain(**kwargs), workflow(by_task[kwargs["task"]].instance))
    elif skill == "bank":

        def with_skill(**kwargs):
            return SkillBank.insert(plain(**kwargs), static_skill_text(by_task[kwargs["task"]].task_type))
    elif skill is not None:
        raise ValueError(f"skill: {skill!r} is not workflow, bank or None")
    try:
        if skill is not None:
            rollout.build_step_prompt = with_skill
        played = rollout.play_episodes(
            policy,
            source,
            specs,
            group_size=1,
            max_steps=max_steps,
            history_length=history,
            max_prompt_tokens=2048,
            max_response_tokens=max_response_tokens,
            temperature=temperature,
            greedy=greedy,
        )
    finally:
        rollout.build_step_prompt = plain
    return evaluation_summary(split, skill, played)


# --- the whole recipe -------------------------------------------------------------------------------------------


def bootstrap(out_dir: str | Path, config: BootstrapConfig | None = None, *, echo=sys.stderr) -> Path:
    """Builds the tiny policy into `out_dir` (an HF model directory) and returns it."""
    import torch
    from transformers import AutoTokenizer

    from seed_trainer.models.tiny import TOKENIZER_SPLITS, build_model, build_tokenizer, check_saved_tokenizer

    config = config or BootstrapConfig()
    out_dir = Path(out_dir)
    if config.threads:
        torch.set_num_threads(config.threads)
    say = (lambda text: echo.write(text + "\n") or echo.flush()) if echo is not None else (lambda text: None)
    started = time.perf_counter()

    # the environment's recipe: household here, TextWorld in bootstrap/textworld.py (its config has `env`)
    textworld = getattr(config, "env", "household") == "textworld"
    if textworld:
        from seed_trainer.bootstrap import textworld as recipe
    say("bootstrap: generating demonstrations")
    examples = (recipe.make_examples if textworld else make_examples)(
        config, progress=_bar(echo, "demos") if echo is not None else None
    )
    counts = {kind: sum(e.kind == kind for e in examples) for kind in ("step", "analysis")}
    say(f"bootstrap: {counts['step']} step examples, {counts['analysis']} analyses")

    rng = random.Random(f"bootstrap-tokenizer|{config.seed}")
    if config.tokenizer_split not in TOKENIZER_SPLITS:
        raise ValueError(f"tokenizer_split must be one of {sorted(TOKENIZER_SPLITS)}, not {config.tokenizer_split!r}")
    tokenizer = build_tokenizer(
        tokenizer_corpus(examples, rng),
        vocab_size=config.vocab_size,
        split=TOKENIZER_SPLITS[config.tokenizer_split],
        max_token_length=config.max_token_length or None,
    )
    model = build_model(
        tokenizer,
        hidden_size=config.hidden_size,
        layers=config.layers,
        heads=config.heads,
        kv_heads=config.kv_heads,
        intermediate_size=config.intermediate_size,
        seed=config.seed,
        architecture=config.architecture,
    )
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    # Written into a temporary directory, renamed over `out_dir` when complete. The tokenizer is saved first and
    # read back the way every later stage reads it (AutoTokenizer picks the class from the model config), and the
    # training data is encoded with that one, so training and inference see the same tokens.
    work = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    model.config.save_pretrained(work)
    tokenizer.save_pretrained(work)
    try:
        check_saved_tokenizer(
            work,
            tokenizer,
            [text for e in examples[:: max(len(examples) // 200, 1)] for text in (e.prompt, e.response)],
        )
    except ValueError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    tokenizer = AutoTokenizer.from_pretrained(work)
    encoded = [encode_example(tokenizer, e, config.max_length) for e in examples]
    say(
        f"bootstrap: vocabulary {len(tokenizer)}, {sum(p.numel() for p in model.parameters()):,} parameters, "
        f"{sum(len(p) + len(r) for p, r in encoded) / len(encoded):.0f} tokens per example"
    )

    losses = train_model(model, tokenizer, encoded, config, progress=_train_bar(echo) if echo is not None else None)
    model.save_pretrained(work)
    tokenizer.save_pretrained(work)
    report = {
        "config": asdict(config),
        "examples": counts,
        "final_loss": sum(losses[-50:]) / max(len(losses[-50:]), 1),
        "seconds": None,
        "eval": {},
    }
    (work / "bootstrap.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    work.rename(out_dir)
    if config.eval_episodes:
        for split in getattr(config, "eval_splits", ("valid_seen", "valid_unseen")):
            say(f"bootstrap: evaluating on {split} ({config.eval_episodes} episodes)")
            if textworld:
                report["eval"][split] = recipe.evaluate(out_dir, split, config.eval_episodes, config)
            else:
                report["eval"][split] = evaluate(
                    out_dir,
                    split,
                    config.eval_episodes,
                    history=config.history,
                    max_steps=config.max_steps,
                    temperature=config.eval_temperature,
                )
            say(f"bootstrap: {split} success {report['eval'][split]['success']:.3f}")
    report["seconds"] = round(time.perf_counter() - started, 1)
    (out_dir / "bootstrap.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    say(f"bootstrap: wrote {out_dir} in {report['seconds']:.0f} s")
    return out_dir


def _bar(echo, label):
    def show(done, total):
        width = 30
        filled = int(width * done / total)
        echo.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            echo.write("\n")
        echo.flush()

    return show


def _train_bar(echo):
    def show(step, total, loss, seconds):
        if step % 10 and step != total:
            return
        width = 30
        filled = int(width * step / total)
        eta = seconds / step * (total - step)
        echo.write(
            f"\rtrain [{'#' * filled}{'.' * (width - filled)}] {step}/{total} loss {loss:.3f} "
            f"{seconds:.0f}s elapsed, ~{eta:.0f}s left "
        )
        if step == total:
            echo.write("\n")
        echo.flush()

    return show


def mistake_levels(text: str) -> tuple[float, ...]:
    """ "0,0.1,0.2" -> (0.0, 0.1, 0.2): rates in [0, 1], at least one."""
    try:
        levels = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give comma-separated rates such as 0,0.1,0.2") from None
    if not all(0.0 <= level <= 1.0 for level in levels):
        raise argparse.ArgumentTypeError(f"{text!r}: every rate must be between 0 and 1")
    return levels


def main(argv: list[str] | None = None) -> int:
    from seed_trainer.models.tiny import ARCHITECTURES, TOKENIZER_SPLITS

    chooser = argparse.ArgumentParser(add_help=False)
    chooser.add_argument("--env", choices=("household", "textworld"), default="household")
    env = chooser.parse_known_args(argv)[0].env
    if env == "textworld":
        from seed_trainer.bootstrap.textworld import TextWorldBootstrapConfig as Config
    else:
        Config = BootstrapConfig
    defaults = Config()
    parser = argparse.ArgumentParser(prog="python -m seed_trainer.bootstrap", description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", help="the model directory to write")
    parser.add_argument(
        "--env",
        choices=("household", "textworld"),
        default="household",
        help="the environment whose tiny policy to make (textworld: bootstrap_textworld's recipe)",
    )
    for name in (
        "seed",
        "episodes",
        "history",
        "max_steps",
        "steps",
        "batch_size",
        "eval_episodes",
        "threads",
        "hidden_size",
        "layers",
        "intermediate_size",
        "vocab_size",
    ):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(defaults, name))
    for name in ("lr", "skill_share", "bank_share", "analysis_share"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=float, default=getattr(defaults, name))
    parser.add_argument("--tokenizer-split", choices=sorted(TOKENIZER_SPLITS), default=defaults.tokenizer_split)
    parser.add_argument("--max-token-length", type=int, default=defaults.max_token_length)
    parser.add_argument("--architecture", choices=sorted(ARCHITECTURES), default=defaults.architecture)
    if env == "textworld":
        parser.add_argument("--cache-dir", default=None, help="where the generated games are cached")
    else:
        for name in ("noise", "transform_noise", "repeat_noise"):
            parser.add_argument(
                f"--{name.replace('_', '-')}",
                type=mistake_levels,
                default=getattr(defaults, name),
                help=f"the demonstrations' per-episode mistake rates to draw from, comma-separated "
                f"(default {','.join(map(str, getattr(defaults, name)))})",
            )
    args = parser.parse_args(argv)
    values = {k: v for k, v in vars(args).items() if k not in ("out_dir", "env")}
    bootstrap(args.out_dir, Config(**values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
