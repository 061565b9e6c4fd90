"""Environment servers for the env-server tests, all real HTTP on 127.0.0.1.

- `served(environment, …)`: `python -m seed_trainer.envs.serve` in a subprocess (the helper users run), its URL read
  from the line it prints once listening; the process is killed when the context ends.
- `SlowHousehold`: the household environment whose steps after the first `fast_steps` take `delay` seconds, for a
  server that is too slow (`env_servers:SlowHousehold` as the environment name of a served subprocess).
- `ScriptedServer`: an AgentGym-style server in a thread whose /create, /reset and /step replies come from a script
  (raw bytes, statuses, JSON), for the protocol violations.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

from seed_trainer.envs.household import HouseholdTasks
from testenv import subprocess_env


@contextlib.contextmanager
def served(environment: str, *splits: str, options: dict | None = None, seed: int = 0) -> Iterator[tuple[subprocess.Popen, str]]:
    command = [sys.executable, "-m", "seed_trainer.envs.serve", environment, "--seed", str(seed),
               "--options", json.dumps(options or {})]
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


class ScriptedServer:
    """Answers /create with an id, /reset with a fixed observation, and each /step with the next script entry:
    ("json", obj) · ("raw", bytes) · ("status", code, body). `requests` records (path, body), `ports` the
    connections."""

    RESET = {"observation": "You are in a room. Your task is to: find the key.", "available_actions": ["look", "open door"]}

    def __init__(self, steps: list[tuple], reset: Any = None) -> None:
        self.steps, self.reset = list(steps), self.RESET if reset is None else reset
        self.requests: list[tuple[str, Any]] = []
        self.ports: set[int] = set()  # client ports seen: one per connection
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _reply(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append((self.path, body))
                server.ports.add(self.client_address[1])
                if self.path == "/create":
                    return self._reply(200, b"7")
                if self.path == "/reset":
                    return self._reply(200, json.dumps(server.reset).encode())
                if self.path == "/close":
                    return self._reply(200, b"{}")
                entry = server.steps.pop(0) if server.steps else ("json", {"observation": "ok", "reward": 0.0, "done": False})
                if entry[0] == "json":
                    return self._reply(200, json.dumps(entry[1]).encode())
                if entry[0] == "raw":
                    return self._reply(200, entry[1])
                return self._reply(entry[1], json.dumps(entry[2]).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
