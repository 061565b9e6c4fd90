"""Environment servers for the env-server tests, all real HTTP on 127.0.0.1.

- `served(environment, …)`: `python -m seed_trainer.envs.serve` in a subprocess (the helper users run), its URL read
  from the line it prints once listening; the process is killed when the context ends.
- `SlowHousehold`: the household environment whose steps after the first `fast_steps` take `delay` seconds, for a
  server that is too slow (`env_servers:SlowHousehold` as the environment name of a served subprocess).
- `ThreadServer`: a real HTTP server in a thread answering from a method; `ScriptedServer`, an AgentGym-style one
  whose /step replies come from a script (raw bytes, statuses, JSON), for the protocol violations.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from testenv import subprocess_env

from seed_trainer.envs.household import HouseholdTasks


@contextlib.contextmanager
def served(
    environment: str, *splits: str, options: dict | None = None, seed: int = 0
) -> Iterator[tuple[subprocess.Popen, str]]:
    command = [
        sys.executable,
        "-m",
        "seed_trainer.envs.serve",
        environment,
        "--seed",
        str(seed),
        "--options",
        json.dumps(options or {}),
    ]
    for split in splits:
        command += ["--split", split]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env())
    try:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the server did not start: {process.stderr.read()}")
        yield process, json.loads(line)["url"]
    finally:
        process.kill()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


class SlowHousehold(HouseholdTasks):
    def __init__(self, delay: float = 5.0, fast_steps: int = 1, **options: Any) -> None:
        super().__init__(**options)
        self.delay, self.fast_steps = delay, fast_steps

    def make(self, spec):
        env = super().make(spec)
        step, count = env.step, [0]

        def slow_step(action):
            count[0] += 1
            if count[0] > self.fast_steps:
                time.sleep(self.delay)
            return step(action)

        env.step = slow_step
        return env


class ThreadServer:
    """A real HTTP server on 127.0.0.1 in a thread (keep-alive) whose replies come from `answer(method, path, query,
    body) → (status, JSON value or raw bytes)`. `requests` records (path, body), `ports` the connections."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []
        self.ports: set[int] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 64 * 1024  # one write per reply (see seed_trainer.envs.serve)

            def log_message(self, *args):
                pass

            def _serve(self, method):
                url = urllib.parse.urlsplit(self.path)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw else None
                server.requests.append((url.path, body))
                server.ports.add(self.client_address[1])
                status, reply = server.answer(method, url.path, dict(urllib.parse.parse_qsl(url.query)), body)
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ScriptedServer(ThreadServer):
    """Answers /create with the id 7, /reset with `reset`, and each /step with the next script entry:
    ("json", obj) · ("raw", bytes) · ("status", code, body)."""

    RESET = {
        "observation": "You are in a room. Your task is to: find the key.",
        "available_actions": ["look", "open door"],
    }

    def __init__(self, steps: list[tuple], reset: Any = None) -> None:
        super().__init__()
        self.steps, self.reset = list(steps), self.RESET if reset is None else reset

    def answer(self, method, path, query, body):
        if path == "/create":
            return 200, 7
        if path == "/reset":
            return 200, self.reset
        if path == "/close":
            return 200, {}
        if path != "/step":
            return 404, {"detail": "Not Found"}
        entry = self.steps.pop(0) if self.steps else ("json", {"observation": "ok", "reward": 0.0, "done": False})
        if entry[0] == "json":
            return 200, entry[1]
        if entry[0] == "raw":
            return 200, entry[1]
        return entry[1], entry[2]
