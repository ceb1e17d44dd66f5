"""python -m core.georef: outputs and messages, exit codes, batch directories."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

import core.georef.pipeline as pipeline
from core.cli import run_cli
from core.formats.qgis_points import GroundControlPoints, write_points_file
from core.georef.__main__ import main
from core.georef.grid_labels import graticule_from_points

REPO = Path(__file__).resolve().parents[2]
PIX_TO_GRID = np.array([[2.0, 0.05, -1000.0], [0.04, -2.0, 3000.0]])  # px -> atlas grid, m


def _sheet(directory: Path, name: str, w: int = 1000, h: int = 900) -> tuple[Path, np.ndarray]:
    """A JPEG sheet and the true pixel positions of its 3 x 3 grid nodes (500 m spacing)."""
    rng = np.random.default_rng(len(name))
    img = rng.integers(150, 255, (h, w, 3), dtype=np.uint8)
    path = directory / name
    assert cv2.imwrite(str(path), img)
    grid = np.array([[e, n] for n in (2500.0, 2000.0, 1500.0) for e in (-500.0, 0.0, 500.0)])
    a = PIX_TO_GRID[:, :2]
    pix = (grid - PIX_TO_GRID[:, 2]) @ np.linalg.inv(a).T
    assert pix.min() > 0 and pix[:, 0].max() < w and pix[:, 1].max() < h
    return path, pix


def _points(path: Path, pix: np.ndarray, crs: str | None = "paris-atlas") -> None:
    grid = pix @ PIX_TO_GRID[:, :2].T + PIX_TO_GRID[:, 2]
    text = None if crs is None else "+proj=omerc +gamma=0.00047289 +lonc=2.33652533 " \
        "+lon_0=2.33652533 +lat_0=48.83635864 +x_0=0 +y_0=0 +ellps=GRS80 +no_defs"
    write_points_file(path, GroundControlPoints(grid, pix, crs=text))


def test_gcps_only_prints_rmse_and_output_paths(tmp_path, capsys):
    img, pix = _sheet(tmp_path, "plate.jpg")
    _points(tmp_path / "plate.points", pix)
    code = run_cli(main, [str(img), "--crs", "EPSG:2154", "--grid-crs", "paris-atlas",
                          "--gcps-only", "--spacing", "500", "--overviews"])
    out = capsys.readouterr().out
    assert code == 0
    assert "plate.jpg: affine, 9 of 9 GCPs used, RMSE 0.00 px = 0.00" in out  # mm: reprojection
    outdir = tmp_path / "plate_georef"
    for name in ("plate.tif", "plate.points", "plate.vrt", "plate.jgw", "plate.report.json",
                 "plate.report.html"):
        assert (outdir / name).is_file() and str(outdir / name) in out
    from osgeo import gdal

    assert gdal.Open(str(outdir / "plate.tif")).GetRasterBand(1).GetOverviewCount() == 1  # 500 px


def test_detection_with_one_anchor_and_warnings(tmp_path, capsys, monkeypatch):
    img, pix = _sheet(tmp_path, "plate.jpg")
    index = np.array([[c, r] for r in range(3) for c in range(3)])
    calls = []

    def fake_detector(image, mask=None, *, progress=None):
        calls.append((image, mask))
        return graticule_from_points(pix - 0.5 + 0.3, index, (1000, 900))

    monkeypatch.setattr(pipeline, "_load_detector", lambda: fake_detector)
    anchor = f"{pix[4, 0] + 20:.1f},{pix[4, 1] - 15:.1f}=0,2000"
    code = run_cli(main, [str(img), "--crs", "paris-atlas", "--spacing", "500",
                          "--anchor", anchor, "-o", str(tmp_path / "o"),
                          "--transform", "helmert"])
    out = capsys.readouterr().out
    assert code == 0 and calls == [(str(img), "compute")]   # no mask file: map area computed
    assert "helmert, 9 of 9 GCPs used" in out and "assumed north-up" in out
    assert (tmp_path / "o" / "plate.tif").is_file()


def test_errors_exit_2_with_one_line(tmp_path, capsys, monkeypatch):
    img, pix = _sheet(tmp_path, "plate.jpg")
    index = np.array([[c, r] for r in range(3) for c in range(3)])
    monkeypatch.setattr(pipeline, "_load_detector", lambda: lambda *a, **k: graticule_from_points(
        pix - 0.5, index, (1000, 900)))
    assert run_cli(main, [str(img), "--crs", "EPSG:2154"]) == 2   # noise: no label to read
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: the grid values printed on the sheet do not name the "
                          "grid surely") and "\n" not in err
    assert "--anchor X,Y=E,N" in err and "--gcps FILE.points" in err
    _points(tmp_path / "plate.points", pix)
    assert run_cli(main, [str(img), "--crs", "EPSG:2154", "--gcps-only",
                          "--transform", "poly3"]) == 2
    assert "needs at least 10 GCPs, got 9" in capsys.readouterr().err
    assert run_cli(main, [str(img), "--crs", "nowhere", "--gcps-only"]) == 2
    assert "unknown CRS 'nowhere'" in capsys.readouterr().err
    assert not (tmp_path / "plate_georef").exists()


def test_directory_goes_on_past_a_bad_sheet(tmp_path, capsys):
    img, pix = _sheet(tmp_path, "001-INPUT.jpg")
    _points(tmp_path / "001.points", pix, crs=None)  # no #CRS: grid CRS
    (tmp_path / "002-INPUT.jpg").write_bytes(b"\xff\xd8\xff\xe0 truncated")
    code = run_cli(main, [str(tmp_path), "--crs", "paris-atlas", "--gcps-only",
                          "-o", str(tmp_path / "out"), "--spacing", "500"])
    captured = capsys.readouterr()
    assert code == 1
    assert "1 of 2 failed" in captured.err and "002-INPUT.jpg" in captured.err
    assert (tmp_path / "out" / "001-INPUT_georef" / "001-INPUT.tif").is_file()
    assert not (tmp_path / "out" / "002-INPUT_georef").exists()


def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "core.georef", "missing.jpg", "--crs",
                           "EPSG:2154"], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: missing.jpg: no such file or directory; check the path"
