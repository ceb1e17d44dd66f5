"""core.georef.crs: accepted CRS forms, the paris-atlas preset, reprojection, PROJ data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.formats.qgis_points import read_points_file
from core.georef.crs import crs_label, crs_wkt, parse_crs, same_crs, transform_points

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text", ["EPSG:2154", "epsg:2154", "2154", " EPSG:2154 "])
def test_epsg_forms(text):
    crs = parse_crs(text)
    assert crs.to_epsg() == 2154 and crs_label(crs).startswith("EPSG:2154")


def test_preset_is_case_insensitive_and_equals_the_atlas_wkt(real_crop, shared):
    a = parse_crs("Paris-Atlas")
    b = parse_crs("PARIS-ATLAS")
    wkt = read_points_file(shared / "data" / "paris-atlas-gcps" / "1925_planche_1.points").crs
    source_md = (real_crop / "SOURCE.md").read_text(encoding="utf-8")
    proj = next(line.strip("` ") for line in source_md.splitlines() if "+proj=omerc" in line)
    assert same_crs(a, b) and same_crs(a, parse_crs(wkt)) and same_crs(a, parse_crs(proj))
    # the grid origin is the Paris Observatory
    lonlat = transform_points(np.array([[0.0, 0.0]]), a, parse_crs("EPSG:4326"))
    assert np.allclose(lonlat, [[2.33652533, 48.83635864]], atol=1e-9)


def test_wkt_and_proj_strings_round_trip():
    crs = parse_crs("+proj=utm +zone=31 +datum=WGS84 +units=m +no_defs")
    again = parse_crs(crs_wkt(crs))
    assert same_crs(crs, again) and "\n" not in crs_wkt(crs)


@pytest.mark.parametrize("text", ["EPSG:99999999", "not a crs", "", "+proj=nonsense"])
def test_unknown_crs_is_one_line_input_error(text):
    with pytest.raises(InputError) as err:
        parse_crs(text)
    msg = str(err.value)
    assert "\n" not in msg and "EPSG code" in msg and "paris-atlas" in msg


def test_reprojection_round_trip_between_atlas_grid_and_lambert93():
    atlas, l93 = parse_crs("paris-atlas"), parse_crs("EPSG:2154")
    grid = np.array([[-3000.0, 5000.0], [0.0, 0.0], [4000.0, -2000.0]])
    there = transform_points(grid, atlas, l93)
    assert np.all((there[:, 0] > 640000) & (there[:, 0] < 665000))
    assert np.all((there[:, 1] > 6850000) & (there[:, 1] < 6870000))
    assert np.abs(transform_points(there, l93, atlas) - grid).max() < 1e-6
    # 1000 m of grid is 1000 m on the ground within Lambert-93's scale error (< 1e-3)
    d = np.hypot(*(transform_points(np.array([[1000.0, 0.0]]), atlas, l93) -
                   transform_points(np.array([[0.0, 0.0]]), atlas, l93))[0])
    assert d == pytest.approx(1000.0, rel=1e-3)


def test_import_prints_no_proj_data_warning():
    env = {k: v for k, v in os.environ.items() if k not in ("PROJ_DATA", "PROJ_LIB")}
    proc = subprocess.run(
        [sys.executable, "-W", "error::UserWarning", "-c",
         "import core.georef, pyproj; pyproj.CRS('EPSG:2154'); "
         "print(pyproj.datadir.get_data_dir())"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Valid PROJ data directory not found" not in proc.stderr
    assert (Path(proc.stdout.strip()) / "proj.db").is_file()


def test_errors_are_reported_in_a_named_unit_or_the_unit_s_length():
    """A unit PROJ has no name for is named by its length: the toise of Jacoubet's atlas
    (``+to_meter=1.94903631``) as "toise", another as its length in metres, instead of
    PROJ's "unknown"."""
    from core.georef.pipeline import _unit

    def aeqd(to_meter: str):
        return parse_crs(f"+proj=aeqd +lat_0=48.8 +lon_0=2.3 +ellps=GRS80 "
                         f"+to_meter={to_meter} +no_defs +type=crs")

    assert _unit(aeqd("1.94903631")) == "toise"
    assert _unit(aeqd("1.5")) == "units of 1.5 m"
    assert _unit(parse_crs("EPSG:2154")) == "metre"
