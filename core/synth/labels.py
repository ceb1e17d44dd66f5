"""Placing the lettering on the map: river names, street names along streets, building and
square names, red district labels and house numbers, without labels piling up."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon

from . import draw, text
from .blocks import City
from .decorations import River
from .params import SheetParams


class _Occupancy:
    """A coarse grid of cells taken by labels, to keep labels from piling up."""

    def __init__(self, shape: tuple[int, int], cell: int = 16):
        self.cell = cell
        self.grid = np.zeros((shape[0] // cell + 2, shape[1] // cell + 2), bool)

    def free(self, box: tuple[int, int, int, int]) -> bool:
        x0, y0, x1, y1 = (max(0, v // self.cell) for v in box)
        return not self.grid[y0:y1 + 1, x0:x1 + 1].any()

    def take(self, box: tuple[int, int, int, int]) -> None:
        x0, y0, x1, y1 = (max(0, v // self.cell) for v in box)
        self.grid[y0:y1 + 1, x0:x1 + 1] = True


def _label_box(centre: np.ndarray, patch: np.ndarray, angle: float) -> tuple[int, int, int, int]:
    """Bounding box (x0, y0, x1, y1) of ``patch`` turned by ``angle`` around ``centre``."""
    return _box(centre, (patch.shape[1], patch.shape[0]), angle)


def _box(centre: np.ndarray, size: tuple[float, float],
         angle: float) -> tuple[int, int, int, int]:
    """Bounding box of a w x h rectangle turned by ``angle`` degrees around ``centre``."""
    w, h = size
    t = np.radians(angle)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    bw, bh = w * c + h * s, w * s + h * c
    return (int(centre[0] - bw / 2), int(centre[1] - bh / 2), int(centre[0] + bw / 2),
            int(centre[1] + bh / 2))


def _readable(angle_deg: float) -> float:
    """The same line direction, turned so text never reads upside down: in [-90, 90)."""
    return (angle_deg + 90.0) % 180.0 - 90.0


def draw_lettering(ink: np.ndarray, red: np.ndarray, city: City, river: River | None,
                   frame: Polygon, p: SheetParams, rng: np.random.Generator,
                   letters: text.Lettering, red_paths: list[np.ndarray]) -> int:
    """Street names, building names, the river's name, red district labels and numbers."""
    scale = p.content_scale
    occ = _Occupancy(ink.shape)
    inner = frame.buffer(-20 * scale)
    water = river.water if river is not None else None
    count = 0

    def usable(pt: np.ndarray) -> bool:
        if not shapely.contains_xy(inner, pt[0], pt[1]):
            return False
        return water is None or not shapely.contains_xy(water, pt[0], pt[1])

    # river name, large spaced capitals along the water
    if river is not None:
        n = len(river.centre)
        for frac in rng.uniform(0.25, 0.75, size=int(rng.integers(1, 3))):
            i = int(frac * n)
            c = river.centre[i]
            if not shapely.contains_xy(inner, c[0], c[1]):
                continue
            d = river.centre[min(n - 1, i + 5)] - river.centre[max(0, i - 5)]
            ang = _readable(np.degrees(np.arctan2(d[1], d[0])))
            size = min(float(river.half_width[i]) * 0.45, 110 * scale)
            patch = letters.render([(str(rng.choice(text.RIVERS)), 1.0, 0.0)], "serif", size,
                                   tracking=0.9)
            box = _label_box(c, patch, ang)
            if occ.free(box):
                letters.place(ink, patch, tuple(c), ang, int(rng.uniform(200, 255)))
                occ.take(box)
                count += 1

    # street names along streets, words spread out on long streets
    streets = list(city.streets)
    order = rng.permutation(len(streets))
    for i in order:
        st = streets[int(i)]
        if rng.random() > 0.8 * p.text_density or st.length < 120 * scale:
            continue
        d = (st.p1 - st.p0) / st.length
        ang = _readable(np.degrees(np.arctan2(d[1], d[0])))
        size = float(np.clip(0.95 * st.width, 28 * scale, 50 * scale)) * rng.uniform(0.9, 1.15)
        style = str(rng.choice(["serif-italic", "serif-italic", "serif-bold-italic",
                                "serif-condensed-italic", "serif"]))
        kind = "Boulevard" if st.width > 70 * scale and rng.random() < 0.6 else None
        words = text.street_name(rng, kind)
        sizes = [letters.measure(wd, style, size) for wd in words]
        gap_px = size * 0.4
        total = sum(wd for wd, _ in sizes) + gap_px * (len(words) - 1)
        if total > 0.9 * st.length:
            continue
        if st.length > 3.0 * total and rng.random() < 0.75:
            ts = np.linspace(0.2, 0.8, len(words)) + rng.uniform(-0.05, 0.05)
            spots = [(wd, sz, st.p0 + d * (t * st.length))
                     for wd, sz, t in zip(words, sizes, ts, strict=True)]
        else:
            spots = [(" ".join(words), (total, sizes[0][1]),
                      st.p0 + d * (rng.uniform(0.3, 0.7) * st.length))]
        # text sits in the street, its baseline slightly off-centre
        nrm = np.array([-d[1], d[0]]) * rng.uniform(-0.12, 0.12) * st.width
        boxes = [_box(c + nrm, sz, ang) for _, sz, c in spots]
        if not all(usable(c + nrm) and occ.free(bx) for (_, _, c), bx in zip(spots, boxes,
                                                                             strict=True)):
            continue
        strength = int(rng.uniform(235, 255))
        for (wd, _, c), bx in zip(spots, boxes, strict=True):
            patch = letters.render([(wd, 1.0, 0.0)], style, size)
            letters.place(ink, patch, tuple(c + nrm), ang, strength)
            occ.take(bx)
            count += 1

    # building names inside larger blocks
    for b in city.blocks:
        if b.polygon.area < (150 * scale) ** 2 or rng.random() > 0.45 * p.text_density:
            continue
        c = np.array(b.polygon.representative_point().coords[0])
        lines = text.building_name(rng)
        size = rng.uniform(24, 38) * scale
        style = str(rng.choice(["serif", "serif-bold", "serif-bold", "serif-condensed"]))
        ang = float(rng.choice([0.0, 0.0, rng.uniform(-30, 30)]))
        for k, line in enumerate(lines):
            patch = letters.render([(line, 1.0, 0.0)], style, size * (1.0 if k == 0 else 0.9))
            t = np.radians(ang)
            pos = c + np.array([-np.sin(t), np.cos(t)]) * (k - (len(lines) - 1) / 2) * size * 1.2
            box = _label_box(pos, patch, ang)
            if not usable(pos) or not occ.free(box):
                break
            letters.place(ink, patch, tuple(pos), ang, int(rng.uniform(220, 255)))
            occ.take(box)
            count += 1

    # place names in open spaces
    for poly in city.open_spaces:
        if poly.area < (150 * scale) ** 2 or rng.random() < 0.4:
            continue
        c = np.array(poly.representative_point().coords[0])
        words = ["Place", str(rng.choice(text.NAMES))]
        size = rng.uniform(30, 42) * scale
        for k, w in enumerate(words):
            patch = letters.render([(w, 1.0, 0.0)], "serif", size)
            pos = c + np.array([0.0, (k - 0.5) * size * 1.25])
            if usable(pos):
                letters.place(ink, patch, tuple(pos), 0.0, 245)
                count += 1

    # large red district labels ("6e Arrond^t"), crossing whatever is below
    x0, y0, x1, y1 = frame.bounds
    for _ in range(p.district_labels):
        ordinal = str(rng.choice(text.DISTRICT_ORDINALS))
        size = rng.uniform(110, 200) * scale
        ang = float(rng.uniform(-35, 35)) if rng.random() < 0.5 else 0.0
        style = str(rng.choice(["serif", "serif-italic"]))
        num = letters.render([(ordinal[:-1] if ordinal.endswith("e") else ordinal[:-2], 1.0, 0.0),
                              (ordinal[-1:] if ordinal.endswith("e") else "er", 0.55, 0.45)],
                             style, size)
        word = letters.render([("Arrond", 1.0, 0.0), ("t", 0.55, 0.45)], style, size * 0.85)
        c = np.array([rng.uniform(x0 + 0.15 * (x1 - x0), x1 - 0.15 * (x1 - x0)),
                      rng.uniform(y0 + 0.15 * (y1 - y0), y1 - 0.15 * (y1 - y0))])
        t = np.radians(ang)
        d = np.array([np.cos(t), np.sin(t)])
        gap = rng.uniform(1.0, 4.0) * size
        for patch, pos in ((num, c - d * gap / 2), (word, c + d * (gap / 2 + word.shape[1] / 2))):
            if shapely.contains_xy(inner, pos[0], pos[1]):
                letters.place(red, patch, tuple(pos), ang, int(rng.uniform(220, 255)))
                count += 1

    # small red numbers along the red boundaries
    for path in red_paths:
        pts, _ = draw.resample(path, rng.uniform(150, 400) * scale)
        for q in pts[1:-1]:
            if rng.random() < 0.5:
                continue
            pos = q + rng.normal(0, 18 * scale, 2)
            if not shapely.contains_xy(inner, pos[0], pos[1]):
                continue
            patch = letters.render([(str(int(rng.integers(1, 80))), 1.0, 0.0)], "serif",
                                   rng.uniform(20, 28) * scale)
            letters.place(red, patch, tuple(pos), float(rng.uniform(-60, 60)), 240)
            count += 1
    return count
