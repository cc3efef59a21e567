"""The network boundary of a resident listener (surfaces.md §3.6): socket peer, exact
Host and Origin allowlists, and the bearer token file.

`gno serve` (loopback only) puts `/mcp` behind it; `gno daemon` puts its whole
listener behind it. A non-loopback or wildcard bind needs all three controls
(token file, ≥ 1 Host, ≥ 1 Origin). A token is required on a non-loopback bind,
or on any bind once a token file is given; it is re-read when the file changes,
so rotating it takes effect at once and a file that turns unreadable, empty or
too open refuses every request (503) instead of keeping an old secret alive.
Only the socket peer counts: forwarding headers are never read. A bearer proves
who calls, never what they may do: MCP write tools still need
``--mcp-enable-write`` and the daemon serves no REST write at all.

Refusals are ``mcp-http-error@1.0`` bodies with fixed messages that name no peer,
allowlist, path or token.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import tempfile
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.responses import Response

from gno.errors import GatewayConfigError
from gno.paths import expand_home
from gno.resident.process import is_loopback_host as is_loopback_bind

Scope = MutableMapping[str, Any]

TOKEN_MIN, TOKEN_MAX = 32, 512  # characters, visible ASCII; 256 random bits need 43
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
_BEARER = re.compile(r"bearer ([\x21-\x7e]+)", re.IGNORECASE)
MESSAGES = {
    401: "Unauthorized",
    403: "Forbidden",
    413: "Request body too large",
    429: "Too many requests",
    503: "Resident runtime unavailable",
}


# ---------------------------------------------------------------- addresses


def is_loopback_peer(address: str) -> bool:
    """The socket peer's address (never a header) is loopback; ``localhost`` is no address."""
    return address.lower() != "localhost" and is_loopback_bind(address)


def default_hosts(port: int) -> list[str]:
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


def _check_host_entry(entry: str) -> str:
    if not entry or entry != entry.strip() or any(c in entry for c in "*,/ @"):
        raise GatewayConfigError(
            f"--mcp-allowed-host {entry!r} is not an exact Host value (like gno.lan:3000)."
        )
    return entry.lower()


def _check_origin_entry(entry: str) -> str:
    scheme, sep, rest = entry.partition("://")
    if scheme not in ("http", "https") or not sep or not rest or any(c in rest for c in "*/?#@ "):
        raise GatewayConfigError(
            f"--mcp-allowed-origin {entry!r} is not an exact origin "
            "(like https://client.example or http://gno.lan:3000)."
        )
    return entry.lower()


# ---------------------------------------------------------------- token file


