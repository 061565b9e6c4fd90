"""What-if rescoring through the trainer (`python -m seed_trainer rescore RUN_DIR --trajectory ID --skill TEXT`).

The extension's "What if…" scores a trajectory under another skill with onnxruntime-node when the run has an ONNX
export small enough for the machine; otherwise it asks the trainer, on the run's device, with the trainer's own prompt
builder and scoring (`teacher.teacher_prompt_ids`, `Policy.encode_chat`, `Policy.score`, `losses.opd_gate`) — there is
no second implementation of the teacher prompt here. The result is the record the extension saves
(schemas/whatif.schema.json, `path: trainer`), validated before it is printed.

What the run's OPD estimator subtracted from g is recomputed too, as the trainer recorded it (`gate_baseline`): ½ for
`centred`; for `baseline` and `expected`, b(s) = Σ_v π_old(v|s)·g(v) from the full next-token distributions under the
student and the teacher prompt, through the trainer's own teacher pass (`Policy.score_gate_targets`, keep `baseline`).

Which weights: Stage-2 update k's gates were computed by π_old, the weights after update k − 1, so the default is
checkpoint step-(k−1), and for update 1 the run's starting model; Stage-1 trajectories were sampled by the run's model.
A pruned step-(k−1) is replaced by the kept weights nearest to it in updates (the starting model counting as step 0,
the earlier of two as near: runlog/layout.py `nearest_kept`); the record's `export` names the weights used.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seed_trainer.algo.variants import gate_beta
from seed_trainer.experiment.config import ExperimentConfig
from seed_trainer.experiment.loading import experiment_from_data
from seed_trainer.runlog import layout
from seed_trainer.runlog.layout import nearest_kept
from seed_trainer.runlog.reader import RunReader
from seed_trainer.runlog.schemas import SchemaSet
from seed_trainer.runlog.tokens import decode_int32

if TYPE_CHECKING:  # torch and transformers load only once the input has been checked: a refusal answers at once
    from seed_trainer.compute.policy import Policy

#: Progress callback: (forward passes done, total).
Progress = Callable[[int, int], None]

# C0/C1 controls other than tab and newline, and the bidi overrides: a skill holding them would be scored as something
# the reader cannot see (the extension refuses the same characters before it launches this).
_CONTROL = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]")


class RescoreError(ValueError):
    """Input that cannot be rescored (exit status 2, nothing written), with what is wrong and where."""


def check_skill(skill: str) -> str:
    if not skill.strip():
        raise RescoreError("the skill is empty: give the lesson to try")
    match = _CONTROL.search(skill)
    if match:
        raise RescoreError(
            f"the skill holds the control character U+{ord(match.group()):04X} at position {match.start() + 1}: remove it"
        )
    return skill


@dataclass(frozen=True)
class RunSettings:
    """What the run's teacher pass used (its resolved config in run.json)."""

    config: ExperimentConfig
    run_id: str
    beta: float

    @property
    def estimator(self) -> str:
        """The run's `opd.estimator`: what its update subtracted from g, which the rescoring recomputes."""
        return self.config.opd.estimator

    @classmethod
    def read(cls, reader: RunReader) -> RunSettings:
        manifest = reader.manifest()
        experiment = reader.run_dir / manifest["experiment"]["path"]
        config = experiment_from_data(manifest["config"], experiment.parent, f"{reader.paths.manifest}: config")
        if config.algorithm == "sdar":
            raise RescoreError(
                f"{reader.run_dir} is an SDAR run, whose skills are a static prefix, not a hindsight skill: there is no gate to recompute"
            )
        if config.rollout.prompt_format != "step":  # below, a step's prompt is rebuilt as one user turn
            raise RescoreError(f"{reader.run_dir} played its episodes as conversations (rollout.prompt_format: chat)")
        return cls(config=config, run_id=str(manifest["id"]), beta=gate_beta(config.algorithm, config.opd.beta))


