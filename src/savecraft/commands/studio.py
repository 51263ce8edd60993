"""``savecraft studio [FILE ...]``: the web studio, on this machine, in the browser.

Starts the studio's server (:mod:`savecraft.studio.server`) on 127.0.0.1 by
default, prints its address with a fresh access token (as Jupyter does),
opens the files given, and opens the browser unless ``--no-browser``. It runs
until interrupted (Ctrl-C).

The browser is not given the address on its command line, where every local
user could read the token (``ps``): it opens a redirect file, made 0600 in a
private (0700) temporary folder and removed when the studio stops, as
Jupyter's ``jpserver-*-open.html`` is.
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cli import EXIT_OK, UsageError
from ..lazy import lazy_module

if TYPE_CHECKING:
    import asyncio
    import ipaddress
    import webbrowser

    from ..studio import documents
    from ..studio import server as _server
else:  # imported on first use (savecraft.lazy): start-up does not need them
    asyncio = lazy_module("asyncio")
    ipaddress = lazy_module("ipaddress")
    webbrowser = lazy_module("webbrowser")
    documents = lazy_module("savecraft.studio.documents")
    _server = lazy_module("savecraft.studio.server")

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as the shell and the other commands report Ctrl-C

if TYPE_CHECKING:
    from ..studio.documents import Workspace


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, found {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, found {port}")
    return port


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, found {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 1, found {n}")
    return n


def _seconds(text: str) -> float:
    try:
        n = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {text!r}") from None
    if not 0 < n <= 86400:
        raise argparse.ArgumentTypeError(f"expected seconds above 0 (at most a day), found {text}")
    return n


WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


def _address(host: str, port: int, token: str) -> str:
    """The address to open. A wildcard (``0.0.0.0``, ``::``) is where the server listens, not an
    address a browser can open, so the loopback address of its family stands in for it."""
    host = WILDCARDS.get(host, host)
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def redirect_file(folder: Path, url: str) -> Path:
    """A page that sends the browser on to ``url``, readable by this user alone."""
    page = folder / "savecraft-studio-open.html"
    shown = html.escape(url, quote=True)
    text = ("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"refresh\" content=\"0;url={shown}\">"
            "<title>savecraft studio</title></head>\n"
            f"<body><p>Opening the <a href=\"{shown}\">savecraft studio</a>...</p></body></html>\n")
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return page


def _open(paths: list[str]) -> documents.Workspace:
    """The files named on the command line, every one read before the server starts.

    A file that cannot be read is the command's error (exit 2), as in every
    other command: a studio silently missing one of its files would look like
    an empty one. A file the formats cannot read still opens, as bytes, so its
    problems can be looked at.
    """
    workspace = documents.Workspace()
    for path in paths:
        workspace.open_path(path)
    return workspace


async def _serve(args: argparse.Namespace, workspace: Workspace) -> None:
    token = args.token or _server.new_token()
    app = _server.make_app(workspace, token, host=args.host)
    runner = _server.runner_for(app, args.timeout)
    await runner.setup()
    try:
        server, _ = await _server.listen(runner, args.host, args.port, args.max_connections)
    except OSError as exc:
        await runner.cleanup()
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    bound = server.sockets[0].getsockname() if server.sockets else None  # (--port 0)
    port = int(bound[1]) if bound else args.port
    url = _address(args.host, port, token)
    print(f"savecraft studio: {len(workspace.documents)} file(s) open", flush=True)
    print(f"    {url}", flush=True)
    if args.host in WILDCARDS:
        print(f"    (listening on every address: from another machine, use this machine's address "
              f"with port {port} and the same token)", flush=True)
    print("Open that address in a browser (it holds the access token). Ctrl-C stops the studio.",
          flush=True)
    private: str | None = None
    stop = asyncio.Event()
    try:  # `kill` stops it as Ctrl-C does: the redirect file is removed either way
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        if not args.no_browser:
            private = tempfile.mkdtemp(prefix="savecraft-studio-")  # 0700
            webbrowser.open(redirect_file(Path(private), url).as_uri())
        await stop.wait()
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)
        server.close()
        await runner.cleanup()


def cmd_studio(args: argparse.Namespace) -> int:
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise UsageError("the studio needs aiohttp: python3 -m pip install aiohttp "
                         "(or reinstall savecraft, which depends on it)") from None
    try:
        ipaddress.ip_address(args.host)
    except ValueError:
        if args.host != "localhost":
            raise UsageError(f"--host: expected an IP address, found {args.host!r}") from None
    if args.host not in ("127.0.0.1", "::1", "localhost") and not ipaddress.ip_address(args.host).is_loopback:
        print(f"savecraft studio: warning: listening on {args.host}, reachable from other machines; "
              "anyone with the address can read and change the open files", file=sys.stderr)
    workspace = _open(args.files)
    try:
        asyncio.run(_serve(args, workspace))
    except KeyboardInterrupt:
        # Stopped by Ctrl-C, as always: the shell's convention for "ended by SIGINT" is 128 + 2,
        # so a script that starts the studio can tell an interruption from a clean end.
        print("savecraft studio: stopped", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("studio", help="the web studio: tree, hex, problems, edit, diff and pictures "
                       "in the browser")
    p.add_argument("files", nargs="*", metavar="FILE", help="files to open at start")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=0,
                   help="port (default 0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--max-connections", type=_positive, default=None, metavar="N",
                   help="connections open at once (default: from the file descriptor limit, at "
                   "most 256)")
    p.add_argument("--timeout", type=_seconds, default=15.0, metavar="SECONDS",
                   help="time a connection may take to send a request's headers, or stay idle "
                   "(default 15)")
    p.add_argument("--token", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_studio)
