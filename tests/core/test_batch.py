"""Directory modes on Dask (core.batch): same outputs on 1 and 2 local workers and on an
external cluster, failures reported at the end, resumed runs, the collection summary and
the georef mosaic. Small generated sheets; each cluster start is bounded in time."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from core.batch.loopback import loopback_cluster
from core.batch.summary import COLUMNS
from core.formats.mapseg_csv import read_points_csv
from core.graticule.__main__ import main as graticule_main
from core.synth import generate_sheet, write_sheet

REPO = Path(__file__).resolve().parents[2]
GOOD = ("000-INPUT.jpg", "001-INPUT.jpg")
BAD = "002-INPUT.jpg"


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> Path:
    """Two generated 1600 px sheets (grid every 420 px) and a truncated JPEG."""
    d = tmp_path_factory.mktemp("atlas")
    for k, (seed, tilt) in enumerate(((11, "tilted"), (12, "axis"))):
        sheet = generate_sheet(seed, 1600, difficulty=0.2, spacing_px=420.0,
                               jpeg_roundtrip=True, orientation=tilt)
        write_sheet(sheet, d, f"{k:03d}")
    (d / BAD).write_bytes(b"\xff\xd8\xff\xe0 truncated")
    return d


@pytest.fixture(scope="module")
def one_process(sheets, tmp_path_factory) -> Path:
    """Graticule directory mode run one sheet after another in this process."""
    out = tmp_path_factory.mktemp("w1") / "out"
    assert graticule_main([str(sheets), "-o", str(out), "--workers", "1"]) == 1
    return out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two workers started on 127.0.0.1 as separate processes (``dask``
    command of the venv, the project on PYTHONPATH), stopped by the fixture's finaliser."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with loopback_cluster(tmp_path_factory.mktemp("cluster"), 2, env=env,
                          timeout=60) as address:
        yield address


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "summary.csv").open(newline="", encoding="utf-8") as f:
        return {r["sheet"]: r for r in csv.DictReader(f)}


def _same_outputs(a: Path, b: Path) -> None:
    csvs = sorted(p.name for p in a.glob("*-OUTPUT-PRED.csv"))
    assert csvs == ["000-OUTPUT-PRED.csv", "001-OUTPUT-PRED.csv"]
    assert csvs == sorted(p.name for p in b.glob("*-OUTPUT-PRED.csv"))
    for name in csvs:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_one_process_run_reports_the_bad_sheet_and_summarises(one_process, sheets, capsys):
    rows = _rows(one_process)
    assert list(rows) == [*GOOD, BAD]
    assert list(next(iter(rows.values()))) == list(COLUMNS)
    for name in GOOD:
        found = read_points_csv(one_process / f"{name[:3]}-OUTPUT-PRED.csv")
        truth = read_points_csv(sheets / f"{name[:3]}-OUTPUT-GT.csv")
        assert rows[name]["status"] == "ok" and rows[name]["error"] == ""
        assert int(rows[name]["intersections"]) == len(found) >= len(truth) - 3
        assert float(rows[name]["seconds"]) > 0 and float(rows[name]["peak_mb"]) > 10
        thumb = cv2.imread(str(one_process / rows[name]["thumbnail"]))
        assert thumb.shape == (200, 200, 3)   # decoded at 1/8, at most 240 px wide
    assert rows[BAD]["status"] == "failed" and "truncated JPEG" in rows[BAD]["error"]
    assert rows[BAD]["thumbnail"] == "" and rows[BAD]["intersections"] == ""
    assert not (one_process / "002-OUTPUT-PRED.csv").exists()
    page = (one_process / "summary.html").read_text(encoding="utf-8")
    assert page.count("<img ") == 2 and "truncated JPEG" in page and "1 failed" in page
    assert not list(one_process.rglob(".*tmp*"))     # every write was atomic


def test_two_local_workers_give_the_same_outputs(sheets, one_process, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "core.graticule", str(sheets), "-o", str(out),
                           "--workers", "2"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "1 of 3 failed" in proc.stderr and f"{BAD}: " in proc.stderr
    _same_outputs(one_process, out)
    rows = _rows(out)
    assert [r["status"] for r in rows.values()] == ["ok", "ok", "failed"]
    assert len({r["worker"] for r in rows.values()}) == 2   # both workers had a sheet
    assert proc.stdout.count(" intersections, spacing ") == 2


def test_external_cluster_gives_the_same_outputs(sheets, one_process, cluster, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "core.graticule", str(sheets), "-o", str(out),
                           "--scheduler", cluster], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "1 of 3 failed" in proc.stderr and BAD in proc.stderr
    assert "000-INPUT.jpg: " in proc.stdout and "001-INPUT.jpg: " in proc.stdout
    _same_outputs(one_process, out)
    # the same address from the environment, and refused together with --workers
    again = subprocess.run([sys.executable, "-m", "core.graticule", str(sheets), "-o", str(out),
                            "--scheduler", cluster, "--workers", "2"], cwd=REPO,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and again.stderr.startswith("error: --workers starts")


def test_rerun_skips_done_sheets_and_force_redoes_them(sheets, one_process, tmp_path, capsys):
    indir, out = tmp_path / "in", tmp_path / "out"
    indir.mkdir()
    for name in GOOD:        # the sheets, then the outputs of the one-process run: newer
        shutil.copy(sheets / name, indir / name)
        shutil.copy(sheets / f"{name[:3]}-INPUT-MASK.png", indir)
    shutil.copytree(one_process, out, copy_function=shutil.copy)
    first = {p.name: p.stat().st_mtime_ns for p in out.glob("*-PRED.csv")}
    counts = {n: _rows(one_process)[n]["intersections"] for n in GOOD}
    args = [str(indir), "-o", str(out), "--workers", "1"]

    assert graticule_main(args) == 0                       # nothing to do
    assert "2 of 2 already done" in capsys.readouterr().err
    assert {n: r["status"] for n, r in _rows(out).items()} == dict.fromkeys(GOOD, "skipped")
    assert {n: r["intersections"] for n, r in _rows(out).items()} == counts   # carried over
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*-PRED.csv")} == first

    os.utime(indir / GOOD[1])                              # a newer scan: redone
    assert graticule_main(args) == 0
    assert [r["status"] for r in _rows(out).values()] == ["skipped", "ok"]
    assert (out / "000-OUTPUT-PRED.csv").stat().st_mtime_ns == first["000-OUTPUT-PRED.csv"]
    assert (out / "001-OUTPUT-PRED.csv").stat().st_mtime_ns > first["001-OUTPUT-PRED.csv"]

    assert graticule_main([*args, "--force"]) == 0
    assert [r["status"] for r in _rows(out).values()] == ["ok", "ok"]
    assert (out / "000-OUTPUT-PRED.csv").stat().st_mtime_ns > first["000-OUTPUT-PRED.csv"]
    for name in ("000-OUTPUT-PRED.csv", "001-OUTPUT-PRED.csv"):
        assert (out / name).read_bytes() == (one_process / name).read_bytes()


def test_georef_directory_summary_and_mosaic(sheets, tmp_path, capsys):
    from osgeo import gdal

    from core.georef.__main__ import main as georef_main

    out = tmp_path / "out"
    assert georef_main([str(sheets), "--crs", "paris-atlas", "--gcps-only", "-o", str(out),
                        "--workers", "1"]) == 1
    rows = _rows(out)
    assert [r["status"] for r in rows.values()] == ["ok", "ok", "failed"]
    for name in GOOD:
        assert 0 <= float(rows[name]["rmse_px"]) < 1.0    # the generator's exact GCPs
        assert int(rows[name]["intersections"]) >= 9
    gdal.UseExceptions()
    mosaic = gdal.Open(str(out / "mosaic.vrt"))
    assert mosaic.RasterCount == 4                         # RGB + alpha
    files = [Path(f).name for f in mosaic.GetFileList()]
    assert {"000-INPUT.vrt", "001-INPUT.vrt"} <= set(files)
    x0, dx, _, y0, _, dy = mosaic.GetGeoTransform()
    for name in GOOD:
        tif = gdal.Open(str(out / f"{Path(name).stem}_georef" / f"{Path(name).stem}.tif"))
        gt = tif.GetGeoTransform()
        corners = [(gt[0] + gt[1] * i + gt[2] * j, gt[3] + gt[4] * i + gt[5] * j)
                   for i in (0, tif.RasterXSize) for j in (0, tif.RasterYSize)]
        for x, y in corners:      # every sheet lies inside the mosaic
            assert x0 - abs(dx) <= x <= x0 + dx * mosaic.RasterXSize + abs(dx)
            assert y0 + dy * mosaic.RasterYSize - abs(dy) <= y <= y0 + abs(dy)
    assert "mosaic of 2 georeferenced sheets" in capsys.readouterr().err
