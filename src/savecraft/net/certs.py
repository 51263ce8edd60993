"""TLS for the TCP handshake: a self-signed certificate made on first start, or the user's.

The certificate and key are kept next to the state file (``STATE.cert.pem``
and ``STATE.key.pem``) so a restarted server presents the same certificate
and a client that pinned it keeps trusting it. The key is an ECDSA P-256
key: its handshakes cost far less CPU than RSA's, which matters when
thousands of players log in at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import ssl
import stat
from pathlib import Path
import ipaddress
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ..errors import SavecraftError
from ..fileio import atomic_write, write_file

log = logging.getLogger("savecraft.net.certs")

KEY_MODE = 0o600
"""The private key's mode: the server's user alone may read it."""


class CertError(SavecraftError):
    """The certificate or key cannot be made or loaded."""


def default_paths(state: str | Path) -> tuple[Path, Path]:
    p = Path(state)
    return p.with_name(p.name + ".cert.pem"), p.with_name(p.name + ".key.pem")


def make_self_signed(cert: Path, key: Path, host: str = "localhost") -> None:
    """Write a new self-signed certificate valid for ``host``, 127.0.0.1 and ::1 (ten years)."""
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"savecraft TirNanoG server {host}")])
    now = dt.datetime.now(dt.UTC)
    alt: list[x509.GeneralName] = [x509.DNSName("localhost"),
                                   x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                   x509.IPAddress(ipaddress.ip_address("::1"))]
    try:
        alt.append(x509.IPAddress(ipaddress.ip_address(host)))
    except ValueError:
        if host != "localhost":
            alt.append(x509.DNSName(host))
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(private, hashes.SHA256())
    )
    key_pem = private.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    write_file(key, key_pem, mode=KEY_MODE)  # created 0600: never readable by others, even if killed
    atomic_write(cert, certificate.public_bytes(serialization.Encoding.PEM))


def repair_key_mode(key: Path) -> bool:
    """Make a kept key 0600 again if it is readable or writable by others; True if it was.

    Older savecraft wrote the key with the umask's mode and narrowed it
    afterwards, so a kill in between left it world-readable for good.
    """
    try:
        st = os.lstat(key)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or not st.st_mode & 0o077:
        return False
    os.chmod(key, KEY_MODE)
    log.warning("%s: the private key was readable by others (mode %o); made it %o",
                key, stat.S_IMODE(st.st_mode), KEY_MODE)
    return True


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as err:
        raise CertError(f"{cert}: cannot load the certificate and key ({key}): {err}") from None
    return ctx


def ensure_server_context(state: str | Path, cert: str | Path | None = None,
                          key: str | Path | None = None, host: str = "localhost"
                          ) -> tuple[ssl.SSLContext, Path, bool]:
    """The server's TLS context; makes the self-signed pair when none is given or kept yet.

    Returns the context, the certificate's path and whether it was just made.
    """
    if (cert is None) != (key is None):
        raise CertError("give both --cert and --key, or neither")
    made = False
    if cert is None or key is None:
        cert_p, key_p = default_paths(state)
        if not (cert_p.exists() and key_p.exists()):
            make_self_signed(cert_p, key_p, host)
            made = True
        else:
            repair_key_mode(key_p)
    else:
        cert_p, key_p = Path(cert), Path(key)
        for p in (cert_p, key_p):
            if not p.is_file():
                raise CertError(f"{p}: file not found")
    return server_context(cert_p, key_p), cert_p, made


def client_context(cafile: str | Path | None = None) -> ssl.SSLContext:
    """A client context: verifies against ``cafile`` (e.g. the server's own certificate) when
    given, else accepts any certificate (the usual self-signed game server; the channel is still
    encrypted, but not authenticated)."""
    if cafile is not None:
        ctx = ssl.create_default_context(cafile=str(cafile))
        ctx.check_hostname = False
        return ctx
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


__all__ = ["CertError", "client_context", "default_paths", "ensure_server_context",
           "make_self_signed", "repair_key_mode", "server_context"]
