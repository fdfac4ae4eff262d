"""Console sessions and CSRF tokens: signed cookies, no server-side state.

A session cookie is ``issued.nonce.signature``: an HMAC-SHA256 of the issue time and a random
nonce under a key derived from the server's token (so sessions outlive a restart and die with
a change of token) or, without a token, a random key of the process. It is sent HttpOnly and
SameSite=Strict and lasts `SESSION_SECONDS`. A form's CSRF token is another HMAC of the same
nonce: a page of another site can neither read it nor make the browser send the cookie.

The server's token has `MIN_TOKEN_LENGTH` characters at least. Every comparison is in constant
time and of bytes, so that no text a client sends can make it fail. A client address that sent
`FREE_FAILURES` wrong tokens in a row waits before its next try: a second, then twice as long
after each further wrong one, up to `MAX_DELAY` (the API answers 429 with ``Retry-After``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from rankscope.errors import InputError

__all__ = [
    "COOKIE",
    "FREE_FAILURES",
    "MAX_DELAY",
    "MIN_TOKEN_LENGTH",
    "SESSION_SECONDS",
    "Sessions",
]

COOKIE = "rankscope_session"
SESSION_SECONDS = 12 * 3600
MIN_TOKEN_LENGTH = 16
FREE_FAILURES = 5
MAX_DELAY = 300.0
_TRACKED = 10_000  # client addresses whose failures are remembered


def _same(given: str, expected: str) -> bool:
    """Constant-time comparison of two texts, whatever characters they hold."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())


class Sessions:
    """Issue and check session cookies and CSRF tokens.

    >>> sessions = Sessions("s3cret-of-16-chars")
    >>> cookie = sessions.issue()
    >>> nonce = sessions.verify(cookie)
    >>> nonce is not None and sessions.csrf_ok(nonce, sessions.csrf(nonce))
    True
    >>> Sessions("another-token-16+").verify(cookie) is None
    True
    """

    def __init__(self, token: str | None, *, clock: Callable[[], float] = time.monotonic) -> None:
        if token is not None and len(token) < MIN_TOKEN_LENGTH:
            raise InputError(
                f"the token must have at least {MIN_TOKEN_LENGTH} characters; found "
                f"{len(token)} (make one with: python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            )
        self.token = token
        self._clock = clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()
        if token is None:
            self._key = secrets.token_bytes(32)
        else:
            self._key = hashlib.sha256(b"rankscope console session\0" + token.encode()).digest()

    def _sign(self, purpose: str, value: str) -> str:
        message = f"{purpose}\0{value}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def issue(self) -> str:
        """A new session cookie's value."""
        nonce = f"{int(time.time())}.{secrets.token_hex(16)}"
        return f"{nonce}.{self._sign('session', nonce)}"

    def verify(self, cookie: str | None) -> str | None:
        """The session's nonce if ``cookie`` is one of ours and not expired; else None."""
        if not cookie or cookie.count(".") != 2:
            return None
        issued, random_part, signature = cookie.split(".")
        nonce = f"{issued}.{random_part}"
        if not _same(signature, self._sign("session", nonce)):
            return None
        if not issued.isdigit() or time.time() - int(issued) > SESSION_SECONDS:
            return None
        return nonce

    def csrf(self, nonce: str) -> str:
        """The CSRF token of the session ``nonce``."""
        return self._sign("csrf", nonce)

    def csrf_ok(self, nonce: str | None, given: str | None) -> bool:
        """Whether ``given`` is the CSRF token of the session ``nonce``."""
        return nonce is not None and given is not None and _same(given, self.csrf(nonce))

    def token_ok(self, given: str, client: str | None = None) -> bool:
        """Whether ``given`` is the server's token (compared in constant time); a wrong one
        counts against the ``client`` address (see `wait`)."""
        right = self.token is not None and _same(given, self.token)
        if client is not None:
            with self._lock:
                if right:
                    self._failures.pop(client, None)
                else:
                    count = self._failures.pop(client, (0, 0.0))[0] + 1
                    delay = 0.0
                    if count >= FREE_FAILURES:
                        delay = min(MAX_DELAY, 2.0 ** (count - FREE_FAILURES))
                    self._failures[client] = (count, self._clock() + delay)
                    while len(self._failures) > _TRACKED:
                        self._failures.popitem(last=False)
        return right

    def wait(self, client: str) -> int:
        """Whole seconds the ``client`` address must wait before its next try (0: none).

        >>> clock = [0.0]
        >>> sessions = Sessions("a-token-of-16-chars", clock=lambda: clock[0])
        >>> [sessions.token_ok("wrong", "10.0.0.1") for _ in range(5)], sessions.wait("10.0.0.1")
        ([False, False, False, False, False], 1)
        >>> clock[0] = 1.5
        >>> sessions.wait("10.0.0.1"), sessions.token_ok("a-token-of-16-chars", "10.0.0.1")
        (0, True)
        """
        with self._lock:
            _, until = self._failures.get(client, (0, 0.0))
        left = until - self._clock()
        return math.ceil(left) if left > 0 else 0
