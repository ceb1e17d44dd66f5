"""Issue 36: atlas runs that survive faults. The nine cases of benchmarks/fault_cases.py,
injected into real processes (kill -9 of workers, SIGINT and SIGHUP to the process group,
a scheduler or every worker of an external cluster dying, two runs into one folder, a JPEG
damaged in the middle, a tmpfs that fills up), on four small generated sheets; and the
parts they rely on, one by one."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarks import fault_cases
from core.tempfiles import host_tag, is_stale, maker, remove_stale, temporary_name

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> fault_cases.Sheets:
    """Four 2000 px generated sheets with grid values printed in the margins and their
    GCP files (for ``--gcps-only``)."""
    from core.synth.__main__ import main as synth_main

    d = tmp_path_factory.mktemp("faults") / "sheets"
    assert synth_main([str(d), "--count", "4", "--size", "2000", "--seed", "36",
                       "--spacing", "400", "--difficulty", "0.1", "--labels", "full"]) == 0
    return fault_cases.Sheets(d, ("--crs", "paris-atlas", "--gcps-only"),
                              ("--crs", "paris-atlas", "--no-gcps"))


CASES = {case.__name__: case for case in fault_cases.CASES}
QUICKER = {"kill9_worker": {"kills": 2}, "two_runs_one_stopped": {"rounds": 2}}


@pytest.mark.parametrize("name", list(CASES))
def test_fault_case_holds(name, sheets, tmp_path):
    def case(s, w):
        return CASES[name](s, w, **QUICKER.get(name, {}))

    res = fault_cases.run_case(case, sheets, tmp_path / name)
    if res.held is None:
        pytest.skip("; ".join(res.notes))
    assert res.held, fault_cases.describe(res)


def test_sigterm_to_the_command_alone_closes_its_cluster(sheets, tmp_path):
    res = fault_cases.run_case(fault_cases.sigterm_command, sheets, tmp_path / "term")
    assert res.held, fault_cases.describe(res)


# ---- the parts -----------------------------------------------------------------------------

def test_temporary_names_carry_their_maker_and_only_dead_makers_are_stale(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    ours = temporary_name("020-INPUT", ".tif")
    assert maker(ours) == (os.getpid(), host_tag())
    names = {
        ours: False,                                                   # this process: alive
        f".020-INPUT.tmp{dead_pid}-{host_tag()}.tif": True,           # exited
        f"..020-INPUT.tmp{dead_pid}-{host_tag()}.colour.1_2.tif": True,   # GDAL's helper
        f".020-INPUT.tmp{dead_pid}-{host_tag()}.gpkg-journal": True,  # SQLite's journal
        f".020-INPUT.tmp{dead_pid}-otherhost.tif": False,             # another machine's
        f".020-INPUT.tmp{dead_pid}.tif": True,                        # older name, no host
        "020-INPUT.tif": False, ".hidden": False,
    }
    for name, stale in names.items():
        (tmp_path / name).write_text("x")
        assert is_stale(name) is stale, name
    removed = {p.name for p in remove_stale([tmp_path, None, tmp_path / "missing"])}
    assert removed == {n for n, stale in names.items() if stale}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        n for n, stale in names.items() if not stale)


def test_a_failed_write_does_not_remove_a_folder_another_writer_is_using(tmp_path):
    """Run A made the folder, run B is about to write in it, A fails: A's clean-up removes
    its own files and leaves the folder to B (it used to remove it as empty)."""
    from core.atomic import atomic_output

    folder = tmp_path / "020-INPUT_georef"
    a = atomic_output(folder / "020-INPUT.tif")
    a.__enter__()                                 # A creates the folder
    b = atomic_output(folder / "020-INPUT.vrt")
    tmp_b = b.__enter__()                         # B finds it there
    assert a.__exit__(RuntimeError, RuntimeError("A stops"), None) is False
    assert folder.is_dir()
    tmp_b.write_text("B's output")
    b.__exit__(None, None, None)
    assert sorted(p.name for p in folder.iterdir()) == ["020-INPUT.vrt"]


def test_a_stopped_sheet_thread_unwinds_through_its_clean_up():
    from core.batch.stopping import running_sheet, running_sheets, stop_running_sheets
    from core.interrupts import Stopped

    events = []
    started = threading.Event()

    def sheet():
        try:
            with running_sheet():
                started.set()
                while True:                     # Python work: stops at once
                    time.sleep(0.01)
        except Stopped as exc:
            events.append(("stopped", exc.signum))
        finally:
            events.append("clean-up")

    t = threading.Thread(target=sheet)
    t.start()
    assert started.wait(10)
    assert running_sheets() == 1
    assert stop_running_sheets(5.0, signal.SIGTERM)
    t.join(5)
    assert events == [("stopped", signal.SIGTERM), "clean-up"]
    assert running_sheets() == 0
    import core.interrupts as interrupts

    interrupts._pending = None          # this process goes on (a worker would exit)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_stop_dropped_in_a_gc_callback_is_raised_again_and_not_printed():
    """Stopped landing in a garbage collector's callback (a Dask worker has one) is
    printed as "Exception ignored in ..." and dropped by Python: the sheet went on and the
    traceback ended on the command's stderr (case 3 failed now and then)."""
    import gc

    import core.interrupts as interrupts
    from core.batch.stopping import running_sheet, stop_running_sheets
    from core.interrupts import Stopped

    events, sheet_thread = [], []
    in_callback, started = threading.Event(), threading.Event()

    def callback(phase, info):
        if phase == "start" and threading.get_ident() in sheet_thread and not events:
            events.append("in the callback")
            in_callback.set()
            end = time.monotonic() + 5
            while time.monotonic() < end:       # Stopped lands here, and is dropped
                time.sleep(0.01)

    def sheet():
        sheet_thread.append(threading.get_ident())
        try:
            with running_sheet():
                started.set()
                gc.collect()
                while True:
                    time.sleep(0.01)
        except Stopped as exc:
            events.append(("stopped", exc.signum))
        finally:
            events.append("clean-up")

    gc.callbacks.append(callback)
    try:
        t = threading.Thread(target=sheet)
        t.start()
        assert started.wait(10) and in_callback.wait(10)
        time.sleep(0.05)
        assert stop_running_sheets(10.0, signal.SIGTERM)
        t.join(5)
    finally:
        gc.callbacks.remove(callback)
        interrupts._pending = None
    assert events == ["in the callback", ("stopped", signal.SIGTERM), "clean-up"]


