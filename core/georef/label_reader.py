"""Finding and reading the grid values printed where each grid line meets the map frame.

For every detected grid line (and one beyond each outermost line, an outer line the
detection may have missed) and each of its two ends, a strip is cut from the sheet along the
line: from just inside its outermost detected crossing to about 1.25 grid cells beyond it
(further when the line is crossed short of the others), 0.3 cell either side of the line,
turned so that the line is vertical and the outside is up. Long straight strokes (the line
itself, the frame) are removed, the remaining ink is split into character-sized connected
components, grouped into words, and the few words that sit on the line in the emptiest
surroundings (margin labels stand on blank paper, map text among streets) are read by
Tesseract 5 (figures only, one word per image, all words of the sheet in one run), both
the way text stands on a north-up sheet and half a turn round. Every reading is returned;
:mod:`.label_fit` decides which agree. Strips and words: :mod:`.label_words`.

Pixel coordinates: x right, y down, in pixels of the full-resolution image (integer values
at pixel centres, like detection).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from ..cores import usable_cores
from ..errors import InputError, option
from ..graticule.result import GraticuleResult, LineFamily
from ..imageio import ImageLike, read_image
from .grid_labels import index_shift
from .label_words import (
    box_iou,
    cut_strip,
    find_words,
    line_geometry,
    map_strips,
    strip_box_in_image,
    strip_ink,
    word_emptiness,
)

#: Cells either side of a line searched for its label, and how far beyond the outermost
#: crossing (cells); a little inside it too (labels of frame lines sit right on the frame).
ACROSS_CELLS = 0.3
BEYOND_CELLS = 1.25
INSIDE_CELLS = 0.06
#: A line whose crossings stop short of the other lines' searches up to this much further.
MAX_EXTRA_CELLS = 2.0
#: Words read per line end (the emptiest surroundings first).
WORDS_PER_END = 3
#: Longest word read, in its heights (``-6 862 000 m`` is about 8).
LONGEST_WORD = 15
#: The sheet is read at 1/reduce of its size with reduce the largest of 1, 2, 4 that keeps
#: a grid cell at least this many pixels.
MIN_CELL_PX = 700
#: The characters Tesseract may read in a label by the frame.
LABEL_CHARS = "0123456789-km "
#: When the first reading names nothing and the words it found are smaller than this (median
#: height, pixels of the sheet as read), every reading is made again at twice the
#: resolution, if a grid cell stays at most MAX_FINER_CELL_PX pixels there.
MIN_WORD_PX = 12
MAX_FINER_CELL_PX = 2000
#: Character height (pixels) Tesseract is given.
OCR_HEIGHT = 36
#: Tesseract processes run at once (at most the cores), each given at least this many
#: words.
TESSERACT_PROCESSES = min(4, usable_cores())
WORDS_PER_PROCESS = 16
#: A Tesseract process still reading after this many seconds to start and per word image
#: (about 100 times what it takes) is stopped: the word it was reading stays unread.
TESSERACT_START_S = 10.0
TESSERACT_WORD_S = 0.5
#: A number as printed: no leading zero (upside-down figures read as "000 ..." are not),
#: maybe followed by its unit (``652 km``: 652000 grid units, metres; ``652000 m``).
_DIGITS = re.compile(r"^(-?[1-9]\d{0,8}|0)(km|m)?$")
_UNITS = {None: 1.0, "m": 1.0, "km": 1000.0}
_FAMILIES = ("columns", "rows")
#: Where the top of a label points on a north-up sheet, weighted: up (upright text), else
#: left (text reading upwards); the orientation read first is the one nearest this.
_NORTH_UP_TOPS = np.array([-0.45, -0.89])


@dataclass
class LabelReading:
    """One word found by a grid line's end and what Tesseract read in it.

    Attributes:
        family: "columns" or "rows" (see :class:`~core.graticule.result.GraticuleResult`).
        line: index k of the line in the family's numbering (``offset + k * spacing``).
        end: -1 at the end of the line towards lower positions along it, +1 the other end.
        box: (x0, y0, x1, y1) full-resolution pixels around the word.
        text: what was read ("" when nothing); ``value``: it as a number, or None.
        confidence: Tesseract's mean word confidence, 0-100.
        up: unit vector (x, y): where the top of the text points in the image.
        word: number of the word on the sheet: the readings of one word (upright and
            upside down) share it; at most one of them can be used.
        turns: quarter turns (counter-clockwise) that made the word upright for reading.
        inside: True when the word was found along the line inside the map
            (:mod:`.label_inside`; ``end`` is then 0), False by the frame.
        height: the height of its text, full-resolution pixels (across the text, however
            the sheet is turned; 0 when not measured).
    """

    family: str
    line: int
    end: int
    box: tuple[int, int, int, int]
    text: str
    value: float | None
    confidence: float
    up: tuple[float, float]
    word: int
    turns: int = 0
    inside: bool = False
    height: float = 0.0


def read_words(patches: list[np.ndarray], chars: str = LABEL_CHARS,
               started: list[subprocess.Popen] | None = None) -> list[tuple[str, float]]:
    """Text (figures, minus signs and the letters of km; spaces removed) and confidence
    (0-100, 0 when nothing was read) of upright word images (uint8, 255 = ink)
    (``chars``: the characters Tesseract may read; ``started``: processes
    :func:`tesseract_started` started ahead, used first when they read ``chars``).

    Tesseract runs as separate processes (Debian tesseract-ocr 5, English model, one text
    line per image, figures, minus and the unit km only), each single-threaded (on images
    this small its OpenMP threads cost several times the work): one process for a few
    words, else one per core (at most :data:`TESSERACT_PROCESSES`), each reading its share
    of the words (a process costs about 0.15 s to start, loading its model). A process
    killed by a signal (Tesseract 5.3 died of a floating-point exception reading a word
    image again inverted, which :func:`_start_tesseract` now turns off) or stuck
    (:data:`TESSERACT_WORD_S`) leaves the word it was reading unread and the words after it
    are read by a new process."""
    if not patches:
        return []
    exe = _tesseract_exe()
    n_proc = max(1, min(TESSERACT_PROCESSES, len(patches) // WORDS_PER_PROCESS))
    texts: list[list[str]] = [[] for _ in patches]
    confs: list[list[float]] = [[] for _ in patches]
    with tempfile.TemporaryDirectory(prefix="labels-", dir=_memory_folder()) as tmp:
        names = []
        for i, patch in enumerate(patches):
            img = np.full((patch.shape[0] + 24, patch.shape[1] + 24), 255, np.uint8)
            img[12:-12, 12:-12] = 255 - patch
            names.append(os.path.join(tmp, f"{i:05d}.bmp"))   # (PNG took 7 times longer)
            cv2.imwrite(names[-1], img)
        bounds = np.linspace(0, len(names), n_proc + 1).round().astype(int)
        todo = [(int(lo), int(hi)) for lo, hi in itertools.pairwise(bounds)
                if hi > lo]
        deaths = 0
        while todo:
            procs = [_take_started(started, chars) or _start_tesseract(exe, chars)
                     for _ in todo]
            with ThreadPoolExecutor(len(todo)) as pool:   # every process reads at once
                outs = list(pool.map(_hand_words, procs, [names[lo:hi] for lo, hi in todo]))
            runs, todo = list(zip(todo, procs, outs, strict=True)), []
            for (lo, hi), proc, (out, err) in runs:
                done = _parse_tsv(out, lo, texts, confs)
                deaths += proc.returncode < 0
                if proc.returncode > 0 or deaths > max(3, len(patches) // 8):
                    raise InputError(f"Tesseract failed ({err.strip()[:200]}, exit code "
                                     f"{proc.returncode}); check the tesseract-ocr "
                                     f"installation or give {option('anchor')} X,Y=E,N",
                                     field="anchor")
                if proc.returncode < 0 and lo + done + 1 < hi:
                    todo.append((lo + done + 1, hi))    # the word it died on stays unread
    return [("".join(t), float(np.mean(c)) if c else 0.0)
            for t, c in zip(texts, confs, strict=True)]


@contextlib.contextmanager
def tesseract_started(chars: str = LABEL_CHARS) -> Iterator[list[subprocess.Popen]]:
    """Tesseract processes (:data:`TESSERACT_PROCESSES`) started now, to load their model
    while the caller still decodes the sheet and looks for words (on an idle core), for
    :func:`read_words` (``started=``) to hand their words to; those still waiting are
    stopped on exit. None are started where Tesseract is missing (:func:`read_words` then
    says so)."""
    exe = shutil.which("tesseract")
    procs = [_start_tesseract(exe, chars) for _ in range(TESSERACT_PROCESSES)] if exe else []
    try:
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            proc.communicate()


def _tesseract_exe() -> str:
    exe = shutil.which("tesseract")
    if exe is None:
        raise InputError("reading the grid labels needs Tesseract (Debian packages "
                         "tesseract-ocr and tesseract-ocr-eng: run make install); or give "
                         f"{option('anchor')} X,Y=E,N", field="anchor")
    return exe


def _memory_folder() -> str | None:
    """A folder in memory for the word images (Linux's ``/dev/shm``: writing a file there
    costs a seventh of writing it to a disk's ``/tmp``), or None (the system's temporary
    folder) where there is none."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _start_tesseract(exe: str, chars: str) -> subprocess.Popen:
    """One single-threaded Tesseract process that will read the images named on its
    standard input, in order (one text line each, only ``chars``, dark on light: never read
    again inverted, which Tesseract does by default for a line it reads unsurely), TSV on
    its standard output. It loads its model, then waits for the names."""
    return subprocess.Popen(
        [exe, "-", "-", "--psm", "7", "-c", "tessedit_char_whitelist=" + chars,
         "-c", "tessedit_do_invert=0", "tsv"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"})


def _take_started(started: list[subprocess.Popen] | None, chars: str
                  ) -> subprocess.Popen | None:
    """A process of ``started`` (:func:`tesseract_started`) that reads ``chars``, taken
    out of the list (it is no longer waiting), or None."""
    for proc in started or ():
        if "tessedit_char_whitelist=" + chars in proc.args:
            started.remove(proc)
            return proc
    return None


def _hand_words(proc: subprocess.Popen, names: list[str]) -> tuple[str, str]:
    """Hand a started process the names of its word images and wait for its TSV and its
    messages; a process still reading after :data:`TESSERACT_START_S` plus
    :data:`TESSERACT_WORD_S` per image is stopped (as if it had died)."""
    limit = TESSERACT_START_S + TESSERACT_WORD_S * len(names)
    try:
        return proc.communicate("\n".join(names) + "\n", timeout=limit)
    except subprocess.TimeoutExpired:       # stuck on a word: as if it died
        proc.kill()
        return proc.communicate()


def _parse_tsv(out: str, first: int, texts: list[list[str]], confs: list[list[float]]
               ) -> int:
    """Add the words of Tesseract's TSV output (its pages are the images from ``first``
    on) to ``texts`` and ``confs``; returns how many pages it finished."""
    pages = 0
    for row in out.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) != 12:
            continue
        if cols[0] == "1":
            pages = max(pages, int(cols[1]))
        elif cols[0] == "5" and cols[11].strip():
            page = first + int(cols[1]) - 1
            texts[page].append(cols[11].strip())
            confs[page].append(float(cols[10]))
    return pages


def parse_value(text: str) -> float | None:
    """The number a label reads, or None (figures with an optional leading minus, no
    leading zero, then maybe a unit: ``652km`` is 652000)."""
    m = _DIGITS.match(text)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else None


def _line_extents(result: GraticuleResult, f: int, shift: int, ks: range, p0s, ds
                  ) -> dict[int, tuple[float, float]]:
    """Positions along each line ``k`` of its first and last detected crossing (measured
    from ``p0s[k]`` along ``ds[k]``); a line with none takes its nearest neighbour's."""
    found = {}
    for k in ks:
        on = result.index[:, f] == k - shift
        if on.any():
            pos = (result.points[on] - p0s[k]) @ ds[k]
            found[k] = (float(pos.min()), float(pos.max()))
    out = {}
    for k in ks:
        near = min(found, key=lambda j: (abs(j - k), j)) if found else None
        out[k] = found.get(k, found[near] if near is not None else (0.0, 0.0))
    return out


def _reduce_for(result: GraticuleResult) -> int:
    cell = min(result.columns.spacing_px, result.rows.spacing_px)
    for r in (4, 2):
        if cell / r >= MIN_CELL_PX:
            return r
    return 1


def sheet_gray(image: ImageLike, result: GraticuleResult) -> tuple[np.ndarray, int]:
    """The sheet in grey at the size labels are read at, and its reduction (1, 2 or 4)."""
    reduce = _reduce_for(result)
    return read_image(image, reduce=reduce, gray=True), reduce


def finer_gray(image: ImageLike, result: GraticuleResult, gray: tuple[np.ndarray, int],
               readings: list[LabelReading], figures: bool = False
               ) -> tuple[np.ndarray, int] | None:
    """The sheet at twice the resolution of ``gray`` (as :func:`sheet_gray` gives it) when
    the words of ``readings`` (``figures``: only those read as two figures or more) are
    small there (median text height under :data:`MIN_WORD_PX`; the resolution is chosen
    from the grid cell, and small labels on a sheet of large cells come out too small to
    read) and a grid cell stays under :data:`MAX_FINER_CELL_PX` (the time strips of that
    size cost); else None."""
    reduce = gray[1]
    heights = [h for h in {r.word: r.height for r in readings
                           if not figures or sum(c.isdigit() for c in r.text) >= 2}.values()
               if h > 0]
    cell = min(result.columns.spacing_px, result.rows.spacing_px)
    if reduce == 1 or not heights or cell / (reduce // 2) > MAX_FINER_CELL_PX:
        return None
    if float(np.median(heights)) / reduce >= MIN_WORD_PX:
        return None
    return read_image(image, reduce=reduce // 2, gray=True), reduce // 2


def read_labels(image: ImageLike, result: GraticuleResult,
                gray: tuple[np.ndarray, int] | None = None,
                started: list[subprocess.Popen] | None = None) -> list[LabelReading]:
    """Find and read the labels at both ends of every grid line of ``result``.

    Args:
        image: the sheet (path or array) the detection ran on.
        result: the detected graticule (line families and their indices).
        gray: the sheet as :func:`sheet_gray` gives it, if already read.
        started: Tesseract processes :func:`tesseract_started` started ahead, if any.

    Returns:
        Every reading (two per word: upright and upside down), boxes in full-resolution
        pixels.
    """
    gray, reduce = gray or sheet_gray(image, result)
    jobs: list[tuple[np.ndarray, list[LabelReading]]] = []
    fams = (result.columns, result.rows)
    shift = index_shift(result)
    lines = [fam.indices or tuple(sorted(set((result.index[:, f] + shift[f]).tolist())))
             for f, fam in enumerate(fams)]
    if not all(lines):
        return []
    ends = []     # (f, k, end, strip origin, out, across, width, length, long, max height)
    for f, fam in enumerate(fams):
        other = fams[1 - f]
        ks = range(min(lines[f]) - 1, max(lines[f]) + 2)
        geo = {k: line_geometry(fam, k) for k in ks}
        extents = _line_extents(result, f, int(shift[f]), ks, {k: g[0] for k, g in geo.items()},
                                {k: g[1] for k, g in geo.items()})
        cell = fam.spacing_px / reduce
        other_cell = other.spacing_px / reduce
        width = int(2 * ACROSS_CELLS * cell)
        height = (BEYOND_CELLS + INSIDE_CELLS) * other_cell
        max_h = max(12, int(0.09 * cell))
        g_lo = min(e[0] for e in extents.values())
        g_hi = max(e[1] for e in extents.values())
        for k in ks:
            (p0, d), (lo, hi) = geo[k], extents[k]
            for end, pos, extra in ((-1, lo, lo - g_lo), (1, hi, g_hi - hi)):
                # a line crossed short of the others' extent searches out to theirs too
                length = int(height + min(extra / reduce, MAX_EXTRA_CELLS * other_cell))
                out = d * end
                start = (p0 + d * pos - out * INSIDE_CELLS * other_cell) / reduce
                if not (0 <= start[0] < gray.shape[1] and 0 <= start[1] < gray.shape[0]):
                    continue  # the line ends off the sheet
                ends.append((f, k, end, start, out, np.array([-out[1], out[0]]), width, length,
                             int(max(3 * max_h, 0.06 * cell)), max_h))

    def words_at(task: tuple) -> list[tuple]:
        f, k, end, start, out, across, width, length, long_px, max_h = task
        strip, m = cut_strip(gray, start, out, across, width, length)
        ink, dark = strip_ink(strip, long_px)
        picked = _pick_words(find_words(ink, 5, max_h), ink, width)
        return [(dark, main, m, f, k, end) for _, _, main in picked]

    for dark, main, m, f, k, end in map_strips(words_at, ends):
        jobs.append(word_job(dark, main, m, reduce, f, k, end, len(jobs) + 1))
    return _nearest_family_per_word(read_jobs(jobs, started=started), fams)


def _nearest_family_per_word(readings: list[LabelReading],
                             fams: tuple[LineFamily, LineFamily]) -> list[LabelReading]:
    """A word found by lines of both families (near a corner of the frame) stays with the
    family whose line it sits on: the one it is nearer across, in grid cells."""
    def across(r: LabelReading) -> float:
        fam = fams[_FAMILIES.index(r.family)]
        t = np.radians(fam.normal_angle_deg)
        cx, cy = (r.box[0] + r.box[2]) / 2, (r.box[1] + r.box[3]) / 2
        return abs(cx * np.cos(t) + cy * np.sin(t) - fam.line_position(r.line)) / fam.spacing_px

    first = {}
    for r in readings:
        first.setdefault(r.word, r)
    drop = set()
    words = list(first.values())
    for i, a in enumerate(words):
        for b in words[i + 1:]:
            if a.family == b.family or box_iou(a.box, b.box) < 0.5:
                continue
            drop.add(a.word if across(a) > across(b) else b.word)
    return [r for r in readings if r.word not in drop]


def _pick_words(words: list[tuple[np.ndarray, int, np.ndarray]], ink: np.ndarray,
                width: int) -> list[tuple[np.ndarray, int, np.ndarray]]:
    """The words on the line (the strip's centre column) in the emptiest surroundings:
    (box, number of characters, box of the full-height figures), at most
    :data:`WORDS_PER_END`, less those too long for a grid value (:data:`LONGEST_WORD`: a
    row of hatching or a dashed line, which would cost Tesseract the most time)."""
    scored = sorted(word_emptiness(words, ink, width), key=lambda s: s[0])
    return [(b, c, m) for _, b, c, m in scored[:WORDS_PER_END]
            if max(b[2] - b[0], b[3] - b[1]) <= LONGEST_WORD * min(b[2] - b[0], b[3] - b[1])]


def word_job(dark: np.ndarray, box: np.ndarray, m: np.ndarray, reduce: int, f: int, k: int,
              end: int, word_no: int) -> tuple[np.ndarray, list[LabelReading]]:
    """A word to read: its image (scaled for Tesseract, as in the strip) and its readings
    still to fill in, upright one way then the other (the way text stands on a north-up
    sheet first: top up, or left for text reading upwards)."""
    x0, y0, x1, y1 = (int(v) for v in box)
    horizontal = (x1 - x0) >= (y1 - y0)
    height = (y1 - y0) if horizontal else (x1 - x0)
    pad = max(1, height // 4)
    word_dark = dark[max(0, y0 - pad):y1 + pad, max(0, x0 - pad):x1 + pad]
    scale = OCR_HEIGHT / max(height, 1)
    patch = cv2.resize(word_dark, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    ibox = strip_box_in_image(box, m, reduce)
    sx, sy = m[:, 0], m[:, 1]          # the strip's x and y (down) axes in the image
    # q quarter turns counter-clockwise make the word upright; where its top then points:
    tops = {q: {0: -sy, 1: sx, 2: sy, 3: -sx}[q] for q in ((0, 2) if horizontal else (1, 3))}
    order = sorted(tops, key=lambda q: -float(tops[q] @ _NORTH_UP_TOPS))
    return patch, [LabelReading(_FAMILIES[f], int(k), int(end), ibox, "", None, 0.0,
                                (float(tops[q][0]), float(tops[q][1])), word_no, q,
                                height=float(height * reduce))
                   for q in order]


def read_jobs(jobs: list[tuple[np.ndarray, list[LabelReading]]], chars: str = LABEL_CHARS,
              started: list[subprocess.Popen] | None = None) -> list[LabelReading]:
    """Read every word both ways in one Tesseract run (``chars``: the characters Tesseract
    may read; ``started``: as for :func:`read_words`); the readings the first way (as text
    stands on a north-up sheet), then the other way."""
    out = [rs[attempt] for attempt in (0, 1) for _, rs in jobs]
    patches = [patch for attempt in (0, 1) for patch, _ in jobs]
    texts = read_words([np.ascontiguousarray(np.rot90(patch, r.turns))
                        for patch, r in zip(patches, out, strict=True)], chars, started)
    for r, (text, conf) in zip(out, texts, strict=True):
        r.text, r.value, r.confidence = text, parse_value(text), conf
    return out
