"""Stage-2 checkpoints: what one holds and how it is saved and loaded (checkpoint), which of a run's checkpoints are
complete and which one `resume` continues from (folder), and what `resume` keeps of the records (rollback)."""
