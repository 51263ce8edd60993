"""The studio answers the person who started it, and no one else on the machine.

Each test plays an attacker as one would: the installed ``savecraft studio``
command in a subprocess, spoken to over 127.0.0.1 with raw HTTP (forged
``Host``, ``Origin``, ``Sec-Fetch-Site``, content types, the cookie a page on
another loopback port receives), floods of slow and idle connections under a
low descriptor limit, and a real browser (Chromium through Playwright) that
opens the studio and then a hostile page on another loopback port. Every
wait is bounded. The refusals are counted by kind in :data:`REFUSED` and
printed at the end of the module (``-s``).
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import savecraft
from savecraft.formats.tirnanog.save import sample

TOKEN = "security-test-token-0123456789abcdef"
HEADER = "X-Savecraft-Token"
SAVECRAFT = shutil.which("savecraft") or "savecraft"
REFUSED: Counter[str] = Counter()
"""Refused requests by kind, over the whole module."""


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    print(f"\nstudio refusals by kind: {dict(sorted(REFUSED.items()))} (total {sum(REFUSED.values())})")


@dataclass
class Studio:
    proc: subprocess.Popen[str]
    port: int
    stderr: Path

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None,
                body: bytes | None = None, token: bool = True, timeout: float = 60) -> tuple[int, Any]:
        """One request on a fresh connection: (status, JSON or bytes); refusals are counted."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent = {HEADER: TOKEN} if token else {}
        sent.update(headers or {})
        try:
            conn.request(method, path, body=body, headers=sent)
            r = conn.getresponse()
            data = r.read()
        finally:
            conn.close()
        answer: Any = data
        if r.getheader("Content-Type", "").startswith("application/json"):
            answer = json.loads(data)
            if isinstance(answer, dict) and "refused" in answer:
                REFUSED[answer["refused"]] += 1
        return r.status, answer

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


@contextmanager
def studio(tmp: Path, *files: Path, args: tuple[str, ...] = (), browser: bool = False,
           env: dict[str, str] | None = None,
           preexec: Callable[[], None] | None = None) -> Iterator[Studio]:
    """The installed ``savecraft studio`` on a free loopback port, with the test's token."""
    err = tmp / f"studio-{time.monotonic_ns()}.err"
    command = [SAVECRAFT, "studio", *map(str, files), "--port", "0", "--token", TOKEN, *args]
    if not browser:
        command.append("--no-browser")
    with open(err, "w") as fh:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=fh, text=True,
                                env=env, preexec_fn=preexec)
    try:
        assert proc.stdout is not None
        port = 0
        deadline = time.monotonic() + 60
        while not port and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if "http://127.0.0.1:" in line:
                port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        assert port, f"the studio printed no address: {err.read_text()}"
        yield Studio(proc, port, err)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    p = tmp_path / "world.sav"
    p.write_bytes(savecraft.build(sample.server_save(users=5)))
    return p


EDIT = json.dumps({"path": "chunks[4].entity.x", "value": "7"}).encode()


# -- who may ask ------------------------------------------------------------------------------


def test_hosts_other_than_the_bound_address_and_localhost_are_refused(tmp_path: Path, world: Path) -> None:
    """DNS rebinding: a name the attacker controls, resolved to 127.0.0.1, must not be served."""
    with studio(tmp_path, world) as s:
        for host in ("rebind.attacker.example", f"rebind.attacker.example:{s.port}", "10.0.0.1",
                     f"127.0.0.2:{s.port}", ""):
            status, answer = s.request("GET", "/api/docs", headers={"Host": host})
            assert status == 403 and answer["refused"] == "host", host
        for host in (f"127.0.0.1:{s.port}", f"localhost:{s.port}", "localhost", "LOCALHOST."):
            status, answer = s.request("GET", "/api/docs", headers={"Host": host})
            assert status == 200 and answer[0]["name"] == "world.sav", host


