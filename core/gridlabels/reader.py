"""``read_grid_labels``: from a sheet and its detected graticule to the naming of every
grid line, with its certainty, from the grid values printed on the sheet.

Steps: find the words by the frame (:mod:`.words`), read each both ways up with the
numeral reader (:mod:`.numerals`), decode each family's most probable sequence of values
and its margin over the runner-up (:mod:`.decode`); a family the words by the frame leave
undetermined is decoded again with the words along the lines inside the map too; then
make the two families agree (:mod:`.agreement`): how many zeros end the values, when the
reader cannot count them (:func:`.agreement.choose_zeros`, or when the families' steps
differ :func:`.agreement.recount`), one step for both, and no family whose shared leading
figures a label of one of its lines reads otherwise (:func:`.agreement.contradicted`: one
glyph misread alike on every label); two families named whose values can only be the same
axis of the CRS are read again, each as the other axis, with the words inside the map too
(one was read cut short); then decide which family is the easting, the signs
and the units (:mod:`.orient`). Below :data:`.agreement.MIN_MARGIN` (or with two namings
the text and the CRS cannot separate) nothing is named: :class:`LabelsUnreadableError`
says what was read, the best candidates and how to settle it.

Pixel coordinates: x right, y down, full-resolution pixels (integer values at pixel
centres, like detection).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, option
from ..graticule.result import GraticuleResult
from ..imageio import ImageLike
from .agreement import (
    FAMILIES,
    MIN_MARGIN,
    choose_zeros,
    contradicted,
    key,
    recount,
    rivals,
    sequence_text,
    steps_alike,
    sure,
)
from .decode import OUTSIDE_AREA, FamilyReading, decode_family
from .numerals import likely_strings, net_input, read_logits
from .orient import (
    KM_BELOW,
    Naming,
    area_of_use,
    axes_within_area,
    candidates,
    node_extent,
    plausible_values,
    text_north,
    within_area,
)
from .words import Word, inside_gray, inside_words, margin_words, sheet_gray

#: A sheet named with a margin below this is "uncertain" (footprints, review): named, but
#: worth a look.
SURE_MARGIN = 2 * MIN_MARGIN
#: A word is a label of its line when the sequence's string is at least this probable.
USED_P = 0.3
#: A side of the frame tells where the text's top points when its words read the values
#: this much better (evidence) one way up than the other.
WAY_MARGIN = 5.0


@dataclass
class GridLabelling:
    """The naming read from the sheet.

    Attributes
    ----------
    naming : Naming
        ``grid = origin + spacing * P @ index`` and where north points.
    labels : list of dict
        One record per word read: ``box`` [x0, y0, x1, y1] (pixels), ``text``, ``value``,
        ``family`` (columns or rows), ``line``, ``end``, ``confidence`` (0-100), ``up``,
        ``used``, ``why`` and ``short`` (why in a few words, for a picture); ``inside``
        True for words along the lines inside the map.
    certainty : dict
        ``margin`` (the smaller family margin, natural-log units), ``threshold``
        (:data:`MIN_MARGIN`) and per family its best and runner-up sequences.
    warnings : list of str
    seconds : float
        Reading time (wall clock).
    """

    naming: Naming
    labels: list[dict]
    certainty: dict
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


class LabelsUnreadableError(InputError):
    """The grid values printed on the sheet do not name the grid surely. ``labels`` lists
    what was read (as :attr:`GridLabelling.labels`), ``certainty`` the smaller family
    margin (natural-log units) and ``candidates`` each family's best reading and runner-up
    (:func:`candidates_of`)."""

    def __init__(self, message: str, labels: list[dict], certainty: dict,
                 field: str = "anchor"):
        super().__init__(message, field=field)
        self.labels = labels
        self.certainty = certainty.get("margin")
        self.candidates = candidates_of(certainty)


def margin_of(certainty: dict | float | None) -> float | None:
    """The margin of a labelling's certainty (a report's dict, or already a number)."""
    if isinstance(certainty, dict):
        return certainty.get("margin")
    return certainty


def candidates_of(certainty: dict) -> list[dict]:
    """One record per family: ``family``, ``best`` and ``runner_up`` (the values read on
    its first lines), ``margin`` and ``lines_read``."""
    return [{"family": name, **{k: fam.get(k) for k in ("best", "runner_up", "margin",
                                                        "lines_read")}}
            for name, fam in (certainty.get("families") or {}).items()]


def ask_anchor() -> str:
    """The request that ends a refusal: how to settle which intersection is which."""
    return (f"settle it with {option('anchor')} X,Y=E,N (one node's pixel position and "
            f"grid coordinates) or {option('gcps')} FILE.points")


def read_grid_labels(image: ImageLike, result: GraticuleResult, crs=None,
                     spacing: float | None = None) -> GridLabelling:
    """Name the detected grid from the values printed on the sheet.

    Parameters
    ----------
    image : path or array
        The sheet the detection ran on.
    result : GraticuleResult
        The detected graticule.
    crs : pyproj.CRS, optional
        The grid CRS: its area of use (when it has one) rules out namings whose nodes
        fall outside it.
    spacing : float, optional
        The grid spacing in grid-CRS units, if known (a hint: the printed step must be
        it or a thousandth of it).

    Returns
    -------
    GridLabelling

    Raises
    ------
    LabelsUnreadableError
        The labels do not name the grid surely (an ``error:`` line that names the
        candidates and asks for ``--anchor``).

    Example
    -------
    >>> from core.graticule import detect_on_sheet              # doctest: +SKIP
    >>> g = detect_on_sheet("sheet.jpg", "compute")             # doctest: +SKIP
    >>> read_grid_labels("sheet.jpg", g, pyproj.CRS("EPSG:2154")).naming.spacing  # doctest: +SKIP
    1000.0
    """
    start = time.perf_counter()
    gray, reduce = sheet_gray(image, result)
    steps = None if spacing is None else {spacing, spacing / 1000.0}
    area = area_of_use(crs)
    fits = plausible_values(area)
    words = margin_words(gray, reduce, result)
    logp = _read(words)
    reads = [_decode(words, logp, f, steps, fits) for f in (0, 1)]
    where = "by the frame"
    set_aside: list[dict] = []
    more = None
    if any(not sure(r) for r in reads):
        more, more_logp = _inside_numbers(image, gray, reduce, result)
        if more:
            both, both_logp = words + more, np.concatenate([logp, more_logp])
            again = [_decode(both, both_logp, f, steps, fits) if not sure(reads[f])
                     else reads[f] for f in (0, 1)]
            if sum(map(sure, again)) > sum(map(sure, reads)):
                words, logp = both, both_logp
                reads, where = again, "by the frame and inside the map"
            else:
                set_aside = _set_aside(more, more_logp)
    reads = choose_zeros(reads, area)
    reads = _one_step(words, logp, reads, steps, fits, area)
    reads = _other_axis(words, logp, reads, steps, area)
    if _axes_clash(reads, area):
        pool, pool_logp = words, logp
        if where == "by the frame":
            if more is None:
                more, more_logp = _inside_numbers(image, gray, reduce, result)
            pool, pool_logp = words + more, np.concatenate([logp, more_logp])
        resolved = _resolve_clash(pool, pool_logp, reads, steps, area)
        if resolved is not None:
            if pool is not words:
                where, set_aside = "by the frame and inside the map", []
            words, logp, reads = pool, pool_logp, resolved
    certainty = _certainty(reads)
    labels = _records(words, logp, reads)
    unsure = [f for f in (0, 1) if not sure(reads[f])]
    outside = [f for f in unsure if reads[f].why == OUTSIDE_AREA]
    if outside:
        free = [_decode(words, logp, f, steps) for f in outside]
        if all(sure(r) for r in free):
            shown = "; ".join(f"{FAMILIES[f]} {sequence_text(r.best)}"
                              for f, r in zip(outside, free, strict=True))
            raise LabelsUnreadableError(
                f"the grid values read ({shown}) fall outside the area of use of "
                f"{_crs_name(crs)}: is it the CRS the grid is drawn in? give that one with "
                f"{option('grid-crs')} (and the output CRS with {option('crs')})", labels,
                certainty, field="grid-crs")
    if unsure:
        raise LabelsUnreadableError(
            "the grid values printed on the sheet do not name the grid surely ("
            + "; ".join(f"{FAMILIES[f]}: {_why(reads[f])}" for f in unsure)
            + f"; {len(words)} words read {where}); " + ask_anchor(), labels + set_aside,
            certainty)
    contradictions = contradicted(labels, reads)
    if contradictions:
        raise LabelsUnreadableError("; ".join(contradictions) + ": the same figure may be "
                                    "misread on every label; " + ask_anchor(), labels,
                                    certainty)
    naming, warnings = _orient(result, reads, words, crs, spacing, labels, certainty)
    for f in (0, 1):
        n = len(reads[f].best.lines_read())
        if n < 3:
            warnings.append(f"only {n} {FAMILIES[f]} lines were read: check the labelling")
    rejected = rivals(labels, reads)
    if rejected:
        warnings.append(f"{len(rejected)} label(s) read surely as another value than the one "
                        "named on their line were left out: " + ", ".join(
                            f"{r['text']!r} at ({r['box'][0]}, {r['box'][1]})"
                            for r in rejected[:6]) + (" ..." if len(rejected) > 6 else ""))
    return GridLabelling(naming, labels, certainty, warnings, time.perf_counter() - start)


def _inside_numbers(image: ImageLike, gray: np.ndarray, reduce: int,
                    result: GraticuleResult) -> tuple[list[Word], np.ndarray]:
    """The words along the lines inside the map that read as numbers (:func:`_numbers`),
    and the reader's output for them."""
    more = inside_words(*inside_gray(image, gray, reduce, result), result)
    more_logp = _read(more)
    keep = _numbers(more_logp)
    return [w for w, k in zip(more, keep, strict=True) if k], more_logp[keep]