def scoring_weights(reader: RunReader, settings: RunSettings, trajectory: dict[str, Any]) -> Path:
    """The weights that scored (or sampled) `trajectory`: checkpoint step-(k−1) for Stage-2 update k ≥ 2; checkpoint
    step-k for a train run's evaluation at update k (the weights it played); for an `eval` run, the weights it
    evaluated (its report's `checkpoint`); else the run's starting model. When the checkpoint wanted was pruned: the
    kept weights nearest to it (`nearest_kept`) — the result names the checkpoint it used, and the extension says when
    it is not the wanted one."""
    update = trajectory.get("update")
    phase = trajectory.get("phase")
    start = Path(settings.config.resolved_model().path)
    if phase == "eval" and reader.manifest().get("stage") == "eval":
        return _evaluated_weights(reader, settings, trajectory, start)
    if phase == "train" and isinstance(update, int) and update >= 2:
        return _kept_or_nearest(reader, update - 1, start, f"the weights that scored update {update}")
    if phase == "eval" and isinstance(update, int) and update >= 1:
        return _kept_or_nearest(reader, update, start, f"the weights evaluated at update {update}")
    return start


def _kept_or_nearest(reader: RunReader, step: int, start: Path, what: str) -> Path:
    """Checkpoint step-`step` when kept, else the kept weights nearest to it (`nearest_kept`; `start` is step 0)."""
    wanted = reader.paths.checkpoints / layout.checkpoint_name(step)
    if wanted.is_dir():
        return wanted
    kept = dict(reader.checkpoints())
    if start.exists():
        kept[0] = start
    nearest = nearest_kept(kept, step)
    if nearest is None:
        raise RescoreError(
            f"{reader.paths.relative(wanted)} ({what}) is not kept, no other checkpoint is and the starting model "
            f"{start} is not on disk; pass --checkpoint to rescore with other weights"
        )
    return kept[nearest]


def _evaluated_weights(reader: RunReader, settings: RunSettings, trajectory: dict[str, Any], start: Path) -> Path:
    """The weights an `eval` run played: its report's `checkpoint` (a path given to `eval --checkpoint`, resolved as
    the experiment's paths are, else from where the command ran), or the experiment's model."""
    split = (trajectory.get("task") or {}).get("split")
    try:
        recorded = reader.eval(split).get("checkpoint") if isinstance(split, str) else None
    except (FileNotFoundError, KeyError):
        recorded = None
    if not recorded or recorded == settings.config.model.path:
        return start
    for candidate in (Path(recorded), settings.config.resolve_path(recorded)):
        if candidate.is_dir():
            return candidate
    raise RescoreError(
        f"{recorded} (the weights this evaluation played, eval/{split}.json) is not on disk; pass --checkpoint to "
        "rescore with other weights"
    )


def check_checkpoint(checkpoint: Path, run_dir: Path) -> None:
    """Weights of another run would score with that run's policy: refused (a model outside any run is accepted)."""
    from seed_trainer.export.model_export import run_of

    if not checkpoint.is_dir():
        raise RescoreError(f"--checkpoint {checkpoint}: not a directory")
    owner = run_of(checkpoint)
    if owner is not None and owner.resolve() != run_dir.resolve():
        raise RescoreError(
            f"{checkpoint} lies in run {owner.name}, not in {run_dir.name}: its weights are another run's"
        )


@dataclass(frozen=True)
class StepInput:
    t: int
    prompt: str
    response_ids: list[int]
    response: str


def trajectory_steps(trajectory: dict[str, Any]) -> list[StepInput]:
    steps = []
    for step in trajectory["steps"]:
        t = step["t"]
        if not step.get("prompt"):
            raise RescoreError(
                f"step {t} has no recorded prompt: this trajectory was written by a trainer that did not record step "
                "prompts (before evaluations and unscored steps recorded them), so its teacher prompt cannot be rebuilt"
            )
        if not step.get("tokens"):
            raise RescoreError(f"step {t} has no recorded tokens: there is nothing to rescore")
        steps.append(
            StepInput(
                t=t, prompt=step["prompt"], response_ids=decode_int32(step["tokens"]["ids"]), response=step["response"]
            )
        )
    return steps