class TokenFile:
    """The bearer token's file, re-read whenever its stat changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._revision: tuple[int, ...] | None = None
        self._digest: bytes | None = None

    @classmethod
    def ensure(cls, path: Path) -> TokenFile:
        """Create the file with a random 256-bit token when it is missing, then check it."""
        token = cls(path)
        if not path.exists() and not path.is_symlink():
            _create_token_file(path)
        try:
            token._revision, token._digest = _load(path)
        except _TokenProblem as problem:
            raise GatewayConfigError(f"MCP token file {path}: {problem}") from None
        return token

    def digest(self) -> bytes | None:
        """SHA-256 of the current token; None when the file is no longer acceptable."""
        try:
            revision = _revision(os.stat(self.path))
        except OSError:
            return None
        if revision != self._revision:
            try:
                self._revision, self._digest = _load(self.path)
            except _TokenProblem:
                self._revision, self._digest = revision, None
        return self._digest


class _TokenProblem(Exception):
    pass


def _revision(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode, st.st_uid)


def _create_token_file(path: Path) -> None:
    """Written whole under a temporary name, then hard-linked into place: a reader never
    sees a partial file, and an existing file (a concurrent start) is never replaced."""
    if not path.parent.is_dir():
        raise GatewayConfigError(f"MCP token file {path}: its folder does not exist.")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".gno-token-")  # O_EXCL, mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    except OSError as exc:
        raise GatewayConfigError(
            f"MCP token file {path}: cannot create it ({exc.strerror})."
        ) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _load(path: Path) -> tuple[tuple[int, ...], bytes]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise _TokenProblem(f"cannot read it ({exc.strerror}).") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _TokenProblem("not a regular file.")
        if os.name == "posix" and st.st_mode & 0o077:
            raise _TokenProblem(
                f"permissions {stat.S_IMODE(st.st_mode):04o} are looser than 0600 "
                f"(chmod 600 {path})."
            )
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise _TokenProblem("owned by another user.")
        raw = os.read(fd, TOKEN_MAX + 64)
    finally:
        os.close(fd)
    token = raw.decode("ascii", "replace").strip()
    if not (TOKEN_MIN <= len(token) <= TOKEN_MAX and _VISIBLE_ASCII.fullmatch(token)):
        raise _TokenProblem(
            f"the token must be {TOKEN_MIN}-{TOKEN_MAX} visible ASCII characters "
            "(delete the file to have a new one created)."
        )
    return _revision(st), hashlib.sha256(token.encode()).digest()


# ---------------------------------------------------------------- the gateway


@dataclass
class Gateway:
    """The boundary of one listener; ``port`` is set once the socket is bound."""

    host: str = "127.0.0.1"
    port: int = 0
    token: TokenFile | None = None
    allowed_hosts: list[str] = field(default_factory=list)  # empty: the loopback defaults
    allowed_origins: list[str] = field(default_factory=list)
    whole_listener: bool = False  # daemon: every route; serve: /mcp only

    @property
    def loopback(self) -> bool:
        return is_loopback_bind(self.host)

    def hosts(self) -> list[str]:
        if not self.whole_listener:  # serve (loopback only): its routes all share one list
            return [*default_hosts(self.port), *self.allowed_hosts]
        return self.allowed_hosts or default_hosts(self.port)

    def origins(self) -> list[str]:
        return self.allowed_origins or [f"http://{h}" for h in default_hosts(self.port)]

    def guards(self, path: str) -> bool:
        return self.whole_listener or path == "/mcp" or path.startswith("/mcp/")

    def refusal(self, scope: Scope) -> int | None:
        """The HTTP status refusing this request, or None. Order: peer, Host, Origin,
        token state, bearer."""
        client = scope.get("client")
        if not client:
            return 403
        if self.loopback and not is_loopback_peer(client[0]):
            return 403
        headers: dict[bytes, str] = {}
        for name, value in scope.get("headers", []):
            if name in (b"host", b"origin", b"authorization"):
                headers.setdefault(name, value.decode("latin-1"))
        host = headers.get(b"host", "").strip().lower()
        if host not in {h.lower() for h in self.hosts()}:
            return 403
        origin = headers.get(b"origin")
        if origin is not None and origin.strip().lower() not in {o.lower() for o in self.origins()}:
            return 403
        if self.token is None and self.loopback:
            return None
        expected = self.token.digest() if self.token is not None else None
        if expected is None:
            return 503
        match = _BEARER.fullmatch(headers.get(b"authorization", "").strip())
        if match is None:
            return 401
        presented = hashlib.sha256(match.group(1).encode()).digest()
        return None if hmac.compare_digest(presented, expected) else 401


def refusal_response(status: int) -> Response:
    """``mcp-http-error@1.0`` with its fixed message (and the Bearer challenge on 401)."""
    body = {"jsonrpc": "2.0", "error": {"code": -32000, "message": MESSAGES[status]}, "id": None}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def build_gateway(
    host: str,
    token_file: str | None,
    allowed_hosts: list[str] | None,
    allowed_origins: list[str] | None,
    *,
    whole_listener: bool,
) -> Gateway:
    """Check the flags and load (or create) the token file; ``GatewayConfigError`` (exit 2)
    names what a non-loopback bind is missing."""
    hosts = [_check_host_entry(h) for h in allowed_hosts or []]
    origins = [_check_origin_entry(o) for o in allowed_origins or []]
    if not is_loopback_bind(host):
        missing = [
            name
            for name, present in (
                ("--mcp-token-file", token_file),
                ("--mcp-allowed-host", hosts),
                ("--mcp-allowed-origin", origins),
            )
            if not present
        ]
        if missing:
            raise GatewayConfigError(
                f"Binding {host} (not loopback) needs a token file and exact Host and Origin "
                f"allowlists; missing: {', '.join(missing)}."
            )
    token = TokenFile.ensure(Path(expand_home(token_file)).absolute()) if token_file else None
    return Gateway(
        host=host,
        token=token,
        allowed_hosts=hosts,
        allowed_origins=origins,
        whole_listener=whole_listener,
    )