def _read(words: list[Word]) -> np.ndarray:
    """The reader's output ``(len(words), 2, T, C)`` for both images of every word."""
    if not words:
        return np.zeros((0, 2, 1, 1))
    x = np.stack([net_input(img) for w in words for img in w.images])
    logp = read_logits(x)
    return logp.reshape(len(words), 2, *logp.shape[1:])


#: Inside the map a word is a candidate label only when the reader reads a number of two
#: figures or more in it at least this surely (map text reads one or two figures weakly).
INSIDE_SURE = 0.5


def _numbers(logp: np.ndarray) -> np.ndarray:
    """Which words (``logp`` as :func:`_read` gives it) the reader reads as a number of two
    figures or more with probability at least :data:`INSIDE_SURE`, either way up: inside
    the map, where most words are map text, the others are no label."""
    if not len(logp):
        return np.zeros(0, bool)
    likely = likely_strings(logp.reshape(-1, *logp.shape[2:]), INSIDE_SURE)
    sure_number = [any(sum(c.isdigit() for c in s) >= 2 for s, _ in one) for one in likely]
    return np.array(sure_number).reshape(-1, 2).any(axis=1)


def _decode(words: list[Word], logp: np.ndarray, f: int, steps: set[float] | None,
            fits=None, rule_out_best: bool = False) -> FamilyReading:
    """Family ``f``'s reading from its words (``fits``: :func:`.orient.plausible_values`)."""
    idx = [i for i, w in enumerate(words) if w.family == f]
    fr = decode_family([words[i] for i in idx], logp[idx], steps, fits, rule_out_best)
    fr.candidates = fr.candidates or []
    fr.index = idx                           # positions of the family's words in ``words``
    return fr


