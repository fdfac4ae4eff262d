"""The allow-lists: which ``module:function`` callables a server may import, and which URLs its
HTTP retrievers and generators may call.

Callables
    A pattern is ``module:name`` with fnmatch on each side. The name after the colon must be
    a plain name (a dotted path reaches whatever the module imported, so no pattern admits
    it). A pattern whose name has a wildcard admits only what the module itself defines (a
    function, class or instance whose ``__module__`` is the module), never a name it imported
    (``from os import chmod``); a name written in full admits that very name. With an
    allow-list, modules are imported from the installed packages and the directories on
    ``sys.path``, never from the server's working directory.
URLs
    A pattern ``scheme://host:port/path`` is matched per component, each with fnmatch: the
    scheme, the host (``*`` never reaches into the port or path), the port (the scheme's own
    when the pattern names none) and the path with its query (anything when the pattern has
    none). A host pattern written as an address (digits, dots and wildcards; or in brackets,
    IPv6) admits addresses only, never a name. At call time a name is resolved, and an
    address it resolves to that is loopback, link-local or unspecified must itself be admitted
    (`check_address`): a name cannot lead the server back to itself.

None as an allow-list admits everything (the library and the command line); the HTTP server
passes its lists: no callable unless started with ``--allow-callable``, loopback URLs
(`LOOPBACK_URLS`) unless started with ``--allow-url``.
"""

from __future__ import annotations

import importlib
import ipaddress
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from rankscope.errors import InputError

__all__ = [
    "LOOPBACK_URLS",
    "URLParts",
    "callable_allowed",
    "check_address",
    "check_allowed",
    "import_target",
    "normal_url",
    "plain_url",
    "url_allowed",
    "url_parts",
]

LOOPBACK_URLS = (
    "http://127.0.0.1:*",
    "http://localhost:*",
    "http://[[]::1]:*",  # fnmatch: [[] is a literal [
    "https://127.0.0.1:*",
    "https://localhost:*",
    "https://[[]::1]:*",
)
"""The retriever URLs a server allows by default: loopback only."""

_WILDCARDS = re.compile(r"[*?\[]")
_ADDRESS_PATTERN = re.compile(r"^[0-9.*?\[\]!-]+$")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")


class URLParts(NamedTuple):
    """The components a URL pattern is matched on."""

    scheme: str
    host: str
    port: str
    path: str


