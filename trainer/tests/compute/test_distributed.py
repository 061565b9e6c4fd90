"""Several processes under torchrun on the CPU (gloo): the update equals the one-process update, rank 0 alone writes a
complete run directory, a rank that dies fails the job with a clear error, and the run resumes."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml
from testenv import subprocess_env

from seed_trainer.compute.distributed import DistributedSetupError, Ranks, ranks_from_env
from seed_trainer.runlog import RunReader, check_run

TESTS = Path(__file__).resolve().parents[1] / "support"  # the helpers subprocesses import


def test_each_rank_gets_whole_groups_in_order():
    groups = list(range(7))
    shares = [Ranks(r, 3).share(groups) for r in range(3)]
    assert shares == [(0, [0, 1, 2]), (3, [3, 4]), (5, [5, 6])]
    assert [g for _, share in shares for g in share] == groups
    assert Ranks(1, 4).share([0, 1]) == (1, [1]) and Ranks(3, 4).share([0, 1]) == (2, [])


def test_torchrun_environment_is_read_and_checked():
    assert not ranks_from_env({}).distributed
    assert ranks_from_env({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}) == Ranks(1, 2, 1)
    with pytest.raises(DistributedSetupError, match="integers"):
        ranks_from_env({"RANK": "1"})
    with pytest.raises(DistributedSetupError, match="inconsistent"):
        ranks_from_env({"RANK": "2", "WORLD_SIZE": "2", "LOCAL_RANK": "0"})


def _experiment(
    tmp_path: Path, model_dir: Path, *, updates: int = 3, environment: str = "counter_env:CounterTasks", **extra
) -> Path:
    data = {
        "name": "dist",
        "seed": 3,
        "algorithm": "seed",
        "updates": updates,
        "model": {"path": str(model_dir), "device": "cpu"},
        "environment": {"name": environment},
        # 3 groups over 2 ranks: shares of 2 and 1
        "rollout": {
            "tasks_per_update": 3,
            "group_size": 2,
            "max_steps": 2,
            "history": 1,
            "max_prompt_tokens": 256,
            "max_response_tokens": 6,
        },
        "analyzer": {"max_tokens": 8},
        # mini-batches smaller than the update, micro-batches smaller than a mini-batch: the shares matter
        "rl": {"mini_batch_size": 5, "micro_batch_size": 2, "lr": 1e-3},
        "eval": {"every": 0},
        "checkpoint": {"every": 1, "keep_last": 2},
        **extra,
    }
    path = tmp_path / "dist.seed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _torchrun(nproc: int, *args: str, extra_path: Path | None = None, **popen) -> subprocess.Popen:
    env = subprocess_env(OMP_NUM_THREADS="1")
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env["PYTHONPATH"]])
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={nproc}", *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


VARIED_ENV = '''
import json
import counter_env
from seed_trainer.envs.base import StepResult

class VariedEnv(counter_env.CounterEnv):
    """Won when the action text has an even length: outcomes vary within a group whatever the tiny policy writes."""
    def step(self, action):
        result = super().step(action)
        won = len(action) % 2 == 0
        return StepResult(result.observation, True if won else result.done, won, {})

class VariedTasks(counter_env.CounterTasks):
    def make(self, spec):
        return VariedEnv(spec)

    def oracle_analysis(self, spec, episode):
        return json.dumps({"episode_summary": "s", "episode_skill": f"add one {spec.target} times, then finish"})
'''


# The driver's updates of the tests below: (distributed strategy, model dtype, poisoned).
UPDATES = {
    "replicate": ("replicate", "float32", False),
    "fsdp": ("fsdp", "float32", False),
    "fsdp-bf16": ("fsdp", "bfloat16", False),
    "fsdp-poisoned": ("fsdp", "float32", True),
}


@pytest.fixture(scope="module")
def driver_updates(tmp_path_factory, tiny_policy_dir) -> dict[str, dict[int, dict]]:
    """Each update of UPDATES made by one process and by two (dist_update_driver.py): {name: {nproc: result}}. All of
    them in one torchrun launch per process count: starting torchrun and its ranks costs more than the updates."""
    tmp = tmp_path_factory.mktemp("driver")
    (tmp / "varied_env.py").write_text(VARIED_ENV, encoding="utf-8")
    experiments = {}
    for name, (strategy, dtype, _) in UPDATES.items():
        (tmp / name).mkdir()
        experiments[name] = _experiment(
            tmp / name,
            tiny_policy_dir,
            environment="varied_env:VariedTasks",
            model={"path": str(tiny_policy_dir), "device": "cpu", "dtype": dtype},
            opd={"skill_source": "oracle"},
            distributed={"strategy": strategy},
        )
    results: dict[str, dict[int, dict]] = {name: {} for name in UPDATES}
    for nproc in (1, 2):
        jobs = [
            {"experiment": str(experiments[name]), "out": str(tmp / f"{name}-{nproc}.json"), "poison": poison}
            for name, (_, _, poison) in UPDATES.items()
        ]
        jobs_file = tmp / f"jobs-{nproc}.json"
        jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
        code, _, err = _finish(_torchrun(nproc, str(TESTS / "dist_update_driver.py"), str(jobs_file), extra_path=tmp))
        assert code == 0, err[-3000:]
        for name in UPDATES:
            results[name][nproc] = json.loads((tmp / f"{name}-{nproc}.json").read_text())
    return results


@pytest.mark.parametrize("strategy", ["replicate", "fsdp"])
def test_two_processes_make_the_one_process_update(driver_updates, strategy):
    """`fsdp`: FSDP2 runs on gloo (CPU), with the same numbers as one process."""
    one, two = driver_updates[strategy][1], driver_updates[strategy][2]
    assert one["world"] == 1 and two["world"] == 2
    assert not one["sharded"] and two["sharded"] == (strategy == "fsdp")
    assert two["groups"] == one["groups"]  # the same episodes, in the same order, with update-wide group ids
    assert sorted({g for g, _, _ in two["groups"]}) == [0, 1, 2]
    assert two["advantages"] == pytest.approx(one["advantages"], abs=1e-6)
    assert set(two["metrics"]) == set(one["metrics"]) and {"loss", "pg_loss", "kl", "opd_loss", "grad_norm"} <= set(
        one["metrics"]
    )
    for name, value in one["metrics"].items():
        assert two["metrics"][name] == pytest.approx(value, abs=1e-5), name
    # every term of the loss takes part (GRPO advantages vary, the oracle's skills switch OPD on)
    assert one["metrics"]["grad_norm"] > 0 and any(a != 0 for a in one["advantages"])
    assert one["metrics"]["pg_loss"] != 0 and one["metrics"]["opd_loss"] != 0 and one["metrics"]["kl"] != 0
    moved = 0.0
    for name, values in one["weights"].items():
        other = two["weights"][name]
        assert max(abs(a - b) for a, b in zip(values, other)) <= 1e-5, name
        moved = max(moved, max(abs(a) for a in values))
    assert moved > 0


def test_fsdp_in_bf16_gathers_bf16_weights_and_steps_fp32_shards_close_to_one_process(driver_updates):
    """The CUDA configuration on the CPU: MixedPrecisionPolicy(bf16 parameters, fp32 reduction) against one process's
    fp32 master weights under bf16 autocast. Not equal: autocast keeps the residual stream in fp32 (the embedding
    output is fp32), bf16 parameters make it bf16 — a difference of about 1 % in the losses, none in the episodes.
    The driver also checks that the bf16 inference copy is the rounded fp32 shards, all-gathered."""
    one, two = driver_updates["fsdp-bf16"][1], driver_updates["fsdp-bf16"][2]
    assert two["sharded"] and two["groups"] == one["groups"]
    assert two["metrics"]["skipped_steps"] == one["metrics"]["skipped_steps"] == 0
    for name in ("loss", "pg_loss", "kl", "opd_loss", "entropy", "grad_norm"):
        assert math.isfinite(two["metrics"][name]), name
        assert two["metrics"][name] == pytest.approx(one["metrics"][name], rel=0.2, abs=2e-3), name
    # the master weights stay fp32: after an AdamW step at lr 1e-3 they are off the bf16 grid
    bf16_grid = all(torch.equal(t, t.bfloat16().float()) for t in (torch.tensor(v) for v in two["weights"].values()))
    assert not bf16_grid
    worst = max(max(abs(a - b) for a, b in zip(one["weights"][n], two["weights"][n])) for n in one["weights"])
    assert worst < 2e-2, worst


def test_fsdp_skips_a_non_finite_step_on_every_rank_like_one_process(driver_updates):
    """The non-finite guard under FSDP: the rank holding the NaN micro-batch still back-propagates (the others wait
    for its reduce-scatter), and every rank skips that mini-batch's step, as one process does."""
    one, two = driver_updates["fsdp-poisoned"][1], driver_updates["fsdp-poisoned"][2]
    assert two["sharded"] and one["metrics"]["skipped_steps"] >= 1
    assert two["metrics"]["skipped_steps"] == one["metrics"]["skipped_steps"]
    for name, value in one["metrics"].items():
        assert math.isfinite(value) and two["metrics"][name] == pytest.approx(value, abs=1e-5), name
    # the other mini-batches' steps were taken (a grad norm is reported only for a step taken), with finite weights
    assert "grad_norm" in one["metrics"] and "grad_norm" in two["metrics"]
    for name, values in one["weights"].items():
        assert all(math.isfinite(v) for v in two["weights"][name]), name
        assert max(abs(a - b) for a, b in zip(values, two["weights"][name])) <= 1e-5, name