def _one_step(words: list[Word], logp: np.ndarray, reads: list[FamilyReading],
              steps: set[float] | None, fits=None, area: np.ndarray | None = None
              ) -> list[FamilyReading]:
    """Both families must step alike (in full units or thousands): when their best steps
    differ, and no single count of zeros of one family's figures makes them alike
    (:func:`.agreement.recount`), the family with the smaller margin is decoded again with
    the other's step."""
    if steps is not None or any(r.best is None for r in reads):
        return reads
    b = [abs(r.best.b) for r in reads]
    if steps_alike(*b):
        return reads
    recounted = recount(reads, area)
    if recounted is not None:
        return recounted
    weak = int(np.argmin([r.margin for r in reads]))
    other = b[1 - weak]
    again = _decode(words, logp, weak, {other, other * 1000.0, other / 1000.0}, fits)
    out = list(reads)
    out[weak] = again
    return out


def _other_axis(words: list[Word], logp: np.ndarray, reads: list[FamilyReading],
                steps: set[float] | None, area: np.ndarray | None) -> list[FamilyReading]:
    """One family named surely with values that can only be one axis inside the grid CRS's
    area of use (469 ... km in Lambert-93 can only be eastings): the other family's values
    are then the other axis. When that family is not sure, it is decoded again with the
    sure family's step and its sequences that cannot be that axis ruled out; the result is
    taken when its best was the best or the runner-up before (the test settles between
    the two, it never promotes a weaker sequence)."""
    if area is None:
        return reads
    out = list(reads)
    for f in (0, 1):
        named, other = reads[f], reads[1 - f]
        if not sure(named) or sure(other) or other.best is None:
            continue
        axes = _axes(named, area)
        if len(axes) != 1:
            continue
        b = abs(named.best.b)                   # both families step alike (_one_step)
        alike = steps if steps is not None else {b, b * 1000.0, b / 1000.0}
        again = _decode(words, logp, 1 - f, alike, plausible_values(area, (1 - axes[0],)),
                        rule_out_best=True)
        top = {key(s) for s in (other.best, other.runner_up) if s is not None}
        if again.best is not None and key(again.best) in top:
            out[1 - f] = again
    return out


