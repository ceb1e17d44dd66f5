"""Ground-truth masks in the output image: the map area and the building blocks.

Polygons drawn on the flat sheet are densified, mapped through the exact paper warp and
the scan rotation, and rasterised in output array coordinates (pixel centres at integers).
"""

from __future__ import annotations

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from . import draw
from .blocks import Block
from .geometry import SheetGeometry

DENSIFY_PX = 8.0  # polygon edges are sampled this finely before the warp bends them
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def _mapped_rings(geoms: np.ndarray, geom: SheetGeometry,
                  holes: bool = False) -> tuple[list[np.ndarray], np.ndarray]:
    """Exterior rings (with ``holes`` the inner rings too) of the polygon parts of
    ``geoms`` (flat coordinates), densified and mapped into output array coordinates; and
    the index in ``geoms`` of each ring."""
    parts, index = shapely.get_parts(geoms, return_index=True)
    keep = (shapely.get_type_id(parts) == 3) & (shapely.area(parts) > 4.0)
    parts, index = parts[keep], index[keep]
    if not len(parts):
        return [], index
    if holes:
        rings, part_of = shapely.get_rings(parts, return_index=True)
        index = index[part_of]
    else:
        rings = shapely.get_exterior_ring(parts)
    rings = shapely.segmentize(rings, DENSIFY_PX)
    coords, ring_of = shapely.get_coordinates(rings, return_index=True)
    x, y = geom.flat_to_array(coords[:, 0], coords[:, 1])
    mapped = np.stack([x, y], axis=1)
    cuts = np.flatnonzero(np.diff(ring_of)) + 1
    return np.split(mapped, cuts), index


def map_mask_output(frame: Polygon, geom: SheetGeometry) -> np.ndarray:
    """bool (H, W) map-area mask of the output image: the frame polygon through the warp."""
    mask = np.zeros((geom.height, geom.width), np.uint8)
    rings, _ = _mapped_rings(np.array([frame], dtype=object), geom)
    cv2.fillPoly(mask, [draw.fixed(r) for r in rings], 1, cv2.LINE_8, draw.SHIFT)
    return mask.view(bool)


def _paste_largest_piece(mask: np.ndarray, rings: list[np.ndarray],
                         whole: bool = False) -> None:
    """Rasterise ``rings`` (output array coordinates; even-odd filling, so inner rings are
    holes) into ``mask`` (uint8, in place), opened by a 3 x 3 cross so no part hangs by a
    pixel, keeping only the largest 4-connected piece (all of it when ``whole``)."""
    h, w = mask.shape
    allpts = np.vstack(rings)
    x0, y0 = max(0, int(allpts[:, 0].min()) - 2), max(0, int(allpts[:, 1].min()) - 2)
    x1 = min(w, int(np.ceil(allpts[:, 0].max())) + 3)
    y1 = min(h, int(np.ceil(allpts[:, 1].max())) + 3)
    if x1 <= x0 or y1 <= y0:
        return
    patch = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(patch, [draw.fixed(r - [x0, y0]) for r in rings], 1, cv2.LINE_8, draw.SHIFT)
    patch = cv2.morphologyEx(patch, cv2.MORPH_OPEN, _CROSS)
    sub = mask[y0:y1, x0:x1]
    if whole:
        cv2.bitwise_or(sub, patch, dst=sub)
        return
    n, labels, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=4)
    if n >= 2:
        sub[labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))] = 1


def _insets(polygons: list[Polygon], outline_px: int, frame: Polygon,
            frame_px: float) -> np.ndarray:
    """The polygons inset by half the outline width plus 1.5 px, inside the frame line too
    (what lies strictly inside the drawn lines)."""
    insets = shapely.buffer(np.array(polygons, dtype=object), -(outline_px / 2 + 1.5),
                            join_style="mitre")
    inner_frame = frame.buffer(-(frame_px / 2 + 1.5), join_style="mitre")
    return shapely.intersection(insets, inner_frame)


def _paste_each(mask: np.ndarray, rings: list[np.ndarray], owner: np.ndarray,
                whole: np.ndarray | None = None) -> None:
    """:func:`_paste_largest_piece` of the rings of each owner (consecutive in ``rings``);
    ``whole[owner]`` pastes an owner with a single ring whole."""
    start = 0
    while start < len(rings):
        stop = start + 1
        while stop < len(rings) and owner[stop] == owner[start]:
            stop += 1
        _paste_largest_piece(mask, rings[start:stop], whole=whole is not None
                             and stop - start == 1 and bool(whole[owner[start]]))
        start = stop


def blocks_mask_output(blocks: list[Block], geom: SheetGeometry, outline_px: int,
                       frame: Polygon, frame_px: float) -> np.ndarray:
    """bool (H, W) mask of the block interiors in the output image, strictly inside the
    drawn outlines.

    Each block is its polygon inset by half the outline width plus 1.5 px (inside the
    frame line too), mapped through the warp and the scan rotation, rasterised, opened by a
    3 x 3 cross so no part hangs by a pixel, and cut to its largest 4-connected piece: one
    component per block.
    """
    mask = np.zeros((geom.height, geom.width), np.uint8)
    if not blocks:
        return mask.view(bool)
    insets = _insets([b.polygon for b in blocks], outline_px, frame, frame_px)
    convex = shapely.area(shapely.convex_hull(insets)) <= shapely.area(insets) * 1.001
    rings, owner = _mapped_rings(insets, geom)
    _paste_each(mask, rings, owner, whole=convex)   # an opened convex shape is one piece
    return mask.view(bool)


def _extended(line: np.ndarray, by: float) -> np.ndarray:
    """A polyline with its end segments lengthened by ``by`` px (so that a parcel line drawn
    up to an outline crosses it and the two are noded)."""
    out = np.array(line, float)
    for end, nxt in ((0, 1), (-1, -2)):
        d = out[end] - out[nxt]
        n = float(np.hypot(*d))
        if n > 0:
            out[end] = out[end] + d / n * by
    return out


def shape_faces(block: Block) -> list[Polygon]:
    """The closed shapes drawn in ``block`` (flat coordinates): its polygon split by its
    parcel lines and courtyard rings (polygons, holes kept)."""
    if not block.inner_lines and not block.inner_rings:
        return [block.polygon]
    lines = [shapely.LineString(np.asarray(block.polygon.exterior.coords))]
    lines += [shapely.LineString(_extended(ln, 1.5)) for ln in block.inner_lines
              if len(ln) >= 2]
    lines += [shapely.LineString(r) for r in block.inner_rings if len(r) >= 3]
    faces = shapely.get_parts(shapely.polygonize(
        shapely.get_parts(shapely.union_all(lines))))
    inside = shapely.contains(block.polygon.buffer(1.0), faces) if len(faces) else []
    return [f for f, ok in zip(faces, inside, strict=True) if ok and f.area > 4.0]


def shapes_mask_output(blocks: list[Block], geom: SheetGeometry, outline_px: int,
                       frame: Polygon, frame_px: float) -> np.ndarray:
    """bool (H, W) mask of the interiors of every closed shape of the blocks (their
    polygons split by parcel lines and courtyard rings: :func:`shape_faces`), strictly
    inside the drawn lines (inset as in :func:`blocks_mask_output`, holes kept); each shape
    one 4-connected component."""
    mask = np.zeros((geom.height, geom.width), np.uint8)
    faces = [f for b in blocks for f in shape_faces(b)]
    if faces:
        rings, owner = _mapped_rings(_insets(faces, outline_px, frame, frame_px), geom,
                                     holes=True)
        _paste_each(mask, rings, owner)
    return mask.view(bool)
