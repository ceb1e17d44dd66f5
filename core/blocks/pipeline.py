"""``segment_sheet``: building blocks and closed shapes of a scanned sheet, as label images.

Blocks come from the block-interior network (``net.py``, ``netfuse.py``): the sheet's
block probability, mean of the sheet and two mirror images, thresholded, with the gaps
graticule lines and folds cut bridged. Closed shapes come from the edge network
(``net.edge_probability``, ``BlockSettings.edge_net``, the default when
``models/edge_net.onnx`` is installed: its edge map, averaged over each tile and its
transpose (``BlockSettings.edge_views``), thresholded and thinned to one pixel),
or from the classical line network (``edge_net=False``; also the blocks with
``BlockSettings.block_net=False`` at the blocks level): ink map (red removed, text
removed, graticule lines and folds erased), lettering touching line work erased, hatched
areas emptied, thinning to a one-pixel line network with spurs removed and gaps closed,
then the regions it encloses. Open space (street network, squares, river) is recognised by
its size and shape; closed shapes are the other regions, blocks are the map minus open
space. At the blocks level with the network the line network is not computed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..imageio import ImageLike, read_image, read_mask
from ..memory import freed_memory_kept
from ..progress import ProgressCallback, report
from . import regions
from .gaps import (
    extend_ends,
    join_corner_rays,
    join_ends_to_lines,
    join_facing_ends,
    join_near_ends,
)
from .ink import LongLine, drop_small_components, ink_map, ink_strength, long_thin_lines
from .lettering import erase_lettering
from .net import (
    EDGE_MODEL_PATH,
    block_probability,
    edge_model_available,
    edge_probability,
    load_net,
)
from .netfuse import net_blocks
from .settings import BlockSettings
from .texture import erase_texture, hatch_areas
from .thinning import prune_spurs, thin

LEVELS = ("blocks", "shapes")


@dataclass
class Segmentation:
    """Blocks and (optionally) closed shapes of one sheet.

    Attributes:
        blocks: ``(H, W) int32`` block ids 1..n_blocks, 0 elsewhere.
        n_blocks: number of blocks.
        shapes: ``(H, W) int32`` shape ids 1..n_shapes, 0 elsewhere (None at blocks level).
        n_shapes: number of shapes (0 at blocks level).
        parents: ``(n_shapes + 1,)`` block id of each shape (index 0 unused), or None.
        lines: ``(H, W) uint8`` the one-pixel line network the regions are cut by (all 0
            when the blocks come from the network alone: ``block_net`` at the blocks level).
    """

    blocks: np.ndarray
    n_blocks: int
    shapes: np.ndarray | None
    n_shapes: int
    parents: np.ndarray | None
    lines: np.ndarray

    def labels(self, level: str) -> tuple[np.ndarray, int]:
        """The label image and count of ``level`` ("blocks" or "shapes")."""
        if level == "shapes":
            if self.shapes is None:
                raise ValueError("shapes were not extracted; segment with level='shapes'")
            return self.shapes, self.n_shapes
        return self.blocks, self.n_blocks


def check_level(level: str) -> str:
    """``level`` if valid, else InputError."""
    if level not in LEVELS:
        raise InputError(f"unknown level {level!r}; choose blocks or shapes")
    return level


def line_network(strength: np.ndarray, mask: np.ndarray, long_lines: list[LongLine],
                 s: BlockSettings, progress: ProgressCallback | None = None) -> np.ndarray:
    """The one-pixel line network (uint8 0/1) bounding blocks and shapes, from the sheet's
    :func:`~core.blocks.ink.ink_strength` and its :func:`~core.blocks.ink.long_thin_lines`."""
    ink = ink_map(strength, mask, long_lines, s)
    report(progress, 0.35, "lettering and hatching")
    ink = erase_lettering(ink, s)
    ink = erase_texture(ink, hatch_areas(ink, mask, s), s)
    ink = drop_small_components(ink, s)   # stubs and letters left inside texture areas
    report(progress, 0.55, "thinning")
    lines = thin(ink, s.thinning_iterations)
    del ink
    report(progress, 0.7, "spurs and gaps")
    return close_gaps(prune_spurs(lines, s.px(s.spur_length)), s)


def close_gaps(lines: np.ndarray, s: BlockSettings) -> np.ndarray:
    """A one-pixel line network (uint8 0/1) with its broken outlines closed: near and facing
    line ends joined, corners and rays extended (the lengths and angles of ``s``)."""
    if s.corner_gap > 0:
        lines, _ = join_near_ends(lines, s.corner_gap * s.scale)
    if s.max_gap > 0:
        lines, _ = join_facing_ends(lines, s.max_gap * s.scale, s.gap_angle)
    if s.corner_extend > 0:
        lines, _ = join_corner_rays(lines, s.corner_extend * s.scale)
    if s.end_gap > 0:
        lines, _ = join_ends_to_lines(lines, s.px(s.end_gap))
    if s.extend_to_end > 0:
        lines, _ = extend_ends(lines, s.extend_to_end * s.scale, to_ends_only=True)
    if s.extend_to_line > 0:
        lines, _ = extend_ends(lines, s.extend_to_line * s.scale)
    return lines


def edge_lines(prob: np.ndarray, threshold: float, s: BlockSettings) -> np.ndarray:
    """The one-pixel line network (uint8 0/1) of an edge probability map (uint8 0-255):
    pixels above ``threshold`` (0-1), thinned, spurs pruned (as the line network's), and
    with ``s.edge_close_gaps`` its gaps closed (:func:`close_gaps`)."""
    edges = (prob > round(threshold * 255)).astype(np.uint8)
    lines = prune_spurs(thin(edges, s.thinning_iterations), s.px(s.spur_length))
    return close_gaps(lines, s) if s.edge_close_gaps else lines


def line_regions(lines: np.ndarray, mask: np.ndarray, s: BlockSettings
                 ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The regions a one-pixel line network (uint8 0/1) cuts the map (bool) into, and which
    are open space: ``(labels int32, count + 1, area per label, street per label)``."""
    labels, n = regions.partition(lines, mask, s.px(s.edge_seal) if s.edge_seal > 0 else 0)
    area = regions.region_areas(labels, n)
    street = regions.open_space(labels, n, lines, int(mask.sum()), s, area)
    return labels, n, area, street


def shapes_from_lines(lines: np.ndarray, mask: np.ndarray,
                      settings: BlockSettings | None = None) -> tuple[np.ndarray, int]:
    """Closed shapes ``(labels int32, count)`` of a one-pixel line network (uint8 0/1) over
    the map (bool): the shapes level's regions step on lines from any source (the line
    network, or an edge map thinned to one pixel)."""
    s = settings or BlockSettings.for_level("shapes")
    labels, _, _, street = line_regions(lines, mask, s)
    return regions.shapes(labels, street, s)


def segment_sheet(image: ImageLike, mask: ImageLike | np.ndarray | None = None, *,
                  level: str = "blocks", settings: BlockSettings | None = None,
                  progress: ProgressCallback | None = None) -> Segmentation:
    """Blocks (and, at ``level="shapes"``, every closed shape) of a sheet.

    Args:
        image: sheet file or RGB uint8 array.
        mask: map-area mask (file, or bool/uint8 array of the image's size); None computes
            it with :func:`core.maparea.map_area_mask`.
        level: "blocks" (MapSeg task 1) or "shapes" (blocks split into parcels, buildings,
            courtyards).
        settings: tuning; default :meth:`BlockSettings.for_level` of ``level``.
        progress: optional callback (fraction, message).
    """
    check_level(level)
    s = settings or BlockSettings.for_level(level)
    report(progress, 0.0, "reading")
    rgb = read_image(image)
    shape = rgb.shape[:2]
    if mask is None:
        from ..maparea import map_area_mask

        map_mask = map_area_mask(rgb)
    else:
        map_mask = read_mask(mask, shape, what="map-area mask")
    if not map_mask.any():
        raise InputError("the map-area mask is empty; give a mask with the map in white")
    prob = edge_prob = None
    with freed_memory_kept():       # the networks' tile buffers, reused from tile to tile
        if s.block_net:
            report(progress, 0.05, "block network")
            prob = block_probability(rgb, s.scale, flips=s.net_flips, mask=map_mask)
        if level == "shapes" and s.edge_net and edge_model_available():
            report(progress, 0.08, "edge network")
            edge_prob = edge_probability(rgb, s.scale, views=s.edge_views, mask=map_mask)
    need_lines = level == "shapes" or prob is None
    # ink strength and graticule lines/folds: for the line network, and for the network's
    # blocks, whose gaps across those lines are bridged
    strength = long_lines = None
    bridge = prob is not None and s.remove_long_lines and s.net_bridge > 0
    if (need_lines and edge_prob is None) or bridge:
        report(progress, 0.1, "ink")
        strength = ink_strength(rgb, s)
        long_lines = long_thin_lines(strength, map_mask, s) if s.remove_long_lines else []
    del rgb
    net_lines = long_lines if s.net_bridge > 0 else None
    if not need_lines:
        del strength
        block_labels, n_blocks = net_blocks(prob, map_mask, s, net_lines)
        report(progress, 1.0, "done")
        return Segmentation(block_labels, n_blocks, None, 0, None, np.zeros(shape, np.uint8))
    if edge_prob is None:
        lines = line_network(strength, map_mask, long_lines, s, progress)
    else:
        report(progress, 0.55, "thinning the edges")
        threshold = (load_net(EDGE_MODEL_PATH)[1].threshold if s.edge_threshold is None
                     else s.edge_threshold)
        lines = edge_lines(edge_prob, threshold, s)
        del edge_prob
    del strength
    report(progress, 0.8, "regions")
    labels, n, area, street = line_regions(lines, map_mask, s)
    shape_labels = parents = None
    n_shapes = 0
    if level == "shapes":
        # independent steps, mostly in OpenCV and NumPy code that releases the GIL
        with ThreadPoolExecutor(max_workers=2) as pool:
            shapes_job = pool.submit(regions.shapes, labels, street, s)
            if prob is None:
                block_labels, n_blocks = regions.blocks(labels, street, map_mask, s, area)
            else:
                block_labels, n_blocks = net_blocks(prob, map_mask, s, net_lines)
            shape_labels, n_shapes = shapes_job.result()
        parents = regions.parent_ids(shape_labels, n_shapes, block_labels, n_blocks)
    else:
        block_labels, n_blocks = regions.blocks(labels, street, map_mask, s, area)
    report(progress, 1.0, "done")
    return Segmentation(block_labels, n_blocks, shape_labels, n_shapes, parents, lines)