def _trajectory_groups(run_dir: Path, update: int) -> list[tuple[int, int]]:
    reader = RunReader(run_dir)
    return sorted((t["group"], t["sample"]) for _, t in reader.iter_trajectories(f"it-{update:06d}.jsonl"))


SLOW_ENV = """
import time
import counter_env

class SlowCounterEnv(counter_env.CounterEnv):
    def step(self, action):
        time.sleep(0.05)
        return super().step(action)

class SlowCounterTasks(counter_env.CounterTasks):
    def make(self, spec):
        return SlowCounterEnv(spec)
"""
SLOW = "slow_counter_env:SlowCounterTasks"  # the counter tasks with time between steps, to stop or kill a run mid-way


@pytest.fixture(scope="module")
def slow_env_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slow-env")
    (folder / "slow_counter_env.py").write_text(SLOW_ENV, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory, tiny_policy_dir, slow_env_dir):
    """An uninterrupted 2-process run: (run directory, torchrun's stdout)."""
    tmp = tmp_path_factory.mktemp("two")
    path = _experiment(tmp, tiny_policy_dir, environment=SLOW)
    run_dir = tmp / "runs" / "two"
    code, out, err = _finish(
        _torchrun(2, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir), extra_path=slow_env_dir)
    )
    assert code == 0, err[-3000:]
    return run_dir, out


