"""Writes land where the user meant, as the system would put them: planted links, owners, links, keys.

These run as root here (as CI does), which is what makes them matter: root
follows any link and may replace any file, so the writer itself must apply
the rules the kernel applies to ``open()`` and the courtesy editors show to
other people's files. Another user is played with ``os.chown``/``os.lchown``
and, where the writer itself must be another user, a forked child that
drops to that uid.
"""

from __future__ import annotations

import os
import stat
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import savecraft
from savecraft.fileio import WriteError, write_file
from savecraft.formats.tirnanog.save import sample

OTHER = 54321  # a uid and gid no account has

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="playing another user needs root")


def _shared(folder: Path, owner: int = 0) -> Path:
    """A sticky world-writable folder like /tmp, owned by ``owner``."""
    folder.mkdir()
    os.chown(folder, owner, owner)
    os.chmod(folder, 0o1777)
    return folder


@as_root
def test_a_link_planted_by_another_user_in_a_shared_folder_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "passwd"
    victim.write_bytes(b"root:x:0:0\n")
    shared = _shared(tmp_path / "tmp")
    link = shared / "out.sav"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)  # planted by someone else
    with pytest.raises(WriteError) as refused:
        write_file(link, b"owned")
    assert "protected_symlinks" in str(refused.value) and "uid 54321" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert victim.read_bytes() == b"root:x:0:0\n" and link.is_symlink()
    assert sorted(p.name for p in shared.iterdir()) == ["out.sav"]


@as_root
def test_a_planted_link_deeper_in_the_path_is_refused_too(tmp_path: Path) -> None:
    secret = tmp_path / "etc"
    secret.mkdir()
    (secret / "shadow").write_bytes(b"secret")
    shared = _shared(tmp_path / "tmp")
    (shared / "dir").symlink_to(secret)
    os.lchown(shared / "dir", OTHER, OTHER)
    with pytest.raises(WriteError, match="protected_symlinks"):
        write_file(shared / "dir" / "shadow", b"owned")
    assert (secret / "shadow").read_bytes() == b"secret"


@as_root
def test_links_the_kernel_would_follow_are_followed(tmp_path: Path) -> None:
    target = tmp_path / "real.sav"
    target.write_bytes(b"old")
    shared = _shared(tmp_path / "tmp")
    mine = shared / "mine.sav"
    mine.symlink_to(target)  # the writer's own link
    write_file(mine, b"new")
    assert target.read_bytes() == b"new" and mine.is_symlink()
    owned = _shared(tmp_path / "owned", owner=OTHER)
    theirs = owned / "theirs.sav"
    theirs.symlink_to(target)
    os.lchown(theirs, OTHER, OTHER)  # the folder's owner's link
    write_file(theirs, b"newer")
    assert target.read_bytes() == b"newer"
    plain = tmp_path / "plain"
    plain.mkdir()
    os.chmod(plain, 0o777)  # world-writable but not sticky: the kernel follows any link here
    other = plain / "other.sav"
    other.symlink_to(target)
    os.lchown(other, OTHER, OTHER)
    write_file(other, b"newest")
    assert target.read_bytes() == b"newest"