def check_steps(policy: Policy, steps: Sequence[StepInput], max_prompt_tokens: int) -> None:
    """Everything a forward pass would trip over, before the first one: vocabulary, tokenizer, context."""
    vocab = policy.model.config.vocab_size
    context = getattr(policy.model.config, "max_position_embeddings", None)
    for step in steps:
        bad = next((i for i in step.response_ids if not 0 <= i < vocab), None)
        if bad is not None:
            raise RescoreError(
                f"step {step.t}: token id {bad} is outside this model's vocabulary of {vocab}: the "
                "trajectory was sampled by another model"
            )
        if policy.tokenizer.decode(step.response_ids, skip_special_tokens=True) != step.response:
            raise RescoreError(
                f"step {step.t}: this model's tokenizer does not decode the recorded tokens to the "
                "recorded response: the trajectory was sampled with another tokenizer"
            )
        prompt = len(policy.encode_chat(step.prompt, max_prompt_tokens))
        if context is not None and prompt + len(step.response_ids) > context:
            raise RescoreError(
                f"step {step.t}: {prompt} prompt and {len(step.response_ids)} response tokens exceed "
                f"the model's context of {context} tokens"
            )


def _float32_list(values) -> list[float]:
    """float32 values with the digits that tell them apart (7 significant), as the extension writes them."""
    return [float(f"{v:.7g}") for v in values.tolist()]


def _score_chunked(
    policy: Policy,
    prompts,
    responses,
    *,
    temperature: float,
    micro: int,
    max_tokens: int | None,
    tick: Callable[[int], None],
):
    """Policy.score in chunks of `micro` rows, so progress can be told between them."""
    out = []
    for start in range(0, len(prompts), micro):
        chunk = policy.score(
            prompts[start : start + micro], responses[start : start + micro], temperature, micro, max_tokens=max_tokens
        )
        out += chunk
        tick(len(chunk))
    return out


def _gate_targets_chunked(
    policy: Policy,
    student_prompts,
    teacher_prompts,
    responses,
    *,
    beta: float,
    temperature: float,
    micro: int,
    max_tokens: int | None,
    tick: Callable[[int], None],
) -> list[tuple[Any, Any]]:
    """(teacher log-probs, b(s)) per response: the trainer's teacher pass of the `baseline` estimator
    (`Policy.score_gate_targets`, keep `baseline`), in chunks of `micro` rows for progress."""
    out = []
    for start in range(0, len(responses), micro):
        at = slice(start, start + micro)
        chunk = policy.score_gate_targets(
            student_prompts[at],
            teacher_prompts[at],
            responses[at],
            beta=beta,
            keep="baseline",
            temperature=temperature,
            micro_batch_size=micro,
            max_tokens=max_tokens,
        )
        out += [(targets.teacher_logp, targets.baseline) for targets in chunk]
        tick(len(chunk))
    return out


