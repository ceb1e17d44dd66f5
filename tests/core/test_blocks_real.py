"""Closed shapes of the real 1925 atlas crop, scored against its edge ground truth.

Protocol (core.blocks.evaluate): the reference is the 4-connected regions of non-edge pixels
of SHAPES-EDGE-GT.png inside the mask, without the street network (regions over 3 % of the
mask), regions under 1000 px ignored. Anchor: the published deep edge maps of Chen et al.
(ICDAR 2021) for this crop, labelled the same way, reach PQ 0.57 (SQ 0.85, RQ 0.68). The
issue's target is PQ 0.65; this classical pipeline reaches about 0.49 (SQ 0.87, RQ 0.57),
so the assertion is a regression floor below the measured value, not the target.
"""

from __future__ import annotations

import cv2
import pytest

from core.blocks import BlockSettings, segment_sheet, shapes_from_lines
from core.blocks.evaluate import blocks_reference, closed_shapes_reference, shapes_quality
from core.blocks.net import edge_model_available
from core.imageio import read_image, read_mask

TARGET_PQ = 0.65  # the target, not reached yet (see the module docstring)
FLOOR_PQ = 0.48   # regression floor (measured 0.494; the committed HEAD gave 0.469)
SPLIT = 4500      # issue 19: the crop's test half starts at this column
EDGE_FLOOR_PQ = 0.55   # regression floor of the edge network on the test half


@pytest.fixture(scope="module")
def mask_and_edges(real_crop):
    """The crop's map mask (bool) and its closed-shape edge ground truth (uint8)."""
    return (read_mask(real_crop / "INPUT-MASK.png"),
            cv2.imread(str(real_crop / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE))


def test_real_crop_closed_shapes(real_crop, mask_and_edges):
    """The classical line network (``edge_net=False``, ``--line-shapes``) on the whole
    crop: it was tuned on the crop, not trained on it."""
    mask, edges = mask_and_edges
    reference, ignored = closed_shapes_reference(edges, mask)
    seg = segment_sheet(real_crop / "INPUT.jpg", mask, level="shapes",
                        settings=BlockSettings.for_level("shapes", edge_net=False))
    result = shapes_quality(reference, ignored, seg.shapes > 0)
    print(f"real crop shapes: PQ {result.pq:.3f} SQ {result.sq:.3f} RQ {result.rq:.3f} "
          f"({result.n_matched} of {result.n_ref} shapes, {result.n_pred} predicted; "
          f"target PQ {TARGET_PQ})")
    assert result.n_ref == 1208
    assert result.sq >= 0.85
    assert result.pq >= FLOOR_PQ


@pytest.mark.skipif(not edge_model_available(), reason="no edge_net.onnx")
def test_real_crop_right_half_closed_shapes_from_the_edge_network(real_crop, mask_and_edges):
    """Issue 19's protocol: the edge network (the default) was trained on the crop's left
    half only; its test half, columns ``SPLIT`` and beyond, is scored alone (measured
    PQ 0.568, SQ 0.881, RQ 0.645, against 0.471 for the line network on the same half)."""
    mask, edges = mask_and_edges
    cols = slice(SPLIT, None)
    reference, ignored = closed_shapes_reference(edges[:, cols], mask[:, cols])
    rgb = read_image(real_crop / "INPUT.jpg")[:, cols].copy()
    seg = segment_sheet(rgb, mask[:, cols].copy(), level="shapes")
    result = shapes_quality(reference, ignored, seg.shapes > 0)
    print(f"real crop right half, edge network: PQ {result.pq:.3f} SQ {result.sq:.3f} "
          f"RQ {result.rq:.3f} ({result.n_matched} of {result.n_ref} shapes, "
          f"{result.n_pred} predicted)")
    assert result.pq >= EDGE_FLOOR_PQ


def test_regions_step_recovers_the_reference_from_its_own_edges(mask_and_edges):
    """The closed-shapes step after the line network (regions, open space, size and width
    filters), given the ground truth's own one-pixel edges, recovers the reference (measured
    PQ 0.941, SQ 0.995, 1087 of 1208 shapes): what the real crop misses comes from the
    lines, not from this step."""
    mask, edges = mask_and_edges
    reference, ignored = closed_shapes_reference(edges, mask)
    shapes, _ = shapes_from_lines((edges > 0).astype("uint8"), mask)
    result = shapes_quality(reference, ignored, shapes > 0)
    assert result.sq >= 0.98
    assert result.pq >= 0.92


#: regression floors on the proxy reference: (block network, the default; line network)
BLOCKS_FLOOR_PQ = {True: 0.45, False: 0.43}


@pytest.mark.parametrize("net", [True, False])
def test_real_crop_blocks_against_the_proxy_reference(real_crop, mask_and_edges, net):
    """Blocks (default level) of the real crop against ``blocks_reference``: the map minus
    the street network of the edge ground truth. Not a MapSeg ground truth, a check that
    both methods work on a real sheet (measured PQ 0.472 with the block network, the
    default, and 0.458 with the line network)."""
    mask, edges = mask_and_edges
    reference, ignored = blocks_reference(edges, mask)
    seg = segment_sheet(real_crop / "INPUT.jpg", mask, level="blocks",
                        settings=BlockSettings.for_level("blocks", block_net=net))
    result = shapes_quality(reference, ignored, seg.blocks > 0)
    print(f"real crop blocks (proxy, {'network' if net else 'line network'}): PQ "
          f"{result.pq:.3f} SQ {result.sq:.3f} RQ {result.rq:.3f} ({result.n_matched} of "
          f"{result.n_ref}, {result.n_pred} predicted)")
    assert result.n_ref == 345
    assert result.pq >= BLOCKS_FLOOR_PQ[net]
