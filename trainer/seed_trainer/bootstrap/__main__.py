"""`python -m seed_trainer.bootstrap`: build a tiny built-in policy (tiny_policy.main)."""

from seed_trainer.bootstrap.tiny_policy import main

raise SystemExit(main())