def rescore(
    policy: Policy,
    steps: Sequence[StepInput],
    skills: Sequence[str],
    *,
    max_prompt_tokens: int,
    temperature: float,
    beta: float,
    micro_batch_size: int = 8,
    max_tokens: int | None = None,
    progress: Progress | None = None,
    estimator: str = "sample",
) -> list[dict[str, Any]]:
    """One result per skill: the student and teacher log-probs of every step's response tokens, Δ and g (the
    `results[]` items of a what-if file, without `export`, `path`, `provider` and `seconds`), and with an `estimator`
    that subtracts from g (centred, baseline, expected) what it subtracts, `gate_baseline`, as the trainer records it."""
    from seed_trainer.algo.estimator_table import estimator_row
    from seed_trainer.algo.estimators import subtracted_gate
    from seed_trainer.algo.losses import opd_gate
    from seed_trainer.rl.teacher import teacher_prompt_ids

    responses = [s.response_ids for s in steps]
    total = len(steps) * (1 + len(skills))
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    score = dict(temperature=temperature, micro=micro_batch_size, max_tokens=max_tokens, tick=tick)
    student_prompts = [policy.encode_chat(s.prompt, max_prompt_tokens) for s in steps]
    student = _score_chunked(policy, student_prompts, responses, **score)
    results = []
    for skill in skills:
        prompts = [teacher_prompt_ids(policy, s.prompt, skill, max_prompt_tokens) for s in steps]
        if estimator_row(estimator).needs_distributions:
            teacher, baselines = zip(
                *_gate_targets_chunked(policy, student_prompts, prompts, responses, beta=beta, **score)
            )
        else:
            teacher, baselines = _score_chunked(policy, prompts, responses, **score), [None] * len(steps)
        rows = []
        for step, s_logp, t_logp, baseline in zip(steps, student, teacher, baselines):
            delta, gate = opd_gate(t_logp, s_logp, beta)
            row = {
                "t": step.t,
                "logp": _float32_list(s_logp),
                "teacher_logp": _float32_list(t_logp),
                "delta": _float32_list(delta),
                "gate": _float32_list(gate),
            }
            subtracted = subtracted_gate(estimator, gate, baseline)
            if subtracted is not None:
                row["gate_baseline"] = _float32_list(subtracted)
            rows.append(row)
        results.append({"skill": skill, "beta": beta, "temperature": temperature, "steps": rows})
    return results


def rescore_run_trajectory(
    run_dir: str | Path,
    trajectory_id: str,
    skills: Sequence[str],
    *,
    checkpoint: str | Path | None = None,
    device: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The what-if file content ({format, trajectory, results}) of `trajectory_id` under each skill, scored by the
    trainer with the weights that scored it (or `checkpoint`) on the run's device (or `device`)."""
    for skill in skills:
        check_skill(skill)
    schemas = SchemaSet()
    reader = RunReader(run_dir, schemas=schemas)
    if not reader.paths.manifest.is_file():
        raise RescoreError(f"{run_dir}: not a run directory (no run.json)")
    settings = RunSettings.read(reader)
    try:
        trajectory = reader.trajectory(trajectory_id)
    except KeyError as exc:
        raise RescoreError(str(exc.args[0])) from None
    steps = trajectory_steps(trajectory)
    if checkpoint is not None:
        weights = Path(checkpoint)
        check_checkpoint(weights, reader.run_dir)
    else:  # this run's own weights or model, or those an eval run played (which may lie in the run it evaluated)
        weights = scoring_weights(reader, settings, trajectory)
        if not weights.is_dir():
            raise RescoreError(f"{weights}: not a directory (the weights that scored this trajectory)")
    # torch loads only now: input refused above costs the editor no torch import (seconds)
    from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy

    model = settings.config.model
    started = time.perf_counter()
    policy = load_checkpoint_policy(weights, device=device or model.device, dtype=model.dtype)
    ro, rl = settings.config.rollout, settings.config.rl
    check_steps(policy, steps, ro.max_prompt_tokens)
    results = rescore(
        policy,
        steps,
        skills,
        max_prompt_tokens=ro.max_prompt_tokens,
        temperature=ro.temperature,
        beta=settings.beta,
        micro_batch_size=rl.micro_batch_size,
        max_tokens=rl.micro_batch_tokens,
        progress=progress,
        estimator=settings.estimator,
    )
    seconds = round(time.perf_counter() - started, 3)
    try:
        shown = weights.resolve().relative_to(reader.run_dir.resolve()).as_posix()
    except ValueError:
        shown = str(weights)
    content = {
        "format": 1,
        "trajectory": trajectory_id,
        "results": [
            {
                "skill": r["skill"],
                "export": shown,
                "path": "trainer",
                "provider": policy.device.type,
                "seconds": seconds,
                "beta": r["beta"],
                "temperature": r["temperature"],
                "steps": r["steps"],
            }
            for r in results
        ],
    }
    schemas.validate("whatif", content, "rescore output")
    return content
