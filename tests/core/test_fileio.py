"""The one writer: writes land where the user meant (links, FIFOs, devices, ``-``) or not at all."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from savecraft import fileio
from savecraft.fileio import WriteError, atomic_write, clean_stale, write_file


def test_atomic_write_and_backup(tmp_path: Path) -> None:
    p = tmp_path / "f.sav"
    assert atomic_write(p, b"one") == p
    os.chmod(p, 0o600)
    bak = atomic_write(p, b"two", backup=True)
    assert bak == tmp_path / "f.sav.bak"
    assert p.read_bytes() == b"two" and bak.read_bytes() == b"one"
    assert (p.stat().st_mode & 0o777) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.sav", "f.sav.bak"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    p = tmp_path / "f.sav"
    p.write_bytes(b"old")

    with pytest.raises(TypeError):
        atomic_write(p, 12345)  # type: ignore[arg-type]
    assert p.read_bytes() == b"old"
    assert [x.name for x in tmp_path.iterdir()] == ["f.sav"]


def test_a_symlink_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    game = tmp_path / "game"
    game.mkdir()
    real = game / "real.sav"
    real.write_bytes(b"old")
    link = tmp_path / "linked.sav"
    link.symlink_to(Path("game") / "real.sav")
    written = write_file(link, b"new", backup=True)
    assert link.is_symlink() and os.readlink(link) == str(Path("game") / "real.sav")
    assert real.read_bytes() == b"new"
    assert written.path == real.resolve() and written.backup == game / "real.sav.bak"
    assert (game / "real.sav.bak").read_bytes() == b"old"
    assert sorted(x.name for x in game.iterdir()) == ["real.sav", "real.sav.bak"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "l.sav"
    link.symlink_to(tmp_path / "target.sav")
    write_file(link, b"data")
    assert link.is_symlink() and (tmp_path / "target.sav").read_bytes() == b"data"


def test_a_fifo_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    written = write_file(fifo, b"x" * 200_000, backup=True)
    t.join(10)
    assert got == [b"x" * 200_000]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert written.stream and written.backup is None
    assert sorted(x.name for x in tmp_path.iterdir()) == ["pipe"]


def test_a_character_device_is_written_into(tmp_path: Path) -> None:
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        open(dev, "wb").close()
    except (PermissionError, OSError):
        pytest.skip("cannot make a device node here")
    write_file(dev, b"data", backup=True)
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["null"]


def test_dash_is_standard_output() -> None:
    import io

    buf = io.BytesIO()
    written = write_file("-", b"hello", stdout=buf)
    assert buf.getvalue() == b"hello" and written.to_stdout


def test_a_read_only_file_is_refused_unless_forced(tmp_path: Path) -> None:
    p = tmp_path / "ro.sav"
    p.write_bytes(b"old")
    os.chmod(p, 0o444)
    with pytest.raises(WriteError, match=r"ro.sav: cannot write: the file is read-only"):
        write_file(p, b"new")
    assert p.read_bytes() == b"old"
    write_file(p, b"new", force=True)
    assert p.read_bytes() == b"new" and stat.S_IMODE(p.stat().st_mode) == 0o444


def test_a_missing_folder_is_one_error_and_never_created(tmp_path: Path) -> None:
    with pytest.raises(WriteError) as err:
        write_file(tmp_path / "no" / "such" / "f.sav", b"x")
    assert str(err.value) == (f"{tmp_path}/no/such/f.sav: cannot write: the folder "
                              f"{tmp_path}/no/such does not exist")
    assert not (tmp_path / "no").exists()


def test_a_folder_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="it is a folder"):
        write_file(tmp_path, b"x")


def test_stale_temporaries_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    p = tmp_path / "state.sav"
    p.write_bytes(b"old")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".state.sav.{dead_pid}-0a1b2c3d.tmp"
    stale_bak = tmp_path / f".state.sav.bak.{dead_pid}-0a1b2c3d.tmp"
    legacy = tmp_path / ".state.sav.k2j3h4g5.tmp"  # mkstemp's name, from older savecraft
    alive = tmp_path / f".state.sav.{os.getppid()}-00000000.tmp"  # a live writer's: kept
    other = tmp_path / f".other.sav.{dead_pid}-0a1b2c3d.tmp"  # another file's: not ours
    for t in (stale, stale_bak, legacy, alive, other):
        t.write_bytes(b"x" * 100)
    old = time.time() - 3600
    os.utime(legacy, (old, old))
    write_file(p, b"new")
    left = sorted(x.name for x in tmp_path.iterdir())
    assert left == sorted(["state.sav", alive.name, other.name])
    assert clean_stale(p) == []


def test_a_failed_backup_keeps_the_previous_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "f.sav"
    p.write_bytes(b"current")
    (tmp_path / "f.sav.bak").write_bytes(b"previous good backup")
    real_replace = os.replace

    def failing_replace(src: str, dst: str) -> None:
        if str(dst).endswith(".bak"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "replace", failing_replace)
    with pytest.raises(WriteError, match="No space left on device"):
        write_file(p, b"new", backup=True)
    assert p.read_bytes() == b"current"
    assert (tmp_path / "f.sav.bak").read_bytes() == b"previous good backup"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.sav", "f.sav.bak"]


_LIMITED_WRITE = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from savecraft.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_disk_full_leaves_the_old_file_byte_identical(tmp_path: Path) -> None:
    from savecraft.formats.tirnanog.save import sample
    import savecraft

    src = tmp_path / "server.sav"
    savecraft.save(sample.server_save(users=40), src)
    dump = tmp_path / "dump.json"
    dump.write_bytes(subprocess.run([sys.executable, "-m", "savecraft", "dump", str(src)],
                                    capture_output=True, check=True).stdout)
    target = tmp_path / "out.json"
    target.write_bytes(b"the old file")
    r = subprocess.run([sys.executable, "-c", _LIMITED_WRITE, "dump", str(src), "-o", str(target)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (f"savecraft: error: {target}: cannot write: File too large "
                                "(the old file is unchanged)")
    assert target.read_bytes() == b"the old file"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["dump.json", "out.json", "server.sav"]


_KILL_LOOP = """
import sys
from savecraft.fileio import write_file
path = sys.argv[1]
i = 0
while True:
    i += 1
    write_file(path, bytes([i % 251]) * 300_000, backup=True)
