"""``savecraft serve``, ``savecraft play`` and ``savecraft loadtest``: the TirNanoG multiplayer.

Every problem at start (a missing or invalid world, an unusable state, a
port in use, a bad certificate) ends in one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
import orjson

from .. import passwords
from ..cli import EXIT_PROBLEM, UsageError
from . import output
from .argtypes import whole
from ..console import live_loadtest
from ..errors import SavecraftError
from ..fileio import ensure_dir
from ..lazy import lazy_module

if TYPE_CHECKING:
    from ..net import admin
    from ..net import admin_client
    from ..net import backups
    from ..net import certs
    from ..net import client as _client
    from ..net import loadtest
    from ..net import operators
    from ..net import server
    from ..net import state
    from ..net import world as _world
else:  # imported on first use (savecraft.lazy): start-up does not need them
    admin = lazy_module("savecraft.net.admin")
    admin_client = lazy_module("savecraft.net.admin_client")
    backups = lazy_module("savecraft.net.backups")
    certs = lazy_module("savecraft.net.certs")
    _client = lazy_module("savecraft.net.client")
    loadtest = lazy_module("savecraft.net.loadtest")
    operators = lazy_module("savecraft.net.operators")
    server = lazy_module("savecraft.net.server")
    state = lazy_module("savecraft.net.state")
    _world = lazy_module("savecraft.net.world")


_port = whole(0, 65535, "a port")
TOKEN_ENV = "SAVECRAFT_ADMIN_TOKEN"
_phases = whole(1, 100, "the number of phases")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {value:g}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="host a TirNanoG world (.tng) for players over the network",
                       description="Host a TirNanoG world: TLS handshake on TCP PORT, game on UDP "
                       "(same port number unless --udp-port). Players persist in STATE, a "
                       "TirNanoG saved game (created when missing).")
    p.add_argument("world", metavar="WORLD.tng")
    p.add_argument("--state", required=True, metavar="STATE", help="the server's saved game")
    p.add_argument("--port", type=_port, required=True, help="TCP port (0: let the OS choose)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--udp-port", type=_port, default=None, help="UDP port (default: --port)")
    p.add_argument("--cert", default=None, help="TLS certificate (PEM); default: self-signed, "
                   "kept next to the state")
    p.add_argument("--key", default=None, help="TLS private key (PEM) for --cert (default: the "
                   "self-signed one's, kept next to the state)")
    p.add_argument("--save-interval", type=_positive, default=10.0, metavar="SECONDS")
    p.add_argument("--tick", type=_positive, default=0.05, metavar="SECONDS",
                   help="how often each player gets its batch of updates (default 0.05)")
    p.add_argument("--phases", type=_phases, default=5, metavar="N",
                   help="run the tick as N phases, each sending to 1/N of the players "
                   "(default 5; 1 sends to everyone at once)")
    p.add_argument("--no-registration", action="store_true", help="refuse new players")
    p.add_argument("--tls-timeout", type=_positive, default=5.0, metavar="SECONDS",
                   help="a TCP connection must finish TLS within this (default 5)")
    p.add_argument("--registrations-per-address", type=whole(0, 1_000_000, "a count"),
                   default=10, metavar="N",
                   help="new accounts per address per minute (default 10; 0: no limit)")
    p.add_argument("--registrations-per-minute", type=whole(0, 1_000_000, "a count"),
                   default=600, metavar="N",
                   help="new accounts per minute from everyone (default 600; 0: no limit)")
    p.add_argument("--admin", default=None, metavar="ADDR[:PORT]",
                   help="administration interface (REST over TLS, JSON) answering only the "
                   "client address ADDR and only with an operator's token, listening on --host "
                   "at PORT (default: --port + 1)")
    p.add_argument("--operators", default=None, metavar="FILE",
                   help="the operators (names, roles, hashed tokens) --admin accepts, made by "
                   "`savecraft operators FILE add` (default: STATE.operators)")
    p.add_argument("--metrics", default=None, metavar="ADDR:PORT",
                   help="serve Prometheus metrics on http://ADDR:PORT/metrics (default: none)")
    p.add_argument("--backups", type=whole(0, 1000, "the number of backups"), default=0,
                   metavar="N", help="after each timer save keep the last N states as "
                   "STATE.1 (newest) ... STATE.N (default: 0, none)")
    p.add_argument("--backup-every", type=_positive, default=None, metavar="SECONDS",
                   help="also snapshot the state this often into STATE.snapshots/ (default: never)")
    p.add_argument("--snapshots", type=whole(1, 100_000, "the number of snapshots"),
                   default=7, metavar="K", help="snapshots kept (default 7)")
    p.add_argument("--restore", default=None, metavar="BACKUP",
                   help="put BACKUP (checked) in place of STATE before starting; the "
                   "replaced state is kept as STATE.before-restore (default: none)")
    p.add_argument("--quiet", action="store_true", help="log only warnings")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("admin", help="send one request to a server's administration interface",
                       description="One GET request to `savecraft serve --admin`; prints the "
                       "JSON answer. REQUEST is status, tng, players, user, deny, kick, ban, "
                       "unban, registration, save, announce or shutdown; parameters as "
                       "key=value (e.g. name=Brigid, address=203.0.113.7, open=0, text=...).")
    p.add_argument("endpoint", metavar="HOST:PORT")
    p.add_argument("request", metavar="REQUEST")
    p.add_argument("params", nargs="*", metavar="KEY=VALUE")
    p.add_argument("--cafile", default=None, help="trust only this certificate (the server's "
                   "STATE.cert.pem); default: accept the server's self-signed one")
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help="read the operator's token from FILE (default: the environment "
                   f"variable {TOKEN_ENV}; never from the command line, which `ps` shows)")
    p.add_argument("--timeout", type=_positive, default=10.0, metavar="SECONDS")
    p.set_defaults(func=cmd_admin)

    p = sub.add_parser("operators", help="list, add or remove the operators of a server's "
                       "administration interface",
                       description="The operators `savecraft serve --admin` accepts: each has a "
                       "name, a role (read-only: status, tng, players, user, deny; moderator: "
                       "also kick, ban, unban, announce, save; administrator: also "
                       "registration, shutdown) and a token, printed once by `add` and kept "
                       "only as its SHA-256. FILE (by default the server's STATE.operators) is "
                       "created 0600; a running server reads it again at its next request.")
    p.add_argument("file", metavar="FILE", help="the operators file (e.g. server.sav.operators)")
    p.add_argument("action", choices=("list", "add", "remove"))
    p.add_argument("name", nargs="?", metavar="NAME")
    p.add_argument("--role", default=None, choices=("read-only", "moderator", "administrator"),
                   help="for add: what the operator may do (default: none; add needs one)")
    p.add_argument("--token-file", default=None, metavar="OUT",
                   help="for add: write the new token to OUT, a new file created 0600 "
                   "(default: print it on stdout)")
    output.add_quiet(p)
    p.set_defaults(func=cmd_operators)

    p = sub.add_parser("deny", help="list, add or remove refused addresses in a server's state "
                       "(while the server is stopped)",
                       description="The DENY chunk of a server state: addresses refused at the "
                       "TLS handshake and for datagrams. Run it while the server is stopped (a "
                       "running server writes its own copy over it: use `savecraft admin HOST:PORT "
                       "ban address=...` then). A range (ADDR/PREFIX) is stored as its addresses, "
                       "at most 4096.")
    p.add_argument("world", metavar="WORLD.tng")
    p.add_argument("--state", required=True, metavar="STATE", help="the server's saved game")
    p.add_argument("action", choices=("list", "add", "remove"))
    p.add_argument("addresses", nargs="*", metavar="ADDR[/PREFIX]")
    p.set_defaults(func=cmd_deny)

    p = sub.add_parser("play", help="connect to a TirNanoG server, walk, chat and log out",
                       description="A scripted player: downloads and caches the asset bundle "
                       "(CRC checked), logs in (registering when the name is new), walks, chats "
                       "and logs out, printing what it sees.")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--port", type=_port, default=4000)
    p.add_argument("--udp-port", type=_port, default=None, help="UDP port (default: --port)")
    p.add_argument("--name", default="player")
    passwords.add_arguments(p, default="player")
    p.add_argument("--cache", default=None, help="asset bundle cache folder "
                   "(default $XDG_CACHE_HOME/savecraft/tirnanog, ~/.cache when unset)")
    p.add_argument("--cafile", default=None, help="trust only this certificate (e.g. the "
                   "server's STATE.cert.pem); default: accept the server's self-signed one")
    p.add_argument("--steps", type=whole(0, 1_000_000, "the number of steps"), default=5,
                   help="moves to make before logging out (default 5)")
    p.add_argument("--say", default="hello")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("loadtest", help="simulate many players against a TirNanoG server",
                       description="N bots on loopback: messages per second, move->relay "
                       "latency (p50/p99), drops and CPU.")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--port", type=_port, default=4000)
    p.add_argument("--udp-port", type=_port, default=None, help="UDP port (default: --port)")
    p.add_argument("--clients", type=whole(1, 1_000_000, "the number of clients"), required=True,
                   help="how many bots log in")
    p.add_argument("--rate", type=_positive, required=True, help="moves per second per client")
    p.add_argument("--duration", type=_positive, required=True, metavar="SECONDS")
    p.add_argument("--server-pid", type=whole(1, what="a process id"), default=None,
                   help="measure this process's CPU (default: the process listening on --port, "
                   "found in /proc)")
    p.add_argument("--prefix", default="bot", help="bot names: PREFIX0, PREFIX1, ...")
    p.add_argument("--processes", type=whole(1, 1024, "the number of processes"), default=1,
                   help="split the bots over this many processes (by map)")
    passwords.add_arguments(p, default="load")
    p.add_argument("-q", "--quiet", action="store_true", help="no live line on the terminal")
    p.set_defaults(func=cmd_loadtest)


def cmd_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(message)s", stream=sys.stderr)
    if args.metrics is not None:
        try:
            import aiohttp  # noqa: F401

            from ..net.metrics import parse_listen
        except ImportError:
            raise UsageError("--metrics needs prometheus-client and aiohttp: "
                             "pip install 'savecraft[server]'") from None
        try:
            parse_listen(args.metrics)
        except ValueError as err:
            raise UsageError(f"--metrics: {err}") from None
    if args.admin is not None:
        try:
            admin.AdminAddress.parse(args.admin)
        except ValueError as err:
            raise UsageError(f"--admin: {err}") from None
        try:
            import aiohttp  # noqa: F401
        except ImportError:
            raise UsageError("--admin needs aiohttp: pip install 'savecraft[server]'") from None

        path = args.operators or operators.default_path(args.state)
        try:
            if not len(operators.load(path)):
                raise UsageError(f"--admin: {path} names no operator (add one: savecraft "
                                 f"operators {path} add NAME --role administrator)")
        except operators.OperatorsError as err:
            raise UsageError(f"--admin: {err}") from None
    elif args.operators is not None:
        raise UsageError("--operators is for --admin")
    if args.restore is not None:
        _restore(args)
    world, store, tls = server.open_server(args.world, args.state, args.cert, args.key, args.host)
    config = server.ServerConfig(host=args.host, port=args.port, udp_port=args.udp_port,
                                 save_interval=args.save_interval, tick=args.tick, phases=args.phases,
                                 registration_open=not args.no_registration,
                                 tls_timeout=args.tls_timeout,
                                 registrations_per_address=args.registrations_per_address,
                                 registrations_per_minute=args.registrations_per_minute,
                                 admin=args.admin, operators=args.operators,
                                 metrics=args.metrics, backups=args.backups,
                                 backup_every=args.backup_every or 0.0, snapshots=args.snapshots)
    try:
        result: int = server.run(server.serve, world, store, tls, config)
    except OSError as err:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: "
                         f"{err.strerror or err}") from None
    return result


def _restore(args: argparse.Namespace) -> None:
    if not Path(args.restore).is_file():
        raise UsageError(f"{args.restore}: no such backup")
    try:
        kept = backups.restore(args.state, args.restore, _world.load_world(args.world))
    except SavecraftError as err:
        raise UsageError(f"--restore: {err}") from None
    except OSError as err:
        raise UsageError(f"{args.state}: cannot write: {err.strerror or err}") from None
    logging.getLogger("savecraft.net.server").warning(
        "restore backup=%s state=%s kept=%s", args.restore, args.state, kept)


def cmd_admin(args: argparse.Namespace) -> int:
    host, sep, port = args.endpoint.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise UsageError(f"{args.endpoint!r}: expected HOST:PORT")
    params: dict[str, str] = {}
    for item in args.params:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"{item!r}: expected KEY=VALUE")
        params[key] = value
    token = _admin_token(args.token_file)
    client = admin_client.AdminClient(host.strip("[]"), int(port), cafile=args.cafile, timeout=args.timeout,
                                      token=token)
    try:
        answer = client.request(args.request, **params)
    except admin_client.AdminRequestError as err:
        if not err.status:  # no answer (refused connection, TLS, timeout): the endpoint is unusable
            raise UsageError(f"{args.endpoint} {args.request}: {err.message}") from None
        # The server answered and refused (bad request, unknown player, not allowed): exit 1.
        hint = (f" (no token given: set {TOKEN_ENV} or use --token-file)"
                if err.status == 401 and token is None else "")
        print(f"savecraft: error: {args.endpoint} {args.request}: the server refused: {err}"
              f"{hint}", file=sys.stderr)
        return EXIT_PROBLEM
    sys.stdout.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


def _admin_token(token_file: str | None) -> str | None:
    """The operator's token from --token-file or the environment, never from argv."""
    if token_file is not None:
        try:
            with open(token_file, encoding="utf-8") as f:
                text = f.read(4096)
        except (OSError, UnicodeDecodeError) as err:
            why = getattr(err, "strerror", None) or str(err)
            raise UsageError(f"--token-file {token_file}: cannot read: {why}") from None
        token = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not token:
            raise UsageError(f"--token-file {token_file}: the file is empty")
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
        if not token:
            return None
    if not token.isascii() or not token.isprintable() or " " in token:
        raise UsageError("the token is one word of printable ASCII (as `savecraft operators "
                         "... add` printed it)")
    return token


