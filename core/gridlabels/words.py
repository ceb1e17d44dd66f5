"""Finding the words that may be grid values: where each grid line meets the map frame, and
along the lines inside the map.

By the frame, for every detected line (and one beyond each outermost line) and each of its
two ends, two windows are searched (:func:`margin_words`):

- a wide strip along the line, from just inside its outermost detected crossing to 1.25
  grid cells beyond it (further for a line crossed short of the others), 0.3 cell either
  side, where the few words on the line in the emptiest surroundings are taken (margin
  labels stand on blank paper, map text among streets);
- a narrow window where the line ends (its outermost crossing on a sheet whose frame is a
  grid line, else the end of its last long run of ink, the frame; a second window further
  out where the line is hidden under a block or hatching by the frame), 0.07 cell either
  side, for small figures centred on the line with its tick running into them (old-style
  engraved values, as Jacoubet's 1836 atlas prints them), cut as the strip's contrast shows
  them and again as fainter ink.

Along the lines inside the map (:func:`inside_words`), for sheets that print each value on
the map by its line: strips 0.12 cell either side of every line across the whole grid,
words of figure-like characters of one height beside or on the line, at most four a line.

Long straight strokes (the lines, the frame) are removed from the ink first, but not the ink
under them that carries a figure's stroke across (:mod:`.strips`). Every word is given as
two images for the reader, its text left to right one way up and the other
(:class:`Word`). Pixel coordinates: x right, y down, full-resolution pixels (integer values
at pixel centres, like detection).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy import ndimage

from ..graticule.result import GraticuleResult, LineFamily
from ..imageio import ImageLike, read_image
from .numerals import word_image
from .strips import (
    box_iou,
    cut_strip,
    find_words,
    group_boxes,
    line_geometry,
    linked_groups,
    map_strips,
    strip_box_in_image,
    strip_ink,
    word_emptiness,
)

#: The sheet is read at 1/reduce of its size, reduce the largest of 1, 2, 4 that keeps a
#: grid cell at least this many pixels.
MIN_CELL_PX = 700
#: Values inside the map are sought at the largest reduction that keeps a grid cell at
#: least this many pixels (their figures, smaller than the margin's, about 8 px then).
INSIDE_MIN_CELL_PX = 1000
#: Wide window: cells either side of a line, beyond the outermost crossing, and inside it.
ACROSS_CELLS = 0.3
BEYOND_CELLS = 1.25
INSIDE_CELLS = 0.06
#: A line whose crossings stop short of the others' searches up to this much further.
MAX_EXTRA_CELLS = 2.0
#: Words taken per line end in the wide window (the emptiest surroundings first).
WORDS_PER_END = 3
#: Longest word, in its heights (``-6 862 000 m`` is about 8).
LONGEST_WORD = 15
#: Narrow window (grid cells): across the line, outwards beyond where it ends and inwards.
NARROW_ACROSS = 0.07
NARROW_OUT = 0.12
NARROW_IN = 0.03
#: Narrow window: a row of touching figures is a component at least TOUCHING_HEIGHT px
#: high, at most TOUCHING_LONG times as wide, its ink filling TOUCHING_FILL of its box.
TOUCHING_HEIGHT = 5
TOUCHING_LONG = 8
TOUCHING_FILL = (0.25, 0.8)
#: Ink darker than this (0-255, 255 = the strip's darkest ink) may be a faint figure.
FAINT_INK = 60
#: A line ends where its last run of ink at least this long (cells) ends; gaps up to
#: LINE_GAP cells (hidden under a block by the frame) do not break a run.
LINE_RUN = 0.04
LINE_GAP = 0.25
#: Straight strokes longer than this (cells) are lines, not figures (narrow window).
LONG_STROKE = 0.055
#: Inside the map: cells either side of a line, how far beyond the grid, words a line.
INSIDE_ACROSS = 0.12
INSIDE_BEYOND = 1.0
WORDS_PER_LINE = 4
#: Inside: a word stands by its line within this many heights; its ring of emptiness.
REACH = 1.5
RING = 0.4
#: Inside: characters closer than this share of their size join one word.
JOIN = 0.25
#: Inside: figure-like words have 2 to MAX_CHARS characters at least MIN_HEIGHT px high.
MAX_CHARS = 10
MIN_HEIGHT = 6
SAME_HEIGHT = 0.75
EMPTY_STEP = 0.01


@dataclass
class Word:
    """A word that may be a grid value, found by line ``line`` of family ``family``.

    Attributes
    ----------
    family : int
        0 for the columns (near-vertical lines in the image), 1 for the rows.
    line : int
        The line's number k in its family (``offset + k * spacing``).
    end : int
        -1 or +1: by the frame at that end of the line (towards lower / higher positions
        along it); 0: inside the map.
    box : tuple of 4 int
        (x0, y0, x1, y1) full-resolution pixels around the word.
    images : list of 2 (h, w) uint8
        The word's ink darkness, text left to right, as cut (its top towards ``ups[0]``)
        and turned half a turn.
    ups : list of 2 (x, y)
        Unit vectors: where the top of the text points in the image for each image.
    height : float
        The text's height, full-resolution pixels.
    """

    family: int
    line: int
    end: int
    box: tuple[int, int, int, int]
    images: list[np.ndarray]
    ups: list[tuple[float, float]]
    height: float


def reduction(result: GraticuleResult, min_cell_px: float = MIN_CELL_PX) -> int:
    """1, 2 or 4: the largest that keeps a grid cell at least ``min_cell_px`` px."""
    cell = min(result.columns.spacing_px, result.rows.spacing_px)
    for r in (4, 2):
        if cell / r >= min_cell_px:
            return r
    return 1


def sheet_gray(image: ImageLike, result: GraticuleResult) -> tuple[np.ndarray, int]:
    """The sheet in grey at the size words are found at, and its reduction."""
    reduce = reduction(result)
    return read_image(image, reduce=reduce, gray=True), reduce


def inside_gray(image: ImageLike, gray: np.ndarray, reduce: int, result: GraticuleResult
                ) -> tuple[np.ndarray, int]:
    """The sheet in grey at the size values inside the map are sought at, and its
    reduction: the frame words' (``gray`` at 1/``reduce``) unless a grid cell would be
    under :data:`INSIDE_MIN_CELL_PX` there, then finer (values printed on the map are
    smaller than the margin's, and their thin strokes vanish at half size)."""
    fine = reduction(result, INSIDE_MIN_CELL_PX)
    if fine >= reduce:
        return gray, reduce
    return read_image(image, reduce=fine, gray=True), fine


def _word(dark: np.ndarray, box: np.ndarray, m: np.ndarray, reduce: int, f: int, k: int,
          end: int) -> Word:
    """A :class:`Word` from its box in a strip (``m``: strip -> sheet-as-read map)."""
    x0, y0, x1, y1 = (float(v) for v in box)
    along_x = (x1 - x0) >= (y1 - y0)
    q = 0 if along_x else 1
    sx, sy = m[:, 0], m[:, 1]                  # the strip's x and y (down) axes in the image
    tops = {0: -sy, 1: sx, 2: sy, 3: -sx}
    images = [word_image(dark, box, q), word_image(dark, box, q + 2)]
    ups = [tuple(float(v) for v in tops[q]), tuple(float(v) for v in tops[q + 2])]
    height = ((y1 - y0) if along_x else (x1 - x0)) * reduce
    return Word(f, int(k), int(end), strip_box_in_image(box, m, reduce), images, ups, height)


def _ends(result: GraticuleResult, reduce: int, gray_shape: tuple[int, int]):
    """Every line end searched: (family, k, end, point where its crossings end (sheet as
    read), outward unit vector, cell of the family and of the other (px as read), how far
    the line stops short of the others' extent (px as read))."""
    fams = (result.columns, result.rows)
    shift = _index_shift(result)
    out = []
    for f, fam in enumerate(fams):
        lines = fam.indices or tuple(sorted(set((result.index[:, f] + shift[f]).tolist())))
        if not lines:
            continue
        other = fams[1 - f]
        ks = range(min(lines) - 1, max(lines) + 2)
        geo = {k: line_geometry(fam, k) for k in ks}
        extents = _line_extents(result, f, int(shift[f]), ks, geo)
        g_lo = min(e[0] for e in extents.values())
        g_hi = max(e[1] for e in extents.values())
        for k in ks:
            (p0, d), (lo, hi) = geo[k], extents[k]
            for end, pos, extra in ((-1, lo, lo - g_lo), (1, hi, g_hi - hi)):
                point = (p0 + d * pos) / reduce
                if not (0 <= point[0] < gray_shape[1] and 0 <= point[1] < gray_shape[0]):
                    continue                  # the line ends off the sheet
                out.append((f, int(k), end, point, d * end, fam.spacing_px / reduce,
                            other.spacing_px / reduce, extra / reduce))
    return out


def margin_words(gray: np.ndarray, reduce: int, result: GraticuleResult) -> list[Word]:
    """The candidate words by the frame at both ends of every line (and one beyond each
    outermost line): the wide and the narrow windows (see the module docstring), a word
    found by both kept once."""
    ends = _ends(result, reduce, gray.shape)
    found = map_strips(lambda e: _wide_window(gray, reduce, *e) + _narrow_window(
        gray, reduce, *e), ends)
    return _nearest_family(_unique(found), (result.columns, result.rows))


def _wide_window(gray: np.ndarray, reduce: int, f: int, k: int, end: int, point: np.ndarray,
                 out: np.ndarray, cell: float, other_cell: float, extra: float) -> list[Word]:
    width = int(2 * ACROSS_CELLS * cell)
    length = int((BEYOND_CELLS + INSIDE_CELLS) * other_cell
                 + min(extra, MAX_EXTRA_CELLS * other_cell))
    max_h = max(12, int(0.09 * cell))
    start = point - out * INSIDE_CELLS * other_cell
    strip, m = cut_strip(gray, start, out, np.array([-out[1], out[0]]), width, length)
    ink, dark = strip_ink(strip, int(max(3 * max_h, 0.06 * cell)))
    scored = sorted(word_emptiness(find_words(ink, 5, max_h), ink, width), key=lambda s: s[0])
    words = []
    for _, box, _, _ in scored[:WORDS_PER_END]:
        short, long = sorted((box[2] - box[0], box[3] - box[1]))
        if long <= LONGEST_WORD * short:
            words.append(_word(dark, box, m, reduce, f, k, end))
    return words


def _narrow_window(gray: np.ndarray, reduce: int, f: int, k: int, end: int,
                   point: np.ndarray, out: np.ndarray, cell: float, other_cell: float,
                   extra: float) -> list[Word]:
    cell = min(cell, other_cell)
    width = max(16, int(2 * NARROW_ACROSS * cell))
    length = max(16, int((NARROW_OUT + NARROW_IN) * cell))
    max_h = max(8, int(0.04 * cell))
    across = np.array([-out[1], out[0]])
    start = point - out * NARROW_IN * cell
    far = int((BEYOND_CELLS + NARROW_IN) * cell + min(extra, MAX_EXTRA_CELLS * cell))
    line = cut_strip(gray, start, out, across, width, far)[0]
    stops = {_line_end(line, int(LINE_RUN * cell), g) for g in (0, int(LINE_GAP * cell))}
    if max(stops) - min(stops) < NARROW_OUT / 2 * cell:
        stops = {min(stops)}
    words: list[Word] = []
    for stop in sorted(stops):
        here = start
        if stop > (NARROW_IN + NARROW_OUT / 2) * cell:
            here = start + out * (stop - NARROW_IN * cell)
        strip, m = cut_strip(gray, here, out, across, width, length)
        ink, dark = strip_ink(strip, max(12, int(LONG_STROKE * cell)))
        faint = (dark > FAINT_INK).astype(np.uint8) * 255
        boxes: list[np.ndarray] = []
        for binary in (ink, faint):
            for box in _centred(_figure_groups(binary, max_h), width):
                if not any(box_iou(tuple(b), tuple(box)) > 0.5 for b in boxes):
                    boxes.append(box)
        words += [_word(dark, b, m, reduce, f, k, end) for b in boxes]
    return words


def _figure_groups(ink: np.ndarray, max_h: int) -> list[np.ndarray]:
    """Boxes (x0, y0, x1, y1) of rows of figure-sized ink components (3 to ``max_h`` px):
    components whose rows overlap and whose gap is less than the taller one's height join
    (a tick removed with the line leaves such a gap in a number)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    cw, ch = stats[:, 2], stats[:, 3]
    size = np.maximum(cw, ch)
    # small figures that touch in a row are one component: its size is its height when
    # it is a row of figures (TOUCHING_HEIGHT px high or more, at most TOUCHING_LONG times
    # as wide, ink filling TOUCHING_FILL of its box: not a piece of hatching or of a line)
    fill = stats[:, cv2.CC_STAT_AREA] / np.maximum(1, cw * ch)
    touching = ((cw > ch) & (cw <= TOUCHING_LONG * ch) & (ch >= TOUCHING_HEIGHT)
                & (fill >= TOUCHING_FILL[0]) & (fill <= TOUCHING_FILL[1]))
    size = np.where(touching, ch, size)
    keep = np.flatnonzero((size >= 3) & (size <= max_h)
                          & (stats[:, cv2.CC_STAT_AREA] >= 0.08 * size.astype(np.float64) ** 1.5))
    keep = keep[keep > 0]
    if not len(keep):
        return []
    x0, y0 = stats[keep, 0].astype(np.float64), stats[keep, 1].astype(np.float64)
    x1, y1 = x0 + stats[keep, 2], y0 + stats[keep, 3]
    h = y1 - y0
    gap = np.maximum(x0[None, :] - x1[:, None], x0[:, None] - x1[None, :])
    overlap = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :])
    join = (overlap > 0.3 * np.minimum(h[:, None], h[None, :])) \
        & (gap < np.maximum(h[:, None], h[None, :]))
    _, order, starts = linked_groups(join)
    return list(group_boxes(np.stack([x0, y0, x1, y1], axis=1), order, starts))


def _centred(boxes: list[np.ndarray], width: int) -> list[np.ndarray]:
    """The groups that may be a number written across the line up the middle of a strip
    ``width`` pixels wide: wider than tall, centred on the line."""
    return [b for b in boxes
            if b[2] - b[0] >= 1.3 * (b[3] - b[1]) and b[3] - b[1] >= 3
            and abs((b[0] + b[2]) / 2 - width / 2) <= 0.5 * (b[2] - b[0])]


def _line_end(strip: np.ndarray, run: int, gap: int = 0) -> float:
    """How far out (pixels from the bottom of ``strip``: line vertical up its middle, out
    up) the line ends: the outer end of its outermost run of ink at least ``run`` pixels
    long, gaps shorter than ``gap`` pixels bridged; 0 when it has none."""
    h, w = strip.shape
    paper = cv2.morphologyEx(strip, cv2.MORPH_CLOSE, np.ones((1, 9), np.uint8))
    mid = slice(max(0, w // 2 - 2), w // 2 + 3)
    depth = cv2.subtract(paper[:, mid], strip[:, mid]).max(axis=1)
    dark = (depth > max(20.0, 0.4 * float(depth.max())))[::-1]     # from the bottom out
    if gap > 1:
        dark = ndimage.binary_closing(dark, np.ones(gap, bool)) | dark
    best, count = 0, 0
    for i, on in enumerate(dark):
        count = count + 1 if on else 0
        if count >= run:
            best = i + 1
    return float(best)


def inside_words(gray: np.ndarray, reduce: int, result: GraticuleResult) -> list[Word]:
    """The candidate words along every line inside the map (and one beyond each outermost
    line), from a cell before the other family's first detected line to a cell beyond its
    last (within the sheet); ``end`` 0."""
    fams = (result.columns, result.rows)
    shift = _index_shift(result)
    lines = [sorted(set((result.index[:, f] + shift[f]).tolist())) for f in range(2)]
    if not all(lines):
        return []
    cuts = []
    size = (gray.shape[1] * reduce, gray.shape[0] * reduce)
    for f, fam in enumerate(fams):
        other = fams[1 - f]
        cell = min(fam.spacing_px, other.spacing_px) / reduce
        for k in range(lines[f][0] - 1, lines[f][-1] + 2):
            p0, d = line_geometry(fam, k)
            ends = [_crossing(fam, k, other, j) for j in (lines[1 - f][0], lines[1 - f][-1])]
            lo, hi = sorted(float((e - p0) @ d) for e in ends)
            lo, hi = _within(p0, d, lo - INSIDE_BEYOND * other.spacing_px,
                             hi + INSIDE_BEYOND * other.spacing_px, size)
            if hi - lo >= 0.5 * other.spacing_px:
                cuts.append((f, k, (p0 + d * lo) / reduce, d, int((hi - lo) / reduce), cell))

    def along(task: tuple) -> list[tuple[Word, bool, float]]:
        f, k, start, d, length, cell = task
        width = max(16, int(2 * INSIDE_ACROSS * cell))
        max_h = max(12, int(0.09 * cell))
        strip, m = cut_strip(gray, start, d, np.array([-d[1], d[0]]), width, length)
        # (not mended: values stand apart from the line, which crosses the map's strokes)
        ink, dark = strip_ink(strip, int(max(3 * max_h, 0.06 * cell)), mend=False)
        # small figures print lighter than the map's outlines, which set the threshold:
        # sought also in the faint ink, a word found in both kept once
        scored = []
        for binary in (ink, (dark > FAINT_INK).astype(np.uint8) * 255):
            words = [w for w in find_words(binary, 5, max_h, JOIN) if _number_like(w)]
            scored += [(not _one_height(binary, s[1]), round(s[0] / EMPTY_STEP),
                        -min(s[1][2] - s[1][0], s[1][3] - s[1][1]), s[1])
                       for s in word_emptiness(words, binary, width, REACH, RING)]
        boxes: list[np.ndarray] = []
        for *_, box in sorted(scored, key=lambda s: s[:3]):
            if not any(box_iou(tuple(b), tuple(box)) > 0.5 for b in boxes):
                boxes.append(box)
        out = []
        for box in boxes[:WORDS_PER_LINE]:
            alone = _alone(dark, box)
            runs_along = (box[3] - box[1]) > (box[2] - box[0])
            out.append((_word(alone, box, m, reduce, f, k, 0), runs_along,
                        abs((box[0] + box[2]) / 2 - width / 2) / cell))
        return out

    return [w for w, *_ in _family_it_runs_along(map_strips(along, cuts))]


def _alone(dark: np.ndarray, box: np.ndarray, keep: float = 0.15) -> np.ndarray:
    """``dark`` with everything but the word in ``box`` (and a margin of ``keep`` of its
    height) cleared: the map around a value inside it."""
    x0, y0, x1, y1 = (int(v) for v in box)
    pad = max(2, round(keep * min(x1 - x0, y1 - y0)))
    out = np.zeros_like(dark)
    a0, b0 = max(0, x0 - pad), max(0, y0 - pad)
    out[b0:y1 + pad, a0:x1 + pad] = dark[b0:y1 + pad, a0:x1 + pad]
    return out


def _one_height(ink: np.ndarray, box: np.ndarray) -> bool:
    """Whether the characters in ``box`` share one height across the word, as figures do:
    at least :data:`SAME_HEIGHT` of them reach 0.8 of the tallest."""
    x0, y0, x1, y1 = (int(v) for v in box)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink[y0:y1 + 1, x0:x1 + 1], connectivity=8)
    along_y = (y1 - y0) > (x1 - x0)
    tall = stats[1:, cv2.CC_STAT_WIDTH if along_y else cv2.CC_STAT_HEIGHT]
    long = stats[1:, cv2.CC_STAT_HEIGHT if along_y else cv2.CC_STAT_WIDTH]
    tall = tall[np.maximum(tall, long) >= 3]
    return len(tall) >= 2 and float(np.mean(tall >= 0.8 * tall.max())) >= SAME_HEIGHT


def _number_like(word: tuple[np.ndarray, int, np.ndarray]) -> bool:
    box, chars, _ = word
    short, long = sorted((box[2] - box[0], box[3] - box[1]))
    return 2 <= chars <= MAX_CHARS and short >= MIN_HEIGHT and long >= 1.3 * short


def _crossing(fam: LineFamily, k: int, other: LineFamily, j: int) -> np.ndarray:
    normals = np.radians([fam.normal_angle_deg, other.normal_angle_deg])
    a = np.column_stack([np.cos(normals), np.sin(normals)])
    return np.linalg.solve(a, np.array([fam.line_position(k), other.line_position(j)]))


def _within(p0: np.ndarray, d: np.ndarray, lo: float, hi: float, size: tuple[float, float]
            ) -> tuple[float, float]:
    """The part [lo, hi] of the line ``p0 + t d`` inside an image of ``size`` (w, h)."""
    for axis in (0, 1):
        if abs(d[axis]) < 1e-9:
            if not 0 <= p0[axis] <= size[axis] - 1:
                return 0.0, 0.0
            continue
        t0, t1 = sorted(((0 - p0[axis]) / d[axis], (size[axis] - 1 - p0[axis]) / d[axis]))
        lo, hi = max(lo, t0), min(hi, t1)
    return lo, hi


def _family_it_runs_along(found: list[tuple[Word, bool, float]]) -> list[tuple]:
    """Of a word found by lines of both families (by a crossing), keep the finding of the
    line it runs along; when it runs along both or neither, the line it is nearer."""
    drop = set()
    for i, (a, a_along, a_across) in enumerate(found):
        for j in range(i + 1, len(found)):
            b, b_along, b_across = found[j]
            if a.family == b.family or box_iou(a.box, b.box) < 0.5:
                continue
            keep_a = a_along if a_along != b_along else a_across <= b_across
            drop.add(j if keep_a else i)
    return [x for i, x in enumerate(found) if i not in drop]


def _unique(words: list[Word]) -> list[Word]:
    """One of the words of one line end that overlap (found by both windows)."""
    out: list[Word] = []
    for w in words:
        if not any(o.family == w.family and o.line == w.line and o.end == w.end
                   and box_iou(o.box, w.box) > 0.7 for o in out):
            out.append(w)
    return out


def _nearest_family(words: list[Word], fams: tuple[LineFamily, LineFamily]) -> list[Word]:
    """A word found by lines of both families (near a corner of the frame) stays with the
    family whose line it sits on: the one it is nearer across, in grid cells."""
    def across(w: Word) -> float:
        fam = fams[w.family]
        t = np.radians(fam.normal_angle_deg)
        cx, cy = (w.box[0] + w.box[2]) / 2, (w.box[1] + w.box[3]) / 2
        return abs(cx * np.cos(t) + cy * np.sin(t) - fam.line_position(w.line)) / fam.spacing_px

    drop = set()
    for i, a in enumerate(words):
        for j in range(i + 1, len(words)):
            b = words[j]
            if a.family != b.family and box_iou(a.box, b.box) >= 0.5:
                drop.add(i if across(a) > across(b) else j)
    return [w for i, w in enumerate(words) if i not in drop]


def _index_shift(result: GraticuleResult) -> np.ndarray:
    from ..graticule.result import index_shift

    return index_shift(result)


def _line_extents(result: GraticuleResult, f: int, shift: int, ks: range, geo: dict
                  ) -> dict[int, tuple[float, float]]:
    """Positions along each line ``k`` of its first and last detected crossing (from
    ``geo[k]``'s point along its direction); a line with none takes its nearest
    neighbour's."""
    found = {}
    for k in ks:
        on = result.index[:, f] == k - shift
        if on.any():
            p0, d = geo[k]
            pos = (result.points[on] - p0) @ d
            found[k] = (float(pos.min()), float(pos.max()))
    out = {}
    for k in ks:
        near = min(found, key=lambda j: (abs(j - k), j)) if found else None
        out[k] = found.get(k, found[near] if near is not None else (0.0, 0.0))
    return out
