"""Finding and reading the grid values printed inside the map, along the grid lines.

Many maps print a grid line's value on the map itself, beside or on the line (often in a
small white halo), turned with the line (eastings along the vertical line reading upwards,
or upright across it; northings along the horizontal line, upright), at one or a few places
per line; the margins may then carry nothing. For every detected line (and one beyond each
outermost line) a strip is cut from the sheet following the line across the detected grid
and up to a cell beyond it, :data:`ACROSS_CELLS` of a cell either side, turned so that the
line runs up its middle.
The line and other long strokes are removed, the remaining ink is grouped into words
(:func:`.label_words.strip_ink`, :func:`.label_words.find_words`), and the words that sit on or
beside the line, running along it or standing across it, in the emptiest surroundings
(:func:`.label_words.word_emptiness`; among equals the tallest; at most
:data:`WORDS_PER_LINE` a line) are read by
Tesseract with the margin labels' reader (all words of the sheet in one process, figures
only). A word
found by lines of both families (by a crossing) belongs to the line it runs along. The
readings carry ``inside`` True and go through :mod:`.label_fit` like the margin labels'.

Pixel coordinates: x right, y down, full-resolution pixels (integer values at pixel centres).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..graticule.result import GraticuleResult, LineFamily
from ..imageio import ImageLike
from .grid_labels import index_shift
from .label_reader import LabelReading, read_jobs, sheet_gray, word_job
from .label_words import (
    box_iou,
    cut_strip,
    find_words,
    line_geometry,
    map_strips,
    strip_ink,
    word_emptiness,
)

#: Cells searched either side of a line for its value.
ACROSS_CELLS = 0.12
#: A word stands by its line when within this many times its height of it.
REACH = 1.5
#: Emptiness is measured in a ring this many times a word's height around it (a halo).
RING = 0.4
#: Share of a word's characters at the full height for it to be read as figures first.
SAME_HEIGHT = 0.75
#: Emptiness within this share of ink counts as equal (the taller word first).
EMPTY_STEP = 0.01
#: Words read per line (words of figures, then the emptiest surroundings, first).
WORDS_PER_LINE = 4
#: Characters closer than this share of their size join one word (less than by the frame:
#: the map's ink comes close to a value's halo; grouped figures still join, by their
#: height).
JOIN = 0.25
#: Most characters of a value (``-6862000`` and two spaces).
MAX_CHARS = 10
#: Smallest height of a grid value's figures, pixels of the sheet as read.
MIN_HEIGHT = 6
#: What Tesseract may read inside the map: figures, minus and space (no unit: a figure
#: misread as k would be kept out of the number).
FIGURES = "0123456789- "
#: Margin kept around a word cut out for Tesseract: this share of its height, at least
#: KEEP_PX pixels.
KEEP = 0.15
KEEP_PX = 2
#: Cells followed beyond the other family's outermost detected lines.
BEYOND_CELLS = 1.0


def read_inside_labels(image: ImageLike, result: GraticuleResult,
                       gray: tuple[np.ndarray, int] | None = None) -> list[LabelReading]:
    """Find and read the grid values printed along every grid line inside the map.

    Every detected line and one beyond each outermost line of its family is followed from
    :data:`BEYOND_CELLS` before the other family's first detected line to as far beyond
    its last (within the sheet).

    Args:
        image: the sheet (path or array) the detection ran on.
        result: the detected graticule (line families, crossings and their indices).
        gray: the sheet as :func:`.label_reader.sheet_gray` gives it, if already read.

    Returns:
        Every reading (up to two per word: upright and upside down), ``end`` 0 and
        ``inside`` True, boxes in full-resolution pixels.
    """
    gray, reduce = gray or sheet_gray(image, result)
    fams = (result.columns, result.rows)
    shift = index_shift(result)
    lines = [sorted(set((result.index[:, f] + shift[f]).tolist())) for f in range(2)]
    if not all(lines):
        return []
    lines_cut = []    # (f, k, strip origin, direction, length, strip width, cell, max height)
    for f, fam in enumerate(fams):
        other = fams[1 - f]
        cell = min(fam.spacing_px, other.spacing_px) / reduce
        width = max(16, int(2 * ACROSS_CELLS * cell))
        max_h = max(12, int(0.09 * cell))
        for k in range(lines[f][0] - 1, lines[f][-1] + 2):
            p0, d = line_geometry(fam, k)
            ends = [_crossing(fam, k, other, j) for j in (lines[1 - f][0], lines[1 - f][-1])]
            lo, hi = sorted(float((e - p0) @ d) for e in ends)
            lo, hi = _within(p0, d, lo - BEYOND_CELLS * other.spacing_px,
                             hi + BEYOND_CELLS * other.spacing_px,
                             (gray.shape[1] * reduce, gray.shape[0] * reduce))
            if hi - lo < 0.5 * other.spacing_px:
                continue                    # the line runs off the sheet
            lines_cut.append((f, k, (p0 + d * lo) / reduce, d, int((hi - lo) / reduce), width,
                              cell, max_h))

    def words_along(task: tuple) -> list[tuple[tuple, bool, float]]:
        f, k, start, d, length, width, cell, max_h = task
        strip, m = cut_strip(gray, start, d, np.array([-d[1], d[0]]), width, length)
        # (not mended: values stand apart from the line, in a halo, and the line crosses
        # the map's strokes all along, which mending would join across it)
        ink, dark = strip_ink(strip, int(max(3 * max_h, 0.06 * cell)), mend=False)
        words = [w for w in find_words(ink, 5, max_h, JOIN) if _number_like(w)]
        # words of figures (characters of one height) first, then the emptiest
        # surroundings (a halo), then the tallest (map text is smaller)
        scored = sorted(word_emptiness(words, ink, width, REACH, RING),
                        key=lambda s: (not _one_height(ink, s[1]), round(s[0] / EMPTY_STEP),
                                       -min(s[1][2] - s[1][0], s[1][3] - s[1][1])))
        found = []   # (job, runs along its line, across)
        for _, box, _, main in scored[:WORDS_PER_LINE]:
            job = word_job(*_alone(dark, main, m), reduce, f, k, 0, 0)
            along = (box[3] - box[1]) > (box[2] - box[0])
            across = abs((box[0] + box[2]) / 2 - width / 2) / cell
            found.append((job, along, across))
        return found

    found = map_strips(words_along, lines_cut)
    jobs = []
    for job, *_ in _family_it_runs_along(found):
        for r in job[1]:
            r.word, r.inside = len(jobs) + 1, True
        jobs.append(job)
    return read_jobs(jobs, FIGURES)


def _alone(dark: np.ndarray, box: np.ndarray, m: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The word in ``box`` of a strip's darkness on blank paper (the map around it
    cleared), as (darkness, box, strip -> image map) for :func:`.label_reader.word_job`."""
    x0, y0, x1, y1 = (int(v) for v in box)
    pad = max(2, min(x1 - x0, y1 - y0) // 2)
    out = np.zeros((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), dark.dtype)
    # the box and a margin (its edge pixels may lie just outside it) are kept
    keep = max(KEEP_PX, round(KEEP * min(x1 - x0, y1 - y0)))
    a0, b0 = max(0, x0 - keep), max(0, y0 - keep)
    a1, b1 = min(dark.shape[1], x1 + keep), min(dark.shape[0], y1 + keep)
    out[pad + b0 - y0:pad + b1 - y0, pad + a0 - x0:pad + a1 - x0] = dark[b0:b1, a0:a1]
    shifted = m.copy()
    shifted[:, 2] += m[:, 0] * (x0 - pad) + m[:, 1] * (y0 - pad)
    return out, np.asarray(box, np.float64) - [x0 - pad, y0 - pad, x0 - pad, y0 - pad], shifted


def _one_height(ink: np.ndarray, box: np.ndarray) -> bool:
    """Whether the characters in ``box`` of a strip's ink share one height across the
    word, as figures do (lower-case words mix x-height letters with ascenders): at least
    :data:`SAME_HEIGHT` of them reach 0.8 of the tallest."""
    x0, y0, x1, y1 = (int(v) for v in box)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink[y0:y1 + 1, x0:x1 + 1], connectivity=8)
    along_y = (y1 - y0) > (x1 - x0)                # the word runs up the strip
    tall = stats[1:, cv2.CC_STAT_WIDTH if along_y else cv2.CC_STAT_HEIGHT]
    long = stats[1:, cv2.CC_STAT_HEIGHT if along_y else cv2.CC_STAT_WIDTH]
    tall = tall[np.maximum(tall, long) >= 3]
    return len(tall) >= 2 and float(np.mean(tall >= 0.8 * tall.max())) >= SAME_HEIGHT


