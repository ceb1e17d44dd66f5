"""Reading small old-style grid values by checking hypotheses instead of reading blind.

Engraved sheets such as Jacoubet's 1836 atlas of Paris print each grid line's value in tiny
old-style (Didot-like) figures just outside the frame, centred on the line, the line's tick
sometimes crossing a digit. Tesseract misreads them. When the grid spacing is known, the
values of one line family are ``(m0 + d * k) * step`` for line k (d = +1 or -1, m0 a whole
number), so only a bounded set of strings can be printed there: every multiple of the step
of 2 to :data:`MAX_DIGITS` figures. Each candidate word found where a line meets the frame
(both ends of the line, text upright with its top pointing out of the map or into it) is
scored against every such string, in both orientations, by the learned figure reader
(:mod:`.digit_net`: the probability of the string). A family's m0 and d are those whose
strings, summed over its lines, score best; the best must beat the second best (another m0
or d) by :data:`MIN_MARGIN` (one label's worth), else Tesseract's readings of the family's
words (several cuttings and sizes) are added, a string scoring 0.5 to the power of its edit
distance to the nearest reading, and the check is made again; a family still undetermined
is left unread and the reason is given. The readings returned go through
:mod:`.label_fit` like Tesseract's, so that the report lists every label and the words
that disagree.

Pixel coordinates: x right, y down, full-resolution pixels (integer values at pixel centres).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy import ndimage

from ..errors import option
from ..graticule.result import GraticuleResult
from ..imageio import ImageLike
from ..metrics.chart.strings import levenshtein
from .digit_net import net_input, read_logits, string_probabilities
from .grid_labels import Labelling, index_shift
from .label_fit import (
    MIN_LINES,
    LabelsUnreadableError,
    ask_anchor,
    family_reasons,
    label_records,
    labelling_from_readings,
)
from .label_inside import read_inside_labels
from .label_reader import (
    _FAMILIES,
    BEYOND_CELLS,
    MAX_EXTRA_CELLS,
    LabelReading,
    _line_extents,
    finer_gray,
    parse_value,
    read_labels,
    read_words,
    sheet_gray,
    tesseract_started,
)
from .label_words import (
    box_iou,
    cut_strip,
    group_boxes,
    line_geometry,
    linked_groups,
    map_strips,
    strip_box_in_image,
    strip_ink,
)

#: Longest value tried (figures) and most strings tried per family.
MAX_DIGITS = 5
MAX_STRINGS = 1200
#: Window searched around where a line meets the frame, in grid cells: across the line,
#: then along it outwards beyond the outermost crossing and inwards.
ACROSS = 0.07
OUTWARDS = 0.12
INWARDS = 0.03
#: Ink darker than this (0-255, 255 = the strip's darkest ink) may be a faint figure.
FAINT_INK = 60
#: A line ends where its last run of ink at least this long (grid cells) ends; gaps up to
#: :data:`LINE_GAP` (grid cells: the line hidden under a block or hatching by the frame)
#: do not break a run.
LINE_RUN = 0.04
LINE_GAP = 0.25
#: Straight strokes longer than this (grid cells) are lines, not figures.
LONG_STROKE = 0.055
#: A word is reported as read when its reading agrees this well with a candidate string.
MIN_AGREE = 0.5
#: A word of a determined family reads its line's value when that value scores at least
#: this (the figure reader's probability or Tesseract's agreement) and this share of the
#: word's best string; else it is reported as its best string (left out by the fit).
MIN_SUPPORT = 0.01
SUPPORT_SHARE = 0.5
#: The winning sequence's agreement (in labels read exactly) must beat the next one's by
#: this much.
MIN_MARGIN = 1.0
#: How each word is shown to Tesseract (both orientations): x-height it is scaled to
#: (pixels) and whether it is binarized (Otsu); its figures are misread differently each
#: way, and a string agrees as well as its best reading.
OCR_VARIANTS = ((16, False), (22, False), (16, True), (24, True))
#: A side of the frame is read one way up only when the figure reader's agreement summed
#: over its words that way is at least the first (labels' worth) and the other way's at
#: most the second times it.
ONE_WAY_UP = (0.5, 0.5)


@dataclass
class _Word:
    family: int
    line: int
    end: int
    box: tuple[int, int, int, int]       # full-resolution image pixels
    up: tuple[tuple[float, float], tuple[float, float]]   # top: out of the map, into it
    scores: np.ndarray                   # (2 orientations, strings) agreement
    crops: list[np.ndarray] = field(default_factory=list)   # cuttings shown to Tesseract


def _similarity(text: str, strings: list[str]) -> np.ndarray:
    """How well a reading agrees with each string: 1 when equal, halved by each edit
    (insertion, deletion, substitution); 0 for an empty reading."""
    text = text.lstrip("-")
    if not text:
        return np.zeros(len(strings))
    return np.array([0.5 ** levenshtein(text, s) for s in strings])


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
    _, order, starts = linked_groups(join)
    boxes = group_boxes(np.stack([x0, y0, x1, y1], axis=1), order, starts)
    return list(zip(boxes, np.split(h[order], starts[1:]), strict=True))


def _crop(dark: np.ndarray, box: np.ndarray) -> np.ndarray:
    """A word's darkness with a margin (half its height above and below, a third on each
    side)."""
    x0, y0, x1, y1 = (int(v) for v in box)
    my, mx = max(2, (y1 - y0) // 2), max(2, (y1 - y0) // 3)
    return dark[max(0, y0 - my):y1 + my, max(0, x0 - mx):x1 + mx]


def _centred(groups: list[tuple[np.ndarray, np.ndarray]], width: int
             ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The groups that may be a number written across the line up the middle of a strip
    ``width`` pixels wide: wider than tall, centred on the line."""
    return [(b, h) for b, h in groups
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


def _words_at_end(gray: np.ndarray, reduce: int, f: int, k: int, end: int, start: np.ndarray,
                  out: np.ndarray, cell: float, width: int, length: int, max_h: int, far: int
                  ) -> list[tuple[_Word, list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]]:
    """The candidate words where line ``k`` of family ``f`` meets the frame at ``end``
    (strip origin ``start`` in ``gray`` pixels, ``out`` pointing out of the map, searched
    up to ``far`` pixels out): (word, its cuttings, its figures' heights, the strip's
    darkness, its box in the strip) each."""
    across = np.array([-out[1], out[0]])
    # (a line hidden under a block by the frame ends there only when its gaps are
    # bridged: both ends are searched when they differ)
    line = cut_strip(gray, start, out, across, width, far)[0]
    stops = {_line_end(line, int(LINE_RUN * cell), g) for g in (0, int(LINE_GAP * cell))}
    if max(stops) - min(stops) < OUTWARDS / 2 * cell:
        stops = {min(stops)}
    words_here: list[tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray,
                           np.ndarray]] = []
    for stop in sorted(stops):
        here = start
        if stop > (INWARDS + OUTWARDS / 2) * cell:
            here = start + out * (stop - INWARDS * cell)
        strip, m = cut_strip(gray, here, out, across, width, length)
        ink, dark = strip_ink(strip, max(12, int(LONG_STROKE * cell)))
        # figures as the line's own contrast shows them, and as faint ink (thin engraved
        # figures are paler than the lines): one word, several cuttings
        faint = (dark > FAINT_INK).astype(np.uint8) * 255
        words_stop: list[tuple[np.ndarray, list[np.ndarray], np.ndarray]] = []
        for binary in (ink, faint):
            for box, heights in _centred(_figure_groups(binary, max_h), width):
                crop = _crop(dark, box)
                same = [w for w in words_stop if box_iou(tuple(w[0]), tuple(box)) > 0.5]
                if same:
                    if not any(c.shape == crop.shape and np.array_equal(c, crop)
                               for c in same[0][1]):
                        same[0][1].append(crop)   # (the same cut reads alike)
                else:
                    words_stop.append((box, [crop], heights))
        # (the figures' size is measured on the first window's words: the second one
        # looks into the map)
        words_here += [(b, c, h if stop == min(stops) else h[:0], m, dark)
                       for b, c, h in words_stop]
    found: list[tuple[_Word, list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]] = []
    for box, crops, heights, m, dark in words_here:
        ibox = strip_box_in_image(box, m, reduce)
        if any(box_iou(ibox, w.box) > 0.5 for w, *_ in found):
            continue                  # found from both windows
        sy = m[:, 1]                  # the strip's down axis in the image
        found.append((_Word(f, k, end, ibox, ((float(-sy[0]), float(-sy[1])),
                                               (float(sy[0]), float(sy[1]))), np.zeros(0)),
                      crops, heights, dark, box))
    return found