@as_root
def test_the_command_refuses_a_planted_link_in_one_line(tmp_path: Path) -> None:
    src = tmp_path / "world.sav"
    src.write_bytes(savecraft.build(sample.server_save(users=3)))
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me")
    shared = _shared(tmp_path / "tmp")
    link = shared / "out.json"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    proc = subprocess.run(["savecraft", "dump", str(src), "-o", str(link)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "protected_symlinks" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert victim.read_bytes() == b"keep me"


@as_root
def test_replacing_keeps_the_owner_group_and_mode(tmp_path: Path) -> None:
    p = tmp_path / "theirs.sav"
    p.write_bytes(b"old")
    os.chown(p, OTHER, OTHER + 1)
    os.chmod(p, 0o640)
    written = write_file(p, b"new", backup=True)
    st = p.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (OTHER, OTHER + 1, 0o640)
    assert p.read_bytes() == b"new" and written.backup is not None
    assert written.backup.read_bytes() == b"old" and written.backup.stat().st_uid == OTHER


@as_root
def test_set_id_bits_survive_the_owner_change(tmp_path: Path) -> None:
    p = tmp_path / "tool"
    p.write_bytes(b"old")
    os.chown(p, OTHER, OTHER)
    os.chmod(p, 0o2755)  # chown clears set-id bits: the mode must be set after it
    write_file(p, b"new")
    assert stat.S_IMODE(p.stat().st_mode) == 0o2755


def test_a_file_with_other_hard_links_is_refused_and_both_names_kept(tmp_path: Path) -> None:
    p = tmp_path / "save.sav"
    p.write_bytes(b"old")
    other = tmp_path / "elsewhere.sav"
    os.link(p, other)
    with pytest.raises(WriteError, match="1 other hard link"):
        write_file(p, b"new", backup=True)
    assert p.read_bytes() == b"old" and other.read_bytes() == b"old"
    assert p.stat().st_ino == other.stat().st_ino and p.stat().st_nlink == 2
    assert sorted(x.name for x in tmp_path.iterdir()) == ["elsewhere.sav", "save.sav"]


def test_a_stale_backup_link_of_a_killed_write_is_not_an_other_link(tmp_path: Path) -> None:
    p = tmp_path / "save.sav"
    p.write_bytes(b"old")
    os.link(p, tmp_path / ".save.sav.bak.999999999-dead.tmp")  # a killed writer's half backup
    write_file(p, b"new", backup=True)
    assert p.read_bytes() == b"new" and (tmp_path / "save.sav.bak").read_bytes() == b"old"


def _as_other_user(fn_path: Path, data: bytes) -> str:
    """Write as uid/gid OTHER in a forked child; what happened, as a word."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            try:
                write_file(fn_path, data)
                code = 0
            except WriteError as err:
                code = 3 if "read-only" in str(err) else 4
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return {0: "written", 3: "read-only", 4: "refused"}.get(os.waitstatus_to_exitcode(status), "crashed")


@pytest.fixture()
def open_folder() -> Iterator[Path]:
    """A folder every user can reach (pytest's own are root's alone) and rename in."""
    top = Path(tempfile.mkdtemp(prefix="savecraft-trust-"))
    try:
        os.chmod(top, 0o755)
        folder = top / "shared"
        folder.mkdir()
        os.chmod(folder, 0o777)  # anyone may rename in it: only the writer's check stands in the way
        yield folder
    finally:
        shutil.rmtree(top)


@as_root
def test_read_only_is_judged_by_access_not_by_any_write_bit(open_folder: Path) -> None:
    folder = open_folder
    p = folder / "roots.sav"
    p.write_bytes(b"root's")
    os.chmod(p, 0o644)  # writable by its owner only: read-only for everybody else
    assert _as_other_user(p, b"other's") == "read-only"
    assert p.read_bytes() == b"root's" and p.stat().st_uid == 0
    mine = folder / "theirs.sav"
    mine.write_bytes(b"old")
    os.chown(mine, OTHER, OTHER)
    os.chmod(mine, 0o600)
    assert _as_other_user(mine, b"new") == "written"
    assert mine.read_bytes() == b"new" and mine.stat().st_uid == OTHER


def test_root_still_needs_force_for_a_file_without_write_bits(tmp_path: Path) -> None:
    p = tmp_path / "locked.sav"
    p.write_bytes(b"old")
    os.chmod(p, 0o444)
    with pytest.raises(WriteError, match="read-only"):
        write_file(p, b"new")
    write_file(p, b"new", force=True)
    assert p.read_bytes() == b"new" and stat.S_IMODE(p.stat().st_mode) == 0o444


# -- the server's TLS key ------------------------------------------------------------------


def test_the_key_is_created_0600_and_never_wider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill between writing the key and narrowing its mode used to leave it world-readable."""
    pytest.importorskip("cryptography")
    from savecraft.net import certs

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed before the key was narrowed")

    old = os.umask(0o022)
    try:
        monkeypatch.setattr(os, "chmod", killed)  # (certs narrowed the key with os.chmod)
        cert, key = certs.default_paths(tmp_path / "world.state")
        try:
            certs.make_self_signed(cert, key)
        except KeyboardInterrupt:
            pass
    finally:
        os.umask(old)
    assert key.exists()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_kept_key_readable_by_others_is_repaired_at_start_up(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    from savecraft.net import certs

    state = tmp_path / "world.state"
    cert, key = certs.default_paths(state)
    certs.make_self_signed(cert, key)
    os.chmod(key, 0o644)
    _, _, made = certs.ensure_server_context(state)
    assert not made and stat.S_IMODE(key.stat().st_mode) == 0o600


def test_the_server_repairs_its_key_when_started_as_users_start_it(tmp_path: Path) -> None:
    """``savecraft serve`` made once, its key widened, started again: the key is 0600 again."""
    pytest.importorskip("cryptography")
    from savecraft.net import certs

    state = tmp_path / "world.state"
    cert, key = certs.default_paths(state)
    certs.make_self_signed(cert, key)
    os.chmod(key, 0o664)
    code = ("import sys; from savecraft.net.certs import ensure_server_context; "
            "ensure_server_context(sys.argv[1])")
    proc = subprocess.run([sys.executable, "-c", code, str(state)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "readable by others" in proc.stderr
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_a_backup_that_is_still_the_file_itself_is_not_an_other_link(tmp_path: Path) -> None:
    """A kill between linking the backup and the rename leaves NAME and NAME.bak one inode."""
    p = tmp_path / "save.sav"
    p.write_bytes(b"old")
    os.link(p, tmp_path / "save.sav.bak")
    write_file(p, b"new", backup=True)
    assert p.read_bytes() == b"new" and (tmp_path / "save.sav.bak").read_bytes() == b"old"