def _axes(r: FamilyReading, area: np.ndarray) -> list[int]:
    """The axes (0 eastings, 1 northings) the family's best values can be in the area."""
    values = r.best.a + r.best.b * r.best.span()
    return [a for a in (0, 1) if plausible_values(area, (a,))(values)]


def _axes_clash(reads: list[FamilyReading], area: np.ndarray | None) -> bool:
    """Both families named, but their values can only be the same axis of the grid CRS
    (rows read 388000 ... beside columns 573000 ...: both Lambert-93 eastings only)."""
    if area is None or not all(sure(r) for r in reads):
        return False
    first, second = _axes(reads[0], area), _axes(reads[1], area)
    return not any(a != b for a in first for b in second)


def _resolve_clash(words: list[Word], logp: np.ndarray, reads: list[FamilyReading],
                   steps: set[float] | None, area: np.ndarray) -> list[FamilyReading] | None:
    """Two families that can only be one axis (:func:`_axes_clash`): one was read cut short
    (``6 389 000`` found as ``389000`` by the frame). Each family is decoded again, with the
    other's step and only values of the other axis; when exactly one is then named surely
    (its margin over that axis's other sequences), it replaces its reading; else None."""
    found = []
    for g in (0, 1):
        axes = _axes(reads[1 - g], area)
        if len(axes) != 1:
            continue
        b = abs(reads[1 - g].best.b)
        alike = steps if steps is not None else {b, b * 1000.0, b / 1000.0}
        again = _decode(words, logp, g, alike, plausible_values(area, (1 - axes[0],)),
                        rule_out_best=True)
        if sure(again):
            found.append((g, again))
    if len(found) != 1:
        return None
    g, again = found[0]
    out = list(reads)
    out[g] = again
    return out


def _why(r: FamilyReading) -> str:
    if r.best is None or r.why:
        return r.why
    lines = len(r.best.lines_read())
    if lines < 2:
        return f"values read surely on {lines} line only"
    second = r.runner_up
    best = sequence_text(r.best)
    if second is None:
        return f"best {best}, too little evidence ({r.margin:.1f})"
    return (f"{best} or {sequence_text(second)} (margin {r.margin:.1f}, "
            f"{MIN_MARGIN:g} needed)")


def _certainty(reads: list[FamilyReading]) -> dict:
    fams = {}
    for f, r in enumerate(reads):
        fams[FAMILIES[f]] = {
            "margin": round(float(r.margin), 3),
            "best": None if r.best is None else sequence_text(r.best),
            "runner_up": None if r.runner_up is None else sequence_text(r.runner_up),
            "step": None if r.best is None else r.best.b,
            "lines_read": 0 if r.best is None else len(r.best.lines_read())}
    return {"margin": round(float(min(r.margin for r in reads)), 3),
            "threshold": MIN_MARGIN, "families": fams}


