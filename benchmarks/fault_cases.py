"""The nine fault cases of issue 36, injected into real processes: each runs a command the
way an operator of a long atlas run would (``python -m core.X`` in its own session, as a
terminal starts it), breaks something under it and checks the promise.

Used by ``make bench-faults`` (benchmarks/bench_faults.py: generated and shared sheets,
held/broken per case) and by tests/core/test_faults.py (small generated sheets).

Each case takes a :class:`Sheets` (a folder of ``NNN-INPUT.jpg`` and the arguments that
georeference them) and a fresh work folder, and returns a :class:`Result`. Cases that need
a file system of their own (a full disk) mount a small tmpfs, which needs root; without it
they return ``held=None`` (not run).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.batch.loopback import loopback_cluster
from core.batch.resume import whole_geopackage
from core.tempfiles import maker

#: The checkout whose commands are run (another one, e.g. main, with
#: ``GRATICULE_REPO_UNDER_TEST=/path/to/checkout``, to see the cases break there).
REPO = Path(os.environ.get("GRATICULE_REPO_UNDER_TEST", Path(__file__).resolve().parent.parent))


@dataclass(frozen=True)
class Sheets:
    """A collection to break runs on.

    Attributes
    ----------
    folder : Path
        Holds ``NNN-INPUT.jpg`` (and their masks, ``.points`` files ...).
    georef_args : tuple of str
        What ``core.georef`` needs besides the input and ``-o`` (``--crs ...``).
    labels_args : tuple of str
        The same, reading the grid values printed on the sheets (no GCP file): the runs
        that must leave no label-reading folder in ``/dev/shm`` behind use it.
    """

    folder: Path
    georef_args: tuple[str, ...]
    labels_args: tuple[str, ...]

    @property
    def paths(self) -> list[Path]:
        return sorted(self.folder.glob("[0-9][0-9][0-9]-INPUT.jpg"))


@dataclass
class Result:
    """What a case showed: ``held`` True (the promise held), False (broken) or None (not
    run here, ``notes`` say why)."""

    case: str
    held: bool | None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def check(self, ok: bool, what: str) -> None:
        """Record one check: a failed one breaks the case."""
        if not ok:
            self.held = False
            self.notes.append(f"BROKEN: {what}")
        elif self.held is not False:
            self.held = True


# ---- processes ----------------------------------------------------------------------------

def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra)
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    return env


@dataclass
class Run:
    """A command running in its own session (process group), its output in files."""

    proc: subprocess.Popen
    out: Path
    err: Path
    started: float

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None when it had to be killed after ``timeout`` s (a hang)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            return None

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")


def private_shm_possible() -> bool:
    """True when a command can be given a /dev/shm of its own (root, ``unshare``)."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None


def start(args: Sequence[str], logs: Path, env: dict[str, str] | None = None,
          shm: Path | None = None) -> Run:
    """Start ``python args...`` in a new session with stdout and stderr in ``logs``.

    ``shm``: a folder mounted as the command's /dev/shm (in a mount namespace of its own;
    :func:`private_shm_possible`), so what it leaves there (the label reader's folders,
    multiprocessing's semaphores ``sem.mp-*``) is told apart from other programs' files.
    The command keeps its PID (``unshare`` and ``sh`` exec it).
    """
    logs.mkdir(parents=True, exist_ok=True)
    n = len(list(logs.glob("*.out")))
    out, err = logs / f"{n:02d}.out", logs / f"{n:02d}.err"
    command = [sys.executable, *args]
    if shm is not None:
        shm.mkdir(parents=True, exist_ok=True)
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                   'mount --bind "$0" /dev/shm && exec "$@"', str(shm), *command]
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen(command, cwd=REPO, env=env or _env(),
                                stdout=o, stderr=e, start_new_session=True)
    return Run(proc, out, err, time.monotonic())