def test_changes_need_the_header_token_the_own_origin_and_json(tmp_path: Path, world: Path) -> None:
    original = world.read_bytes()
    with studio(tmp_path, world) as s:
        edit = "/api/doc/d1/edit"
        json_type = {"Content-Type": "application/json"}
        # The token in the address (or a cookie) is not enough for a change: no header, no change.
        status, answer = s.request("POST", f"{edit}?token={TOKEN}", body=EDIT, headers=json_type,
                                   token=False)
        assert status == 403 and answer["refused"] == "token"
        # A form's content types are refused, token or not.
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
            status, answer = s.request("POST", edit, body=EDIT, headers={"Content-Type": kind})
            assert status == 415 and answer["refused"] == "content-type", kind
        status, answer = s.request("POST", edit, body=EDIT)  # a body without a type
        assert status == 415 and answer["refused"] == "content-type"
        # A page on another loopback port is same-site, not same-origin.
        other = {"Origin": f"http://127.0.0.1:{s.port + 1}", **json_type}
        status, answer = s.request("POST", edit, body=EDIT, headers=other)
        assert status == 403 and answer["refused"] == "origin"
        status, answer = s.request("POST", edit, body=EDIT, headers={"Origin": "null", **json_type})
        assert status == 403 and answer["refused"] == "origin"
        status, answer = s.request("POST", edit, body=EDIT,
                                   headers={"Sec-Fetch-Site": "same-site", **json_type})
        assert status == 403 and answer["refused"] == "fetch-site"
        status, answer = s.request("DELETE", "/api/doc/d1", headers={"Sec-Fetch-Site": "cross-site"})
        assert status == 403 and answer["refused"] == "fetch-site"
        status, answer = s.request("DELETE", "/api/doc/d1", token=False)
        assert status == 403 and answer["refused"] == "token"
        status, answer = s.request("POST", "/api/doc/d1/save", token=False,
                                   headers={"Origin": f"http://127.0.0.1:{s.port}"})
        assert status == 403 and answer["refused"] == "token"
        assert world.read_bytes() == original
        # The page itself: its own origin, the header, JSON.
        own = {"Origin": f"http://127.0.0.1:{s.port}", "Sec-Fetch-Site": "same-origin", **json_type}
        status, answer = s.request("POST", edit, body=EDIT, headers=own)
        assert status == 200 and answer["accepted"], answer
        status, answer = s.request("POST", "/api/doc/d1/save", headers=own)
        assert status == 200 and answer["backup"].endswith("world.sav.bak")
    assert world.read_bytes() != original


def test_the_page_cookie_opens_the_page_and_nothing_else(tmp_path: Path, world: Path) -> None:
    """Every server on 127.0.0.1 receives the cookie: with it alone, no document can be read or changed."""
    with studio(tmp_path, world) as s:
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        conn.request("GET", f"/?token={TOKEN}")
        r = conn.getresponse()
        page = r.read()
        cookies = [v for k, v in r.getheaders() if k.lower() == "set-cookie"]
        conn.close()
        assert r.status == 200 and b"app.js" in page
        [cookie] = cookies
        assert f"_{s.port}=" in cookie and TOKEN not in cookie  # named after the port, not the token
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        jar = {"Cookie": cookie.split(";")[0]}
        status, _ = s.request("GET", "/static/app.js", headers=jar, token=False)
        assert status == 200
        for method, path, body in (("GET", "/api/docs", None), ("GET", "/api/doc/d1/download", None),
                                   ("POST", "/api/doc/d1/edit", EDIT), ("POST", "/api/doc/d1/save", None)):
            status, answer = s.request(method, path, headers={**jar, "Content-Type": "application/json"},
                                       body=body, token=False)
            assert status == 403 and answer["refused"] == "token", path
        status, data = s.request("GET", f"/api/doc/d1/download?token={TOKEN}", token=False)
        assert status == 200 and data == world.read_bytes()  # a link the page makes itself


# -- what it says and keeps -------------------------------------------------------------------


