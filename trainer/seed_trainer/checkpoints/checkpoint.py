"""Stage-2 checkpoints: what a run needs to continue exactly where it stopped, and to be loaded as a policy.

A checkpoint directory (docs/run-format.md §10) holds:
- the Hugging Face `save_pretrained` output of the model — full weights, or with LoRA the adapter only (its
  `adapter_config.json` names the base model) — and the tokenizer with its chat template;
- `optimizer.pt`: the AdamW state; under `distributed.strategy: fsdp` instead `distributed/`, the sharded model and
  optimizer state as torch.distributed.checkpoint writes it (every rank its shards), next to the full-weight export;
- `rng_state.pt`: the RNG states — Python's global `random`, the loop's own `random.Random` (mini-batch shuffle),
  torch CPU and every CUDA device (sampling);
- `trainer_state.json`: the update counter, whether the weights are an adapter and of which base model, the byte size
  of every trajectory/metrics file when the checkpoint was taken (what `resume` rolls back to), and `scheduler: null`
  (the learning rate is constant; there is no scheduler state).

The writer (`RunWriter.checkpoint`) saves into a temporary directory and renames it into place, so a directory named
`step-NNNNNN` is always complete. Which of a run's checkpoints `resume` continues from is `checkpoints/folder.py`.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from seed_trainer.checkpoints.rollback import rollback_candidates
from seed_trainer.compute import distributed as dist
from seed_trainer.compute.policy import Policy, resolve_device, resolve_dtype
from seed_trainer.compute.precision import NonFiniteError, check_finite_weights, first_non_finite_weight
from seed_trainer.experiment.config import ExperimentConfig, ModelConfig
from seed_trainer.models.builtin import BUILTIN_PREFIX, CONVERTED_MODELS
from seed_trainer.runlog import layout

if TYPE_CHECKING:
    from seed_trainer.runlog import RunWriter

STATE_FILE = "trainer_state.json"
RNG_FILE = "rng_state.pt"
RANK_RNG_FILE = "rng_state_ranks.pt"  # under torchrun: every rank's torch RNG state, in rank order
OPTIMIZER_FILE = "optimizer.pt"
ADAPTER_CONFIG = "adapter_config.json"


# -- RNG ------------------------------------------------------------------------------------------------------------


def capture_rng(loop_rng: random.Random) -> dict[str, Any]:
    state: dict[str, Any] = {
        "python": random.getstate(),
        "loop": loop_rng.getstate(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any], loop_rng: random.Random) -> None:
    random.setstate(state["python"])
    loop_rng.setstate(state["loop"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# -- saving ---------------------------------------------------------------------------------------------------------


def file_sizes(run_dir: Path) -> dict[str, int]:
    """Byte sizes of the files `resume` rolls back (metrics and every trajectory file), relative to the run."""
    return {path.relative_to(run_dir).as_posix(): path.stat().st_size for path in rollback_candidates(run_dir)}


def save_model(directory: Path, policy: Policy) -> None:
    policy.model.save_pretrained(directory)
    policy.tokenizer.save_pretrained(directory)


def save_checkpoint(
    directory: Path,
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    *,
    update: int,
    loop_rng: random.Random,
    base_model: str,
    files: dict[str, int],
    rank_rng: list[dict[str, Any]] | None = None,
    sharded: bool = False,
) -> None:
    """Everything `resume` needs, into `directory` (the writer's temporary checkpoint directory). `rank_rng`: every
    rank's sampling RNG state under torchrun (dist.rank_rng_states). `sharded`: the model and optimizer state were
    written by every rank (sharding.save_sharded); this writes the rest."""
    if not sharded:
        save_model(directory, policy)
        torch.save(optimizer.state_dict(), directory / OPTIMIZER_FILE)
    torch.save(capture_rng(loop_rng), directory / RNG_FILE)
    if rank_rng is not None:
        torch.save(rank_rng, directory / RANK_RNG_FILE)
    state = {
        "stage": "train",
        "update": update,
        "adapter": is_adapter(directory),
        "base_model": base_model,
        "scheduler": None,
        "files": files,
    }
    (directory / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")


def prune_checkpoints(checkpoints_dir: Path, keep_last: int) -> list[Path]:
    """Delete all but the `keep_last` highest complete checkpoints; returns what was deleted."""
    found = sorted(
        (int(m.group(1)), child)
        for child in checkpoints_dir.iterdir()
        if (m := layout.CHECKPOINT_NAME.match(child.name)) and child.is_dir()
    )
    doomed = [path for _, path in found[:-keep_last]] if keep_last > 0 else []
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
    return doomed


# -- loading --------------------------------------------------------------------------------------------------------


def is_adapter(directory: Path) -> bool:
    return (Path(directory) / ADAPTER_CONFIG).exists()


def read_state(directory: Path) -> dict[str, Any]:
    path = Path(directory) / STATE_FILE
    if not path.exists():
        raise FileNotFoundError(f"{directory}: not a training checkpoint (no {STATE_FILE})")
    return json.loads(path.read_text(encoding="utf-8"))


def _load_weights(model: torch.nn.Module, directory: Path) -> None:
    """Load the saved model weights of `directory` into `model` in place (values copied exactly)."""
    from safetensors.torch import load_file

    if is_adapter(directory):
        from peft import set_peft_model_state_dict

        result = set_peft_model_state_dict(model, load_file(directory / "adapter_model.safetensors"))
        unexpected = list(getattr(result, "unexpected_keys", []) or [])
        if unexpected:
            raise RuntimeError(f"{directory}: adapter weights do not fit the model: {unexpected[:3]}")
        return
    index = directory / "model.safetensors.index.json"
    shards = (
        sorted(set(json.loads(index.read_text())["weight_map"].values())) if index.exists() else ["model.safetensors"]
    )
    state: dict[str, torch.Tensor] = {}
    for shard in shards:
        state.update(load_file(directory / shard))
    missing, unexpected = model.load_state_dict(state, strict=False)
    tied = {name for name in missing if "lm_head" in name and getattr(model.config, "tie_word_embeddings", False)}
    if unexpected or set(missing) - tied:
        raise RuntimeError(
            f"{directory}: weights do not fit the model (missing {sorted(set(missing) - tied)[:3]}, "
            f"unexpected {unexpected[:3]})"
        )


def load_training_state(
    directory: Path,
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    loop_rng: random.Random,
    *,
    rank: int = 0,
    world: int = 1,
    sharded: bool = False,
) -> dict[str, Any]:
    """Put the checkpoint's weights, optimizer state and RNG states back; returns its trainer_state.json. Under
    torchrun each rank loads the same files and takes its own sampling RNG state when the checkpoint was written by
    as many ranks; otherwise ranks other than 0 keep the seed they were given (the run goes on, not bit-exactly).
    `sharded`: every rank loads its shards of the model and optimizer state (sharding.load_sharded); a checkpoint of
    a sharded run also loads into a policy that is not (resumed with one process)."""
    directory = Path(directory)
    state = read_state(directory)
    from seed_trainer.compute.sharding import DCP_DIR, load_sharded

    # A sharded checkpoint loads into any number of processes, one included (torch.distributed.checkpoint reshards).
    if sharded or (directory / DCP_DIR / ".metadata").is_file():
        load_sharded(directory, policy, optimizer)
    else:
        _load_weights(policy.model, directory)
        optimizer.load_state_dict(torch.load(directory / OPTIMIZER_FILE, map_location=policy.device, weights_only=True))
    restore_rng(torch.load(directory / RNG_FILE, weights_only=True), loop_rng)
    ranks_file = directory / RANK_RNG_FILE
    if world > 1:
        per_rank = torch.load(ranks_file, weights_only=True) if ranks_file.is_file() else []
        if len(per_rank) == world:
            torch.set_rng_state(per_rank[rank]["torch"])
            if "cuda" in per_rank[rank] and torch.cuda.is_available():
                torch.cuda.set_rng_state(per_rank[rank]["cuda"])
        elif rank > 0:
            torch.manual_seed(state["update"] * 1_000_003 + rank)
    return state


def load_checkpoint_policy(directory: str | Path, *, device: str = "auto", dtype: str = "auto") -> Policy:
    """A checkpoint, an SFT output or any HF model directory as a policy for inference (LoRA adapters merged in,
    no KL reference)."""
    directory = Path(directory)
    if not is_adapter(directory):
        return Policy.load(
            ModelConfig(path=str(directory), device=device, dtype=dtype), with_reference=False, trainable=False
        )
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    adapter = json.loads((directory / ADAPTER_CONFIG).read_text(encoding="utf-8"))
    base = adapter.get("base_model_name_or_path")
    state_file = directory / STATE_FILE
    if state_file.exists():
        base = json.loads(state_file.read_text(encoding="utf-8")).get("base_model") or base
    if not base:
        raise ValueError(f"{directory}: {ADAPTER_CONFIG} names no base model")
    from seed_trainer.experiment.config import ensure_model_dir

    base = str(ensure_model_dir(base) or base)  # a converted built-in's cache folder (converted again if it is gone)
    torch_device = resolve_device(device)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=resolve_dtype(dtype, torch_device))
    model = PeftModel.from_pretrained(model, directory).merge_and_unload().to(torch_device)
    tokenizer = AutoTokenizer.from_pretrained(directory)
    tokenizer.padding_side = "left"
    return Policy(model.eval(), tokenizer, torch_device, compute_dtype=resolve_dtype(dtype, torch_device))


# -- during training ------------------------------------------------------------------------------------------------


def base_model_name(config: ExperimentConfig) -> str:
    """What a checkpoint names as its base model: a converted built-in by its `builtin:` name (its cache folder is
    per user and machine, so a path would not survive copying the run), anything else by its resolved folder."""
    if config.model.path.startswith(BUILTIN_PREFIX) and config.model.path[len(BUILTIN_PREFIX) :] in CONVERTED_MODELS:
        return config.model.path
    return str(config.resolved_model().path)


class Checkpointer:
    """The training loop's checkpoints, on every rank: `restore` before the first update, `save` at every
    `checkpoint.every` updates and before a stop. Rank 0 writes the directory; with `sharded` (FSDP) every rank writes
    its shards into it. `saved` is the last update whose checkpoint exists."""

    def __init__(
        self,
        writer: RunWriter | dist.QuietWriter,
        policy: Policy,
        optimizer: torch.optim.Optimizer,
        loop_rng: random.Random,
        config: ExperimentConfig,
        *,
        ranks: dist.Ranks,
        sharded: bool,
    ) -> None:
        self.writer, self.policy, self.optimizer, self.loop_rng = writer, policy, optimizer, loop_rng
        self.config, self.ranks, self.sharded = config, ranks, sharded
        self.saved = 0

    def restore(self, checkpoint: Path | None) -> int:
        """Weights, optimizer, RNG states and the update counter of `checkpoint`; returns its update (0: none)."""
        if checkpoint is not None:
            ranks = self.ranks
            self.saved = load_training_state(
                checkpoint,
                self.policy,
                self.optimizer,
                self.loop_rng,
                rank=ranks.rank,
                world=ranks.world,
                sharded=self.sharded,
            )["update"]
        return self.saved

    def save(self, update: int) -> None:
        rank_rng = dist.rank_rng_states(self.ranks)  # every rank takes part; rank 0 writes
        self.saved = update
        if self.sharded:  # every rank checks and writes its shards into rank 0's temporary checkpoint directory
            self._save_sharded(update, rank_rng)
            return
        if not self.ranks.main:
            return
        check_finite_weights(self.policy.model, f"checkpoint of update {update}")
        files = file_sizes(self.writer.run_dir)
        with self.writer.checkpoint(update) as directory:
            save_checkpoint(
                directory,
                self.policy,
                self.optimizer,
                update=update,
                loop_rng=self.loop_rng,
                base_model=base_model_name(self.config),
                files=files,
                rank_rng=rank_rng,
            )
        prune_checkpoints(self.writer.paths.checkpoints, self.config.checkpoint.keep_last)

    def _save_sharded(self, update: int, rank_rng) -> None:
        from seed_trainer.compute.sharding import save_sharded

        ranks, policy, optimizer = self.ranks, self.policy, self.optimizer
        bad = [
            name
            for name in dist.all_gather(ranks, first_non_finite_weight(policy.model), "checking the weights")
            if name is not None
        ]
        if bad:
            raise NonFiniteError(f"checkpoint of update {update}: weight {bad[0]} is not finite; nothing saved")
        if not ranks.main:
            directory = dist.broadcast(ranks, None, f"opening the checkpoint of update {update}")
            save_sharded(Path(directory), policy, optimizer, main=False)
            dist.broadcast(ranks, None, f"finishing the checkpoint of update {update}")
            return
        files = file_sizes(self.writer.run_dir)
        with self.writer.checkpoint(update) as directory:
            dist.broadcast(ranks, str(directory), f"opening the checkpoint of update {update}")
            save_sharded(directory, policy, optimizer, main=True)
            save_checkpoint(
                directory,
                policy,
                optimizer,
                update=update,
                loop_rng=self.loop_rng,
                sharded=True,
                base_model=base_model_name(self.config),
                files=files,
                rank_rng=rank_rng,
            )
        # the others wait until the checkpoint is in place: a rank that fails next must not find it half-written
        dist.broadcast(ranks, None, f"finishing the checkpoint of update {update}")
        prune_checkpoints(self.writer.paths.checkpoints, self.config.checkpoint.keep_last)