def _records(words: list[Word], logp: np.ndarray, reads: list[FamilyReading]) -> list[dict]:
    """One record per word that reads a number of two figures or more."""
    out = []
    free = likely_strings(logp.reshape(-1, *logp.shape[2:]), 0.0)
    for f, r in enumerate(reads):
        for j, i in enumerate(r.index):
            w = words[i]
            seq = r.best
            way = seq.ways.get((f, w.end), 0) if seq is not None else 0
            used = False
            if seq is not None:
                word_i, p = seq.support.get((w.line, w.end), (None, 0.0))
                used = word_i == j and p >= USED_P
            if used:
                text, p = seq.text(w.line), seq.support[(w.line, w.end)][1]
            else:
                cands = free[2 * i + way]
                if not cands:
                    continue
                text, p = cands[0]
            if len(text.lstrip("-")) < 2:
                continue
            if used:
                why, short = "agrees with the sequence read along its family", ""
            elif seq is None:
                why, short = "its family's values do not form a sequence", "no sequence"
            else:
                why = f"disagrees: {seq.text(w.line)} expected on this line"
                short = f"{seq.text(w.line)} expected"
            if w.end == 0:
                why = "read inside the map by its line; " + why
            try:
                value = float(text)
            except ValueError:
                value = None
            out.append({"family": FAMILIES[f], "line": w.line, "end": w.end,
                        "box": [int(v) for v in w.box], "text": text, "value": value,
                        "confidence": round(100.0 * p, 1),
                        "up": [round(v, 3) for v in w.ups[way]], "used": bool(used),
                        "why": why, "short": short, "inside": w.end == 0})
    return out


def _set_aside(words: list[Word], logp: np.ndarray) -> list[dict]:
    """Records (as :func:`_records` gives them, none used) of the words read inside the map
    that made no family surer and were set aside: shown with a refusal (``--debug``)."""
    out = []
    free = likely_strings(logp.reshape(-1, *logp.shape[2:]), 0.0)
    for i, w in enumerate(words):
        way = max((0, 1), key=lambda o: free[2 * i + o][0][1] if free[2 * i + o] else 0.0)
        if not free[2 * i + way]:
            continue
        text, p = free[2 * i + way][0]
        try:
            value = float(text)
        except ValueError:
            value = None
        out.append({"family": FAMILIES[w.family], "line": w.line, "end": w.end,
                    "box": [int(v) for v in w.box], "text": text, "value": value,
                    "confidence": round(100.0 * p, 1),
                    "up": [round(v, 3) for v in w.ups[way]], "used": False,
                    "why": "read inside the map by its line; set aside: it made no family "
                           "surer", "short": "set aside", "inside": True})
    return out


def _outside_error(naming: Naming, corners: np.ndarray, area: np.ndarray, crs_name: str,
                   labels: list[dict], certainty: dict) -> LabelsUnreadableError:
    """The refusal of a naming whose grid falls outside the CRS's area of use. Both axes
    outside: the grid is drawn in another CRS (``--grid-crs``). One axis in it, the other
    not: a label misread (part of it missed) is as likely as another CRS (Lambert II's
    eastings are Lambert-93's too), and the error says both."""
    ex = naming.grid(corners)
    ok = axes_within_area(naming, corners, area)
    ranges = [f"{ex[:, a].min():g} to {ex[:, a].max():g}" for a in (0, 1)]
    if sum(ok) == 1:
        good, bad = (0, 1) if ok[0] else (1, 0)
        family = [FAMILIES[naming.east_family], FAMILIES[1 - naming.east_family]]
        axis = ("eastings", "northings")
        return LabelsUnreadableError(
            f"the {family[bad]} read ({ranges[bad]}) cannot be {axis[bad]} of {crs_name}, "
            f"though the {family[good]} ({ranges[good]}) are {axis[good]} in it: labels "
            f"misread or cut short, or a grid drawn in another CRS (give that one with "
            f"{option('grid-crs')}); or "
            + ask_anchor(), labels, certainty)
    return LabelsUnreadableError(
        f"the grid values read ({ranges[0]} and {ranges[1]}) fall outside the area of use "
        f"of {crs_name}: is it the CRS the grid is drawn in? give that one with "
        f"{option('grid-crs')} (and the output CRS with {option('crs')})", labels,
        certainty, field="grid-crs")