def _number_like(word: tuple[np.ndarray, int, np.ndarray]) -> bool:
    """A word that may be a grid value: 2 to :data:`MAX_CHARS` characters, at least
    :data:`MIN_HEIGHT` pixels high, longer than high."""
    box, chars, _ = word
    short, long = sorted((box[2] - box[0], box[3] - box[1]))
    return 2 <= chars <= MAX_CHARS and short >= MIN_HEIGHT and long >= 1.3 * short


def _crossing(fam: LineFamily, k: int, other: LineFamily, j: int) -> np.ndarray:
    """Where line ``k`` of ``fam`` meets line ``j`` of ``other`` (full-resolution pixels)."""
    normals = np.radians([fam.normal_angle_deg, other.normal_angle_deg])
    a = np.column_stack([np.cos(normals), np.sin(normals)])
    return np.linalg.solve(a, np.array([fam.line_position(k), other.line_position(j)]))


def _within(p0: np.ndarray, d: np.ndarray, lo: float, hi: float, size: tuple[float, float]
            ) -> tuple[float, float]:
    """The part [lo, hi] of the line ``p0 + t d`` (t in pixels) inside an image of
    ``size`` (width, height) pixels; empty (hi <= lo) when none."""
    for axis in (0, 1):
        if abs(d[axis]) < 1e-9:
            if not 0 <= p0[axis] <= size[axis] - 1:
                return 0.0, 0.0
            continue
        t0, t1 = sorted(((0 - p0[axis]) / d[axis], (size[axis] - 1 - p0[axis]) / d[axis]))
        lo, hi = max(lo, t0), min(hi, t1)
    return lo, hi


def _family_it_runs_along(found: list[tuple[tuple, bool, float]]) -> list[tuple]:
    """Of a word found by lines of both families (by a crossing), keep the finding of the
    line it runs along; when it runs along both or neither, the line it is nearer across
    (in cells)."""
    drop = set()
    for i, (a, a_along, a_across) in enumerate(found):
        for j in range(i + 1, len(found)):
            b, b_along, b_across = found[j]
            ra, rb = a[1][0], b[1][0]
            if ra.family == rb.family or box_iou(ra.box, rb.box) < 0.5:
                continue
            keep_a = a_along if a_along != b_along else a_across <= b_across
            drop.add(j if keep_a else i)
    return [x for i, x in enumerate(found) if i not in drop]

