"""A client for the server's administration interface, for scripts and websites.

Synchronous and standard-library only (``http.client`` over TLS), so a
script or a web application's request handler can use it without an event
loop::

    from savecraft.net.admin_client import AdminClient

    admin = AdminClient("127.0.0.1", 4001, cafile="players.sav.cert.pem",
                        token=os.environ["SAVECRAFT_ADMIN_TOKEN"])
    print(admin.request("status"))
    admin.request("kick", name="Brigid")

The token is an operator's (``savecraft operators FILE add NAME --role ROLE``),
sent as ``Authorization: Bearer TOKEN``. Every answer is the decoded JSON
object; a refusal (400, 401, 403, 404, 409, 503) raises
:class:`AdminRequestError` with the server's ``error`` text and the status.
"""

from __future__ import annotations

import http.client
import json
import ssl
from typing import Any
from urllib.parse import quote, urlencode

from .certs import client_context


class AdminRequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class AdminClient:
    """One administration endpoint; each :meth:`request` is one GET on its own connection."""

    def __init__(self, host: str, port: int, *, cafile: str | None = None,
                 tls: ssl.SSLContext | None = None, timeout: float = 10.0,
                 source: str | None = None, token: str | None = None) -> None:
        self.host = host
        self.port = port
        # the server's certificate is self-signed: pinned with cafile, else accepted as is
        self.tls = tls or client_context(cafile)
        self.timeout = timeout
        self.source = source  # the local address to connect from (tests: 127.0.0.2)
        if token is not None and (not token.isascii() or not token.isprintable()
                                  or any(c.isspace() for c in token)):
            raise ValueError("the token is one word of printable ASCII")  # (no header injection)
        self.token = token  # the operator's token (None: no credential, answered 401)

    def request(self, what: str, /, **params: Any) -> dict[str, Any]:
        path = "/" + quote(what.strip("/"))
        if params:
            path += "?" + urlencode({k: _text(v) for k, v in params.items()})
        conn = http.client.HTTPSConnection(
            self.host, self.port, context=self.tls, timeout=self.timeout,
            source_address=(self.source, 0) if self.source else None)
        try:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as err:
            raise AdminRequestError(0, f"{self.host}:{self.port}: {err or type(err).__name__}"
                                    ) from None
        finally:
            conn.close()
        try:
            doc = json.loads(body)
        except ValueError:
            raise AdminRequestError(response.status, f"not JSON: {body[:80]!r}") from None
        if not isinstance(doc, dict):
            raise AdminRequestError(response.status, f"not a JSON object: {body[:80]!r}")
        if response.status != 200:
            raise AdminRequestError(response.status, str(doc.get("error", "")))
        return doc


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


__all__ = ["AdminClient", "AdminRequestError"]
