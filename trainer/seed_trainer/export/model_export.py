"""Export a checkpoint (a Stage-2 checkpoint, an SFT output, any HF model directory) for use outside the trainer.

- `hf`: a plain Hugging Face model directory — LoRA adapters merged in, no optimizer or RNG state.
- `onnx`: `model.onnx` mapping `input_ids` and `attention_mask` (int64, [batch, sequence], both axes dynamic) to
  `logits` (float32, [batch, sequence, vocab]), float32 on CPU; position ids are computed inside the graph from the
  attention mask (cumulative sum − 1), as the trainer computes them, so left padding works. Saved with the tokenizer
  files, the chat template (as chat_template.jinja and in tokenizer_config.json), the model's config.json and an
  `export.json` describing the inputs and outputs. The what-if view rescores with it (onnxruntime-node): so
  `export.json` also carries what a rescorer needs to rebuild the trainer's teacher prompt byte for byte — the prompt
  settings of the run the checkpoint belongs to (history, max prompt tokens, temperature, β of the gate), the skill
  insertion format and the truncation rule, the model's context length, and which run and checkpoint it came from.
  Its contract is `schemas/onnx-export.schema.json`.
"""

from __future__ import annotations

import inspect
import json
import shutil
from pathlib import Path
from typing import Literal

import torch

from seed_trainer import __version__
from seed_trainer.algo import skills
from seed_trainer.algo.variants import gate_beta
from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy
from seed_trainer.experiment.config import OpdConfig, RolloutConfig
from seed_trainer.models import holds_model

FORMATS = ("hf", "onnx")
ONNX_OPSET = 17


def run_of(checkpoint: str | Path) -> Path | None:
    """The run directory a checkpoint lies in (`<run>/checkpoints/step-N`, `<run>/model`), or None."""
    checkpoint = Path(checkpoint).resolve()
    for run in (checkpoint.parent, checkpoint.parent.parent):
        if (run / "run.json").exists():
            return run
    return None


def default_export_dir(checkpoint: str | Path, format: str) -> Path:
    """`<run>/exports/<checkpoint name>-<format>` for a checkpoint inside a run (`<run>/checkpoints/step-N`,
    `<run>/model`), else `<checkpoint>-<format>` beside it."""
    checkpoint = Path(checkpoint).resolve()
    run = run_of(checkpoint)
    if run is not None:
        return run / "exports" / f"{checkpoint.name}-{format}"
    return checkpoint.with_name(f"{checkpoint.name}-{format}")


def prompt_settings(checkpoint: str | Path) -> tuple[dict, dict | None]:
    """(prompt settings, `{id, checkpoint}` of the run) for a checkpoint: the resolved config in its run's run.json,
    or the experiment defaults (and no run) for a model directory outside any run.

    The settings are what the teacher pass used: the history window and max prompt tokens of `rollout`, the sampling
    temperature the log-probs are computed at, and the gate's β as the algorithm applies it (0 for the ungated
    baseline). SDAR's static prefix is not a hindsight skill insertion, so its `insertion` is `prefix`."""
    run = run_of(checkpoint)
    config: dict = {}
    source = None
    if run is not None:
        manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
        config = manifest.get("config") or {}
        source = {"id": str(manifest.get("id", run.name)), "checkpoint": Path(checkpoint).resolve().name}
    rollout = RolloutConfig.model_validate(config.get("rollout") or {})
    if rollout.prompt_format != "step":  # the contract below: a step prompt is one user turn
        raise ValueError(
            f"{run} played its episodes as conversations (rollout.prompt_format: chat): What if… rebuilds a step's "
            "prompt as one user turn, so an ONNX export for it would score other prompts; export a Hugging Face folder"
        )
    opd = OpdConfig.model_validate(config.get("opd") or {})
    algorithm = str(config.get("algorithm", "seed"))
    settings = {
        "from": "run" if run is not None else "defaults",
        "algorithm": algorithm,
        "history": rollout.history,
        "max_prompt_tokens": rollout.max_prompt_tokens,
        "temperature": rollout.temperature,
        "beta": gate_beta(algorithm, opd.beta),
        "chat": {"role": "user", "add_generation_prompt": True},
        "skill": {
            "insertion": "prefix" if algorithm == "sdar" else "after_task_line",
            "header": skills.SKILL_HEADER,
            "instruction": skills.SKILL_INSTRUCTION,
            "task_marker": skills.TASK_MARKER,
            "turn_marker": skills.TURN_MARKER,
            "truncation": "middle_after_skill_block",
        },
    }
    return settings, source


