"""Find the graticule of a sheet: ``detect_graticule(image, mask) -> GraticuleResult``.

Steps (pixel x right, y down, full-resolution pixels; integer coordinates are pixel centres):

1. Reduced ridge images, a coarse angle scan and fine scans of the best angle hypotheses
   give the two line families, their spacing and candidate lines (core.graticule.gridsearch).
2. Each candidate is followed at full resolution (core.graticule.linetrack); the comb of each
   family then predicts the lines not yet found, which are looked for on purpose (faint or
   interrupted lines are recovered from the grid's regularity; lines off the comb are not
   grid lines).
3. Every column line crosses every row line: the crossing is measured from both lines'
   ridges around it (core.graticule.intersections) and kept when it lies in the map area and
   both lines are seen there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from ..errors import NoGraticuleError
from ..imageio import ImageLike, read_mask, read_red_channel_and_half
from ..progress import ProgressCallback, report
from .angles import angle_difference, line_through, rho_at
from .gridsearch import (
    GridHypothesis,
    find_grid,
    reduced_images,
    reduced_mask,
    working_scales,
)
from .intersections import LocalLine, drawn_through, refine_crossing
from .linetrack import LineTrack, ValidArea, find_line_near, track_line
from .result import GraticuleResult, LineFamily

VALID_SCALE = 8   # the map-area mask used for counting line evidence is kept at 1/8
PARALLEL_TOL_DEG = 0.08   # a line turned more than this from its family is not a grid line
PERPENDICULAR_TOL_DEG = 0.3   # the families of a scanned square grid are this perpendicular
COMB_EXACT_PX = 3.0           # a line further than this from its comb place is checked
COMB_SEARCH_MIN_PX = 12.0     # paper warp moves a grid line this far from its comb place
COMB_SEARCH_FRACTION = 0.005  # ... or this share of the spacing
GUESS_HALF_LENGTH_PX = 400.0   # track samples this near a crossing predict it
WIDE_CROSSING_SEARCH_PX = 16.0  # how far from its guess a line is looked for near a crossing
                                # when few of its samples are near (or they misled)
LINE_THREADS = 2               # lines followed at once

MapFn = Callable[..., Iterable]   # ``map`` or ``ThreadPoolExecutor.map``


@dataclass
class DetectionSettings:
    """Tuning of the detector; the defaults suit 1:5000 atlas sheets scanned at 300 dpi."""

    hypotheses: int = 8             # angle hypotheses ranked with a coarse fine-step scan
    finalists: int = 3              # of which this many are examined at the fine scale,
    finalist_ratio: float = 0.5     # ... those scoring at least this share of the best
    search_px: float = 24.0         # how far a fine-scan line may be from the true line
    min_coverage: float = 0.25      # share of its length a grid line must show
    min_strength: float = 6.0       # ridge depth (grey levels) that counts as line evidence
    min_spacing_px: float = 250.0
    max_spacing_px: float = 8000.0
    mask_margin_px: int = 8         # lines are only followed this far inside the map mask


@dataclass
class _Line:
    """A grid line followed at full resolution, with its comb index."""

    track: LineTrack
    k: int
    rho: float


def detect_graticule(image: ImageLike, mask: ImageLike | None = None, *,
                     spacing_px: float | None = None,
                     progress: ProgressCallback | None = None,
                     settings: DetectionSettings | None = None) -> GraticuleResult:
    """Find the graticule intersections of a sheet.

    Args:
        image: path of the scan, or an RGB/grey uint8 array.
        mask: optional map-area mask (path or array, 255/True = map); intersections outside
            it are not reported, lines are followed only inside it.
        spacing_px: expected distance between grid lines in pixels, if known (else found).
        progress: callback(fraction, message); may raise core.progress.Cancelled.
        settings: detector tuning.

    Raises:
        NoGraticuleError: no two crossing families of evenly spaced lines were found.
    """
    cfg = settings or DetectionSettings()
    report(progress, 0.0, "reading image")
    gray, half, map_mask, small = _read_inputs(image, mask)
    if map_mask is not None and not map_mask.any():
        raise NoGraticuleError("the map-area mask is empty; give the mask of this sheet")
    valid = _valid_area(small, cfg.mask_margin_px)

    report(progress, 0.2, "searching the grid's orientation and spacing")
    hyp = find_grid(reduced_images(gray, map_mask, reduced_masks=small, half=half),
                    hypotheses=cfg.hypotheses,
                    finalists=cfg.finalists, finalist_ratio=cfg.finalist_ratio,
                    min_spacing_px=cfg.min_spacing_px,
                    max_spacing_px=cfg.max_spacing_px, spacing_hint=spacing_px)
    if hyp is None or not hyp.lines[0] or not hyp.lines[1]:
        raise NoGraticuleError("no graticule found: no two families of evenly spaced straight "
                               "lines cross on this sheet; check the image (and the mask)")

    report(progress, 0.5, "following the grid lines")
    # the stronger family first; the other is perpendicular to it (a square grid, scanned)
    first = 0 if sum(c.score for c in hyp.lines[0]) >= sum(c.score for c in hyp.lines[1]) \
        else 1
    families: list[list[_Line]] = [[], []]
    with ThreadPoolExecutor(LINE_THREADS) as pool:   # lines of a step followed two at a time
        families[first] = _follow_family(gray, valid, hyp, first, cfg, pool.map)
        perpendicular = None
        if families[first]:
            a = hyp.angles_deg[first]
            a = float(np.median([_direction_angle(ln.track, a) for ln in families[first]]))
            b = hyp.angles_deg[1 - first]
            perpendicular = b + angle_difference(a + 90.0, b)
        families[1 - first] = _follow_family(gray, valid, hyp, 1 - first, cfg, pool.map,
                                             angle=perpendicular,
                                             max_turn_deg=PERPENDICULAR_TOL_DEG)
    if not families[0] or not families[1]:
        raise NoGraticuleError("no graticule found: the grid lines seen at reduced scale could "
                               "not be followed on the full-resolution image")

    report(progress, 0.85, "locating intersections")
    result = _intersections(gray, families, hyp, map_mask, valid, cfg)
    if len(result) == 0:
        raise NoGraticuleError("grid lines found but none of their crossings lies in the map "
                               "area; check the mask")
    report(progress, 1.0, f"{len(result)} intersections")
    return result


def _read_inputs(image: ImageLike, mask: ImageLike | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None,
                            dict[int, np.ndarray] | None]:
    """The red channel, its half-size reduction, the map-area mask (bool, same size, or
    None) and the mask reduced to the scales the search and the line following use
    (``{scale: mask}``, or None). A mask file is decoded and reduced on a second thread
    while the image is decoded (both decoders release the GIL)."""
    if mask is None or isinstance(mask, np.ndarray):
        gray, half = read_red_channel_and_half(image)
        if mask is None:
            return gray, half, None, None
        map_mask = read_mask(mask, gray.shape, what="map-area mask")
        return gray, half, map_mask, _reduced_masks(map_mask)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(_read_and_reduce_mask, mask)
        gray, half = read_red_channel_and_half(image)
        map_mask, small = pending.result()
    return gray, half, read_mask(map_mask, gray.shape, what=f"map-area mask {mask}"), small


def _read_and_reduce_mask(path: ImageLike) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """A mask file read (bool) and reduced (:func:`_reduced_masks`)."""
    map_mask = read_mask(path, what="map-area mask")
    return map_mask, _reduced_masks(map_mask)


def _reduced_masks(map_mask: np.ndarray) -> dict[int, np.ndarray]:
    """The mask reduced to 1/VALID_SCALE (line following) and to the search's two scales."""
    height, width = map_mask.shape
    return {scale: reduced_mask(map_mask, scale)
            for scale in sorted({VALID_SCALE, *working_scales(width, height)})}


