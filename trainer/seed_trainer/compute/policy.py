"""The policy: a Hugging Face causal LM with its tokenizer, the KL reference, batched generation and response log-probs.

A scored batch has the layout of `compute/response_scoring.py` (right-padded prompt + response rows, no attention mask).
Generation alone left-pads (batched decoding needs it). Scoring sorts the rows by length and packs them into
micro-batches under a token budget (`batching.plan_micro_batches`), so short rows are not padded to the longest of the
whole pass.

Precision (docs/trainer.md, "Mixed precision"): `model.dtype` is the *compute* dtype. A policy that trains keeps its
weights in fp32 (the master weights the optimizer steps on) and runs every forward under `torch.autocast` in the
compute dtype; a LoRA policy keeps the frozen base in the compute dtype and its adapters in fp32; a policy that only
infers (evaluation, collection, export) is loaded in the compute dtype. Log-probs are always taken in fp32 from the
logits (`algo.logprobs`).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GenerationConfig,
    LogitsProcessor,
    LogitsProcessorList,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    StaticCache,
)
from transformers.generation import utils as generation_utils

from seed_trainer.algo.estimators import GateTargets, gate_targets
from seed_trainer.algo.logprobs import CHUNK_BYTES, selective_log_softmax
from seed_trainer.compute.batching import plan_micro_batches
from seed_trainer.compute.precision import NonFiniteError, autocast, configure_attention_kernels
from seed_trainer.compute.response_scoring import pack, response_hidden, response_logprobs
from seed_trainer.experiment.config import ModelConfig

# transformers renamed generate's `past_key_values` to `cache` (the old name warns on every call in newer releases).
_CACHE_KWARG = "cache" if "cache" in getattr(generation_utils, "ALL_CACHE_NAMES", ()) else "past_key_values"


def resolve_device(requested: str) -> torch.device:
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("model.device is 'cuda' but torch sees no CUDA device")
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)


def resolve_dtype(requested: str, device: torch.device) -> torch.dtype:
    """The compute dtype: `auto` is bf16 on CUDA devices that have it, fp16 (with a grad scaler) on older CUDA
    devices, fp32 on the CPU."""
    if requested == "auto":
        if device.type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[requested]


@dataclass
class Generation:
    prompt_ids: list[int]
    response_ids: list[int]  # sampled tokens, including the end-of-turn token when one was produced
    text: str  # decoded response without special tokens
    finished: bool  # ended with an end-of-turn token (not cut by max_new_tokens)
    logp: torch.Tensor | None = None  # log-prob of each sampled token under the sampling distribution (CPU fp32)


class FiniteLogitsCheck(LogitsProcessor):
    """Raises `NonFiniteError` when a decoding step's logits hold NaN or +inf (or a row is all −inf), instead of
    letting `torch.multinomial` die in a device-side assert with no word about where. −inf alone is legitimate."""

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        bad = torch.isnan(scores).any() | torch.isposinf(scores).any() | torch.isneginf(scores).all(dim=-1).any()
        if bool(bad):
            raise NonFiniteError(f"non-finite logits while generating token {input_ids.shape[1]} of the batch")
        return scores


class Policy:
    """Owns the trainable model, the tokenizer and the frozen KL reference."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        device: torch.device,
        reference: PreTrainedModel | None = None,
        compute_dtype: torch.dtype = torch.float32,
    ):
        self.model = model
        self.tokenizer = tokenizer
        self.device = device
        self.compute_dtype = compute_dtype
        self._reference = reference  # None with LoRA: the reference is the model with adapters disabled
        # Under distributed.strategy fsdp: the unsharded copy that generates and scores (compute/sharding.py); None otherwise.
        self.inference_model: PreTrainedModel | None = None
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.pad_id: int = tokenizer.pad_token_id
        self.stop_ids = self._stop_token_ids()

    @classmethod
    def load(cls, config: ModelConfig, *, with_reference: bool = True, trainable: bool = True) -> Policy:
        """The policy of `config`. `with_reference=False` skips the frozen reference copy of a full fine-tune
        (SFT, evaluation and export never score against the reference). `trainable=False` loads the weights in the
        compute dtype (no fp32 master copy) for a policy that only generates and scores."""
        device = resolve_device(config.device)
        dtype = resolve_dtype(config.dtype, device)
        configure_attention_kernels(device, dtype)
        tokenizer = AutoTokenizer.from_pretrained(config.path)
        tokenizer.padding_side = "left"
        # fp32 master weights for a full fine-tune; a LoRA base is frozen, so it stays in the compute dtype.
        storage = torch.float32 if trainable and config.lora is None else dtype
        model = AutoModelForCausalLM.from_pretrained(config.path, dtype=storage).to(device)
        reference = None
        if config.lora is not None:
            from peft import LoraConfig, get_peft_model

            lora = LoraConfig(
                r=config.lora.r,
                lora_alpha=config.lora.alpha,
                lora_dropout=config.lora.dropout,
                target_modules=config.lora.target_modules,
                task_type="CAUSAL_LM",
            )
            model = get_peft_model(model, lora, autocast_adapter_dtype=True)  # adapters in fp32 over a bf16 base
            for param in model.parameters():
                if param.requires_grad and param.dtype != torch.float32:
                    param.data = param.data.float()
        elif with_reference:
            # The reference never trains: keep it in the compute dtype (half the memory of the fp32 master).
            reference = copy.deepcopy(model).to(dtype).eval().requires_grad_(False)
        if config.gradient_checkpointing:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if config.lora is not None:
                model.enable_input_require_grads()
        return cls(model, tokenizer, device, reference, compute_dtype=dtype)

    @property
    def runner(self) -> PreTrainedModel:
        """The model that generates and scores: the policy itself, or its unsharded inference copy under FSDP."""
        return self.inference_model if self.inference_model is not None else self.model

    def autocast(self):
        """The forward-pass context: autocast to the compute dtype (nothing in fp32)."""
        return autocast(self.device, self.compute_dtype)

    def _stop_token_ids(self) -> list[int]:
        ids = {self.tokenizer.eos_token_id}
        im_end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        if isinstance(im_end, int) and im_end != self.tokenizer.unk_token_id:
            ids.add(im_end)
        generation_eos = getattr(getattr(self.model, "generation_config", None), "eos_token_id", None)
        if isinstance(generation_eos, int):
            ids.add(generation_eos)
        elif isinstance(generation_eos, list):
            ids.update(generation_eos)
        return sorted(i for i in ids if i is not None)

    # --- prompts -------------------------------------------------------------------------------------------

    def encode_chat(self, user_text: str, max_prompt_tokens: int) -> list[int]:
        """One user turn through the model's chat template, left-truncated to `max_prompt_tokens`."""
        ids = self.tokenizer.apply_chat_template(
            [{"role": "user", "content": user_text}], add_generation_prompt=True, tokenize=True
        )
        if hasattr(ids, "keys"):  # some tokenizers return a BatchEncoding
            ids = ids["input_ids"]
        ids = list(ids)
        return ids[-max_prompt_tokens:] if len(ids) > max_prompt_tokens else ids

    # --- generation ----------------------------------------------------------------------------------------

    @torch.no_grad()
    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        temperature: float = 1.0,
        greedy: bool = False,
        batch_size: int = 64,
        with_logprobs: bool = False,
        min_new_tokens: int = 0,
    ) -> list[Generation]:
        """Batched generation with KV cache over left-padded prompts.

        Sampling is plain: temperature only, no top-k/top-p, no repetition penalty — a model's own
        `generation_config` defaults (Qwen2.5-Instruct ships top_k 20, top_p 0.8, repetition_penalty 1.05) are not
        applied, so the distribution that samples is the one `score` computes. `with_logprobs` also returns each
        sampled token's log-prob under that distribution, from the logits the sampling step saw (generate keeps every
        step's logits for that: B × steps × vocabulary floats — meant for small vocabularies)."""
        runner = self.runner
        was_training = runner.training
        runner.eval()
        # More prompts than one batch: batch them by length, so short prompts are not left-padded to long ones.
        order = list(range(len(prompts)))
        if len(prompts) > batch_size:
            order.sort(key=lambda i: len(prompts[i]))
        results: list[Generation | None] = [None] * len(prompts)
        try:
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = self._generate_batch(
                    [prompts[i] for i in rows], max_new_tokens, temperature, greedy, with_logprobs, min_new_tokens
                )
                for i, generation in zip(rows, batch):
                    results[i] = generation
        finally:
            runner.train(was_training)
        return results  # type: ignore[return-value]

    def _generate_batch(self, prompts, max_new_tokens, temperature, greedy, with_logprobs=False, min_new_tokens=0):
        width = max(len(p) for p in prompts)
        input_ids = torch.tensor(
            [[self.pad_id] * (width - len(p)) + list(p) for p in prompts], dtype=torch.long, device=self.device
        )
        attention_mask = torch.tensor(
            [[0] * (width - len(p)) + [1] * len(p) for p in prompts], dtype=torch.long, device=self.device
        )
        sampling = (
            {"do_sample": False}
            if greedy
            else {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0}
        )
        config = GenerationConfig(
            max_new_tokens=max_new_tokens,
            min_new_tokens=min_new_tokens,
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            use_cache=True,
            return_dict_in_generate=True,
            output_logits=with_logprobs,
            **sampling,
        )
        with self.autocast():
            # On the CPU a preallocated cache saves the per-token concatenation of the dynamic one (8 % of a
            # household rollout). A fresh one per call: a cache kept from an earlier call is longer, and attention
            # over a different length rounds differently, so a resumed run would no longer repeat its updates exactly.
            cache = None
            if self.device.type == "cpu":
                cache = StaticCache(config=self.runner.config, max_cache_len=width + max_new_tokens)
            output = self.runner.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                generation_config=config,
                **({_CACHE_KWARG: cache} if cache is not None else {}),
                logits_processor=LogitsProcessorList([FiniteLogitsCheck()]),
            )
        sampled = output.sequences[:, width:]
        logp = None
        if with_logprobs:  # raw logits of each step, [B, steps, V] → the sampled token's log-prob at the temperature
            logits = torch.stack(output.logits, dim=1).float()
            if not greedy and temperature != 1.0:
                logits = logits / temperature
            logp = selective_log_softmax(logits, sampled).cpu()
        generations = []
        for row, (prompt, tokens) in enumerate(zip(prompts, sampled.tolist())):
            response, finished = [], False
            for token in tokens:
                response.append(token)
                if token in self.stop_ids:
                    finished = True
                    break
            text = self.tokenizer.decode(response, skip_special_tokens=True)
            row_logp = logp[row, : len(response)].clone() if logp is not None else None
            generations.append(Generation(list(prompt), response, text, finished, row_logp))
        return generations

    # --- scoring -------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def reference_model(self) -> Iterator[PreTrainedModel]:
        """The KL reference: the frozen copy, or the LoRA model with its adapters switched off."""
        if self._reference is not None:
            yield self._reference
        else:
            with self.model.disable_adapter():
                yield self.model

    @torch.no_grad()
    def score(
        self,
        prompts: Sequence[Sequence[int]],
        responses: Sequence[Sequence[int]],
        temperature: float = 1.0,
        micro_batch_size: int = 8,
        reference: bool = False,
        max_tokens: int | None = None,
    ) -> list[torch.Tensor]:
        """Per-token log-probs (CPU float32, one tensor per response, in the order given) without gradients.

        Rows are scored in micro-batches of similar length: at most `micro_batch_size` rows and, when `max_tokens` is
        set, at most that many padded tokens. Raises `NonFiniteError` when a log-prob is not finite."""
        out: list[torch.Tensor | None] = [None] * len(prompts)
        runner = self.runner
        context = self.reference_model() if reference else contextlib.nullcontext(runner)
        lengths = [len(p) + len(r) for p, r in zip(prompts, responses)]
        was_training = runner.training
        runner.eval()
        try:
            with context as model, self.autocast():
                for rows in plan_micro_batches(lengths, micro_batch_size, max_tokens):
                    batch = pack([prompts[i] for i in rows], [responses[i] for i in rows], self.pad_id, self.device)
                    logp, _ = response_logprobs(model, batch, temperature)
                    finite = torch.isfinite(logp) | (batch.response_mask == 0)
                    if not bool(finite.all()):
                        raise NonFiniteError(
                            f"non-finite log-probs in {int((~finite).sum())} response tokens of "
                            f"{'the reference' if reference else 'the policy'}"
                        )
                    for i, row in zip(rows, logp.float().cpu()):
                        out[i] = row[: len(responses[i])].clone()
        finally:
            runner.train(was_training)
        return out  # type: ignore[return-value]

    @torch.no_grad()
    def score_gate_targets(
        self,
        student_prompts: Sequence[Sequence[int]],
        teacher_prompts: Sequence[Sequence[int]],
        responses: Sequence[Sequence[int]],
        *,
        beta: float,
        keep: str,
        top_k: int | None = None,
        temperature: float = 1.0,
        micro_batch_size: int = 8,
        max_tokens: int | None = None,
    ) -> list[GateTargets]:
        """The teacher pass of the `baseline` and `expected` OPD estimators (algo/estimators.py): π_old's full
        next-token distributions at every response position under the student prompt and under the teacher prompt,
        reduced at once to the teacher's log-prob of the sampled token, b(s) and (`keep` full / top_k) the weights
        π_old(v)·g(v). One CPU `GateTargets` per response, in the order given.

        The output layer runs on a few positions at a time (about `CHUNK_BYTES` of fp32 logits per prompt), so no
        [B, R, V] logits tensor exists: the extra memory over a plain scoring pass is the student's hidden states."""
        out: list[GateTargets | None] = [None] * len(responses)
        runner = self.runner
        head = runner.get_output_embeddings()
        # six [positions, V] fp32 tensors live at once: two log-softmaxes, the gate, the weights and their temporaries
        positions = max(1, CHUNK_BYTES // (6 * 4 * head.weight.shape[0]))
        lengths = [max(len(s), len(t)) + len(r) for s, t, r in zip(student_prompts, teacher_prompts, responses)]
        was_training = runner.training
        runner.eval()
        try:
            with self.autocast():
                for rows in plan_micro_batches(lengths, micro_batch_size, max_tokens):
                    rs = [responses[i] for i in rows]
                    student = pack([student_prompts[i] for i in rows], rs, self.pad_id, self.device)
                    teacher = pack([teacher_prompts[i] for i in rows], rs, self.pad_id, self.device)
                    hidden_old, hidden_teacher = response_hidden(runner, student), response_hidden(runner, teacher)
                    for j, i in enumerate(rows):
                        n = len(responses[i])
                        parts = []
                        for start in range(0, n, positions):
                            at = slice(start, min(n, start + positions))
                            old_logits = head(hidden_old[j, at]) / temperature
                            teacher_logits = head(hidden_teacher[j, at]) / temperature
                            parts.append(
                                gate_targets(
                                    old_logits,
                                    teacher_logits,
                                    student.responses[j, at],
                                    beta=beta,
                                    keep=keep,
                                    top_k=top_k,
                                )
                            )
                        out[i] = _joined(parts, n)
                        if not bool(torch.isfinite(out[i].teacher_logp).all()):
                            raise NonFiniteError("non-finite log-probs in the teacher pass (with full distributions)")
        finally:
            runner.train(was_training)
        return out  # type: ignore[return-value]


def _joined(parts: list[GateTargets], n: int) -> GateTargets:
    """One response's chunks of gate targets as one CPU GateTargets (float32; ids int32)."""

    def cat(name: str) -> torch.Tensor | None:
        values = [getattr(p, name) for p in parts]
        if not values or values[0] is None:
            return None
        joined = torch.cat(values).cpu()
        return joined if joined.dtype == torch.int32 else joined.float()

    if not parts:  # an empty response
        return GateTargets(torch.zeros(n), torch.zeros(n))
    return GateTargets(
        cat("teacher_logp"), cat("baseline"), cat("target_ids"), cat("target_weights"), cat("target_tail")
    )