def _find_words(gray: np.ndarray, result: GraticuleResult, reduce: int, strings: list[str]
                ) -> tuple[list[_Word], float]:
    """Candidate words where each line (and one beyond each outermost line) meets the
    frame, both ends, scored against every string in both orientations by the figure
    reader (:mod:`.digit_net`: the probability of each string); and the figures'
    x-height (pixels of ``gray``)."""
    fams = (result.columns, result.rows)
    shift = index_shift(result)
    ends = []       # (f, k, end, strip origin, out, cell, width, length, max height, reach)
    for f, fam in enumerate(fams):
        lines = fam.indices or tuple(sorted(set((result.index[:, f] + shift[f]).tolist())))
        if not lines:
            continue
        other = fams[1 - f]
        ks = range(min(lines) - 1, max(lines) + 2)
        geo = {k: line_geometry(fam, k) for k in ks}
        extents = _line_extents(result, f, int(shift[f]), ks, {k: g[0] for k, g in geo.items()},
                                {k: g[1] for k, g in geo.items()})
        cell = min(fam.spacing_px, other.spacing_px) / reduce
        width = max(16, int(2 * ACROSS * cell))
        length = max(16, int((OUTWARDS + INWARDS) * cell))
        max_h = max(8, int(0.04 * cell))
        g_lo = min(e[0] for e in extents.values())
        g_hi = max(e[1] for e in extents.values())
        for k in ks:
            (p0, d), (lo, hi) = geo[k], extents[k]
            for end, pos, extra in ((-1, lo, lo - g_lo), (1, hi, g_hi - hi)):
                out = d * end
                start = (p0 + d * pos - out * INWARDS * cell * reduce) / reduce
                if not (0 <= start[0] < gray.shape[1] and 0 <= start[1] < gray.shape[0]):
                    continue
                # the frame the labels stand by is where the line ends: at its outermost
                # crossing on sheets whose frame is a grid line (Jacoubet), else beyond it
                # (up to BEYOND_CELLS, further when the line is crossed short of the others)
                far = int((BEYOND_CELLS + INWARDS) * cell
                          + min(extra / reduce, MAX_EXTRA_CELLS * cell))
                ends.append((f, int(k), end, start, out, cell, width, length, max_h, far))
    found = map_strips(lambda e: _words_at_end(gray, reduce, *e), ends)
    if not found:
        return [], 0.0
    # the labels of a sheet share one size: the commonest figure height is the x-height
    # (0, 1, 2 have neither ascender nor descender); words are read at a few sizes of it
    heights = np.concatenate([hs for _, _, hs, *_ in found])
    xh = float(np.median(heights)) if len(heights) else float(max_h) / 2
    crops = [_net_crop(dark, box, xh) for *_, dark, box in found]
    inputs = np.stack([net_input(np.ascontiguousarray(c if o == 0 else c[::-1, ::-1]))
                       for c in crops for o in (0, 1)])
    scores = string_probabilities(read_logits(inputs), strings).reshape(len(found), 2, -1)
    words = []
    for (word, cuttings, *_), sc in zip(found, scores, strict=True):
        word.scores, word.crops = sc, cuttings
        words.append(word)
    return words, xh


