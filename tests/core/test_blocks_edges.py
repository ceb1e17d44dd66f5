"""core.blocks: the closed-shape edge network (models/edge_net.onnx, OpenCV DNN) and the
shapes level with either edge source."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.blocks import BlockSettings, segment_sheet
from core.blocks.__main__ import main as blocks_main
from core.blocks.evaluate import closed_shapes_reference, shapes_quality
from core.blocks.net import EDGE_MODEL_PATH, edge_model_available, edge_probability, load_net
from core.blocks.pipeline import edge_lines
from core.imageio import read_mask
from core.synth import generate_sheet

needs_model = pytest.mark.skipif(not edge_model_available(), reason="no edge_net.onnx")


@pytest.fixture(scope="module")
def sheet_crop():
    """A 1024 px crop of a generated sheet (seed not among the training sheets, run seed
    103): RGB, its closed-shape edges (the pixels next to a shape but outside it), map
    mask and closed shapes (bool)."""
    sheet = generate_sheet(8, 2000, difficulty=0.5, jpeg_roundtrip=True)
    shapes = sheet.shapes_mask().astype(np.uint8)
    edges = (cv2.dilate(shapes, np.ones((3, 3), np.uint8)) > 0) & (shapes == 0)
    sl = (slice(500, 1524), slice(500, 1524))
    return (np.ascontiguousarray(sheet.image[sl]), edges[sl] & sheet.map_mask[sl],
            sheet.map_mask[sl], shapes[sl] > 0)


@needs_model
def test_edge_model_is_small_and_loads_with_opencv():
    assert EDGE_MODEL_PATH.stat().st_size < 1_000_000
    net, geometry = load_net(EDGE_MODEL_PATH)
    assert not net.empty()
    assert 0 < geometry.threshold < 1 and geometry.output_stride == 2


@needs_model
def test_edge_probability_has_edges_where_the_truth_has_them(sheet_crop):
    rgb, truth, mask, _ = sheet_crop
    prob = edge_probability(rgb)
    assert prob.shape == truth.shape and prob.dtype == np.uint8
    pred = prob > round(load_net(EDGE_MODEL_PATH)[1].threshold * 255)
    near_pred = cv2.dilate(pred.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    near_truth = cv2.dilate(truth.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    recall = np.count_nonzero(truth & near_pred) / np.count_nonzero(truth)
    precision = np.count_nonzero(pred & near_truth & mask) / np.count_nonzero(pred & mask)
    print(f"edge recall {recall:.3f}, precision {precision:.3f}")
    assert recall >= RECALL_FLOOR
    assert precision >= PRECISION_FLOOR
    # the inside of the shapes, away from their edges, is not called edge
    inside = (cv2.erode((~truth & mask).astype(np.uint8), np.ones((15, 15), np.uint8)) > 0)
    assert np.count_nonzero(pred & inside) < 0.05 * np.count_nonzero(inside)


RECALL_FLOOR, PRECISION_FLOOR = 0.9, 0.85   # measured 0.997 and 0.956


@needs_model
@pytest.mark.parametrize("views", [2, 4])
def test_edge_views_average_the_tile_and_its_transposes_and_half_turns(sheet_crop, views):
    """``views=2`` (the shapes level's default) is the mean of the runs on the tile and on
    its transpose, ``views=4`` also on their half turns, each mapped back (up to the
    rounding of each run and of the mean to 0-255)."""
    rgb = np.ascontiguousarray(sheet_crop[0][:512, 64:448])   # one tile, sides of 16 px
    runs = [edge_probability(np.ascontiguousarray(rgb)).astype(np.float32),
            edge_probability(np.ascontiguousarray(rgb.swapaxes(0, 1))).T,
            edge_probability(np.ascontiguousarray(rgb[::-1, ::-1]))[::-1, ::-1],
            edge_probability(np.ascontiguousarray(rgb[::-1, ::-1].swapaxes(0, 1))
                             ).T[::-1, ::-1]]
    mean = np.mean(np.stack(runs[:views]), axis=0)
    got = edge_probability(rgb, views=views)
    assert got.shape == rgb.shape[:2] and got.dtype == np.uint8
    assert np.abs(got - mean).max() <= 1.5   # each run and the mean rounded, then resized
    assert np.abs(runs[0] - mean).max() > 20   # the views do differ


@needs_model
def test_edge_views_keep_odd_sizes_and_refuse_other_counts(sheet_crop):
    rgb = np.ascontiguousarray(sheet_crop[0][:333, :517])
    prob = edge_probability(rgb, views=4)
    assert prob.shape == (333, 517)
    # the half turn of an odd-sized image maps back onto the same pixels
    assert np.abs(prob.astype(int) - edge_probability(rgb, views=2)).mean() < 10
    with pytest.raises(ValueError, match="views"):
        edge_probability(rgb, views=3)


def test_edge_lines_are_one_pixel_wide():
    prob = np.zeros((80, 200), np.uint8)
    cv2.line(prob, (10, 40), (190, 40), 200, 5)
    lines = edge_lines(prob, 0.5, BlockSettings.for_level("shapes"))
    cols = lines[:, 20:180].sum(axis=0)
    assert cols.min() == 1 and cols.max() == 1
    assert edge_lines(prob, 0.9, BlockSettings.for_level("shapes")).sum() == 0


@pytest.mark.parametrize(("edge_net", "floor"), [
    pytest.param(True, 0.7, marks=needs_model), (False, 0.6)])
def test_shapes_level_with_either_edge_source(sheet_crop, edge_net, floor):
    """The shapes level on the crop of a generated sheet, from the edge network (the
    default) and from the line network (``edge_net=False``), against the sheet's closed
    shapes (under 1000 px ignored, as on the real crop); measured PQ 0.755 (two views of
    the edge map, the default; 0.756 with one) and 0.672."""
    rgb, _, mask, shapes_truth = sheet_crop
    seg = segment_sheet(rgb, mask, level="shapes",
                        settings=BlockSettings.for_level("shapes", edge_net=edge_net))
    reference = closed_shapes_reference((~shapes_truth).astype(np.uint8), mask)
    result = shapes_quality(*reference, seg.shapes > 0)
    print(f"generated crop, edge_net={edge_net}: PQ {result.pq:.3f} ({result.n_matched}/"
          f"{result.n_ref}, {result.n_pred} predicted)")
    assert result.n_ref >= 20
    assert result.pq >= floor


def test_cli_line_shapes_option_uses_the_line_network(tmp_path, sheet_crop):
    rgb, _, mask, _ = sheet_crop
    cv2.imwrite(str(tmp_path / "s.png"), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    cv2.imwrite(str(tmp_path / "m.png"), mask.astype(np.uint8) * 255)
    out = tmp_path / "o.png"
    assert blocks_main([str(tmp_path / "s.png"), "--mask", str(tmp_path / "m.png"),
                        "--level", "shapes", "--line-shapes", "-o", str(out)]) == 0
    want = segment_sheet(rgb, mask, level="shapes",
                         settings=BlockSettings.for_level("shapes", edge_net=False))
    assert np.array_equal(read_mask(out), want.shapes > 0)
    assert want.n_shapes >= 20
