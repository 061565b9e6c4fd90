"""The learning benchmark's library, imported by bench/learning/learning.py (its command line), the other scripts of
bench/learning and the tests: `algorithms` (the starting policies, the algorithms with their variants and controls, the
seeds of each, the runs still to make), `experiments` (the benchmark's settings as one run's experiment file, and the
settings an existing run was made with otherwise), `runs` (running the trainer's stages of one seed, the fingerprint of
the start weights, what an evaluation measured), `stats` (means and 95 % intervals across seeds, over pooled episodes
and paired by seed or task), `diagnostics` (a train run's OPD diagnostics and how faithful its self-written skills
are), `report` (the report JSON: its settings, the entries kept from an earlier report, each run's entry, the summary)
and `plot` (its figure). Importing it puts trainer/ on sys.path, so the scripts import seed_trainer without an
installed trainer."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "trainer"))
