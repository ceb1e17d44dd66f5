"""core.georef.footprints: the sheets of a directory run on the ground, overlaps and holes
flagged, written as a GeoPackage by directory mode."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from core.georef.footprints import Footprint, densify, flag_footprints


def _square(name: str, x: float, y: float, side: float = 100.0) -> Footprint:
    return Footprint(name, np.array([[x, y], [x + side, y], [x + side, y + side],
                                     [x, y + side]], dtype=np.float64))


def test_a_missing_sheet_inside_the_atlas_is_a_hole_its_neighbours_border():
    # 3 x 3 sheets that abut (with 2 % margins shared), the middle one missing
    sheets = [_square(f"{c}{r}", c * 98.0, r * 98.0) for c in range(3) for r in range(3)
              if (c, r) != (1, 1)]
    holes = flag_footprints(sheets)
    assert len(holes) == 1
    assert all(fp.hole and fp.status == "flagged" for fp in sheets)
    assert all(not fp.overlaps and fp.overlap_share < 0.05 for fp in sheets)


def test_a_sheet_on_another_sheets_ground_flags_both_and_neighbours_do_not():
    a, b, c = _square("a", 0, 0), _square("b", 98, 0), _square("c", 10, 5)
    assert flag_footprints([a, b, c]) == []
    assert a.overlaps == ["c"] and c.overlaps == ["a"] and not b.overlaps
    assert (a.status, b.status, c.status) == ("flagged", "placed", "flagged")
    assert c.overlap_share == pytest.approx(0.855)
    assert c.reasons == ["shares up to 86% of its ground with a"]
    assert "c" in a.reasons[0]


def test_densify_keeps_the_corners_and_shortens_edges():
    outline = np.array([[0, 0], [120, 0], [120, 30], [0, 30]], dtype=np.float64)
    dense = densify(outline, 50.0)
    assert dense[0].tolist() == [0, 0] and [120, 0] in dense.tolist()
    edges = np.hypot(*(np.roll(dense, -1, axis=0) - dense).T)
    assert edges.max() <= 50.0 and len(dense) == 3 + 1 + 3 + 1


def test_directory_run_writes_footprints_of_real_sheets(tmp_path, shared, capsys):
    """Jacoubet's sheets 20 and 21 (neighbours) from their hand GCPs, and sheet 49's scan
    given sheet 20's GCPs (placed on 20's ground): 20 and that sheet are flagged, 21 is
    not; a sheet without GCPs is listed as refused."""
    from osgeo import ogr

    from core.georef.__main__ import main

    jacoubet = shared / "data" / "jacoubet-1836"
    src = tmp_path / "in"
    src.mkdir()
    for name, scan, points in (("020", "020", "020"), ("021", "021", "021"),
                               ("022", "049", "020"), ("023", "049", None)):
        (src / f"{name}-INPUT.jpg").symlink_to(jacoubet / f"{scan}-INPUT.jpg")
        if points:
            shutil.copy(jacoubet / f"{points}-GT.points", src / f"{name}.points")
    out = tmp_path / "out"
    code = main([str(src), "--crs", "EPSG:2154", "--grid-crs",
                 (jacoubet / "CRS.proj").read_text().strip(), "--gcps-only", "--workers", "1",
                 "-o", str(out)])
    assert code == 1                                     # 023 failed: no GCPs
    assert "2 flagged" in capsys.readouterr().err
    source = ogr.Open(str(out / "footprints.gpkg"))
    layer = source.GetLayerByName("footprints")
    assert layer.GetSpatialRef().GetAuthorityCode(None) == "2154"
    rows = {f["sheet"]: f for f in layer}
    assert set(rows) == {"020-INPUT.jpg", "021-INPUT.jpg", "022-INPUT.jpg"}
    assert rows["020-INPUT.jpg"]["status"] == rows["022-INPUT.jpg"]["status"] == "flagged"
    assert rows["020-INPUT.jpg"]["overlaps"] == "022-INPUT.jpg"
    assert rows["021-INPUT.jpg"]["status"] == "placed"
    assert 0.0 < rows["021-INPUT.jpg"]["overlap_share"] < 0.2     # margins only
    assert rows["021-INPUT.jpg"]["area_from"] == "map area"
    # a Jacoubet sheet is about 1000 x 1250 toises = 1950 x 2440 m, margins included
    area = rows["021-INPUT.jpg"].GetGeometryRef().GetArea()
    assert 1950 * 2440 < area < 1.3 * 1950 * 2440
    listed = {f["sheet"]: (f["status"], f["error"]) for f in source.GetLayerByName("sheets")}
    assert listed["023-INPUT.jpg"][0] == "refused" and ".points" in listed["023-INPUT.jpg"][1]
    assert listed["021-INPUT.jpg"] == ("placed", "")