def url_parts(url: str) -> URLParts:
    """The scheme, host (lower case, an IPv6 address in brackets), port (always written) and
    path with its query of an http(s) URL.

    >>> url_parts("HTTP://Search.Example.com/api?q=1")
    URLParts(scheme='http', host='search.example.com', port='80', path='/api?q=1')

    Raises
    ------
    InputError
        Not an http(s) URL, a control character or a space in it, a user name or password in
        it, or a bad port.
    """
    plain_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise InputError(f"not a valid URL ({error}): {url[:200]!r}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"expected an http:// or https:// URL with a host; found {url[:200]!r}")
    if parts.username is not None or parts.password is not None:
        raise InputError("a retriever URL may not carry a user name or password")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    port = port if port is not None else (443 if scheme == "https" else 80)
    rest = parts.path or "/"
    if parts.query:
        rest += "?" + parts.query
    return URLParts(scheme, host, str(port), rest)


def plain_url(url: str) -> None:
    """Refuse a URL with a control character or a space in it (a line break would end the
    request line; every call would fail).

    >>> plain_url("http://127.0.0.1:9/a" + chr(13) + chr(10) + "X: y")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: the URL holds a control character or a space (a line break?): ...
    """
    if _CONTROL.search(url):
        raise InputError(
            f"the URL holds a control character or a space (a line break?): {url[:200]!r}"
        )


def normal_url(url: str) -> str:
    """``scheme://host:port/path...`` of an http(s) URL (see `url_parts`).

    >>> normal_url("HTTP://Search.Example.com/api?q=1")
    'http://search.example.com:80/api?q=1'
    """
    parts = url_parts(url)
    return f"{parts.scheme}://{parts.host}:{parts.port}{parts.path}"


def _pattern_parts(pattern: str) -> URLParts:
    """A URL pattern's components (fnmatch patterns each); a missing port is the scheme's
    own, a missing path any path."""
    scheme, _, rest = pattern.partition("://")
    scheme = scheme.lower()
    if rest.startswith("[[]"):  # fnmatch's literal [ of an IPv6 address
        end = rest.find("]", 3)
        host, rest = rest[: end + 1], rest[end + 1 :]
    elif rest.startswith("["):
        end = rest.find("]")
        host, rest = "[[]" + rest[1 : end + 1], rest[end + 1 :]
    else:
        cut = min((i for i in (rest.find(":"), rest.find("/")) if i >= 0), default=len(rest))
        host, rest = rest[:cut], rest[cut:]
    port = ""
    if rest.startswith(":"):
        cut = rest.find("/")
        port, rest = (rest[1:], "") if cut < 0 else (rest[1:cut], rest[cut:])
    if not port:
        port = "443" if scheme == "https" else "80"
    return URLParts(scheme, host.lower(), port, rest or "*")


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def url_allowed(url: str, patterns: Sequence[str]) -> bool:
    """Whether a pattern admits ``url``, matched per component.

    >>> url_allowed("http://search.internal/api", ["http://*.internal:80/*"])
    True
    >>> url_allowed("http://127.0.0.1/x.internal:80/", ["http://*.internal:80/*"])
    False
    >>> url_allowed("http://10.0.0.evil.example/", ["http://10.0.0.*:*"])
    False
    """
    parts = url_parts(url)
    for pattern in patterns:
        wanted = _pattern_parts(pattern)
        if not fnmatchcase(parts.scheme, wanted.scheme):
            continue
        if not fnmatchcase(parts.host, wanted.host):
            continue
        address_pattern = wanted.host.startswith("[[]") or _ADDRESS_PATTERN.match(wanted.host)
        if address_pattern and not _is_address(parts.host):
            continue
        if fnmatchcase(parts.port, wanted.port) and fnmatchcase(parts.path, wanted.path):
            return True
    return False


def check_address(url: str, address: str, patterns: Sequence[str] | None, role: str) -> None:
    """Refuse an address that a URL's name resolved to when it is loopback, link-local or
    unspecified and no pattern admits the URL with the address in place of the name.

    >>> check_address("http://search.example/", "10.1.2.3", ["http://search.example:*"], "x")
    >>> check_address("http://search.example/", "127.0.0.1", ["http://search.example:*"], "x")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: x URL 'http://search.example:80/' resolves to the loopback...
    """
    if patterns is None:
        return
    ip = ipaddress.ip_address(address)
    if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified):
        return
    parts = url_parts(url)
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    if url_allowed(f"{parts.scheme}://{host}:{parts.port}{parts.path}", patterns):
        return
    raise InputError(
        f"{role} URL {normal_url(url)[:200]!r} resolves to the loopback, link-local or "
        f"unspecified address {address}, which the server's --allow-url patterns do not admit"
    )


def callable_allowed(target: str, patterns: Sequence[str]) -> bool:
    """Whether a pattern ``module:name`` (fnmatch on each side) admits ``target``.

    The name after the colon must be a plain name: a dotted path (``mod:os.chmod``) reaches
    whatever the module imported, so no pattern admits it.

    >>> callable_allowed("myretrievers:search", ["myretrievers:*"])
    True
    >>> callable_allowed("myretrievers:os.chmod", ["myretrievers:*"])
    False
    """
    module, _, name = target.partition(":")
    if not name or "." in name:
        return False
    for pattern in patterns:
        pattern_module, _, pattern_name = pattern.partition(":")
        if fnmatchcase(module, pattern_module) and fnmatchcase(name, pattern_name or "*"):
            return True
    return False


