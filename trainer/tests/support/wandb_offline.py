"""Reads what W&B wrote for an offline run, for the tests: its `run-<id>.wandb` record log and its table files.

W&B (0.31) has no Python reader of offline runs any more (`wandb sync` and `wandb leet` read them in its Go core), so
this reads the file the way its writer frames it — a 7-byte header (`:W&B`, magic 0xBEE1, version 0), then records in
32 KiB blocks of [CRC-32 of kind + data, little-endian u32][length u16][kind u8: 1 full, 2 first, 3 middle, 4 last] —
and decodes each record with W&B's own protobuf message (`wandb.proto.wandb_internal_pb2.Record`). Every checksum is
verified, so a misread framing fails loudly.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

BLOCK = 32 * 1024
HEADER = b":W&B" + struct.pack("<HB", 0xBEE1, 0)


def records(path: Path) -> list[Any]:
    from wandb.proto import wandb_internal_pb2

    data = Path(path).read_bytes()
    assert data[: len(HEADER)] == HEADER, f"{path}: not a W&B record log ({data[:7]!r})"
    out, pending, pos = [], b"", len(HEADER)
    while pos + 7 <= len(data):
        if BLOCK - pos % BLOCK < 7:  # a block's tail too short for a record header is padding
            pos += BLOCK - pos % BLOCK
            continue
        checksum, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        chunk = data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        if kind == 0 and length == 0:
            continue
        assert zlib.crc32(bytes([kind]) + chunk) == checksum, f"{path}: bad checksum at byte {pos}"
        pending += chunk
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            out.append(record)
            pending = b""
    return out


def offline_run(run_dir: Path) -> Path:
    (folder,) = sorted((Path(run_dir) / "wandb").glob("offline-run-*"))
    return folder


def run_record(folder: Path) -> Any:
    (run,) = [r.run for r in records(next(folder.glob("run-*.wandb"))) if r.HasField("run")]
    return run


def config(folder: Path) -> dict[str, Any]:
    return {item.key: json.loads(item.value_json) for item in run_record(folder).config.update}


def history(folder: Path) -> list[dict[str, Any]]:
    rows = []
    for record in records(next(folder.glob("run-*.wandb"))):
        if record.HasField("history"):
            rows.append(
                {"/".join(item.nested_key) or item.key: json.loads(item.value_json) for item in record.history.item}
            )
    return rows


def tables(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Logged tables by key (`samples/train/success/steps`), each as its list of table files' contents."""
    out: dict[str, list[dict[str, Any]]] = {}
    media = folder / "files" / "media" / "table"
    for path in sorted(media.rglob("*.table.json")):
        key = path.relative_to(media).as_posix().rsplit("_", 2)[0]  # <key>_<step>_<hash>.table.json
        out.setdefault(key, []).append(json.loads(path.read_text(encoding="utf-8")))
    return out