class _LogitsOnly(torch.nn.Module):
    """(input_ids, attention_mask) → logits, with the trainer's position ids."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False)
        return out.logits


def export(
    checkpoint: str | Path,
    format: Literal["hf", "onnx"],
    out: str | Path | None = None,
    *,
    opset: int = ONNX_OPSET,
) -> Path:
    """Writes the export into `out` (default: `default_export_dir`), via a temporary directory renamed into place;
    returns `out`."""
    if format not in FORMATS:
        raise ValueError(f"export format {format!r} is not one of {', '.join(FORMATS)}")
    checkpoint = Path(checkpoint)
    if not holds_model(checkpoint):
        raise FileNotFoundError(f"{checkpoint}: not a model directory (no config.json or adapter_config.json)")
    out = Path(out) if out is not None else default_export_dir(checkpoint, format)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        if format == "hf":
            policy = load_checkpoint_policy(checkpoint, device="cpu")
            policy.model.save_pretrained(tmp)
            policy.tokenizer.save_pretrained(tmp)
        else:
            _export_onnx(checkpoint, tmp, opset)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def _export_onnx(checkpoint: Path, out: Path, opset: int) -> None:
    settings, run = prompt_settings(checkpoint)  # first: it refuses a run whose prompts What if… cannot rebuild
    policy = load_checkpoint_policy(checkpoint, device="cpu", dtype="float32")
    model = policy.model.eval()
    # Plain matmul attention traces into ONNX without shape-specialised branches.
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation("eager")
    else:  # older transformers
        model.config._attn_implementation = "eager"
    # Trace with left padding and more than one token, so the mask path is the general one. The mask is written, not
    # derived from the pad id: a model whose pad token is its EOS (SmolLM2) or a small id would otherwise get holes.
    tokens = [i for i in range(1, 64) if i != policy.pad_id][:5]
    input_ids = torch.full((2, 5), policy.pad_id, dtype=torch.long)
    input_ids[0, 2:] = torch.tensor(tokens[:3])
    input_ids[1, :] = torch.tensor(tokens)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[0, :2] = 0
    axes = {0: "batch", 1: "sequence"}
    # The TorchScript exporter: no extra dependency, dynamic axes as declared (torch ≥ 2.9 defaults to the dynamo one).
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(
            _LogitsOnly(model),
            (input_ids, attention_mask),
            str(out / "model.onnx"),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "logits": axes},
            opset_version=opset,
            **legacy,
        )
    policy.tokenizer.save_pretrained(out)
    _chat_template_in_config(out, policy.tokenizer.chat_template)
    model.config.save_pretrained(out)
    meta = {
        "format": "onnx",
        "exported_by": f"seed-trainer {__version__}",
        "source": str(checkpoint),
        "opset": opset,
        "dtype": "float32",
        "inputs": {
            "input_ids": {"dtype": "int64", "shape": ["batch", "sequence"]},
            "attention_mask": {"dtype": "int64", "shape": ["batch", "sequence"], "note": "1 = token, 0 = padding"},
        },
        "outputs": {"logits": {"dtype": "float32", "shape": ["batch", "sequence", model.config.vocab_size]}},
        "position_ids": "computed in the graph: cumsum(attention_mask) - 1, clamped at 0",
        "pad_token_id": policy.pad_id,
        "stop_token_ids": policy.stop_ids,
        "vocab_size": model.config.vocab_size,
        "context_length": getattr(model.config, "max_position_embeddings", None),
        "run": run,
        "prompt": settings,
    }
    (out / "export.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def _chat_template_in_config(directory: Path, template: object) -> None:
    """Readers that look for the template in tokenizer_config.json (e.g. transformers.js) find it there too."""
    path = directory / "tokenizer_config.json"
    if not isinstance(template, str) or not path.exists():
        return
    config = json.loads(path.read_text(encoding="utf-8"))
    if "chat_template" not in config:
        config["chat_template"] = template
        path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