def test_the_default_picks_the_faster_way_from_cores_sheets_and_command():
    from core.batch.plan import PROFILES, choose_workers

    sheet = [72.25] * 6                       # 6 sheets of 8500 x 8500 px
    assert choose_workers(PROFILES["graticule"], sheet, cores=2).workers == 1
    assert choose_workers(PROFILES["graticule"], sheet * 50, cores=16).workers == 16
    one = choose_workers(PROFILES["graticule"], sheet[:1], cores=16)
    assert one.workers == 1 and one.reason == "one sheet"
    # sheets that take long and gain little from threads: a cluster as soon as it pays
    assert choose_workers(PROFILES["blocks"], [100.0] * 4, cores=2).workers == 2
    assert choose_workers(PROFILES["blocks"], [100.0], cores=2).workers == 1
    # memory bounds the workers: shapes need about 3.3 GB per 10000 px sheet
    few = choose_workers(PROFILES["shapes"], [100.0] * 40, cores=32, memory_mb=16000)
    assert 1 < few.workers < 8


def _rows(folder: Path) -> dict[str, dict[str, str]]:
    with (folder / "summary.csv").open(newline="", encoding="utf-8") as f:
        return {r["sheet"]: r for r in csv.DictReader(f)}


def test_a_resumed_run_keeps_the_timings_of_the_sheets_it_skips(sheets, tmp_path, capsys):
    from core.graticule.__main__ import main

    out = tmp_path / "out"
    assert main([str(sheets.folder), "-o", str(out), "--workers", "1"]) == 0
    first = _rows(out)
    assert main([str(sheets.folder), "-o", str(out)]) == 0
    again = _rows(out)
    assert {r["status"] for r in again.values()} == {"skipped"}
    for name, row in first.items():
        for key in ("seconds", "cpu_seconds", "worker", "peak_mb", "intersections"):
            assert again[name][key] == row[key] != "", (name, key)
    assert "4 of 4 already done" in capsys.readouterr().err


def test_ctrl_c_in_one_process_writes_the_summary_of_what_finished(sheets, tmp_path):
    out = tmp_path / "out"
    run = fault_cases.start(["-m", "core.graticule", str(sheets.folder), "-o", str(out),
                             "--workers", "1"], tmp_path / "logs")
    deadline = time.monotonic() + 120
    while " intersections" not in run.stdout() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(run.pid, signal.SIGINT)
    assert run.wait(60) == 130
    assert run.stderr().strip().splitlines()[-1].startswith("error: interrupted by SIGINT")
    rows = _rows(out)
    statuses = [r["status"] for r in rows.values()]
    assert len(rows) == 4 and statuses[0] == "ok" and "stopped" in statuses
    stopped = [r for r in rows.values() if r["status"] == "stopped"]
    assert all(r["error"] == "not finished: interrupted by SIGINT" and r["seconds"] == ""
               for r in stopped)
    assert "not finished (the run was stopped)" in (out / "summary.html").read_text()