"""


def test_kills_never_tear_the_file_or_its_backup(tmp_path: Path) -> None:
    p = tmp_path / "f.sav"
    p.write_bytes(bytes([0]) * 300_000)
    for n in range(12):
        proc = subprocess.Popen([sys.executable, "-c", _KILL_LOOP, str(p)])
        time.sleep(0.25 + 0.037 * n)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for f in (p, tmp_path / "f.sav.bak"):
            if f.exists():
                data = f.read_bytes()
                assert len(data) == 300_000 and data == data[:1] * 300_000, f
    write_file(p, b"final")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.sav", "f.sav.bak"]


# -- many files at once (an extract folder) -------------------------------------------------


def test_write_files_writes_each_atomically_and_flushes_together(tmp_path: Path) -> None:
    from savecraft.fileio import write_files

    old = tmp_path / "0001.json"
    old.write_bytes(b"old")
    os.chmod(old, 0o640)
    items = [(tmp_path / f"{i:04d}.json", f"part {i}".encode()) for i in range(300)]
    written = write_files(items)
    assert [w.path for w in written] == [p for p, _ in items]
    assert all(p.read_bytes() == data for p, data in items)
    assert stat.S_IMODE(old.stat().st_mode) == 0o640  # a replaced file keeps its mode
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_write_files_refuses_before_writing_anything(tmp_path: Path) -> None:
    from savecraft.fileio import WriteError, write_files

    keep = tmp_path / "a.json"
    keep.write_bytes(b"keep")
    (tmp_path / "b.json").mkdir()  # the second target is a folder: nothing may be written
    with pytest.raises(WriteError, match="it is a folder"):
        write_files([(keep, b"new"), (tmp_path / "b.json", b"x"), (tmp_path / "c.json", b"y")])
    assert keep.read_bytes() == b"keep" and not (tmp_path / "c.json").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_write_files_looks_at_a_folder_once_and_removes_dead_writers_temporaries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Looking for stale temporaries once per file made a 9,000-part extract take minutes."""
    import savecraft.fileio as fileio

    dead = tmp_path / ".0003.json.999999999-abcd.tmp"  # a killed writer's (no such process)
    dead.write_bytes(b"torn")
    scans = []
    real_scandir = os.scandir

    def counting(path: Any) -> Any:
        scans.append(path)
        return real_scandir(path)

    monkeypatch.setattr(fileio.os, "scandir", counting)
    fileio.write_files([(tmp_path / f"{i:04d}.json", b"{}") for i in range(500)])
    assert len(scans) == 1 and not dead.exists()