def cmd_operators(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        if args.action == "list":
            if args.name is not None or args.role is not None:
                raise UsageError("operators list takes no NAME or --role")
            for op in operators.load(path).operators:
                print(f"{op.name}\t{op.role}")
            return 0
        if args.name is None:
            raise UsageError(f"operators {args.action}: give the operator's NAME")
        ops = operators.load(path) if path.exists() else operators.Operators()
        if args.action == "remove":
            if args.role is not None or args.token_file is not None:
                raise UsageError("operators remove takes only NAME")
            if not ops.remove(args.name):
                print(f"savecraft: error: {path}: no operator named {args.name!r}",
                      file=sys.stderr)
                return EXIT_PROBLEM
            operators.save(path, ops)
            if not args.quiet:
                print(f"{path}: removed {args.name} ({len(ops)} operator"
                      f"{'s' if len(ops) != 1 else ''} left); a running server refuses its token "
                      "from its next request")
            return 0
        if args.role is None:
            raise UsageError("operators add: give --role read-only, moderator or administrator")
        token = ops.add(args.name, args.role)
        if args.token_file is not None:
            _write_secret(Path(args.token_file), token + "\n")
        try:
            operators.save(path, ops)
        except operators.OperatorsError:
            if args.token_file is not None:  # (a token for an operator that was never added)
                Path(args.token_file).unlink(missing_ok=True)
            raise
    except operators.OperatorsError as err:
        raise UsageError(str(err)) from None
    if args.token_file is None:
        print(token)  # printed even with -q: it is shown nowhere else
        if not args.quiet:
            print(f"{path}: added {args.name} ({args.role}); the token above is shown once and "
                  f"kept only as its hash: give it to savecraft admin with {TOKEN_ENV}=... or "
                  "--token-file", file=sys.stderr)
    elif not args.quiet:
        print(f"{path}: added {args.name} ({args.role}); its token is in {args.token_file} "
              "(mode 0600)")
    return 0


def _write_secret(path: Path, text: str) -> None:
    """A new file only readable by its owner, from the start (never the umask's mode first)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except FileExistsError:
        raise UsageError(f"--token-file {path}: exists already (a token is never written over "
                         "another)") from None
    except OSError as err:
        raise UsageError(f"--token-file {path}: cannot write: {err.strerror or err}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def cmd_deny(args: argparse.Namespace) -> int:
    if not Path(args.state).exists():
        raise UsageError(f"{args.state}: no such server state")
    if args.action != "list" and not args.addresses:
        raise UsageError(f"deny {args.action}: give at least one ADDR or ADDR/PREFIX")
    try:
        store = state.PlayerStore(args.state, _world.load_world(args.world))
    except state.StateError as err:
        raise UsageError(str(err)) from None
    if args.action == "list":
        for addr in store.deny_list():
            print(addr)
        return 0
    change = store.deny_add if args.action == "add" else store.deny_remove
    done: list[str] = []
    for spec in args.addresses:
        try:
            done += change(spec)
        except ValueError as err:
            raise UsageError(str(err)) from None
    if done:
        store.write()
    verb = "added to" if args.action == "add" else "removed from"
    print(f"{args.state}: {len(done)} address{'es' if len(done) != 1 else ''} {verb} DENY "
          f"({len(store.deny)} denied now)")
    return 0


def _loopback_only(host: str) -> None:
    if host not in ("127.0.0.1", "::1", "localhost") and not host.startswith("127."):
        raise UsageError(f"{host}: the load test only runs against loopback addresses")


def cache_folder(given: str | None) -> Path:
    """Where ``play`` keeps downloaded asset bundles.

    A folder the person named must exist up to its parent (the one folder rule);
    the default, ``$XDG_CACHE_HOME/savecraft/tirnanog`` (``~/.cache`` when unset),
    is savecraft's own and is made with its parents: a first ``play`` on a new
    account has no ``~/.cache/savecraft`` yet.
    """
    if given:
        return Path(given)

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return ensure_dir(Path(base) / "savecraft" / "tirnanog", parents=True)


def cmd_play(args: argparse.Namespace) -> int:
    cache = cache_folder(args.cache)
    tls = certs.client_context(args.cafile)

    password = passwords.resolve(args, default="player", prompt=f"password for {args.name}: ")

    async def go() -> None:
        await _client.play(args.host, args.port, args.name, password, udp_port=args.udp_port,
                           cache=cache, tls=tls, steps=args.steps, say=args.say or None)

    try:
        server.run(go)
    except _client.ClientError as err:
        if err.reason is None:  # no connection, no answer: unreadable input, exit 2
            raise
        print(f"savecraft: error: {err}", file=sys.stderr)  # the server said no: exit 1
        return EXIT_PROBLEM
    return 0


def cmd_loadtest(args: argparse.Namespace) -> int:
    _loopback_only(args.host)
    if not 1 <= args.clients <= 10_000:
        raise UsageError("--clients must be 1 to 10000")
    if not 1 <= args.processes <= 16:
        raise UsageError("--processes must be 1 to 16")
    if args.duration > 600:
        raise UsageError("--duration is at most 600 seconds")

    password = passwords.resolve(args, default="load")
    with live_loadtest(enabled=args.processes == 1) as control:
        async def go() -> Any:
            return await loadtest.run_loadtest(args.host, args.port, clients=args.clients, rate=args.rate,
                                               duration=args.duration, udp_port=args.udp_port,
                                               server_pid=args.server_pid, prefix=args.prefix,
                                               own_process=True, processes=args.processes,
                                               password=password, control=control)

        report = server.run(go)
    if control is not None and control.stop:
        print(f"interrupted: the figures are for the {report.duration:.1f} s walked")
    for line in report.lines():
        print(line)
    if control is not None and control.stop:
        return 130
    return 0 if report.logged_in == args.clients else 1
