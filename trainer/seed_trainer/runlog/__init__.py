"""The run directory (docs/run-format.md): what the trainer writes and what anyone reads back.

    from seed_trainer.runlog import RunWriter, RunReader, TokenArrays, check_run

Modules: `layout` (file names, format version), `errors` (located errors), `jsonl` (line files), `atomic`
(temp + rename), `tokens` (base64 typed arrays), `schemas` (JSON Schema validation), `environment` (pid, host,
versions, device), `fields` (instants, ids, metric names), `metric_names` (the names schemas/metric.schema.json
lists), `writer` (with `reporters` and `trajectory_index`), `reader`, `check`.
"""

from seed_trainer.runlog.check import RunCheck, check_run
from seed_trainer.runlog.environment import RunEnvironment
from seed_trainer.runlog.errors import RunFormatError, TornLine, format_field_path
from seed_trainer.runlog.fields import metric_name
from seed_trainer.runlog.layout import FORMAT_VERSION, RunPaths, trajectory_file_name
from seed_trainer.runlog.metric_names import MetricNames, known_metric_names
from seed_trainer.runlog.reader import RunReader
from seed_trainer.runlog.schemas import SchemaSet, find_schemas_dir
from seed_trainer.runlog.tokens import TokenArrays, decode_float32, decode_int32, encode_float32, encode_int32
from seed_trainer.runlog.writer import RunWriter

__all__ = [
    "FORMAT_VERSION",
    "MetricNames",
    "RunCheck",
    "RunEnvironment",
    "RunFormatError",
    "RunPaths",
    "RunReader",
    "RunWriter",
    "SchemaSet",
    "TokenArrays",
    "TornLine",
    "check_run",
    "decode_float32",
    "decode_int32",
    "encode_float32",
    "encode_int32",
    "find_schemas_dir",
    "format_field_path",
    "known_metric_names",
    "metric_name",
    "trajectory_file_name",
]