def _net_crop(dark: np.ndarray, box: np.ndarray, xh: float) -> np.ndarray:
    """A word's darkness cut for :mod:`.digit_net`: centred on its box, 2.2 times as high
    as the box or 1.5 x-heights (old-style figures rise above and fall below the box of
    their 0s), 0.4 of that height beyond each side."""
    x0, y0, x1, y1 = (float(v) for v in box)
    h = max(y1 - y0, 1.5 * xh)
    cy = (y0 + y1) / 2
    a, b = max(0, int(cy - 1.1 * h)), int(np.ceil(cy + 1.1 * h))
    c, d = max(0, int(x0 - 0.4 * h)), int(np.ceil(x1 + 0.4 * h))
    return dark[a:b, c:d]


def _add_tesseract(words: list[_Word], xh: float, strings: list[str]) -> None:
    """Raise each word's scores to how well Tesseract's readings of it (every cutting,
    :data:`OCR_VARIANTS`, in the orientations :func:`_orientations_to_read` leaves; one
    Tesseract run) agree with each string."""
    patches, owner = [], []
    ways = _orientations_to_read(words)
    for i, word in enumerate(words):
        for crop in word.crops:
            for o, turned in enumerate((crop, crop[::-1, ::-1])):
                if o not in ways[word.family, word.end]:
                    continue
                for x_px, binary in OCR_VARIANTS:
                    k = x_px / xh
                    p = cv2.resize(np.ascontiguousarray(turned), None, fx=k, fy=k,
                                   interpolation=cv2.INTER_CUBIC)
                    if binary:
                        p = cv2.threshold(p, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1]
                    patches.append(p)
                    owner.append((i, o))
    for (i, o), (text, _) in zip(owner, read_words(patches), strict=True):
        words[i].scores[o] = np.maximum(words[i].scores[o], _similarity(text, strings))