def _valid_area(reduced: dict[int, np.ndarray] | None, margin_px: int) -> ValidArea | None:
    """Where lines are followed: the map-area mask reduced to 1/VALID_SCALE (``reduced``,
    by scale), eroded by ``margin_px``."""
    if reduced is None:
        return None
    small = reduced[VALID_SCALE]
    r = max(1, margin_px // VALID_SCALE)
    small = cv2.erode(small.view(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    return ValidArea(small, VALID_SCALE)


# --- following lines at full resolution ---------------------------------------------------

def _line_extent(origin: np.ndarray, direction: np.ndarray, width: int,
                 height: int) -> tuple[float, float] | None:
    """The t range where ``origin + t * direction`` is inside the image."""
    lo, hi = -np.inf, np.inf
    for axis, size in ((0, width), (1, height)):
        d = direction[axis]
        if abs(d) < 1e-12:
            if not 0 <= origin[axis] <= size:
                return None
            continue
        a, b = (0 - origin[axis]) / d, (size - origin[axis]) / d
        lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
    return (lo, hi) if hi - lo > 1 else None


def _follow(gray: np.ndarray, valid: ValidArea | None, angle_deg: float, rho: float,
            search_px: float, cfg: DetectionSettings, max_turn_deg: float = 0.6,
            nearest: bool = False) -> LineTrack | None:
    """Find and follow the line near ``(angle, rho)`` turned by at most ``max_turn_deg``
    (the one nearest the prediction with ``nearest``); None when too little of it is seen."""
    height, width = gray.shape
    origin, direction = line_through(angle_deg, rho, width, height)
    extent = _line_extent(origin, direction, width, height)
    if extent is None:
        return None
    near = find_line_near(gray, origin, direction, *extent, search_px=search_px,
                          valid_area=valid, min_strength=cfg.min_strength,
                          max_slope=float(np.tan(np.radians(max_turn_deg))), nearest=nearest)
    if near is None:
        return None
    origin, direction = near
    extent = _line_extent(origin, direction, width, height)
    if extent is None:
        return None
    track = track_line(gray, origin, direction, *extent, valid_area=valid,
                       min_strength=cfg.min_strength, nearest=nearest)
    if track.inliers.sum() < 6 or track.coverage < cfg.min_coverage:
        return None
    return track


def _rho(track: LineTrack, angle_deg: float) -> float:
    """Signed distance of the track's fitted line at t = 0 along the normal ``angle_deg``."""
    t = np.radians(angle_deg)
    return float(track.point_at(0.0) @ np.array([np.cos(t), np.sin(t)]))


def _direction_angle(track: LineTrack, near_deg: float) -> float:
    """Normal angle of a track's direction, expressed near ``near_deg``."""
    d = track.direction
    a = float(np.degrees(np.arctan2(d[0], -d[1])))
    return near_deg + angle_difference(a, near_deg)


def _follow_family(gray: np.ndarray, valid: ValidArea | None, hyp: GridHypothesis,
                   family: int, cfg: DetectionSettings, map_fn: MapFn = map, *,
                   angle: float | None = None, max_turn_deg: float = 0.6) -> list[_Line]:
    """Follow the family's lines, place them on the comb, then look for the missing teeth.

    Grid lines of one family are parallel: once the lines are followed, their median
    direction is the family's, and a line turned from it by more than PARALLEL_TOL_DEG (a
    street or a distractor next to a grid line) is followed again along that direction.
    ``map_fn`` (``map`` or a thread pool's) follows the lines of each step; their results
    are taken in order, so the lines found do not depend on it.
    """
    height, width = gray.shape
    angle = hyp.angles_deg[family] if angle is None else angle
    spacing = hyp.spacing_px

    def follow(rho: float, search: float, turn: float, nearest: bool = False):
        return _follow(gray, valid, angle, rho, search, cfg, max_turn_deg=turn,
                       nearest=nearest)

    # each candidate was found at its own angle: rho at the family's
    rhos = [rho_at(c.normal_angle_deg, c.rho_px, angle, width, height)
            for c in hyp.lines[family]]
    followed = [(rho, track) for rho, track in zip(
        rhos, map_fn(lambda r: follow(r, cfg.search_px, max_turn_deg), rhos), strict=True)
        if track is not None]
    if not followed:
        return []
    weights = np.array([t.coverage for _, t in followed])
    dirs = np.array([_direction_angle(t, angle) for _, t in followed])
    angle = float(_weighted_median(dirs, weights))
    order = sorted(zip(followed, dirs, strict=True), key=lambda x: -x[0][1].coverage)
    # a line turned from the family is replaced by the grid line nearest it, along the family
    turned = [i for i, (_, a) in enumerate(order) if abs(a - angle) > PARALLEL_TOL_DEG]
    again = dict(zip(turned, map_fn(
        lambda i: follow(_rho(order[i][0][1], angle), cfg.search_px, PARALLEL_TOL_DEG, True),
        turned), strict=True))
    found: dict[int, _Line] = {}
    phase = None
    for i, ((_, track), _) in enumerate(order):
        if i in again:
            track = again[i]
            if track is None:
                continue
        r = _rho(track, angle)
        if phase is None:
            phase = r
        k = round((r - phase) / spacing)
        if abs(r - phase - k * spacing) > 0.03 * spacing:
            continue   # off the comb: not a grid line
        if k not in found or track.coverage > found[k].track.coverage:
            found[k] = _Line(track, k, r)
    if not found:
        return []
    # refine the comb from the followed lines; a line off it (a street edge or a distractor
    # beside a faint grid line, or just paper warp) is looked for again: the line nearest
    # its place on the comb wins
    spacing, phase = _fit_comb(found, spacing)
    search = max(COMB_SEARCH_MIN_PX, COMB_SEARCH_FRACTION * spacing)
    off = [k for k in found
           if len(found) >= 3 and abs(found[k].rho - (phase + k * spacing)) > COMB_EXACT_PX]
    for k, track in zip(off, map_fn(
            lambda k: follow(phase + k * spacing, search, PARALLEL_TOL_DEG, True), off),
            strict=True):
        rho = phase + k * spacing
        if track is not None and abs(_rho(track, angle) - rho) < abs(found[k].rho - rho):
            found[k] = _Line(track, k, _rho(track, angle))
    spacing, phase = _fit_comb(found, spacing)
    t = np.radians(angle)
    corners = np.array([[0, 0], [width, 0], [0, height], [width, height]], float) \
        @ np.array([np.cos(t), np.sin(t)])
    missing = [k for k in range(int(np.floor((corners.min() - phase) / spacing)),
                                int(np.ceil((corners.max() - phase) / spacing)) + 1)
               if k not in found
               and corners.min() + 16 < phase + k * spacing < corners.max() - 16]
    for k, track in zip(missing, map_fn(
            lambda k: follow(phase + k * spacing, search, PARALLEL_TOL_DEG), missing),
            strict=True):
        if track is None:
            continue
        r = _rho(track, angle)
        if abs(r - (phase + k * spacing)) <= search:
            found[k] = _Line(track, k, r)
    return [found[k] for k in sorted(found)]


def _fit_comb(found: dict[int, _Line], spacing: float) -> tuple[float, float]:
    """(spacing, phase) of ``rho = phase + k * spacing`` through the lines; with three or
    more, the line that fits worst is left out of the fit (it may be a street)."""
    ks = np.array(sorted(found), dtype=float)
    rhos = np.array([found[int(k)].rho for k in ks])
    if len(ks) == 1:
        return spacing, float(rhos[0] - ks[0] * spacing)
    if len(ks) >= 3:
        worst = int(np.argmax(np.abs(rhos - np.polyval(np.polyfit(ks, rhos, 1), ks))))
        keep = np.arange(len(ks)) != worst
        if len(set(ks[keep])) >= 2:
            ks, rhos = ks[keep], rhos[keep]
    s, p = np.polyfit(ks, rhos, 1)
    return float(s), float(p)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, 0.5 * cum[-1])])


