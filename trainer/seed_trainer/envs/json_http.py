"""A small JSON-over-HTTP client for environment servers and retrievers: one kept-alive connection per thread,
a timeout on every request, retries with backoff on transient failures, and errors that say what happened.

What is retried (a step is not idempotent, so only failures where the server cannot have acted on it are retried for
every request; `idempotent=True` requests — create, reset, observation — are also retried after timeouts and 5xx):

| failure | any request | idempotent request |
|---|---|---|
| connection refused (nothing listening) | retried | retried |
| a reused keep-alive connection closed by the server before it answered | once, on a fresh connection | retried |
| HTTP 503 (the server says it did nothing) | retried | retried |
| timeout, connection reset mid-reply, 500/502/504 | no | retried |

After the last try the request raises `HttpFailure` with the reason; a reply that is not JSON raises it too.
Standard library only (http.client), so the trainer needs nothing more to talk to a server.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

RETRY_ANYWAY = {503}
RETRY_IDEMPOTENT = {500, 502, 504}


class HttpFailure(Exception):
    """A request that failed for good: no reply, a bad status, or a body that is not JSON. `status` is the HTTP
    status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _Transient(Exception):
    def __init__(self, reason: str, *, safe: bool, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.safe, self.status = reason, safe, status  # safe: the server cannot have acted


def snippet(body: bytes | str, limit: int = 200) -> str:
    """The start of a reply body, for error messages."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


class JsonHttpClient:
    """JSON requests to one base URL (http only). Thread-safe: each thread keeps its own connection."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme, self._host, self._port = parsed.scheme, parsed.hostname, parsed.port
        self._prefix = parsed.path.rstrip("/")
        self.timeout, self.max_retries, self.backoff, self._sleep = timeout, max_retries, backoff, sleep
        self._local = threading.local()

    # --- public -------------------------------------------------------------------------------------------------

    def get(self, path: str, params: dict[str, Any] | None = None, *, idempotent: bool = True) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        return self.request("GET", path + query, None, idempotent=idempotent)

    def post(self, path: str, body: Any = None, *, idempotent: bool = False) -> Any:
        return self.request("POST", path, body, idempotent=idempotent)

    def request(self, method: str, path: str, body: Any, *, idempotent: bool) -> Any:
        url = f"{self.base_url}{path}"
        payload = None if body is None else json.dumps(body).encode()
        delay = self.backoff
        for attempt in range(self.max_retries + 1):
            try:
                return self._once(method, path, payload)
            except _Transient as failure:
                last = attempt == self.max_retries
                if last or not (failure.safe or idempotent):
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise HttpFailure(f"{method} {url}: {failure.reason}{tries}", failure.status) from None
            self._sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    # --- one attempt ----------------------------------------------------------------------------------------------

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            return connection, True
        kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        connection = kind(self._host, self._port, timeout=self.timeout)
        self._local.connection = connection
        return connection, False

    def _once(self, method: str, path: str, payload: bytes | None) -> Any:
        headers = {"Accept": "application/json"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        for fresh_retry in (False, True):
            connection, reused = self._connection()
            try:
                connection.request(method, self._prefix + path, body=payload, headers=headers)
                response = connection.getresponse()
                body = response.read()
                status = response.status
                if response.will_close:
                    self.close()
                break
            except ConnectionRefusedError:
                self.close()
                raise _Transient("connection refused (is the server running?)", safe=True) from None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if reused and not fresh_retry:
                    continue  # the server closed an idle keep-alive connection: send again on a new one
                raise _Transient(f"connection lost ({type(exc).__name__})", safe=False) from None
            except TimeoutError:
                self.close()
                raise _Transient(f"no reply within {self.timeout:g} s", safe=False) from None
            except OSError as exc:
                self.close()
                raise _Transient(f"{type(exc).__name__}: {exc}", safe=False) from None
        if status in RETRY_ANYWAY or status in RETRY_IDEMPOTENT:
            raise _Transient(f"HTTP {status}: {snippet(body)}", safe=status in RETRY_ANYWAY, status=status)
        if status != 200:
            raise HttpFailure(f"{method} {self.base_url}{path}: HTTP {status}: {snippet(body)}", status)
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise HttpFailure(f"{method} {self.base_url}{path}: reply is not JSON: {snippet(body)!r}", status) from None