def _orientations_to_read(words: list[_Word]) -> dict[tuple[int, int], tuple[int, ...]]:
    """The orientations (0: as cut, 1: turned half a turn) worth showing Tesseract, per
    family and end: the labels along one side of the frame are all printed the same way
    up, so a side whose words the figure reader finds far likelier one way up
    (:data:`ONE_WAY_UP`) is read that way only (this halves Tesseract's second reading);
    else both."""
    totals: dict[tuple[int, int], np.ndarray] = {}
    for w in words:
        key = (w.family, w.end)
        totals[key] = totals.get(key, np.zeros(2)) + w.scores.max(axis=1)
    ways = {}
    for key, t in totals.items():
        o = int(np.argmax(t))
        one = t[o] >= ONE_WAY_UP[0] and t[1 - o] <= ONE_WAY_UP[1] * t[o]
        ways[key] = (o,) if one else (0, 1)
    return ways


def _best_sequence(words: list[_Word], n_strings: int
                   ) -> tuple[tuple[int, int] | None, str, float]:
    """(m0, d) of the best sequence ``index = m0 + d * k`` into the strings, or None and
    why; and its margin: its total agreement (summed over the words, in labels read
    exactly) less the next best sequence's."""
    lines = sorted({w.line for w in words})
    if len(lines) < 2:
        return None, f"labels found on {len(lines)} line(s), 2 or more are needed", 0.0
    pad = max(abs(k) for k in lines) + 1
    # agreement of each line's words with every string, padded so that any index of
    # m0 + d * k (m0 in -pad .. n + pad) falls inside (0 outside the strings)
    per_line = np.zeros((len(lines), n_strings + 4 * pad))
    for row, k in enumerate(lines):
        per_line[row, 2 * pad:2 * pad + n_strings] = np.sum(
            [w.scores.max(axis=0) for w in words if w.line == k], axis=0)
    m0 = np.arange(-pad, n_strings + pad)
    totals, keys = [], []
    for d in (1, -1):
        idx = m0[:, None] + d * np.array(lines)[None, :] + 2 * pad
        totals.append(per_line[np.arange(len(lines))[None, :], idx].sum(axis=1))
        keys += [(int(m), d) for m in m0]
    total = np.concatenate(totals)
    order = np.argsort(-total, kind="stable")
    best, second = float(total[order[0]]), float(total[order[1]])
    if best < MIN_MARGIN:
        return None, (f"the figures read match no sequence of values (at best "
                      f"{best:.2f} labels' worth)"), best - second
    if best - second < MIN_MARGIN:
        return None, (f"two sequences of values agree almost equally with the figures read "
                      f"({best:.2f} and {second:.2f} labels' worth)"), best - second
    return keys[order[0]], "", best - second


