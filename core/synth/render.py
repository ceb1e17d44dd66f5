"""Draw a whole sheet: content into ink layers, composite on paper, warp, rotate.

All drawing happens on the flat upright sheet (OpenCV pixel convention) into three uint8
ink layers (black ink, red ink, graticule); they are composited on the paper band by band,
warped with the exact paper warp and turned by the scan rotation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from ..progress import ProgressCallback, report
from . import draw, grid, text
from .blockdraw import draw_blocks
from .blocks import BLOCK_KINDS, Block, City, clean_cells, dress_blocks, street_network
from .compose import composite, field_u8
from .decorations import (
    boundary_paths,
    draw_bridges,
    draw_railway,
    draw_red_boundary,
    draw_river,
    draw_tree_rows,
    make_railway,
    make_river,
)
from .frame import map_frame
from .geometry import GridAffine, SheetGeometry
from .gridlabels import draw_grid_labels
from .labels import draw_lettering
from .masks import blocks_mask_output, map_mask_output
from .organic import organic_street_network
from .paper import fold_profile, paper_full
from .params import SheetParams
from .warp import Fold, random_warp


@dataclass
class Rendered:
    """The output arrays of one sheet (output orientation) and what was drawn."""

    image: np.ndarray
    map_mask: np.ndarray
    blocks_mask: np.ndarray
    grid_xy: np.ndarray
    hidden_xy: np.ndarray
    geometry: SheetGeometry
    stats: dict = field(default_factory=dict)
    grid_labels: list[dict] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    frame: Polygon | None = None


def _streams(seed: int, n: int) -> list[np.random.Generator]:
    """Independent random streams (one per part of the drawing) from the content seed."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def make_geometry(p: SheetParams, rng: np.random.Generator) -> SheetGeometry:
    """Grid affine, paper warp and scan rotation of the sheet."""
    uw, uh = (p.height, p.width) if p.quarter_turns % 2 else (p.width, p.height)
    affine = GridAffine((p.centre_easting, p.centre_northing), ((uw - 1) / 2.0, (uh - 1) / 2.0),
                        p.spacing_px / p.grid_spacing_m, p.tilt_deg, p.aspect)
    fold = None
    if p.fold and p.fold_amplitude_px > 0:
        fold = Fold(float(p.fold_position * uw), float(p.fold_amplitude_px),
                    float(p.fold_width_px))
    warp = random_warp(rng, uw, uh, p.warp_amplitude_px, fold)
    return SheetGeometry(p.width, p.height, p.quarter_turns, affine, warp)


def draw_margin(ink: np.ndarray, frame: Polygon, p: SheetParams, rng: np.random.Generator,
                letters: text.Lettering) -> None:
    """Frame lines, and the title and scale in the margins."""
    ring = np.asarray(frame.exterior.coords)
    fw = max(1, round(p.frame_width_px))
    draw.polyline(ink, ring, 255, fw, closed=True)
    if rng.random() < 0.5:
        outer = frame.buffer(rng.uniform(10, 25) * p.content_scale, join_style="mitre")
        draw.polyline(ink, np.asarray(outer.exterior.coords), 230, 1, closed=True)
    h, w = ink.shape
    x0, y0, x1, y1 = frame.bounds
    if y0 > 60:
        size = min(0.3 * y0, 90.0 * p.content_scale)
        title = letters.render([(str(rng.choice(text.TITLES)), 1.0, 0.0)], "serif", size,
                               tracking=0.25)
        if title.shape[1] < 0.9 * w:
            letters.place(ink, title, ((x0 + x1) / 2, y0 * 0.45), 0.0, 240)
    if h - y1 > 50:
        size = min(0.3 * (h - y1), 40.0 * p.content_scale)
        scale_txt = letters.render([("Échelle de 1/5000", 1.0, 0.0)], "serif-italic", size)
        letters.place(ink, scale_txt, ((x0 + x1) / 2, y1 + (h - y1) * 0.5), 0.0, 230)
        sheet_no = letters.render([(f"Feuille {int(rng.integers(1, 17))}", 1.0, 0.0)], "serif",
                                  size)
        letters.place(ink, sheet_no, (x1 - sheet_no.shape[1], y1 + (h - y1) * 0.5), 0.0, 230)