def test_torchrun_train_writes_one_complete_run(two_process_run):
    run_dir, out = two_process_run
    reader = RunReader(run_dir)
    manifest = reader.manifest()
    assert manifest["status"] == "completed" and manifest["pid"] != os.getpid()
    assert check_run(run_dir).ok, check_run(run_dir)
    rows = [r for r in reader.metrics() if r["kind"] == "update"]
    assert [r["step"] for r in rows] == [1, 2, 3]
    for update in (1, 2, 3):  # rank 0 wrote both ranks' trajectories: every group, every copy, once
        assert _trajectory_groups(run_dir, update) == [(g, i) for g in range(3) for i in range(2)]
    assert any("2 processes" in e["message"] for e in reader.events())
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["step-000002", "step-000003"]
    assert (run_dir / "checkpoints" / "step-000003" / "rng_state_ranks.pt").is_file()
    # one JSON event stream on stdout (rank 0's): every line parses, one `finished`
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [e["type"] for e in events].count("finished") == 1


def _rank_pid(launcher: int, rank: int) -> int | None:
    """The pid of the torchrun worker with RANK=`rank` among the launcher's children (Linux /proc)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat[stat.rindex(")") + 2 :].split()[1])
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if parent == launcher and f"RANK={rank}".encode() in environ:
            return int(entry.name)
    return None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the rank's process through /proc (Linux only)")
def _await_checkpoint(launcher: subprocess.Popen, run_dir: Path, update: int) -> None:
    deadline = time.monotonic() + 240
    while not (run_dir / "checkpoints" / f"step-{update:06d}").is_dir():
        assert launcher.poll() is None, launcher.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"no checkpoint of update {update} in time"
        time.sleep(0.05)


def _numbers(run_dir: Path) -> dict[int, dict]:
    """Update rows by step without wall times."""
    rows = [r for r in RunReader(run_dir).metrics() if r["kind"] == "update"]
    return {r["step"]: {k: v for k, v in r.items() if not k.startswith("time")} for r in rows}


def test_stop_and_resume_under_torchrun_repeat_the_uninterrupted_run(
    tmp_path, tiny_policy_dir, slow_env_dir, two_process_run
):
    path = _experiment(tmp_path, tiny_policy_dir, environment=SLOW)
    run_dir = tmp_path / "runs" / "stopped"
    launcher = _torchrun(
        2, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir), extra_path=slow_env_dir
    )
    try:
        _await_checkpoint(launcher, run_dir, 1)
        (run_dir / "control").write_text("", encoding="utf-8")  # the extension's stop request
        code, _, err = _finish(launcher)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.communicate()
    assert code == 0, err[-3000:]
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "stopped" and manifest["progress"]["step"] < 3, manifest["status"]
    code, _, err = _finish(_torchrun(2, "-m", "seed_trainer", "resume", str(run_dir), extra_path=slow_env_dir))
    assert code == 0, err[-3000:]
    assert RunReader(run_dir).manifest()["status"] == "completed" and check_run(run_dir).ok
    # each rank's sampling RNG came back from the checkpoint: the updates are the uninterrupted run's
    assert _numbers(run_dir) == _numbers(two_process_run[0])


@pytest.mark.parametrize("strategy, updates", [("replicate", 4), ("fsdp", 3)])
def test_a_dead_rank_fails_the_job_clearly_and_the_run_resumes(
    tmp_path, tiny_policy_dir, slow_env_dir, strategy, updates
):
    path = _experiment(tmp_path, tiny_policy_dir, updates=updates, environment=SLOW, distributed={"strategy": strategy})
    run_dir = tmp_path / "runs" / "killed"
    launcher = _torchrun(
        2, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir), extra_path=slow_env_dir
    )
    try:
        _await_checkpoint(launcher, run_dir, 1)
        victim = _rank_pid(launcher.pid, 1)
        assert victim is not None, "rank 1's process was not found"
        os.kill(victim, signal.SIGKILL)
        code, _, err = _finish(launcher)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.communicate()
    assert code != 0
    manifest = RunReader(run_dir).manifest()
    assert manifest["status"] == "failed", (manifest["status"], err[-3000:], RunReader(run_dir).events()[-3:])
    assert "another rank stopped responding" in manifest["error"] and "resume" in manifest["error"], manifest["error"]
    assert "another rank stopped responding" in err

    code, _, err = _finish(_torchrun(2, "-m", "seed_trainer", "resume", str(run_dir), extra_path=slow_env_dir))
    assert code == 0, err[-3000:]
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed" and check_run(run_dir).ok
    assert [r["step"] for r in reader.metrics() if r["kind"] == "update"] == list(range(1, updates + 1))
    for update in range(1, updates + 1):
        assert _trajectory_groups(run_dir, update) == [(g, i) for g in range(3) for i in range(2)]
    assert "resumed" in [e["type"] for e in reader.events()]


def test_command_line_under_torchrun(tmp_path, tiny_policy_dir, monkeypatch, capsys):
    from seed_trainer.cli import main

    path = _experiment(tmp_path, tiny_policy_dir)
    monkeypatch.setenv("RANK", "x")
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert main(["validate", str(path)]) == 2 and "must be integers" in capsys.readouterr().err
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    # only Stage 2 is shared: another rank leaves `collect` to rank 0 and writes nothing
    assert main(["collect", str(path), "--run-dir", str(tmp_path / "c")]) == 0
    assert "runs in one process (rank 0)" in capsys.readouterr().err and not (tmp_path / "c").exists()


# -- distributed.strategy: fsdp ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fsdp_run(tmp_path_factory, tiny_policy_dir, slow_env_dir):
    """An uninterrupted 2-process FSDP run: (run directory, experiment file)."""
    tmp = tmp_path_factory.mktemp("fsdp")
    path = _experiment(tmp, tiny_policy_dir, environment=SLOW, distributed={"strategy": "fsdp"})
    run_dir = tmp / "runs" / "fsdp"
    code, _, err = _finish(
        _torchrun(2, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir), extra_path=slow_env_dir)
    )
    assert code == 0, err[-3000:]
    return run_dir, path


def test_fsdp_run_writes_sharded_checkpoints_with_a_full_weight_export(fsdp_run, tiny_policy_dir):
    from safetensors.torch import load_file

    from seed_trainer.checkpoints.checkpoint import load_checkpoint_policy

    run_dir, _ = fsdp_run
    reader = RunReader(run_dir)
    assert reader.manifest()["status"] == "completed" and check_run(run_dir).ok, check_run(run_dir)
    assert [r["step"] for r in reader.metrics() if r["kind"] == "update"] == [1, 2, 3]
    checkpoint = run_dir / "checkpoints" / "step-000003"
    # the sharded model + optimizer state (every rank's part), no single-file optimizer state
    assert (checkpoint / "distributed" / ".metadata").is_file() and not (checkpoint / "optimizer.pt").exists()
    assert len(list((checkpoint / "distributed").glob("*.distcp"))) == 2
    # the Hugging Face export holds the whole fp32 master weights, moved by training
    trained, initial = load_file(checkpoint / "model.safetensors"), load_file(tiny_policy_dir / "model.safetensors")
    assert set(trained) == set(initial) and all(t.dtype == torch.float32 for t in trained.values())
    assert all(trained[k].shape == initial[k].shape for k in initial)
    assert any(not torch.equal(trained[k], initial[k]) for k in initial)
    policy = load_checkpoint_policy(checkpoint, device="cpu", dtype="float32")
    assert policy.generate([[1, 2, 3]], max_new_tokens=3, greedy=True)[0].response_ids


def test_a_sharded_checkpoint_loads_into_one_unsharded_process(fsdp_run):
    """A run trained with fsdp resumed by one process: DCP reassembles the shards, the weights are the export's."""
    import random

    from safetensors.torch import load_file

    from seed_trainer.checkpoints.checkpoint import load_training_state
    from seed_trainer.compute.policy import Policy
    from seed_trainer.experiment.loading import load_experiment

    run_dir, path = fsdp_run
    checkpoint = run_dir / "checkpoints" / "step-000003"
    config = load_experiment(path)
    policy = Policy.load(config.resolved_model())
    optimizer = torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad], lr=config.rl.lr)
    state = load_training_state(checkpoint, policy, optimizer, random.Random(0))
    assert state["update"] == 3
    exported = load_file(checkpoint / "model.safetensors")
    for name, param in policy.model.named_parameters():
        assert torch.equal(param.detach(), exported[name]), name
    moments = [optimizer.state[p] for p in policy.model.parameters()]
    assert all(
        m["exp_avg"].shape == p.shape and m["exp_avg_sq"].abs().sum() > 0
        for m, p in zip(moments, policy.model.parameters())
    )
    assert all(float(m["step"]) == float(moments[0]["step"]) > 0 for m in moments)