def _named_in_full(target: str, patterns: Sequence[str]) -> bool:
    """Whether a pattern names ``target``'s function in full (no wildcard in its name)."""
    module, _, name = target.partition(":")
    return any(
        fnmatchcase(module, pattern.partition(":")[0]) and pattern.partition(":")[2] == name
        for pattern in patterns
        if not _WILDCARDS.search(pattern.partition(":")[2] or "*")
    )


def check_allowed(
    spec: Mapping[str, Any],
    allowed_callables: Sequence[str] | None,
    allowed_urls: Sequence[str] | None = None,
    *,
    role: str = "retriever",
) -> None:
    """Refuse a ``module:function`` retriever (or generator: ``role``) that no pattern of
    ``allowed_callables`` admits (`callable_allowed`), and an HTTP one whose URL no pattern of
    ``allowed_urls`` admits (`url_allowed`); None admits everything."""
    kind = spec.get("type")
    if kind == "callable" and allowed_callables is not None:
        target = str(spec.get("target"))
        if not callable_allowed(target, allowed_callables):
            raise InputError(
                f"{role} {target!r} is not allowed: importing a module runs its code, so the "
                f"server accepts module:function {role}s only when started with "
                "--allow-callable PATTERN (e.g. --allow-callable 'myretrievers:*'), and never "
                "a dotted name after the colon"
            )
    if kind == "http":
        url = str(spec.get("url"))
        parts = url_parts(url)  # refuses control characters whatever the lists
        if allowed_urls is not None and not url_allowed(url, allowed_urls):
            shown = f"{parts.scheme}://{parts.host}:{parts.port}{parts.path}"
            raise InputError(
                f"{role} URL {shown[:200]!r} is not allowed: the server calls only URLs that "
                "match its --allow-url patterns (default: loopback addresses only)"
            )


def _import_installed(module_name: str) -> Any:
    """Import a module from ``sys.path`` without the working directory (``""``, ``"."`` or the
    directory itself), and refuse one already imported from there."""
    here = Path.cwd().resolve()

    def in_working_directory(entry: str) -> bool:
        if entry in ("", "."):
            return True
        try:
            return Path(entry).resolve() == here
        except OSError:
            return False

    loaded = sys.modules.get(module_name)
    if loaded is not None:
        origin = getattr(loaded, "__file__", None)
        if origin and Path(origin).resolve().parent == here:
            raise ImportError(f"{module_name} was imported from the working directory")
        return loaded
    saved = sys.path[:]
    sys.path[:] = [entry for entry in saved if not in_working_directory(entry)]
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path[:] = saved


def import_target(
    target: str, role: str = "retriever", allowed: Sequence[str] | None = None
) -> Callable[..., Any]:
    """The callable ``module:name`` names.

    Without an allow-list (the library and the command line), modules of the working
    directory can be named, as ``python -m`` does. With one (``allowed``, the server's),
    the module comes from the installed packages, and a pattern with a wildcard admits only
    what the module defines itself.
    """
    module_name, _, attribute = target.partition(":")
    try:
        if allowed is None:
            if "" not in sys.path and "." not in sys.path:
                sys.path.insert(0, "")
            module = importlib.import_module(module_name)
        else:
            module = _import_installed(module_name)
    except ImportError as error:
        raise InputError(
            f"cannot import module {module_name!r} of {role} {target!r}: {error}"
        ) from None
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise InputError(
                f"module {module_name!r} has no attribute {attribute!r} ({role} {target!r})"
            )
        value = getattr(value, part)
    if not callable(value):
        raise InputError(f"{role} {target!r} is not callable; found {type(value).__name__}")
    if allowed is not None and not _named_in_full(target, allowed):
        defined_in = getattr(value, "__module__", None)
        if defined_in is None and not isinstance(value, type):
            defined_in = getattr(type(value), "__module__", None)
        if defined_in != module.__name__:
            raise InputError(
                f"{role} {target!r} is not defined in module {module_name!r} (it comes from "
                f"{defined_in!r}); an --allow-callable pattern with a wildcard admits only what "
                "the module defines, a name written in full admits that name"
            )
    return value  # type: ignore[no-any-return]
