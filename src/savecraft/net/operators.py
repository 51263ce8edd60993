"""The operators of a server's administration interface: names, roles and hashed tokens.

The interface once trusted the source address alone, so every local user
and program could kick, ban and shut down. Now each request carries an
operator's token (``Authorization: Bearer TOKEN``); the address check stays
as a second fence.

The file (``STATE.operators`` unless ``serve --operators`` names another)
holds one operator a line::

    # savecraft operators: NAME ROLE sha256:HEX
    brigid administrator sha256:5f2c...

A token is 32 random bytes (``secrets``), shown once when the operator is
added and never stored: the file keeps its SHA-256 only. A slow password
hash (scrypt) would add nothing for 256 random bits, and a plain digest lets
every request be checked in microseconds. A request's token is compared
with every operator's digest in constant time (``hmac.compare_digest``,
no early exit), so the time taken says nothing about which one nearly
matched.

The file is created 0600 from the start (``O_CREAT | O_EXCL`` with the mode,
then renamed into place), never written with the umask's mode and tightened
afterwards; a file that others may read or write is refused, as ssh refuses
a private key. The server reads it again when it changes, so ``savecraft
operators FILE add|remove`` takes effect at the next request without a
restart; a file that became unreadable or invalid refuses everyone (fails
closed) and says why once in the log.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import SavecraftError

ROLES = ("read-only", "moderator", "administrator")  # each may do what the ones before may
TOKEN_PREFIX = "sco_"  # (a token is recognisable in a file or a leak scanner's output)
_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_DIGEST = re.compile(r"sha256:([0-9a-f]{64})")
HEADER = "# savecraft operators: NAME ROLE sha256:HEX (tokens are shown once, when added)\n"


class OperatorsError(SavecraftError):
    """The operators file cannot be used (missing, unsafe mode, a bad line): one line to act on."""


def role_rank(role: str) -> int:
    return ROLES.index(role)


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class Operator:
    name: str
    role: str
    digest: bytes  # SHA-256 of the token

    def may(self, role: str) -> bool:
        """True when this operator's role is ``role`` or above."""
        return role_rank(self.role) >= role_rank(role)


class Operators:
    """The operators of one file, in file order."""

    def __init__(self, operators: list[Operator] | None = None) -> None:
        self.operators = list(operators or [])

    def __len__(self) -> int:
        return len(self.operators)

    def find(self, token: str) -> Operator | None:
        """The operator whose token this is; every digest is compared, in constant time."""
        wanted = digest(token)
        found = None
        for op in self.operators:
            if hmac.compare_digest(op.digest, wanted):
                found = op
        return found

    def get(self, name: str) -> Operator | None:
        return next((op for op in self.operators if op.name == name), None)

    def add(self, name: str, role: str) -> str:
        """Add ``name`` with ``role``; the new token (shown once, then only its hash is kept)."""
        if not _NAME.fullmatch(name):
            raise OperatorsError(f"{name!r}: an operator's name is 1 to 64 letters, digits or "
                                 "_.@- (no spaces)")
        if role not in ROLES:
            raise OperatorsError(f"{role!r}: the role is one of {', '.join(ROLES)}")
        if self.get(name) is not None:
            raise OperatorsError(f"{name!r} is an operator already (remove it first to give it "
                                 "a new token or role)")
        token = new_token()
        self.operators.append(Operator(name, role, digest(token)))
        return token

    def remove(self, name: str) -> bool:
        before = len(self.operators)
        self.operators = [op for op in self.operators if op.name != name]
        return len(self.operators) != before

    def dumps(self) -> str:
        return HEADER + "".join(f"{op.name} {op.role} sha256:{op.digest.hex()}\n"
                                for op in self.operators)

    @classmethod
    def parse(cls, text: str, where: str = "operators") -> Operators:
        ops: list[Operator] = []
        seen: set[str] = set()
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            m = _DIGEST.fullmatch(parts[2]) if len(parts) == 3 else None
            if m is None or not _NAME.fullmatch(parts[0]) or parts[1] not in ROLES:
                raise OperatorsError(f"{where}, line {number}: expected NAME ROLE sha256:HEX "
                                     f"(ROLE one of {', '.join(ROLES)})")
            if parts[0] in seen:
                raise OperatorsError(f"{where}, line {number}: {parts[0]!r} is named twice")
            seen.add(parts[0])
            ops.append(Operator(parts[0], parts[1], bytes.fromhex(m.group(1))))
        return cls(ops)


def default_path(state: str | Path) -> Path:
    """Where a server's operators live unless ``--operators`` says: next to its state."""
    return Path(f"{os.fspath(state)}.operators")


def _check_mode(path: Path, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise OperatorsError(f"{path}: not a regular file")
    if st.st_mode & 0o077:
        raise OperatorsError(f"{path}: others may read or change it (mode "
                             f"{stat.S_IMODE(st.st_mode):04o}): chmod 600 {path}")


def load(path: str | Path) -> Operators:
    """Read an operators file, refusing one that others may read or write."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise OperatorsError(f"{p}: no operators file (create one: savecraft operators {p} "
                             "add NAME --role administrator)") from None
    except OSError as err:
        raise OperatorsError(f"{p}: cannot read: {err.strerror or err}") from None
    with os.fdopen(fd, "rb") as f:
        _check_mode(p, os.fstat(f.fileno()))
        data = f.read(1 << 20)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OperatorsError(f"{p}: not UTF-8 text") from None
    return Operators.parse(text, str(p))


def save(path: str | Path, operators: Operators) -> None:
    """Write the file whole, created 0600 from the start and renamed into place."""
    p = Path(path)
    folder = p.parent
    tmp = folder / f".{p.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except OSError as err:
        raise OperatorsError(f"{p}: cannot write: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)  # (the umask can only have taken bits away)
            f.write(operators.dumps().encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except OSError as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OperatorsError(f"{p}: cannot write: {err.strerror or err}") from None
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


class OperatorFile:
    """The server's view of its operators file, read again whenever it changes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._key: tuple[int, int, int, int] | None = None
        self.operators = Operators()
        self.problem: str | None = None  # why everyone is refused now (None: the file is good)

    def current(self) -> Operators:
        """The operators as the file says now; none (everyone refused) when it is unusable."""
        try:
            st = os.stat(self.path)
            key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
        except OSError:
            key = None
        if key is not None and key == self._key:
            return self.operators
        self._key = key
        try:
            self.operators = load(self.path)
            self.problem = None
        except OperatorsError as err:
            self.operators = Operators()
            self.problem = str(err)
        return self.operators


__all__ = ["ROLES", "Operator", "OperatorFile", "Operators", "OperatorsError", "default_path",
           "digest", "load", "new_token", "role_rank", "save"]
