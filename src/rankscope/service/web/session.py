"""Console sessions and CSRF tokens: signed cookies, no server-side state.

A session cookie is ``issued.nonce.signature``: an HMAC-SHA256 of the issue time and a random
nonce under a key derived from the server's token (so sessions outlive a restart and die with
a change of token) or, without a token, a random key of the process. It is sent HttpOnly and
SameSite=Strict and lasts `SESSION_SECONDS`. A form's CSRF token is another HMAC of the same
nonce: a page of another site can neither read it nor make the browser send the cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

__all__ = ["COOKIE", "SESSION_SECONDS", "Sessions"]

COOKIE = "rankscope_session"
SESSION_SECONDS = 12 * 3600


class Sessions:
    """Issue and check session cookies and CSRF tokens.

    >>> sessions = Sessions("s3cret")
    >>> cookie = sessions.issue()
    >>> nonce = sessions.verify(cookie)
    >>> nonce is not None and sessions.csrf_ok(nonce, sessions.csrf(nonce))
    True
    >>> Sessions("other").verify(cookie) is None
    True
    """

    def __init__(self, token: str | None) -> None:
        self.token = token
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
        if not hmac.compare_digest(signature, self._sign("session", nonce)):
            return None
        if not issued.isdigit() or time.time() - int(issued) > SESSION_SECONDS:
            return None
        return nonce

    def csrf(self, nonce: str) -> str:
        """The CSRF token of the session ``nonce``."""
        return self._sign("csrf", nonce)

    def csrf_ok(self, nonce: str | None, given: str | None) -> bool:
        """Whether ``given`` is the CSRF token of the session ``nonce``."""
        return (
            nonce is not None and given is not None and hmac.compare_digest(given, self.csrf(nonce))
        )

    def token_ok(self, given: str) -> bool:
        """Whether ``given`` is the server's token (compared in constant time)."""
        return self.token is not None and hmac.compare_digest(given.encode(), self.token.encode())