def verify_labels(image: ImageLike, result: GraticuleResult, spacing: float,
                  gray: tuple[np.ndarray, int] | None = None
                  ) -> tuple[list[LabelReading], list[tuple[str, str]]]:
    """Read the labels as old-style figures by testing every sequence of multiples of
    ``spacing`` (grid-CRS units) against the words by the lines' ends (``gray``: the sheet
    as :func:`.label_reader.sheet_gray` gives it, if already read).

    Returns:
        The readings (one per word that matches a string well enough: the string of its
        family's winning sequence when it agrees, else its own best string, which
        :mod:`.label_fit` then reports as disagreeing), and one note per family the
        figures do not determine, as (family, why) (empty when both are; family "" for
        both, when no value can be checked).
    """
    strings = candidate_strings(spacing)
    if not strings:
        return [], [("", f"spacing {spacing:g} gives no bounded set of values to check")]
    gray, reduce = gray or sheet_gray(image, result)
    words, xh = _find_words(gray, result, reduce, strings)
    fams = [[w for w in words if w.family == f] for f in range(2)]
    seqs = [_best_sequence(fw, len(strings))[:2] for fw in fams]
    # a family the figure reader leaves undetermined: Tesseract's readings added
    again = [f for f in range(2) if seqs[f][0] is None and fams[f]]
    if again:
        _add_tesseract([w for f in again for w in fams[f]], xh, strings)
        for f in again:
            seqs[f] = _best_sequence(fams[f], len(strings))[:2]
    readings: list[LabelReading] = []
    notes = []
    for f, name in enumerate(_FAMILIES):
        seq, why = seqs[f]
        if seq is None:
            notes.append((name, why))
        for w in fams[f]:
            free = int(np.argmax(w.scores.max(axis=0)))
            best = float(w.scores.max())
            i = None if seq is None else seq[0] + seq[1] * w.line
            if i is not None and 0 <= i < len(strings) \
                    and w.scores[:, i].max() >= max(MIN_SUPPORT, SUPPORT_SHARE * best):
                pick = i
            elif best >= MIN_AGREE:
                pick = free
            else:
                continue
            o = int(np.argmax(w.scores[:, pick]))
            text = strings[pick]
            readings.append(LabelReading(name, w.line, w.end, w.box, text, parse_value(text),
                                         100.0 * float(w.scores[o, pick]), w.up[o],
                                         len(readings) + 1, 0 if o == 0 else 2))
    return readings, notes