def test_open_quotes_nothing_of_a_file_of_no_known_format(tmp_path: Path, world: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_bytes(b"daemonuser:$6$pepper$Zm9vYmFyYmF6cXV4:20228:0:99999:7:::\n")
    with studio(tmp_path, world) as s:
        status, answer = s.request("POST", "/api/open", headers={"Content-Type": "application/json"},
                                   body=json.dumps({"path": str(secret)}).encode())
        assert status == 422
        text = json.dumps(answer)
        for piece in ("daemonuser", "pepper", "Zm9v", "\\\\x", "20228"):
            assert piece not in text, (piece, text)
        assert "not a file of a known format" in answer["error"]
        status, answer = s.request("POST", "/api/open", body=secret.read_bytes(),
                                   headers={"Content-Type": "application/octet-stream"})
        assert status == 422 and "pepper" not in json.dumps(answer) and "daemonuser" not in json.dumps(answer)
        status, docs = s.request("GET", "/api/docs")
        assert [d["name"] for d in docs] == ["world.sav"]


def test_a_refused_dropped_file_is_released(tmp_path: Path, world: Path) -> None:
    """Five refused 64 MiB drops (a known magic, then garbage) must not stay in memory."""
    head = world.read_bytes()[:64]
    size = 64 << 20
    with studio(tmp_path, world) as s:
        s.request("GET", "/api/docs")
        before = s.rss_mib()
        for _ in range(5):
            body = head + bytes(size)
            status, answer = s.request("POST", "/api/open", body=body,
                                       headers={"Content-Type": "application/octet-stream",
                                                "X-Filename": "big.sav"})
            del body
            assert status == 422, answer
        # Freed memory can take a moment to leave the process on a busy machine (a handler's
        # thread still ending): wait for it, up to 10 s; kept, it would never go.
        deadline = time.monotonic() + 10
        while (after := s.rss_mib()) - before >= 96 and time.monotonic() < deadline:
            time.sleep(0.25)
        status, docs = s.request("GET", "/api/docs")
        assert [d["name"] for d in docs] == ["world.sav"]
    assert after - before < 96, (before, after)  # kept, it would be 5 x 64 MiB and more


# -- the browser -------------------------------------------------------------------------------


def test_the_browser_is_not_given_the_token_on_its_command_line(tmp_path: Path, world: Path) -> None:
    """``ps`` shows every user the browser's arguments: they name a private redirect file instead."""
    seen = tmp_path / "seen.json"
    fake = tmp_path / "fake-browser"
    fake.write_text(f"""#!{sys.executable}
import json, os, stat, sys
from pathlib import Path
from urllib.parse import urlparse, unquote
arg = sys.argv[1]
page = Path(unquote(urlparse(arg).path))
json.dump({{"argv": sys.argv[1:], "page": str(page), "text": page.read_text(),
           "mode": stat.S_IMODE(page.stat().st_mode), "dir_mode": stat.S_IMODE(page.parent.stat().st_mode)}},
          open({str(seen)!r}, "w"))
""")
    fake.chmod(0o755)
    env = dict(os.environ, BROWSER=f"{fake} %s")
    with studio(tmp_path, world, browser=True, env=env) as s:
        deadline = time.monotonic() + 30
        while not seen.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        got = json.loads(seen.read_text())
        assert all(TOKEN not in a for a in got["argv"]), got["argv"]
        assert got["argv"][0].startswith("file://")
        assert got["mode"] == 0o600 and got["dir_mode"] == 0o700
        assert f"http://127.0.0.1:{s.port}/?token={TOKEN}" in got["text"]
        assert Path(got["page"]).exists()
    assert not Path(got["page"]).parent.exists()  # removed when the studio stops


# -- connections -------------------------------------------------------------------------------


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        sock.setblocking(False)
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_slow_and_idle_connections_are_closed(tmp_path: Path, world: Path) -> None:
    """Slowloris connections (a header line every half second) and silent ones are let go in time.

    The studio's defaults: 15 s for a request's headers, 256 connections at most (the 250 here
    are under it, so this is the timeout's doing, not the cap's).
    """
    with studio(tmp_path, world) as s:
        socks: list[socket.socket] = []
        slow: set[socket.socket] = set()
        for i in range(250):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
            if i % 2:
                c.sendall(b"GET /api/docs HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                slow.add(c)
            socks.append(c)
        deadline = time.monotonic() + 25
        open_ = list(socks)
        while open_ and time.monotonic() < deadline:
            time.sleep(0.5)
            for c in open_:
                if c in slow:
                    try:
                        c.send(b"X-Slow: 1\r\n")
                    except OSError:
                        pass
            open_ = [c for c in open_ if not _closed_by_server(c)]
        REFUSED["timed-out connection"] += len(socks) - len(open_)
        for c in socks:
            c.close()
        assert open_ == [], f"{len(open_)} of 250 slow or idle connections still open after 25 s"
        status, _ = s.request("GET", "/api/docs")
        assert status == 200


def _low_fd_limit(n: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    return limit


def test_a_flood_of_idle_connections_does_not_lock_the_owner_out(tmp_path: Path, world: Path) -> None:
    """1,100 idle connections against a 256-descriptor studio: the owner's requests still answer."""
    with studio(tmp_path, world, preexec=_low_fd_limit(256)) as s:
        socks: list[socket.socket] = []
        deadline = time.monotonic() + 30  # a studio that stops accepting must not stall the test
        for _ in range(1100):
            if time.monotonic() > deadline:
                break
            try:
                socks.append(socket.create_connection(("127.0.0.1", s.port), timeout=1))
            except OSError:
                pass
        try:
            start = time.monotonic()
            status, docs = s.request("GET", "/api/docs", timeout=10)
            took = time.monotonic() - start
            assert status == 200 and docs[0]["name"] == "world.sav"
            assert took < 10
            evicted = sum(_closed_by_server(c) for c in socks)
            REFUSED["evicted idle connection"] += evicted
            assert evicted >= 1100 - 256
        finally:
            for c in socks:
                c.close()
    assert s.stderr.stat().st_size < 4096, s.stderr.read_text()[:2000]


def test_a_descriptor_shortage_is_logged_once(tmp_path: Path, world: Path) -> None:
    """A cap set above the descriptor limit: accept fails, and says so once, not 27 MB of it."""
    with studio(tmp_path, world, args=("--max-connections", "2000"), preexec=_low_fd_limit(64)) as s:
        socks: list[socket.socket] = []
        for _ in range(300):
            try:
                socks.append(socket.create_connection(("127.0.0.1", s.port), timeout=1))
            except OSError:
                break  # the backlog is full too: the studio has long run out
        assert len(socks) > 64  # more than the studio has descriptors for
        time.sleep(3)  # asyncio retries accept every second: three more chances to flood the log
        for c in socks:
            c.close()
        deadline = time.monotonic() + 20
        status = 0
        while status != 200 and time.monotonic() < deadline:
            try:
                status, _ = s.request("GET", "/api/docs", timeout=5)
            except OSError:
                time.sleep(0.2)
        assert status == 200
    log = s.stderr.read_text()
    assert log.count("out of file descriptors") == 1, log[:2000]
    assert len(log) < 4096 and "Traceback" not in log, log[:2000]


# -- a real browser ----------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _attack_page(studio_port: int) -> str:
    """The hostile page: text/plain forms that post JSON-looking bodies, and a credentialed read."""
    target = f"http://127.0.0.1:{studio_port}"
    field = '{"path": "chunks[4].entity.x", "value": "7", "pad": "'
    return f"""<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="edit" method="post" enctype="text/plain" target="sink" action="{target}/api/doc/d1/edit">
<input name='{field}' value='"}}'></form>
<form id="save" method="post" enctype="text/plain" target="sink" action="{target}/api/doc/d1/save">
<input name="x" value="y"></form>
<script>
const sink = document.getElementById("sink");
const steps = [() => document.getElementById("edit").submit(), () => document.getElementById("save").submit()];
let read = "not tried";
fetch("{target}/api/docs", {{credentials: "include"}}).then(r => r.text()).then(t => read = t, e => read = "blocked");
sink.addEventListener("load", () => {{
  const next = steps.shift();
  if (next) next(); else setTimeout(() => {{ document.title = "done:" + read; }}, 300);
}});
steps.shift()();
</script></body></html>"""


def test_a_page_on_another_loopback_port_cannot_read_edit_or_save(tmp_path: Path, world: Path) -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"{CHROMIUM} is missing: run scripts/install-browser.sh")
        pytest.skip(f"{CHROMIUM} is missing")
    sync_api = pytest.importorskip("playwright.sync_api")
    original = world.read_bytes()
    cookies_seen: list[str] = []

    with studio(tmp_path, world) as s:
        class Evil(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                cookies_seen.append(self.headers.get("Cookie", ""))
                body = _attack_page(s.port).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        evil = ThreadingHTTPServer(("127.0.0.1", 0), Evil)
        thread = threading.Thread(target=evil.serve_forever, daemon=True)
        thread.start()
        try:
            with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
                context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM,
                                                               headless=True, args=ARGS)
                context.set_default_timeout(15_000)
                try:
                    page = context.new_page()
                    page.goto(f"http://127.0.0.1:{s.port}/?token={TOKEN}")  # the owner opens the studio
                    page.wait_for_selector("body[data-ready='1']")
                    assert "token=" not in page.url  # taken out of the address bar
                    hostile = context.new_page()
                    hostile.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                    hostile.wait_for_function("document.title.startsWith('done:')")
                    read = hostile.title()
                    assert "world.sav" not in read, read
                    # The owner's page still works, through the header token.
                    page.reload()
                    page.wait_for_selector("body[data-ready='1']")
                    page.wait_for_selector("#tabs button:has-text('world.sav')")
                finally:
                    context.close()
        finally:
            evil.shutdown()
            evil.server_close()
        assert world.read_bytes() == original and not Path(str(world) + ".bak").exists()
        # The hostile server received the studio's cookie (cookies ignore ports): it opens nothing.
        stolen = next((c for c in cookies_seen if "savecraft" in c), "")
        assert stolen, cookies_seen
        for method, path, body in (("GET", "/api/docs", None), ("POST", "/api/doc/d1/edit", EDIT),
                                   ("POST", "/api/doc/d1/save", None)):
            status, answer = s.request(method, path, body=body, token=False,
                                       headers={"Cookie": stolen, "Content-Type": "application/json"})
            assert status == 403 and answer["refused"] == "token", (path, answer)
        status, docs = s.request("GET", "/api/doc/d1")
        assert docs["dirty"] is False and docs["undo"] == 0
