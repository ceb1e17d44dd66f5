"""Reading small old-style grid values by checking hypotheses instead of reading blind.

Engraved sheets such as Jacoubet's 1836 atlas of Paris print each grid line's value in tiny
old-style (Didot-like) figures just outside the frame, centred on the line, the line's tick
sometimes crossing a digit. Tesseract misreads them. When the grid spacing is known, the
values of one line family are ``(m0 + d * k) * step`` for line k (d = +1 or -1, m0 a whole
number), so only a bounded set of strings can be printed there: every multiple of the step
of 2 to :data:`MAX_DIGITS` figures. Each candidate word found where a line meets the frame
(both ends of the line, text upright with its top pointing out of the map or into it) is
compared with every such string rendered in a few fonts (EB Garamond, whose default figures
are old-style, and DejaVu Serif), each template stretched to the word's box, by normalized
cross-correlation (``cv2.matchTemplate``, a few pixels of shift allowed). A family's m0 and d
are those whose strings, summed over its lines, match best; the best must beat the second
best (another m0 or d) by :data:`MIN_MARGIN` correlation per line, else the family is left
unread and the reason is given. The readings returned go through :mod:`.label_fit` like
Tesseract's, so that the report lists every label and the words that disagree.

Pixel coordinates: x right, y down, full-resolution pixels (integer values at pixel centres).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..graticule.result import GraticuleResult
from ..imageio import ImageLike, read_image
from .grid_labels import index_shift
from .label_reader import (
    _FAMILIES,
    LabelReading,
    _ink,
    _line_extents,
    _line_geometry,
    _reduce_for,
    _root,
    _strip,
    parse_value,
)

#: Font files tried (old-style figures first); missing ones are skipped.
FONTS = (Path("/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf"),)
#: Longest value tried (figures) and most strings tried per family.
MAX_DIGITS = 5
MAX_STRINGS = 1200
#: Window searched around where a line meets the frame, in grid cells: across the line,
#: then along it outwards beyond the outermost crossing and inwards.
ACROSS = 0.07
OUTWARDS = 0.12
INWARDS = 0.03
#: Straight strokes longer than this (grid cells) are lines, not figures.
LONG_STROKE = 0.055
#: A word's best string must correlate at least this well to be reported as read.
MIN_NCC = 0.45
#: The winning sequence's mean correlation per line must beat the next one's by this much.
MIN_MARGIN = 0.03
#: Pixels of shift allowed between a word and a template stretched to its box.
SHIFT = 2
#: Font size (pixels) templates are rendered at before scaling.
RENDER_PX = 48
#: A string is tried on a word when its rendered width is within this fraction of the word's.
WIDTH_SLACK = 0.3
#: X-heights tried, as fractions of the sheet's median figure height.
XH_FRACTIONS = (0.85, 0.95, 1.05, 1.15)


@dataclass
class _Word:
    family: int
    line: int
    end: int
    box: tuple[int, int, int, int]       # full-resolution image pixels
    up: tuple[tuple[float, float], tuple[float, float]]   # top: out of the map, into it
    scores: np.ndarray                   # (2 orientations, strings) best correlation


@lru_cache(maxsize=8)
def _font(path: str) -> tuple[ImageFont.FreeTypeFont, float]:
    """The font at :data:`RENDER_PX` and its x-height there (pixels, the height of "0")."""
    f = ImageFont.truetype(path, RENDER_PX)
    box = f.getbbox("0")
    return f, float(box[3] - box[1])


@lru_cache(maxsize=4096)
def _rendered(text: str, font: str) -> np.ndarray:
    """``text`` rendered white on black at :data:`RENDER_PX`, cropped to its ink."""
    f, _ = _font(font)
    left, top, right, bottom = f.getbbox(text)
    im = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(im).text((2 - left, 2 - top), text, fill=255, font=f)
    a = np.asarray(im)
    ys, xs = np.nonzero(a > 40)
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)


@lru_cache(maxsize=65536)
def _template(text: str, font: str, xh4: int) -> np.ndarray:
    """``text`` at an x-height of ``xh4 / 4`` pixels."""
    a = _rendered(text, font)
    k = xh4 / 4.0 / _font(font)[1]
    size = (max(1, round(a.shape[1] * k)), max(1, round(a.shape[0] * k)))
    return cv2.resize(a, size, interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=16)
def _widths(strings: tuple[str, ...], font: str) -> np.ndarray:
    """Widths (pixels) of the strings rendered at :data:`RENDER_PX`."""
    return np.array([_rendered(s, font).shape[1] for s in strings], np.float64)


def candidate_strings(step: float) -> list[str]:
    """Every multiple of ``step`` (a whole number) printed with 2 to :data:`MAX_DIGITS`
    figures, smallest first; [] when ``step`` is not whole or gives too many."""
    if step < 1 or step != round(step):
        return []
    step = round(step)
    top = 10 ** MAX_DIGITS
    first = -(-10 // step)
    if (top - 1) // step - first + 1 > MAX_STRINGS:
        return []
    return [str(m * step) for m in range(first, (top - 1) // step + 1)]


def _match(region: np.ndarray, width: float, xhs: list[float], strings: list[str],
           fonts: list[str]) -> np.ndarray:
    """Best correlation of ``region`` (ink bright, a word of ``width`` pixels in its middle
    with margins) with each string rendered at each x-height of ``xhs`` (pixels); strings
    whose rendered width differs from ``width`` by more than :data:`WIDTH_SLACK` are not
    tried (-1)."""
    out = np.full((len(xhs), len(strings)), -1.0, np.float32)
    for font in fonts:
        xh0 = _font(font)[1]
        widths = _widths(tuple(strings), font)
        for j, xh in enumerate(xhs):
            near = np.flatnonzero(np.abs(widths * (xh / xh0) - width) <= WIDTH_SLACK * width)
            for i in near:
                t = _template(strings[i], font, round(4 * xh))
                if t.shape[0] > region.shape[0] or t.shape[1] > region.shape[1] \
                        or float(t.std()) == 0.0:
                    continue
                r = cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED)
                out[j, i] = max(out[j, i], float(r.max()))
    return out


def _figure_groups(ink: np.ndarray, max_h: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Boxes (x0, y0, x1, y1) and component heights of rows of figure-sized ink components
    (3 to ``max_h`` pixels): components whose rows overlap and whose gap is less than the
    taller one's height join (a tick removed with the line leaves such a gap in a number)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    size = np.maximum(stats[:, 2], stats[:, 3])
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
    parent = np.arange(len(keep))
    for i, j in zip(*np.nonzero(np.triu(join, 1)), strict=True):
        ri, rj = _root(parent, i), _root(parent, j)
        parent[max(ri, rj)] = min(ri, rj)
    roots = np.array([_root(parent, i) for i in range(len(keep))])
    return [(np.array([x0[roots == r].min(), y0[roots == r].min(), x1[roots == r].max(),
                       y1[roots == r].max()]), h[roots == r]) for r in np.unique(roots)]


def _find_words(gray: np.ndarray, result: GraticuleResult, reduce: int, strings: list[str],
                fonts: list[str]) -> list[_Word]:
    """Candidate words where each line (and one beyond each outermost line) meets the
    frame, both ends, scored against every string in both orientations."""
    fams = (result.columns, result.rows)
    shift = index_shift(result)
    found: list[tuple[_Word, np.ndarray, int, np.ndarray]] = []
    for f, fam in enumerate(fams):
        lines = fam.indices or tuple(sorted(set((result.index[:, f] + shift[f]).tolist())))
        if not lines:
            continue
        other = fams[1 - f]
        ks = range(min(lines) - 1, max(lines) + 2)
        geo = {k: _line_geometry(fam, k) for k in ks}
        extents = _line_extents(result, f, int(shift[f]), ks, {k: g[0] for k, g in geo.items()},
                                {k: g[1] for k, g in geo.items()})
        cell = min(fam.spacing_px, other.spacing_px) / reduce
        width = max(16, int(2 * ACROSS * cell))
        length = max(16, int((OUTWARDS + INWARDS) * cell))
        max_h = max(8, int(0.04 * cell))
        for k in ks:
            (p0, d), (lo, hi) = geo[k], extents[k]
            for end, pos in ((-1, lo), (1, hi)):
                out = d * end
                across = np.array([-out[1], out[0]])
                start = (p0 + d * pos - out * INWARDS * cell * reduce) / reduce
                if not (0 <= start[0] < gray.shape[1] and 0 <= start[1] < gray.shape[0]):
                    continue
                strip, m = _strip(gray, start, out, across, width, length)
                ink, dark = _ink(strip, max(12, int(LONG_STROKE * cell)))
                for box, heights in _figure_groups(ink, max_h):
                    x0, y0, x1, y1 = (int(v) for v in box)
                    bw, bh = x1 - x0, y1 - y0
                    if bw < 1.3 * bh or bh < 3 or abs((x0 + x1) / 2 - width / 2) > 0.5 * bw:
                        continue          # not a figure group centred on the line
                    mx, my = int(0.3 * bw) + SHIFT, int(0.6 * bh) + SHIFT
                    region = np.zeros((bh + 2 * my, bw + 2 * mx), np.float32)
                    ya, xa = max(0, y0 - my), max(0, x0 - mx)
                    cut = dark[ya:y1 + my, xa:x1 + mx]
                    region[ya - (y0 - my):ya - (y0 - my) + cut.shape[0],
                           xa - (x0 - mx):xa - (x0 - mx) + cut.shape[1]] = cut
                    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]],
                                       np.float64) @ m.T * reduce
                    ibox = (int(corners[:, 0].min()), int(corners[:, 1].min()),
                            int(np.ceil(corners[:, 0].max())), int(np.ceil(corners[:, 1].max())))
                    sy = m[:, 1]                  # the strip's down axis in the image
                    found.append((_Word(f, int(k), end, ibox,
                                        ((float(-sy[0]), float(-sy[1])),
                                         (float(sy[0]), float(sy[1]))), np.zeros(0)),
                                  region, bw, heights))
    if not found:
        return []
    # the labels of a sheet share one size: the commonest figure height is the x-height
    # (0, 1, 2 have neither ascender nor descender)
    xh = float(np.median(np.concatenate([hs for *_, hs in found])))
    xhs = [xh * q for q in XH_FRACTIONS]
    scores = [np.stack([_match(region, bw, xhs, strings, fonts),
                        _match(np.ascontiguousarray(region[::-1, ::-1]), bw, xhs, strings,
                               fonts)]).max(axis=1)
              for _, region, bw, _ in found]             # (orientation, string)
    words = []
    for (word, *_), sc in zip(found, scores, strict=True):
        word.scores = sc
        words.append(word)
    return words


def _best_sequence(words: list[_Word], n_strings: int) -> tuple[tuple[int, int] | None, str,
                                                               float]:
    """(m0, d) of the best sequence ``index = m0 + d * k`` into the strings, or None and
    why; and the margin (mean correlation per line over the second best)."""
    lines = sorted({w.line for w in words})
    if len(lines) < 2:
        return None, f"labels found on {len(lines)} line(s), 2 or more are needed", 0.0
    per_line = {k: np.max([w.scores.max(axis=0) for w in words if w.line == k], axis=0)
                for k in lines}
    pad = max(abs(k) for k in lines) + 1
    scored = []
    for d in (1, -1):
        for m0 in range(-pad, n_strings + pad):
            total, n = 0.0, 0
            for k in lines:
                i = m0 + d * k
                if 0 <= i < n_strings:
                    total += float(per_line[k][i])
                    n += 1
            if n >= 2:
                scored.append((total / len(lines), m0, d))
    if not scored:
        return None, "no sequence of values fits the lines", 0.0
    scored.sort(reverse=True)
    margin = scored[0][0] - scored[1][0] if len(scored) > 1 else scored[0][0]
    if margin < MIN_MARGIN:
        return None, (f"the old-style figures match two sequences almost equally (margin "
                      f"{margin:.3f} < {MIN_MARGIN})"), margin
    return (scored[0][1], scored[0][2]), "", margin


def verify_labels(image: ImageLike, result: GraticuleResult, spacing: float
                  ) -> tuple[list[LabelReading], list[str]]:
    """Read the labels as old-style figures by testing every sequence of multiples of
    ``spacing`` (grid-CRS units) against the words by the lines' ends.

    Returns:
        The readings (one per word that matches a string well enough: the string of its
        family's winning sequence when it agrees, else its own best string, which
        :mod:`.label_fit` then reports as disagreeing), and one note per family the
        figures do not determine (empty when both are).
    """
    strings = candidate_strings(spacing)
    fonts = [str(p) for p in FONTS if p.is_file()]
    if not strings or not fonts:
        why = ("no old-style font installed (Debian fonts-ebgaramond)" if strings else
               f"spacing {spacing:g} gives no bounded set of values")
        return [], [why]
    reduce = _reduce_for(result)
    gray = read_image(image, reduce=reduce, gray=True)
    words = _find_words(gray, result, reduce, strings, fonts)
    readings: list[LabelReading] = []
    notes = []
    for f, name in enumerate(_FAMILIES):
        fw = [w for w in words if w.family == f]
        seq, why, _ = _best_sequence(fw, len(strings))
        if seq is None:
            notes.append(f"{name}: {why}")
        for w in fw:
            free = int(np.argmax(w.scores.max(axis=0)))
            best = float(w.scores.max())
            i = None if seq is None else seq[0] + seq[1] * w.line
            if i is not None and 0 <= i < len(strings) and w.scores[:, i].max() >= MIN_NCC \
                    and w.scores[:, i].max() >= best - MIN_MARGIN:
                pick = i
            elif best >= MIN_NCC:
                pick = free
            else:
                continue
            o = int(np.argmax(w.scores[:, pick]))
            text = strings[pick]
            readings.append(LabelReading(name, w.line, w.end, w.box, text, parse_value(text),
                                         100.0 * float(w.scores[o, pick]), w.up[o],
                                         len(readings) + 1, 0 if o == 0 else 2))
    return readings, notes