def labelling_from_labels(image: ImageLike, result: GraticuleResult, spacing: float | None
                          ) -> Labelling:
    """The labelling of the detected grid from the values printed on the sheet: read by
    Tesseract by the frame (:func:`.label_reader.read_labels`); when those readings do not
    determine the grid and ``spacing`` (grid-CRS units) is known, by checking every
    sequence of its multiples against the small figures by the frame
    (:func:`verify_labels`); when that does not either, or without ``spacing``, from the
    values printed along the lines inside the map (:func:`.label_inside.read_inside_labels`).
    When none names the grid and the words of the first reading are small at the
    resolution chosen from the grid cell, every reading is made again at twice that
    resolution (:func:`.label_reader.finer_gray`).

    Raises :class:`.label_fit.LabelsUnreadableError` (asking for --anchor) when none
    determines the grid; its labels are those of every reading that ran."""
    with tesseract_started() as started:    # Tesseract loads while the sheet is decoded
        gray = sheet_gray(image, result)            # read once for every reading
        first = read_labels(image, result, gray, started)

    def read_again(finer: tuple[np.ndarray, int]) -> Labelling:
        """Every reading again on ``finer`` (small words on a sheet of large cells)."""
        return _every_reading(image, result, spacing, finer, read_labels(image, result, finer))

    inside: list[LabelReading] = []
    try:
        named = _every_reading(image, result, spacing, gray, first, inside)
    except LabelsUnreadableError:
        # small words by the frame, or small values along the lines (sheets that print
        # none by the frame: the words by the frame are then the map's)
        finer = finer_gray(image, result, gray, first) or finer_gray(image, result, gray,
                                                                     inside, figures=True)
        if finer is None:
            raise
        return read_again(finer)
    if _fewest_lines(named) >= MIN_LINES:
        return named
    # a family named from two lines only: small words are read again at twice the
    # resolution, and that naming is kept when it rests on more lines
    finer = finer_gray(image, result, gray, first)
    if finer is None:
        return named
    try:
        again = read_again(finer)
    except LabelsUnreadableError:
        return named
    return again if _fewest_lines(again) > _fewest_lines(named) else named


def _fewest_lines(labelling: Labelling) -> int:
    """The fewest lines of one family whose labels the naming used."""
    return min(len({r["line"] for r in labelling.labels if r["used"] and r["family"] == fam})
               for fam in _FAMILIES)


def _every_reading(image: ImageLike, result: GraticuleResult, spacing: float | None,
                   gray: tuple[np.ndarray, int], first: list[LabelReading],
                   inside: list[LabelReading] | None = None) -> Labelling:
    """The labelling from Tesseract's first reading by the frame (``first``), else from
    the old-style check, else from the values inside the map (their readings added to
    ``inside`` when given), all on ``gray`` (the sheet as
    :func:`.label_reader.sheet_gray` gives it); raises the error of all three."""
    try:
        return labelling_from_readings(result, first, spacing)[0]
    except LabelsUnreadableError as failed:
        error = failed
    if spacing is not None:
        checked, notes = verify_labels(image, result, spacing, gray)
        why, labels = family_reasons(notes), label_records(checked, [None, None])
        if not notes:
            try:
                labelling = labelling_from_readings(result, checked, spacing)[0]
            except LabelsUnreadableError as second:
                why, labels = second.reason, second.labels
            else:
                labelling.warnings.insert(
                    0, "the grid labels were read by checking every sequence of multiples of "
                       f"{spacing:g} against the small figures by the frame (old-style "
                       "figures): check the labelling")
                return labelling
        # figures matched on two lines or more that fit no sequence: maybe a wrong spacing
        lines = max(len({r.line for r in checked if r.family == f}) for f in _FAMILIES)
        ask = " (is that the grid's spacing?)" if lines >= 2 else ""
        error = LabelsUnreadableError(
            f"{error.reason}; checking the sequences of multiples of {option('spacing')} "
            f"{spacing:g} against the small figures by the frame{ask}: {why}",
            error.labels + labels, field="anchor")
    along = read_inside_labels(image, result, gray)
    if inside is not None:
        inside += along
    try:
        labelling = labelling_from_readings(result, along, spacing)[0]
    except LabelsUnreadableError as third:
        raise LabelsUnreadableError(
            f"{error.reason}; along the lines inside the map: {third.detail}",
            error.labels + third.labels, request=ask_anchor(), field="anchor") from None
    labelling.warnings.insert(0, "the grid labels were read inside the map, along the grid "
                                 "lines (none by the frame named the grid): check the "
                                 "labelling")
    return labelling
