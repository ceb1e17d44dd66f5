"""core.blocks polygons: arc-wise coverage simplification on label images, NumPy rings,
and the whole pipeline with shapely unimportable (one GEOS per process: QGIS's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from core.blocks.arcs import is_node, lattice_points
from core.blocks.rings import (
    geodesic_area_perimeter,
    planar_area_perimeter,
    to_ogr,
    transform_geoms,
    vertex_count,
)
from core.blocks.vectorize import overlap_area, polygonize, simplify_coverage

REPO = Path(__file__).resolve().parents[2]


def _voronoi(shape: tuple[int, int], count: int, seed: int) -> np.ndarray:
    """A full partition (every pixel labelled 1..count + 2) of random seed cells, with
    ragged (staircase) boundaries, plus islands: a 5x7 label inside the widest cell and a
    1x1 label inside it."""
    rng = np.random.default_rng(seed)
    h, w = shape
    seeds = rng.uniform(0, 1, (count, 2)) * (w, h)
    yy, xx = np.mgrid[0:h, 0:w]
    d = (xx[..., None] - seeds[:, 0]) ** 2 + (yy[..., None] - seeds[:, 1]) ** 2
    labels = (np.argmin(d, axis=2) + 1).astype(np.int32)
    edge = np.zeros(shape, bool)                        # pixels beside another cell
    edge[:, 1:] |= labels[:, 1:] != labels[:, :-1]
    edge[:, :-1] |= labels[:, 1:] != labels[:, :-1]
    edge[1:] |= labels[1:] != labels[:-1]
    edge[:-1] |= labels[1:] != labels[:-1]
    inner = np.pad((~edge).astype(np.uint8), 1)         # the image edge counts as outside
    inside = cv2.distanceTransform(inner, cv2.DIST_C, 3)[1:-1, 1:-1]
    y, x = np.unravel_index(np.argmax(inside), inside.shape)
    assert inside[y, x] >= 5
    labels[y - 2:y + 3, x - 3:x + 4] = count + 1
    labels[y, x] = count + 2
    return labels


def _relabel(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """4-connected components of each label, numbered 1..n (a label image as the pipeline
    makes: one component per label)."""
    out = np.zeros(labels.shape, np.int32)
    n = 0
    for v in np.unique(labels[labels > 0]):
        count, comp = cv2.connectedComponents((labels == v).astype(np.uint8), connectivity=4)
        out[comp > 0] = comp[comp > 0] + n
        n += count - 1
    return out, n


def _features(labels: np.ndarray, n: int, tolerance: float) -> list:
    return simplify_coverage(labels, polygonize(labels, n), tolerance)


def _check_coverage(labels: np.ndarray, feats: list, full: bool) -> dict:
    """Every polygon valid and no two overlapping; a full partition is covered without a
    gap (the union is the image rectangle). Returns the OGR geometries by label."""
    from osgeo import ogr

    geoms = {i: to_ogr(f) for i, f in enumerate(feats) if f is not None}
    assert set(geoms) == set(np.unique(labels[labels > 0]).tolist())
    assert all(g.IsValid() for g in geoms.values())
    ids = sorted(geoms)
    for a, i in enumerate(ids):
        for j in ids[a + 1:]:
            assert overlap_area(geoms[i], geoms[j]) < 1e-6, (i, j)
    total = sum(g.GetArea() for g in geoms.values())
    union = ogr.Geometry(ogr.wkbMultiPolygon)
    for g in geoms.values():
        for k in range(g.GetGeometryCount()):
            union.AddGeometry(g.GetGeometryRef(k))
    union = union.UnionCascaded()
    assert union.GetArea() == pytest.approx(total, abs=1e-6)        # no overlap anywhere
    if full:
        assert total == pytest.approx(labels.size, abs=1e-6)         # no gap
        assert union.GetGeometryType() == ogr.wkbPolygon
        assert union.GetGeometryCount() == 1                          # no hole in the union
    return geoms


def _holes(feats: list) -> int:
    return sum(len(p) - 1 for f in feats if f is not None for p in f)


def test_nodes_are_corners_of_three_labels_a_checkerboard_or_the_image():
    labels = np.array([[1, 1, 2],
                       [1, 2, 2],
                       [3, 3, 2]], np.int32)
    corners = np.array([[1, 1], [2, 1], [1, 2], [2, 2], [1, 0], [3, 1], [0, 2], [0, 0],
                        [3, 3]])
    # around each corner (top-left, top-right / bottom-left, bottom-right; 0 outside):
    # 1 1/1 2, 1 2/2 2, 1 2/3 3, 2 2/3 2, 0 0/1 1, 2 0/2 0, 0 1/0 3, then two image corners
    assert is_node(labels, corners).tolist() == [False, False, True, False, False, False,
                                                 True, True, True]
    diagonal = np.array([[1, 2], [2, 1]], np.int32)
    assert is_node(diagonal, np.array([[1, 1]])).tolist() == [True]


def test_lattice_points_walk_every_corner_of_each_ring():
    square = np.array([[0, 0], [0, 3], [2, 3], [2, 0], [0, 0]], float)
    pixel = np.array([[5, 5], [6, 5], [6, 6], [5, 6], [5, 5]], float)
    pts, offsets = lattice_points([square, pixel])
    assert offsets.tolist() == [0, 10, 14]
    assert pts[:4].tolist() == [[0, 0], [0, 1], [0, 2], [0, 3]]
    assert np.abs(np.diff(pts[:10], axis=0)).sum(axis=1).tolist() == [1] * 9


@pytest.mark.parametrize("seed", [0, 1])
def test_tolerance_zero_keeps_the_pixel_boundaries(seed):
    labels = _voronoi((60, 80), 12, seed)
    labels[:3], labels[-3:], labels[:, :3], labels[:, -3:] = 0, 0, 0, 0  # background frame
    labels, n = _relabel(labels)
    feats = _features(labels, n, 0.0)
    _check_coverage(labels, feats, full=False)
    for i, f in enumerate(feats):
        if f is not None:
            assert planar_area_perimeter(f)[0] == np.count_nonzero(labels == i)
    assert _holes(feats) >= 2                           # the islands' holes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_simplified_partition_stays_a_coverage(seed):
    labels, n = _relabel(_voronoi((90, 120), 25, seed))
    exact = _features(labels, n, 0.0)
    for tolerance in (1.0, 1.5, 4.0):
        feats = _features(labels, n, tolerance)
        _check_coverage(labels, feats, full=True)
        assert _holes(feats) == _holes(exact)           # holes kept
        count = sum(vertex_count(f) for f in feats if f is not None)
        assert count < 0.6 * sum(vertex_count(f) for f in exact if f is not None)


def test_checkerboard_corner_and_hole_touching_the_exterior_stay_valid():
    block = np.array([[1, 1, 1, 1, 3],
                      [1, 2, 2, 1, 3],
                      [1, 2, 2, 1, 3],
                      [1, 1, 1, 2, 3],
                      [3, 3, 3, 3, 3]], np.int32)
    labels = np.kron(block, np.ones((7, 7), np.int32))
    labels[3:10, 3:10] = 4                              # an island on the outer ring
    labels, n = _relabel(labels)
    for tolerance in (0.0, 1.5, 10.0):
        _check_coverage(labels, _features(labels, n, tolerance), full=True)


def test_thin_staircase_strip_is_kept_with_its_area():
    """A one-pixel diagonal strip between two regions: simplifying both sides would
    collapse it or make it cross its neighbours, so its pixel boundary comes back."""
    yy, xx = np.mgrid[0:60, 0:60]
    labels = np.where(xx > yy, 1, 3).astype(np.int32)
    labels[(xx == yy) | (xx == yy + 1)] = 2
    feats = _features(labels, 3, 3.0)
    _check_coverage(labels, feats, full=True)
    area = planar_area_perimeter(feats[2])[0]
    assert area > 0.5 * np.count_nonzero(labels == 2)


def test_simplification_that_would_overlap_or_collapse_is_undone():
    """An L-shaped block with a square in its inner corner, 1 px of background between:
    at 5 px the L's boundary shortcuts the corner across the square and the square
    collapses to a line; both get their pixel boundaries back."""
    labels = np.zeros((12, 12), np.int32)
    labels[:, :3] = 1
    labels[9:, :] = 1
    labels[1:8, 4:8] = 2
    feats = _features(labels, 2, 5.0)
    _check_coverage(labels, feats, full=False)
    assert [planar_area_perimeter(f)[0] for f in feats[1:]] == [63.0, 28.0]


def test_lone_pixel_keeps_its_square():
    """A one-pixel region alone: both halves of its ring straighten into the same diagonal
    at 1.5 px, so the ring gets its pixel boundary back."""
    labels = np.zeros((5, 5), np.int32)
    labels[2, 2] = 1
    (feature,) = _features(labels, 1, 1.5)[1:]
    assert planar_area_perimeter(feature) == (1.0, 4.0) and to_ogr(feature).IsValid()


def _sheet_labels() -> tuple[np.ndarray, int]:
    """A generated sheet as a full partition: each block, each piece of street network
    (with the outlines) and the margin outside the map frame."""
    from core.synth import generate_sheet

    sheet = generate_sheet(4, 900, difficulty=0.4)
    parts = np.where(sheet.blocks_mask, 1, np.where(sheet.map_mask, 2, 3)).astype(np.int32)
    return _relabel(parts)


def test_generated_sheet_coverage_with_holes_and_fewer_vertices():
    labels, n = _sheet_labels()
    exact = _features(labels, n, 0.0)
    for i, f in enumerate(exact):
        if f is not None:
            assert planar_area_perimeter(f)[0] == np.count_nonzero(labels == i)
    feats = _features(labels, n, 1.0)
    _check_coverage(labels, feats, full=True)
    assert _holes(feats) == _holes(exact) > 0           # the blocks inside the streets
    vertices = sum(vertex_count(f) for f in feats if f is not None)
    assert vertices < 0.7 * sum(vertex_count(f) for f in exact if f is not None)


def test_rings_measures_and_transform():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], float)
    hole = np.array([[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]], float)
    feature = [[square, hole], [square + 20]]
    assert planar_area_perimeter(feature) == (196.0, 88.0)
    assert vertex_count(feature) == 12
    g = to_ogr(feature)
    assert g.IsValid() and g.GetArea() == 196.0 and g.GetGeometryCount() == 2
    moved = transform_geoms([None, feature], lambda xy: xy * (2.0, -1.0) + (1.0, 0.0))
    assert moved[0] is None
    assert planar_area_perimeter(moved[1])[0] == 392.0
    assert moved[1][1][0][2].tolist() == [61.0, -30.0]
    import pyproj

    geod = pyproj.Geod(ellps="WGS84")
    degrees = [[square * 0.01, hole * 0.01]]
    outer = geod.polygon_area_perimeter(square[:, 0] * 0.01, square[:, 1] * 0.01)
    inner = geod.polygon_area_perimeter(hole[:, 0] * 0.01, hole[:, 1] * 0.01)
    area, perimeter = geodesic_area_perimeter(degrees, geod)
    assert area == pytest.approx(abs(outer[0]) - abs(inner[0]))
    assert perimeter == pytest.approx(outer[1] + inner[1])


_NO_SHAPELY = """
import sys
sys.modules["shapely"] = None          # any import of shapely now fails
from core.blocks.__main__ import main
code = main(sys.argv[1:])
assert not [m for m in sys.modules if m.startswith("shapely.")]
sys.exit(code)
"""


def test_pipeline_and_geopackage_without_shapely(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from test_blocks import _drawn_sheet

    img, mask = _drawn_sheet()
    cv2.imwrite(str(tmp_path / "001-INPUT.png"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    cv2.imwrite(str(tmp_path / "001-INPUT-MASK.png"), mask.astype(np.uint8) * 255)
    png, gpkg = tmp_path / "s.png", tmp_path / "s.gpkg"
    run = subprocess.run([sys.executable, "-c", _NO_SHAPELY, str(tmp_path / "001-INPUT.png"),
                          "--level", "shapes", "-o", str(png), "--gpkg", str(gpkg)],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    from osgeo import ogr

    ds = ogr.Open(str(gpkg))
    count, _ = cv2.connectedComponents((cv2.imread(str(png), 0) > 0).astype(np.uint8),
                                       connectivity=4)
    shapes = ds.GetLayerByName("shapes")
    assert shapes.GetGeomType() == ogr.wkbMultiPolygon
    assert shapes.GetFeatureCount() == count - 1
    features = list(shapes)
    assert all(f.GetGeometryRef().IsValid() for f in features)
    assert sorted(f.GetField("id") for f in features) == list(range(1, count))
    for f in features:
        assert f.GetField("area") == pytest.approx(f.GetGeometryRef().GetArea(), rel=1e-9)
    assert ds.GetLayerByName("blocks").GetFeatureCount() == 4