def test_dask_warnings_stay_out_of_the_output(sheets, tmp_path):
    """The local cluster's dashboard finds port 8787 taken (another cluster, or a second
    run): Dask's warning about it, and its other messages, are not printed."""
    import socket

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        pass                                   # already taken: the same situation
    try:
        proc = subprocess.run([sys.executable, "-m", "core.graticule", str(sheets.folder),
                               "-o", str(tmp_path / "out"), "--workers", "2"], cwd=REPO,
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    finally:
        holder.close()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == ("4 sheets to do, on a local Dask cluster of 2 "
                                           "processes (--workers 2)")
    assert proc.stderr.count("\n") == 2, proc.stderr      # that line and the summary's
    assert "Warning" not in proc.stderr and "already in use" not in proc.stderr


def test_corrupt_jpeg_is_refused_in_the_plugins_runtime_too(sheets, tmp_path):
    """Debian's python3-opencv 4.6 (QGIS's Python) reports the damage the same way."""
    bad = fault_cases.damage_jpeg(sheets.paths[0], tmp_path / "bad.jpg")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from core.imageio import read_image;"
            "from core.errors import InputError\n"
            "try:\n    read_image(sys.argv[2], reduce=2)\nexcept InputError as e:\n"
            "    print(e)")
    proc = subprocess.run(["/usr/bin/python3", "-s", "-E", "-c", code, str(REPO), str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert "the JPEG data is damaged (libjpeg: Corrupt JPEG data" in proc.stdout, proc
    assert "Corrupt JPEG" not in proc.stderr        # caught, not printed


def test_sigterm_to_one_local_worker_redoes_its_sheet_on_another(sheets, tmp_path):
    """A worker alone told to stop (a batch system preempting it): its sheet unwinds (no
    temporary file left), the worker exits, and the run does the sheet again elsewhere."""
    out = tmp_path / "out"
    run = fault_cases.start(["-m", "core.georef", str(sheets.folder), *sheets.georef_args,
                             "-o", str(out), "--workers", "2"], tmp_path / "logs")
    deadline = time.monotonic() + 120
    victim = None
    while victim is None and run.proc.poll() is None and time.monotonic() < deadline:
        pids = {maker(t.name)[0] for t in fault_cases.temporaries(out)} - {run.pid}
        victim = next(iter(pids), None)
        time.sleep(0.005)
    assert victim is not None, run.stderr()
    os.kill(victim, signal.SIGTERM)
    assert run.wait(300) == 0, run.stderr()
    rows = _rows(out)
    assert [r["status"] for r in rows.values()] == ["ok"] * 4
    assert f":{victim}" not in "".join(r["worker"] for r in rows.values())
    # the plan's line, the summary's, the mosaic's and the footprints' (issue 34), no more
    err = run.stderr().splitlines()
    assert fault_cases.tracebacks(run.stderr()) == 0 and len(err) == 4, err
    assert err[2].startswith("mosaic of 4") and err[3].startswith("footprints of 4"), err
    assert not fault_cases.temporaries(out)


def _run_losing_workers_before_the_fetch(monkeypatch, new_worker: bool):
    """``_on_cluster`` of two sheets on an in-process cluster of one worker that closes
    after a sheet finished and before its outcome is fetched (the race of case 5: every
    worker killed as a sheet ends); ``new_worker``: another worker joins at once (a nanny's
    new worker process). What the run yields or raises, its seconds, and whether it was
    still blocked after 30 s (a hang)."""
    from distributed import Client, LocalCluster, Worker
    from distributed.client import Client as DaskClient

    from core.batch.execute import _on_cluster

    monkeypatch.setenv("GRATICULE_NO_WORKER_TIMEOUT", "1")
    fetch = DaskClient._gather_remote
    fired = []                        # once; then the new worker, if any

    async def lose_workers_first(client, *args, **kwargs):
        if not fired:
            fired.append(None)
            address = client.scheduler.address
            for worker in list(cluster.workers.values()):
                await worker.close()
            if new_worker:
                fired.append(await Worker(address, nthreads=1))
        return await fetch(client, *args, **kwargs)

    monkeypatch.setattr(DaskClient, "_gather_remote", lose_workers_first)
    box = {}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        def consume():
            try:
                box["outcomes"] = dict(_on_cluster(client, "here", str,
                                                   [(0, "a", "a", None, ()),
                                                    (1, "b", "b", None, ())]))
            except Exception as exc:
                box["error"] = exc

        t0 = time.monotonic()
        thread = threading.Thread(target=consume, daemon=True)
        thread.start()
        thread.join(30)
        seconds, hung = time.monotonic() - t0, thread.is_alive()
        if fired[1:]:
            client.sync(fired[1].close)
    return box, seconds, hung


def test_a_cluster_losing_its_last_worker_before_an_outcome_is_fetched_ends_the_run(
        monkeypatch):
    """Dask computes a finished sheet again when its outcome is lost with its worker: with
    no worker left the run used to wait for it forever (case 5 hung now and then)."""
    from core.batch.execute import ClusterLostError

    box, seconds, hung = _run_losing_workers_before_the_fetch(monkeypatch, False)
    assert not hung, seconds
    assert isinstance(box.get("error"), ClusterLostError), box
    assert "has had no worker for 1 s" in str(box["error"])


def test_a_new_worker_runs_again_the_sheet_whose_outcome_was_lost(monkeypatch):
    box, seconds, hung = _run_losing_workers_before_the_fetch(monkeypatch, True)
    assert not hung, seconds
    outcomes = box.get("outcomes")
    assert outcomes is not None, box
    assert sorted(outcomes) == [0, 1]
    assert {o.status for o in outcomes.values()} == {"ok"}