def group_alive(pgid: int) -> list[int]:
    """PIDs of the live processes of process group ``pgid`` (zombies left out)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (d / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] not in "ZX" and int(fields[2]) == pgid:
                found.append(int(d.name))
    return found


def wait_group_gone(pgid: int, timeout: float = 10.0) -> list[int]:
    """Wait until no process of the group is left; the PIDs still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (alive := group_alive(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def children(pid: int) -> list[int]:
    """Direct children of ``pid``."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (d / "stat").read_text()
                if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                    found.append(int(d.name))
    return found


def cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def temporaries(root: Path) -> list[Path]:
    """Every temporary file of :mod:`core.atomic` under ``root``."""
    if not root.exists():
        return []
    return sorted(p for p in root.rglob(".*") if maker(p.name) is not None)


def shm_files(shm: Path | None = None) -> set[str]:
    """What is in ``shm`` (a command's private /dev/shm), or the label reader's folders
    in the shared /dev/shm (other programs' files cannot be told apart there)."""
    with contextlib.suppress(OSError):
        if shm is not None:
            return {p.name for p in shm.iterdir()}
        return {p.name for p in Path("/dev/shm").glob("labels-*")}
    return set()


def tracebacks(text: str) -> int:
    return text.count("Traceback (most recent call last)")


def _wait_for(condition: Callable[[], object], run: Run, timeout: float,
              step: float = 0.005) -> object:
    """Poll ``condition`` until it is true, the run ends or ``timeout`` s pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and run.proc.poll() is None:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return None


def _one_error_line(res: Result, err: str, start: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    res.check(tracebacks(err) == 0, f"{tracebacks(err)} tracebacks on stderr")
    res.check(bool(lines) and lines[-1].startswith(start),
              f"last stderr line is {lines[-1] if lines else '(none)'!r}, not {start!r}...")
    res.check(sum(ln.startswith("error:") for ln in lines) == 1,
              f"{sum(ln.startswith('error:') for ln in lines)} error lines")


# ---- the cases ----------------------------------------------------------------------------

def kill9_worker(sheets: Sheets, work: Path, kills: int = 3) -> Result:
    """Case 1: ``kill -9`` of Dask workers in the middle of writing a sheet (the
    out-of-memory killer): no temporary file survives the run, nor a resumed run."""
    res = Result("1 kill -9 of workers", None)
    out = work / "out"
    args = ["-m", "core.georef", str(sheets.folder), *sheets.georef_args, "-o", str(out)]
    run = start([*args, "--workers", "2"], work / "logs")
    killed = []

    def a_worker_writing() -> int | None:
        for t in temporaries(out):
            pid = maker(t.name)[0]
            if pid != run.pid and pid not in killed:
                return pid
        return None

    while len(killed) < kills:
        pid = _wait_for(a_worker_writing, run, 120)
        if not pid:
            break
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    rc = run.wait(300)
    res.notes.append(f"{len(killed)} workers killed while writing; exit {rc}")
    res.check(bool(killed), "no worker was caught writing")
    res.check(rc in (0, 1), f"exit status {rc}")
    res.check(tracebacks(run.stderr()) == 0, "tracebacks on stderr")
    left = temporaries(out)
    res.check(not left, f"{len(left)} temporary files left after the run: "
                        f"{[p.name for p in left[:3]]}")
    again = start([*args, "--workers", "1"], work / "logs")
    rc2 = again.wait(300)
    res.check(rc2 == 0, f"the resumed run exits {rc2}")
    res.check(not temporaries(out), "temporary files left after the resumed run")
    return res


def _signal_group(sheets: Sheets, work: Path, sig: int, code: int, name: str,
                  group: bool = True) -> Result:
    res = Result(name, None)
    out = work / "out"
    shm = work / "shm" if private_shm_possible() else None
    before = shm_files(shm)
    run = start(["-m", "core.georef", str(sheets.folder), *sheets.labels_args, "-o", str(out),
                 "--workers", "2"], work / "logs", shm=shm)
    # the cluster is up and reading labels: a label folder in /dev/shm, a sheet's
    # temporary files, or a first sheet finished
    busy = _wait_for(lambda: {f for f in shm_files(shm) - before if f.startswith("labels-")}
                     or temporaries(out) or run.stdout().strip(), run, 120, 0.02)
    res.check(bool(busy), "the run ended before it could be interrupted")
    time.sleep(0.3)
    with contextlib.suppress(ProcessLookupError):
        (os.killpg if group else os.kill)(run.pid, sig)
    rc = run.wait(120)
    err = run.stderr()
    res.notes.append(f"exit {rc} after {time.monotonic() - run.started:.1f} s; "
                     f"{len(err.splitlines())} stderr lines")
    res.check(rc == code, f"exit status {rc}, not {code}")
    _one_error_line(res, err, f"error: interrupted by {signal.Signals(sig).name}")
    res.check(len(err.splitlines()) <= 3, f"{len(err.splitlines())} stderr lines")
    res.check("KeyError" not in err, "KeyError on stderr")
    alive = wait_group_gone(run.pid)
    res.check(not alive, f"processes left: {[cmdline(p)[:60] for p in alive]}")
    left = shm_files(shm) - before
    if shm is None:                 # other programs' folders may come and go meanwhile
        time.sleep(3)
        left &= shm_files(shm)
    res.check(not left, f"left in /dev/shm: {sorted(left)[:4]}")
    res.check(not temporaries(out), "temporary files left")
    res.check((out / "summary.csv").is_file(), "no summary of the sheets that finished")
    return res


def sigint_group(sheets: Sheets, work: Path) -> Result:
    """Case 2: Ctrl-C from a terminal (SIGINT to the process group) with ``--workers 2``:
    exit 130, one line, no traceback, nothing left in /dev/shm, a summary."""
    return _signal_group(sheets, work, signal.SIGINT, 130, "2 Ctrl-C to the process group")


def sighup_group(sheets: Sheets, work: Path) -> Result:
    """Case 3: a closed terminal (SIGHUP to the process group): exit 129, one line."""
    return _signal_group(sheets, work, signal.SIGHUP, 129, "3 SIGHUP to the process group")


def sigterm_command(sheets: Sheets, work: Path) -> Result:
    """Not one of the nine: ``kill`` of the command alone (its workers get no signal):
    exit 143, one line, the cluster closed with nothing left."""
    return _signal_group(sheets, work, signal.SIGTERM, 143, "SIGTERM to the command alone",
                         group=False)


def _loopback_pids(folder: Path) -> tuple[list[int], list[int]]:
    """(scheduler, worker) PIDs of the loopback cluster whose files are in ``folder``: the
    ``dask scheduler`` process, and the ``dask worker`` process (its nannies, which start
    a new worker process when one dies) before its children (the worker processes)."""
    scheduler, workers = [], []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        text = cmdline(int(d.name))
        if str(folder) not in text:
            continue
        if " scheduler " in f" {text} ":
            scheduler.append(int(d.name))
        elif " worker " in f" {text} ":
            workers.append(int(d.name))
            workers.extend(children(int(d.name)))
    return scheduler, workers


def _alive(pids: Sequence[int]) -> list[int]:
    """Those of ``pids`` still running (zombies left out)."""
    found = []
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat[stat.rindex(")") + 2:].split()[0] not in "ZX":
                found.append(pid)
    return found


def _cluster_lost(sheets: Sheets, work: Path, name: str, kill: str) -> Result:
    res = Result(name, None)
    out = work / "out"
    env = _env(GRATICULE_NO_WORKER_TIMEOUT="10")
    folder = work / "cluster"
    with loopback_cluster(folder, 2, env=env, timeout=120) as address:
        run = start(["-m", "core.graticule", str(sheets.folder), "-o", str(out),
                     "--scheduler", address], work / "logs", env)
        first = _wait_for(lambda: " intersections" in run.stdout(), run, 120, 0.01)
        res.check(bool(first), "no sheet finished before the fault")
        # every worker: the nannies first (they would start new worker processes), then
        # the worker processes; a sheet may be finishing meanwhile, its outcome then lost
        # with its worker before the command fetched it
        scheduler, workers = _loopback_pids(folder)
        victims = scheduler if kill == "scheduler" else workers
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
        while _alive(victims) and time.monotonic() - t0 < 10:
            time.sleep(0.05)
        left = _alive(victims) + (_loopback_pids(folder)[1] if kill == "workers" else [])
        res.check(not left, f"processes of the cluster's {kill} left: {sorted(set(left))}")
        rc = run.wait(120)
        took = time.monotonic() - t0
    err = run.stderr()
    res.notes.append(f"exit {rc} {took:.1f} s after the {kill} died")
    res.check(rc in (1, 2), f"exit status {rc} (None: it hung)")
    res.check(took < 60, f"{took:.0f} s to end")
    _one_error_line(res, err, "error:")
    rows = (out / "summary.csv").read_text().splitlines() if (out / "summary.csv").is_file() \
        else []
    res.check(any(",ok," in r for r in rows), "no summary listing the sheets that finished")
    return res


def scheduler_dies(sheets: Sheets, work: Path) -> Result:
    """Case 4: the scheduler of an external cluster dies mid-run (``kill -9``): one error
    line within a bounded time, exit 1 or 2, the summary of what finished."""
    return _cluster_lost(sheets, work, "4 the scheduler dies", "scheduler")


def workers_die(sheets: Sheets, work: Path) -> Result:
    """Case 5: every worker of an external cluster dies mid-run: no hang; one error line
    once the cluster has had no worker for GRATICULE_NO_WORKER_TIMEOUT (10 s here)."""
    return _cluster_lost(sheets, work, "5 every worker dies", "workers")


def two_runs_one_stopped(sheets: Sheets, work: Path, rounds: int = 3) -> Result:
    """Case 6: two runs into the same OUTDIR, one gets SIGTERM: its clean-up removes only
    its own temporary files, the other run loses no sheet."""
    res = Result("6 two runs into one OUTDIR, one stopped", None)
    out = work / "out"
    args = ["-m", "core.georef", str(sheets.folder), *sheets.georef_args, "-o", str(out),
            "--force", "--workers", "1"]
    for k in range(rounds):
        a = start(args, work / "logs")
        b = start(args, work / "logs")
        own = _wait_for(lambda run=a: any(maker(t.name)[0] == run.pid
                                          for t in temporaries(out)), a, 120)
        res.check(bool(own), f"round {k}: run A never wrote")
        with contextlib.suppress(ProcessLookupError):
            os.kill(a.pid, signal.SIGTERM)
        rc_a, rc_b = a.wait(120), b.wait(300)
        err = b.stderr()
        res.check(rc_a == 143, f"round {k}: the stopped run exits {rc_a}")
        res.check(rc_b == 0, f"round {k}: the other run exits {rc_b}: {err[-300:]!r}")
        res.check("FileNotFoundError" not in err and tracebacks(err) == 0,
                  f"round {k}: the other run lost a file")
    res.check(not temporaries(out), "temporary files left")
    res.notes.append(f"{rounds} rounds")
    return res


def damage_jpeg(src: Path, dst: Path) -> Path:
    """A copy of ``src`` with 2 % of its bytes in the middle overwritten with zeros (header
    and end marker intact)."""
    data = bytearray(src.read_bytes())
    n = max(64, len(data) // 50)
    middle = len(data) // 2
    data[middle:middle + n] = bytes(n)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(bytes(data))
    return dst


def corrupt_jpeg(sheets: Sheets, work: Path) -> Result:
    """Case 7: a JPEG corrupted in the middle is refused by every command (exit 2, one
    line naming the file), and accepted with --accept-corrupt (a warning)."""
    res = Result("7 a JPEG corrupted in the middle", None)
    src = sheets.paths[0]
    folder = work / "in"
    bad = damage_jpeg(src, folder / src.name)
    for extra in src.parent.glob(f"{src.name[:3]}*.points"):   # the sheet's GCPs
        shutil.copy(extra, folder / extra.name)
    runs = {
        "graticule": ["-m", "core.graticule", str(bad), "-o", str(work / "g.csv")],
        "maparea": ["-m", "core.maparea", str(bad), "-o", str(work / "m.png")],
        "blocks": ["-m", "core.blocks", str(bad), "-o", str(work / "b.png")],
        "georef": ["-m", "core.georef", str(bad), *sheets.georef_args, "-o",
                   str(work / "geo")],
    }
    for command, args in runs.items():
        run = start(args, work / "logs")
        rc = run.wait(600)
        err = run.stderr().strip()
        res.check(rc == 2, f"{command} exits {rc}")
        res.check(err.count("\n") == 0 and err.startswith("error: ") and bad.name in err
                  and "damaged" in err, f"{command} says {err[-200:]!r}")
    res.check(not any((work / n).exists() for n in ("g.csv", "m.png", "b.png", "geo")),
              "an output was written")
    run = start([*runs["graticule"], "--accept-corrupt"], work / "logs")
    rc = run.wait(600)
    res.check(rc == 0 and "warning: " in run.stdout() and (work / "g.csv").is_file(),
              f"--accept-corrupt: exit {rc}")
    res.notes.append("4 commands refuse it, --accept-corrupt takes it with a warning")
    return res


@contextlib.contextmanager
def small_disk(folder: Path, kib: int) -> Iterator[Path | None]:
    """A tmpfs of ``kib`` KiB mounted on ``folder`` (root only), unmounted at the end;
    None when it cannot be mounted."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        yield None
        return
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k,mode=0777", "tmpfs",
                           str(folder)], capture_output=True)
    if done.returncode != 0:
        yield None
        return
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def resize_disk(folder: Path, kib: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={kib}k", str(folder)], check=True)


def _size_kib(paths: Sequence[Path]) -> int:
    return sum(-(-p.stat().st_size // 1024) for p in paths if p.is_file())


def disk_full_one_sheet(sheets: Sheets, work: Path) -> Result:
    """Case 8: ``core.georef`` of one sheet into a full file system: one ``error:`` line,
    exit 2, nothing left."""
    res = Result("8 disk full, one sheet", None)
    src = sheets.paths[0]
    ref = work / "ref"
    run = start(["-m", "core.georef", str(src), *sheets.georef_args, "-o", str(ref)],
                work / "logs")
    if run.wait(600) != 0:
        res.check(False, f"the reference run failed: {run.stderr()[-300:]}")
        return res
    need = _size_kib(list(ref.iterdir()))
    with small_disk(work / "disk", max(64, need // 2)) as disk:
        if disk is None:
            res.notes.append("not run: a tmpfs needs root")
            return res
        run = start(["-m", "core.georef", str(src), *sheets.georef_args, "-o",
                     str(disk / "g")], work / "logs")
        rc = run.wait(600)
        err = run.stderr()
        left = sorted(p.name for p in disk.rglob("*"))
    res.notes.append(f"outputs {need} KiB, disk {max(64, need // 2)} KiB: exit {rc}")
    res.check(rc == 2, f"exit status {rc}")
    _one_error_line(res, err, "error: cannot write")
    res.check("space" in err, f"the error does not say the disk is full: {err[-200:]!r}")
    res.check(not left, f"left on the disk: {left[:4]}")
    return res


def disk_full_geopackage(sheets: Sheets, work: Path) -> Result:
    """Case 9: ``core.blocks --gpkg`` with room for the PNG but not the GeoPackage: exit 2
    and nothing left for one sheet; in directory mode no incomplete GeoPackage, and the
    resumed run does the failed sheets again."""
    res = Result("9 disk full while writing the GeoPackage", None)
    src = sheets.paths[0]
    ref = work / "ref"
    run = start(["-m", "core.blocks", str(src), "-o", str(ref / "b.png"), "--gpkg",
                 str(ref / "b.gpkg")], work / "logs")
    if run.wait(900) != 0:
        res.check(False, f"the reference run failed: {run.stderr()[-300:]}")
        return res
    png, gpkg = _size_kib([ref / "b.png"]), _size_kib([ref / "b.gpkg"])
    with small_disk(work / "disk", png + max(8, gpkg // 2)) as disk:
        if disk is None:
            res.notes.append("not run: a tmpfs needs root")
            return res
        run = start(["-m", "core.blocks", str(src), "-o", str(disk / "b.png"), "--gpkg",
                     str(disk / "b.gpkg")], work / "logs")
        rc = run.wait(900)
        err = run.stderr()
        left = sorted(p.name for p in disk.rglob("*"))
        res.check(rc == 2, f"one sheet: exit status {rc}")
        _one_error_line(res, err, "error: cannot write")
        res.check(not left, f"one sheet: left on the disk: {left[:4]}")
    n = min(3, len(sheets.paths))
    folder = work / "in"
    folder.mkdir(exist_ok=True)
    for p in sheets.paths[:n]:
        for f in p.parent.glob(f"{p.name[:3]}-INPUT*"):
            shutil.copy(f, folder / f.name)
    room = n * png + (n - 1) * gpkg + gpkg // 2 + 64     # every PNG, not every GeoPackage
    with small_disk(work / "disk2", room) as disk:
        args = ["-m", "core.blocks", str(folder), "-o", str(disk), "--gpkg", "--workers", "1"]
        rc = start(args, work / "logs").wait(1800)
        packages = sorted(disk.glob("*.gpkg"))
        whole = [p for p in packages if whole_geopackage(p)]
        res.check(rc == 1, f"directory mode with a disk too small: exit {rc}")
        res.check(len(whole) == len(packages) < n,
                  f"{len(packages)} GeoPackages, {len(whole)} whole, {n} sheets")
        resize_disk(disk, 4 * room + 4096)
        again = start(args, work / "logs")
        rc2 = again.wait(1800)
        packages = sorted(disk.glob("*.gpkg"))
        res.check(rc2 == 0 and len(packages) == n and all(map(whole_geopackage, packages)),
                  f"the resumed run exits {rc2} with {len(packages)} whole GeoPackages")
        res.check(f"{n - len(whole)} sheets to do" in again.stderr()
                  or f"{n - len(whole)} sheet to do" in again.stderr(),
                  "the resumed run did not redo exactly the failed sheets")
    res.notes.append(f"one sheet: PNG {png} KiB, GeoPackage {gpkg} KiB; {n} sheets in "
                     f"directory mode: {len(whole)} written whole, the rest redone on resume")
    return res


#: The cases in the order of issue 36.
CASES: tuple[Callable[[Sheets, Path], Result], ...] = (
    kill9_worker, sigint_group, sighup_group, scheduler_dies, workers_die,
    two_runs_one_stopped, corrupt_jpeg, disk_full_one_sheet, disk_full_geopackage)


def run_case(case: Callable[[Sheets, Path], Result], sheets: Sheets, work: Path) -> Result:
    """Run one case in a fresh ``work`` folder, timed; an exception is a broken case."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    t0 = time.monotonic()
    try:
        res = case(sheets, work)
    except Exception as exc:  # the harness itself must report, not stop
        res = Result(case.__name__, False, [f"BROKEN: {type(exc).__name__}: {exc}"])
    res.seconds = time.monotonic() - t0
    return res


def describe(res: Result) -> str:
    verdict = {True: "held", False: "BROKEN", None: "not run"}[res.held]
    return f"{res.case:<45} {verdict:<8} {res.seconds:6.1f} s  " + "; ".join(
        re.sub(r"\s+", " ", n) for n in res.notes)