def _orient(result: GraticuleResult, reads: list[FamilyReading], words: list[Word], crs,
            spacing: float | None, labels: list[dict], certainty: dict
            ) -> tuple[Naming, list[str]]:
    """The naming among :func:`.orient.candidates`: inside the CRS's area of use, then
    as the text points; refused when none, or two that differ, remain."""
    seqs = [r.best for r in reads]
    warnings: list[str] = []
    names = candidates(result, seqs, spacing)
    text = text_north(result, _side_ups(words, reads), all(
        words[r.index[j]].end == 0 for r in reads
        for (_, _), (j, p) in r.best.support.items() if p >= USED_P))
    area = area_of_use(crs)
    corners = node_extent(result)
    crs_name = _crs_name(crs)
    placed = [n for n in names if within_area(n, corners, area)]
    if names and not placed:
        raise _outside_error(names[0], corners, area, crs_name, labels, certainty)
    if not placed:
        raise LabelsUnreadableError(
            "the values read along the two families give no consistent grid (their steps "
            f"differ, or the map would be mirrored); give {option('spacing')} if the steps "
            "were misread, or " + ask_anchor(), labels, certainty)
    for n in placed:
        n.text_agrees = None if text is None else bool(
            n.east_family == text[0] and float(n.north @ text[1]) > 0.5)
    agree = [n for n in placed if n.text_agrees] or placed
    if area is None and len({n.units for n in agree}) > 1:
        # no area of use to tell metres from thousands: a step under KM_BELOW printed
        # (652, 653) is thousands, others are full units
        rule = tuple(1000.0 if abs(s.b) < KM_BELOW else 1.0 for s in seqs)
        agree = [n for n in agree if n.units == rule] or agree
        if agree[0].units != (1.0, 1.0):
            warnings.append(f"the labels step by {min(abs(s.b) for s in seqs):g}: read as "
                            f"thousands of grid units (spacing {agree[0].spacing:g}); give "
                            f"{option('spacing')} if not")
    distinct = []
    for n in agree:
        if not any(n.same_as(d) for d in distinct):
            distinct.append(n)
    if len(distinct) > 1:
        certainty["orientations"] = [d.describe() for d in distinct]
        raise LabelsUnreadableError(
            "the values read name the lines, but which family is the easting or where north "
            f"is stays open ({' or '.join(d.describe() for d in distinct[:3])}): the "
            f"direction of the labels' text does not tell, nor the area of use of "
            f"{crs_name}; " + ask_anchor(), labels, certainty)
    chosen = distinct[0]
    if text is None:
        if area is None:
            warnings.append("the direction of the labels' text says nothing of the sheet's "
                            "orientation; the values read decided it: check the labelling")
    elif not chosen.text_agrees:
        warnings.append(f"the direction of the labels' text disagrees with the area of use "
                        f"of {crs_name}, which decided the orientation "
                        f"({chosen.describe()}): check the labelling")
    for f in (0, 1):
        if chosen.signs[f] < 0:
            warnings.append(f"the {FAMILIES[f]} values are printed without their minus sign "
                            f"(they fall {'eastward' if f == chosen.east_family else 'northward'})"
                            ": read as negative")
    certainty["orientation"] = chosen.describe()
    return chosen, warnings


def _side_ups(words: list[Word], reads: list[FamilyReading]
              ) -> dict[tuple[int, int], np.ndarray]:
    """Where the text's top points on each side of the frame (and inside the map) whose way
    up the words tell surely (:data:`WAY_MARGIN`): the mean of its used words' tops."""
    out = {}
    for f, r in enumerate(reads):
        for side, o in r.best.ways.items():
            if r.best.way_margins.get(side, 0.0) < WAY_MARGIN:
                continue
            tops = [np.array(words[r.index[j]].ups[o])
                    for (_, end), (j, p) in r.best.support.items()
                    if end == side[1] and p >= USED_P]
            if tops:
                m = np.mean(tops, axis=0)
                out[(f, side[1])] = m / max(float(np.hypot(*m)), 1e-9)
    return out


def _crs_name(crs) -> str:
    """``EPSG:2154``, or the CRS's name, for messages."""
    if crs is None:
        return "the grid CRS"
    try:
        auth = crs.to_authority()
    except Exception:
        auth = None
    if auth:
        return f"{auth[0]}:{auth[1]}"
    name = crs.name if crs.name and crs.name != "unknown" else "the grid CRS"
    return name if getattr(crs, "area_of_use", None) else f"{name} (which has none)"