# --- the whole sheet ----------------------------------------------------------------------
def draw_content(ink: np.ndarray, red: np.ndarray, frame: Polygon, p: SheetParams,
                 letters: text.Lettering, rngs: tuple[np.random.Generator, ...]
                 ) -> tuple[list[Block], dict]:
    """Streets, blocks, river, railways, boundaries and lettering; (blocks, statistics)."""
    r_city, r_dress, r_deco, r_text = rngs
    scale = p.content_scale
    bounds = frame.bounds
    layout = organic_street_network if p.street_layout == "organic" else street_network
    cells, streets = layout(r_city, bounds, scale)
    river = make_river(r_deco, bounds, scale) if p.river else None
    rails = [make_railway(r_deco, bounds, scale) for _ in range(p.railways)]
    corridor_parts = [g.corridor for g in ([river] if river else []) + rails]
    corridors = (shapely.union_all(corridor_parts).simplify(0.5) if corridor_parts
                 else None)
    polys, _ = clean_cells(cells, frame, corridors, scale)
    is_open = r_city.random(len(polys)) < p.open_space_fraction
    open_spaces = list(polys[is_open])
    blocks = dress_blocks(polys[~is_open], r_dress, scale, p.hatch_fraction,
                          p.subdivision_fraction, p.garden_fraction, p.broken_outline_fraction)
    city = City(blocks, streets, open_spaces)

    outline = p.outline_width_px
    if river is not None:
        draw_river(ink, river, r_deco, scale, outline, p.water_style)
        draw_bridges(ink, river, outline)
    for rail in rails:
        draw_railway(ink, rail, r_deco, scale)
    draw_tree_rows(ink, streets, r_deco, scale)
    draw_blocks(ink, blocks, p, r_dress)
    red_paths = boundary_paths(streets, r_deco, p.red_boundaries, scale, river)
    for path in red_paths:
        draw_red_boundary(red, path, r_deco, scale)
    n_labels = draw_lettering(ink, red, city, river, frame, p, r_text, letters, red_paths)
    stats = {"blocks": len(blocks), "streets": len(streets), "open_spaces": len(open_spaces),
             "labels": n_labels, "river": river is not None, "railways": len(rails),
             "red_boundaries": len(red_paths),
             "block_kinds": {k: sum(b.kind == k for b in blocks) for k in BLOCK_KINDS},
             "broken_outlines": sum(bool(b.gaps) for b in blocks)}
    return blocks, stats


def render(p: SheetParams, progress: ProgressCallback | None = None) -> Rendered:
    """Draw the sheet described by ``p``."""
    (r_geom, r_city, r_dress, r_deco, r_text, r_grid, r_paper, r_comp,
     r_margin, r_labels) = _streams(p.content_seed, 10)
    geom = make_geometry(p, r_geom)
    uw, uh = geom.upright_size
    shape = (uh, uw)
    frame = map_frame(p, uw, uh)
    report(progress, 0.02, "street network")

    ink = np.zeros(shape, np.uint8)
    red = np.zeros(shape, np.uint8)
    letters = text.Lettering(family=p.lettering_font, scale=p.lettering_scale)
    stats: dict = {}
    blocks: list[Block] = []
    if p.content == "full":
        blocks, stats = draw_content(ink, red, frame, p, letters,
                                     (r_city, r_dress, r_deco, r_text))
    report(progress, 0.35, "graticule")

    map_u8 = np.zeros(shape, np.uint8)
    cv2.fillPoly(map_u8, [draw.fixed(np.asarray(frame.exterior.coords))], 255, cv2.LINE_8,
                 draw.SHIFT)
    lines = grid.make_lines(p, geom.grid, uw, uh, r_grid)
    gridl = np.zeros(shape, np.uint8)
    value = round(255 * p.grid_alpha)
    grid.draw_lines(gridl, lines, geom.grid, value, p.grid_width_px)
    n_distractors = grid.draw_distractors(gridl, lines, geom.grid, p, value, r_grid)
    if p.grid_fade > 0:
        floor = min(1.0, 0.25 / max(p.grid_alpha, 1e-3))
        cv2.multiply(gridl, field_u8(r_grid, shape, p.grid_fade, floor), dst=gridl,
                     scale=1 / 255)
    if p.ink_fade > 0:
        fade = field_u8(r_comp, shape, p.ink_fade, 0.0)
        cv2.multiply(ink, fade, dst=ink, scale=1 / 255)
        cv2.multiply(red, fade, dst=red, scale=1 / 255)
        del fade
    cv2.max(ink, gridl, dst=ink)
    del gridl
    cv2.bitwise_and(ink, map_u8, dst=ink)  # map content stays inside the frame
    cv2.bitwise_and(red, map_u8, dst=red)
    del map_u8
    draw_margin(ink, frame, p, r_margin, letters)
    grid_labels = draw_grid_labels(ink, frame, lines, geom.grid, p, r_labels, letters, red)
    if p.blur_sigma > 0:
        cv2.GaussianBlur(ink, (0, 0), p.blur_sigma, dst=ink)
        cv2.GaussianBlur(red, (0, 0), p.blur_sigma, dst=red)
    report(progress, 0.55, "paper")

    image = paper_full(p, r_paper, uw, uh)
    composite(image, ink, red, p, r_comp, fold_profile(p, r_paper, uw))
    del ink, red
    report(progress, 0.75, "warp")

    image = geom.warp.apply(image, cv2.INTER_LINEAR, p.quarter_turns)
    report(progress, 0.9, "masks")
    map_mask = map_mask_output(frame, geom)
    blocks_mask = blocks_mask_output(blocks, geom, p.outline_width_px, frame, p.frame_width_px)
    report(progress, 0.95, "ground truth")

    listed, hidden = grid.intersections(lines, geom.grid, frame, p.visible_clearance_px,
                                        p.frame_width_px)
    stats = {"blocks": len(blocks), **stats, "grid_lines": len(lines),
             "distractor_lines": n_distractors, "fonts_used": sorted(letters.fonts_used)}
    return Rendered(image, map_mask, blocks_mask, listed, hidden, geom, stats, grid_labels,
                    blocks, frame)
