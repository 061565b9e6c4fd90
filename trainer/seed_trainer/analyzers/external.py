"""The `external` analyzer: an OpenAI-compatible `POST <base_url>/chat/completions` endpoint (the paper's Stage 1
analyzer was an external LLM at temperature 0).

Standard library HTTP (urllib), one request per trajectory, at most `concurrency` in flight. What each outcome becomes:

| outcome | retried | result |
|---|---|---|
| 200 with a chat completion | – | the reply, through format verification (valid, or invalid with the parser's reason) |
| 200 with any other body | no | invalid: `malformed response body: …` |
| 408, 429, 5xx, timeout, connection reset | yes, backoff doubling from `backoff` (Retry-After wins) | after the last try: invalid, `HTTP 429 … after N attempts` / `no reply within …` |
| other 4xx (400, 413, 422 …) | no | invalid: `HTTP 400: <server message>` |
| 401, 403 | no | `AnalyzerError` (`analyzer_auth`): the stage fails — every request would |
| 404 | no | `AnalyzerError` (`analyzer_not_found`): wrong base_url or model |
| connection refused, unknown host | yes | after the last try: `AnalyzerError` (`analyzer_unreachable`) |

The API key is read from the environment variable *named* in the config when the analyzer is built and only ever goes
into the Authorization header; every message and reply this module returns is scrubbed of it anyway.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from seed_trainer.algo.skills import insert_skill
from seed_trainer.analyzers.base import Analysis, AnalyzerError
from seed_trainer.analyzers.self_analysis import analysis_prompt
from seed_trainer.experiment.config import AnalyzerConfig
from seed_trainer.rl.rollout import Episode

MAX_BACKOFF = 60.0  # seconds; also the cap on a server's Retry-After
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class _Retry(Exception):
    """A failure worth another try; `final` is the reason recorded when no try is left."""

    def __init__(self, final: str, retry_after: float | None = None, unreachable: bool = False) -> None:
        super().__init__(final)
        self.final, self.retry_after, self.unreachable = final, retry_after, unreachable


class ExternalAnalyzer:
    source = "external"
    insert = staticmethod(insert_skill)

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        max_tokens: int = 1024,
        timeout: float = 120.0,
        max_retries: int = 4,
        backoff: float = 2.0,
        concurrency: int = 8,
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        environ = os.environ if environ is None else environ
        self._key: str | None = None
        if api_key_env:
            key = environ.get(api_key_env, "")
            if not key.strip():
                raise AnalyzerError(
                    "analyzer_config",
                    f"analyzer.api_key_env names ${api_key_env}, which is not set in the trainer's environment",
                )
            self._key = key.strip()
        self.key_env = api_key_env
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.max_tokens, self.timeout, self.max_retries, self.backoff = max_tokens, timeout, max_retries, backoff
        self.concurrency = concurrency
        self._sleep = sleep
        host = urllib.parse.urlsplit(self.url).hostname or ""
        # Environment proxies apply to remote endpoints, never to a server on this machine.
        handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)
        self.retries = 0  # retried requests since the analyzer was built (a metric)
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, settings: AnalyzerConfig) -> ExternalAnalyzer:
        if not settings.base_url or not settings.model:
            raise AnalyzerError("analyzer_config", "analyzer `external` needs `analyzer.base_url` and `analyzer.model`")
        return cls(
            settings.base_url,
            settings.model,
            api_key_env=settings.api_key_env,
            max_tokens=settings.max_tokens,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            backoff=settings.backoff,
            concurrency=settings.concurrency,
        )

    # -- the interface -------------------------------------------------------------------------------------------

    def analyze(self, episodes: Sequence[Episode]) -> list[Analysis]:
        prompts = [analysis_prompt(episode) for episode in episodes]
        if self.concurrency == 1 or len(prompts) <= 1:
            return [self.complete(prompt) for prompt in prompts]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(self.complete, prompt) for prompt in prompts]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    def complete(self, prompt: str) -> Analysis:
        """One analysis request with its retries. Raises AnalyzerError only for failures every request would share."""
        attempts = 0
        while True:
            attempts += 1
            try:
                return self._attempt(prompt, attempts)
            except _Retry as retry:
                if attempts > self.max_retries:
                    reason = f"{retry.final} after {attempts} attempt{'s' if attempts > 1 else ''}"
                    if retry.unreachable:
                        raise AnalyzerError("analyzer_unreachable", self._scrub(f"{self.url}: {reason}")) from None
                    return Analysis.failed(self._scrub(reason), attempts)
                with self._lock:
                    self.retries += 1
                delay = self.backoff * 2 ** (attempts - 1)
                if retry.retry_after is not None:
                    delay = retry.retry_after
                self._sleep(min(max(delay, 0.0), MAX_BACKOFF))

    # -- one HTTP exchange ---------------------------------------------------------------------------------------

    def _request(self, prompt: str) -> urllib.request.Request:
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")

    def _attempt(self, prompt: str, attempts: int) -> Analysis:
        try:
            with self._opener.open(self._request(prompt), timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            return self._http_error(error, attempts)
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise _Retry(f"no reply within {self.timeout:g} s") from None
            if isinstance(reason, ConnectionRefusedError):
                raise _Retry("connection refused", unreachable=True) from None
            if isinstance(reason, socket.gaierror):
                raise _Retry(f"unknown host ({reason})", unreachable=True) from None
            raise _Retry(f"network error ({reason})", unreachable=True) from None
        except TimeoutError:
            raise _Retry(f"no reply within {self.timeout:g} s") from None
        except (ConnectionError, http.client.HTTPException) as error:  # reset, remote disconnected, bad status line
            raise _Retry(f"connection lost ({type(error).__name__})") from None
        return self._reply(payload, attempts)

    def _http_error(self, error: urllib.error.HTTPError, attempts: int) -> Analysis:
        status = error.code
        detail = _server_message(_read_quietly(error))
        what = f"HTTP {status}{f': {detail}' if detail else ''}"
        if status in (401, 403):
            key = (
                f"the API key from ${self.key_env}"
                if self.key_env
                else "the request (no API key: analyzer.api_key_env is not set)"
            )
            raise AnalyzerError("analyzer_auth", self._scrub(f"{self.url} refused {key}: {what}"))
        if status == 404:
            raise AnalyzerError(
                "analyzer_not_found",
                self._scrub(
                    f"{self.url}: {what} (check analyzer.base_url — it usually ends in /v1 — and analyzer.model)"
                ),
            )
        if status == 429 or status == 408 or status >= 500:
            raise _Retry(self._scrub(what), retry_after=_retry_after(error.headers))
        return Analysis.failed(self._scrub(what), attempts)

    def _reply(self, payload: bytes, attempts: int) -> Analysis:
        try:
            body = json.loads(payload.decode("utf-8"))
            content = body["choices"][0]["message"]["content"]
        except (UnicodeDecodeError, json.JSONDecodeError):
            return Analysis.failed(self._scrub(f"malformed response body: not JSON ({_preview(payload)})"), attempts)
        except (KeyError, IndexError, TypeError):
            return Analysis.failed(
                self._scrub(f"malformed response body: no choices[0].message.content ({_preview(payload)})"), attempts
            )
        if isinstance(content, list):  # content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            return Analysis.failed("malformed response body: choices[0].message.content is not text", attempts)
        return Analysis.from_reply(self._scrub(content), attempts)

    def _scrub(self, text: str) -> str:
        # A key too short to be a real secret would turn every matching substring of a reply into noise.
        return text.replace(self._key, "[api key]") if self._key and len(self._key) >= 8 else text


def _read_quietly(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read()
    except Exception:
        return b""


def _server_message(payload: bytes) -> str:
    """The `error.message` of an OpenAI-style error body, else the start of the body, on one line."""
    try:
        body: Any = json.loads(payload.decode("utf-8"))
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message.strip():
            return " ".join(message.split())[:300]
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        pass
    return _preview(payload) if payload.strip() else ""


def _preview(payload: bytes, limit: int = 200) -> str:
    text = " ".join(payload.decode("utf-8", errors="replace").split())
    return text if len(text) <= limit else text[:limit] + "…"


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date: fall back to our own backoff
        return None