# --- intersections --------------------------------------------------------------------------

def _cross_lines(p1, d1, p2, d2) -> np.ndarray | None:
    m = np.column_stack([d1, -d2])
    if abs(np.linalg.det(m)) < 1e-9:
        return None
    s, _ = np.linalg.solve(m, p2 - p1)
    return p1 + s * d1


def _local_line(track: LineTrack, t: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Point and direction of the track's straight fit over its samples near t, and how
    many samples that fit used (0: the smooth fit's tangent)."""
    (a, b), used = track.local_fit(t, GUESS_HALF_LENGTH_PX)
    n = track.normal
    point = track.origin + t * track.direction + (a * t + b) * n
    d = track.direction + a * n
    return point, d / np.hypot(*d), used


def _guess_crossing(a: LineTrack, b: LineTrack) -> tuple[np.ndarray, int, int] | None:
    """Where two tracks cross, from their samples near the crossing (iterated), with the
    number of samples each line had there."""
    p = _cross_lines(a.point_at(0.0), a.direction, b.point_at(0.0), b.direction)
    used_a = used_b = 0
    for _ in range(3):
        if p is None:
            return None
        pa, da, used_a = _local_line(a, float((p - a.origin) @ a.direction))
        pb, db, used_b = _local_line(b, float((p - b.origin) @ b.direction))
        p = _cross_lines(pa, da, pb, db)
    return None if p is None else (p, used_a, used_b)


def _intersections(gray: np.ndarray, families: list[list[_Line]], hyp: GridHypothesis,
                   map_mask: np.ndarray | None, valid: ValidArea | None,
                   cfg: DetectionSettings) -> GraticuleResult:
    height, width = gray.shape
    # columns: the family whose normal is closer to +x (its lines are closer to vertical)
    first_is_column = abs(angle_difference(hyp.angles_deg[0], 0.0)) <= 45.0
    cols, rows = (0, 1) if first_is_column else (1, 0)
    col_family, col_index = _family(families[cols], hyp.angles_deg[cols], hyp.spacing_px, True)
    row_family, row_index = _family(families[rows], hyp.angles_deg[rows], hyp.spacing_px, False)
    points, index, conf, visible = [], [], [], []
    for (ci, a), (ri, b) in itertools.product(enumerate(families[cols]),
                                              enumerate(families[rows])):
        guessed = _guess_crossing(a.track, b.track)
        if guessed is None:
            continue
        guess, used_a, used_b = guessed
        if not (-50 <= guess[0] < width + 50 and -50 <= guess[1] < height + 50):
            continue
        # where a line was hardly seen near the crossing, look for it further away; and
        # where it was seen but the local fit misled (a street beside it, at a small angle,
        # pulls the guess a few pixels off), look again as far
        search = tuple(6.0 if used >= 6 else WIDE_CROSSING_SEARCH_PX for used in (used_a, used_b))
        refined = refine_crossing(gray, guess, a.track.direction, b.track.direction,
                                  min_strength=cfg.min_strength, search_px=search)
        if refined is None and min(search) < WIDE_CROSSING_SEARCH_PX:
            refined = refine_crossing(gray, guess, a.track.direction, b.track.direction,
                                      min_strength=cfg.min_strength,
                                      search_px=(WIDE_CROSSING_SEARCH_PX,) * 2)
            # ... and keep what it finds only when it is that line: as near the guess as the
            # lines were seen to be, and both lines seen on both sides of the crossing over
            # at least half their blocks there (a label's or a street's stroke found in the
            # wider search, or one end of a line, is not the crossing)
            if refined is not None and not _clearly_crossed(refined, guess, min(search)):
                refined = None
        if refined is None:
            continue
        p, la, lb = refined
        if not (0 <= p[0] < width and 0 <= p[1] < height) or np.hypot(*(p - guess)) > 20:
            continue
        if map_mask is not None and not map_mask[round(p[1]), round(p[0])]:
            continue
        if min(la.before + la.after, lb.before + lb.after) < 3:
            continue
        if map_mask is None and min(la.before, la.after) < 2 and min(lb.before, lb.after) < 2:
            continue   # both lines end here: a corner outside the map, not a crossing
        points.append(p)
        index.append((col_index[ci], row_index[ri]))
        conf.append(float(np.sqrt(la.support * lb.support)))
        visible.append(drawn_through(gray, la, p) and drawn_through(gray, lb, p))
    return GraticuleResult(np.array(points).reshape(-1, 2), np.array(index).reshape(-1, 2),
                           np.array(conf), col_family, row_family, (width, height),
                           np.array(visible, dtype=bool))


def _clearly_crossed(refined: tuple[np.ndarray, LocalLine, LocalLine], guess: np.ndarray,
                     within_px: float) -> bool:
    """Whether a crossing found by the wider search is the predicted one: within
    ``within_px`` of the guess, each line seen in at least half of its blocks on each side."""
    p, la, lb = refined
    return bool(np.hypot(*(p - guess)) <= within_px) and all(
        2 * min(line.before, line.after) >= line.blocks // 2 for line in (la, lb))


def _family(lines: list[_Line], angle_deg: float, spacing: float,
            column: bool) -> tuple[LineFamily, list[int]]:
    """The LineFamily of followed lines and each line's grid index.

    Columns get a normal angle in (-45, 45] (rho grows with x), rows in (45, 135] (rho
    grows with y); index 0 is the line with the smallest rho.
    """
    lo = -45.0 if column else 45.0
    # the lines' direction, with the normal oriented like the comb's (its k grows along it)
    followed = float(np.median([_direction_angle(ln.track, angle_deg) for ln in lines]))
    angle = followed
    while angle <= lo:
        angle += 180.0
    while angle > lo + 180.0:
        angle -= 180.0
    if angle > lo + 90.0:   # the normal points the wrong way for this family
        angle -= 180.0
    sign = 1 if np.cos(np.radians(angle - followed)) > 0 else -1   # k reversed if flipped
    ks = np.array([sign * ln.k for ln in lines])
    k0 = int(ks.min())
    t = np.radians(angle)
    n = np.array([np.cos(t), np.sin(t)])
    rhos = np.array([float(ln.track.point_at(0.0) @ n) for ln in lines])
    if len(set(ks.tolist())) >= 2:   # the spacing the followed lines show
        spacing = float(np.polyfit(ks - k0, rhos, 1)[0])
    offset = float(np.median(rhos - (ks - k0) * spacing))
    family = LineFamily(angle, float(spacing), offset, tuple(sorted(int(k - k0) for k in ks)))
    return family, [int(k - k0) for k in ks]