def test_fsdp_stop_and_resume_repeat_the_uninterrupted_run(tmp_path, fsdp_run, slow_env_dir):
    uninterrupted, path = fsdp_run
    run_dir = tmp_path / "stopped"
    launcher = _torchrun(
        2, "-m", "seed_trainer", "train", str(path), "--run-dir", str(run_dir), extra_path=slow_env_dir
    )
    try:
        _await_checkpoint(launcher, run_dir, 1)
        (run_dir / "control").write_text("", encoding="utf-8")
        code, _, err = _finish(launcher)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.communicate()
    assert code == 0, err[-3000:]
    assert RunReader(run_dir).manifest()["progress"]["step"] < 3
    code, _, err = _finish(_torchrun(2, "-m", "seed_trainer", "resume", str(run_dir), extra_path=slow_env_dir))
    assert code == 0, err[-3000:]
    assert RunReader(run_dir).manifest()["status"] == "completed" and check_run(run_dir).ok
    # the shards of the weights and of AdamW's moments came back: the updates are the uninterrupted run's
    assert _numbers(run_dir) == _numbers(uninterrupted)


def test_fsdp_settings_that_cannot_go_together_are_clear_errors(tmp_path, tiny_policy_dir):
    from seed_trainer.experiment.config import ExperimentError
    from seed_trainer.experiment.loading import load_experiment

    lora = _experiment(
        tmp_path,
        tiny_policy_dir,
        distributed={"strategy": "fsdp"},
        model={"path": str(tiny_policy_dir), "device": "cpu", "lora": {"r": 4}},
    )
    with pytest.raises(
        ExperimentError,
        match=r"dist\.seed\.yaml:\d+:\d+: distributed\.strategy: `fsdp` shards a full "
        r"fine-tune; LoRA trains with `replicate`",
    ):
        load_experiment(lora)
    vllm = _experiment(
        tmp_path,
        tiny_policy_dir,
        distributed={"strategy": "fsdp"},
        rollout={"tasks_per_update": 3, "group_size": 2, "engine": "vllm"},
    )
    with pytest.raises(ExperimentError, match=r"distributed\.strategy: `fsdp` generates with `rollout\.engine: hf`"):
        load_experiment(vllm)
    # one process: nothing to shard, the run is the single-process run
    assert (
        load_experiment(_experiment(tmp_path, tiny_policy_dir, distributed={"strategy": "fsdp"})).distributed.strategy
        == "fsdp"
    )
