"""How the two line families' readings must agree to name one grid, and what
contradicts them: steps alike (in full units or thousands), one count of zeros
(:func:`choose_zeros`, :func:`recount`), and the labels that witness figures every used
label shares (:func:`contradicted`). Used by :mod:`.reader`.

A family's reading is a :class:`.decode.FamilyReading`; a label record is one of
``GridLabelling.labels`` (``family``, ``line``, ``value``, ``text``, ``used``,
``confidence``, ``box`` in full-resolution pixels, x right, y down).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import option
from .decode import FamilyReading, Sequence, same_figures
from .orient import UNITS, plausible_values

FAMILIES = ("columns", "rows")
#: A family's sequence is taken when its evidence beats the runner-up's by at least this
#: (natural-log units: e**5, about 150 times likelier). Chosen on the tuning runs (the 30
#: scan changes of the Jacoubet sheets, each read by the model that did not learn from it,
#: and 30 generated sheets): no run there was placed wrong even with no threshold, and the
#: right ones had margins from 0.4 to 56; confirmed on 48 others (docs/georef.md).
MIN_MARGIN = 5.0


def sequence_text(s: Sequence) -> str:
    """The values a sequence names on its first four lines read (``5750 5500 ...``)."""
    ks = sorted({k for k, _ in s.support})
    shown = [s.text(k) or "?" for k in ks[:4]]
    return " ".join(shown) + (" ..." if len(ks) > 4 else "")


def key(s: Sequence) -> tuple[float, float]:
    """``(a, b)`` of a sequence, rounded: which hypothesis it is."""
    return round(s.a, 6), round(s.b, 6)


def sure(r: FamilyReading) -> bool:
    """Whether a family is named: its margin at least :data:`MIN_MARGIN` and its values
    read surely (probability 0.5) on two lines or more."""
    return r.best is not None and r.margin >= MIN_MARGIN and len(r.best.lines_read()) >= 2


def choose_zeros(reads: list[FamilyReading], area: np.ndarray | None) -> list[FamilyReading]:
    """How many zeros end the values when a family's figures are read surely but not their
    zeros (small raised zeros: ``910000`` or ``91000``, a sequence of the same figures ten
    or a hundred times smaller or larger within :data:`MIN_MARGIN` of the best): the one
    choice for both families that steps alike (in full units or thousands) and, when the
    grid CRS has an area of use, puts one family in its eastings and the other in its
    northings. Several such choices, or none: the family is not named, its runner-up the
    other count of zeros."""
    options = [[] if r.best is None else
               [r.best, *(z for z in r.zeros if r.best.score - z.score < MIN_MARGIN)]
               for r in reads]
    if all(len(o) <= 1 for o in options):
        return reads
    choices = _fitting(options, area)
    if not choices:
        scaled = _rescaled(reads, area)
        if scaled is not None:
            return scaled
    out = list(reads)
    for f in (0, 1):
        if len(options[f]) <= 1:
            continue
        kept = {key(pair[f]) for pair in choices}
        pool = [s for s in options[f] if not kept or key(s) in kept]     # best first
        r = reads[f]
        if len(pool) == 1:
            out[f] = _taking(r, pool[0])
        else:
            out[f] = FamilyReading(pool[0], pool[1], pool[0].score - pool[1].score,
                                   why=f"{sequence_text(pool[0])} or "
                                   f"{sequence_text(pool[1])}: how many zeros end the "
                                   f"values is unclear, {option('spacing')} tells",
                                   candidates=r.candidates,
                                   zeros=r.zeros)
            out[f].index = r.index
    return out


#: Counts of zeros :func:`_rescaled` tries: the figures as read times 10**j.
RESCALE = (-2, -1, 0, 1, 2)


def _rescaled(reads: list[FamilyReading], area: np.ndarray | None
              ) -> list[FamilyReading] | None:
    """Both families' figures read surely but no count of zeros the reader weighed fits:
    the one choice of zeros for both (each best times 10**j, j in :data:`RESCALE`, the
    figures as read) that :func:`fit` s the area of use; None when there are several or
    none, or no area of use (steps alone fit many). Raised zeros missed on every label of
    both families (``70600`` and ``681800`` for 706000 and 6818000) read this way."""
    if area is None or not all(sure(r) for r in reads):
        return None
    grids: dict[tuple, tuple] = {}
    # the least changed first: of the pairs naming one grid (in kilometres and in metres)
    # the one with the fewest zeros added or taken away is named
    for js in sorted(itertools.product(RESCALE, RESCALE), key=lambda js: sum(map(abs, js))):
        pair = tuple(_times(r.best, 10.0 ** j) for r, j in zip(reads, js, strict=True))
        for grid in _square_grids(pair, area):
            grids.setdefault(grid, pair)
    if len(grids) != 1:
        return None
    return [_taking(r, s) if s is not r.best else r
            for r, s in zip(reads, next(iter(grids.values())), strict=True)]


def _square_grids(pair: tuple[Sequence, Sequence], area: np.ndarray) -> set[tuple]:
    """The grids two families' sequences may name when both are printed in one unit
    (:data:`.orient.UNITS`) with one step: which family is eastings, and both families'
    ``a, b`` in grid-CRS units, for each way (:func:`.orient.plausible_values`: with or
    without a dropped minus) one family's values are eastings of ``area`` and the other's
    northings."""
    if abs(abs(pair[0].b) - abs(pair[1].b)) > 1e-6 * abs(pair[0].b):
        return set()
    out = set()
    for unit in UNITS:
        for e in (0, 1):
            east, north = pair[e], pair[1 - e]
            if (plausible_values(area, (0,), (unit,))(east.a + east.b * east.span())
                    and plausible_values(area, (1,), (unit,))(north.a + north.b * north.span())):
                out.add((e, *(round(unit * v, 3) for v in (east.a, east.b, north.a, north.b))))
    return out


def _times(s: Sequence, factor: float) -> Sequence:
    """``s`` with its values ``factor`` times larger, its evidence and support the same
    (the same figures read; ``s`` itself for a factor of 1)."""
    if factor == 1.0:
        return s
    return Sequence(s.a * factor, s.b * factor, s.score, dict(s.ways), dict(s.way_margins),
                    dict(s.support))


def _taking(r: FamilyReading, seq: Sequence) -> FamilyReading:
    """``r`` with ``seq``, one of its counts of zeros, named: its margin over ``r``'s
    runner-up, the other counts (``r``'s best among them) its ``zeros``."""
    second = r.runner_up
    out = FamilyReading(seq, second, seq.score - (second.score if second is not None else 0.0),
                        candidates=r.candidates,
                        zeros=[s for s in (r.best, *r.zeros) if s is not seq])
    out.index = r.index
    return out


def _fitting(options: list[list[Sequence]], area: np.ndarray | None) -> list[tuple]:
    """The pairs of the two families' options (None for a family with none) that
    :func:`fit`."""
    return [pair for pair in itertools.product(*(o or [None] for o in options))
            if fit(pair, area)]


def fit(pair: tuple, area: np.ndarray | None) -> bool:
    """Whether two families' sequences (None: not read) can name one grid: steps alike
    (equal, or one a thousand times the other) and, with an ``area`` of use, one family's
    values eastings in it and the other's northings."""
    if any(s is None for s in pair):
        s = next((s for s in pair if s is not None), None)
        test = plausible_values(area)
        return s is not None and (test is None or test(s.a + s.b * s.span()))
    if not steps_alike(abs(pair[0].b), abs(pair[1].b)):
        return False
    if area is None:
        return True
    values = [s.a + s.b * s.span() for s in pair]
    return any(plausible_values(area, (a,))(values[0])
               and plausible_values(area, (1 - a,))(values[1]) for a in (0, 1))


def steps_alike(b0: float, b1: float) -> bool:
    """Whether two families' steps per line (absolute, printed units) name one square grid:
    equal, or one a thousand times the other (one family printed in kilometres)."""
    return any(abs(b0 * u - b1) < 1e-6 * b1 or abs(b1 * u - b0) < 1e-6 * b0
               for u in (1.0, 1000.0))


def recount(reads: list[FamilyReading], area: np.ndarray | None
             ) -> list[FamilyReading] | None:
    """The families' readings with one family's count of zeros changed, when that is the
    one way to step alike: a sequence of the same figures ten or a hundred times larger or
    smaller (``FamilyReading.zeros``, however much less likely: small raised zeros are
    what the reader counts worst) that :func:`fit` s with the other family's best. None
    when there are several such ways or none."""
    ways = [(f, z) for f in (0, 1) for z in reads[f].zeros
            if fit((z, reads[1].best) if f == 0 else (reads[0].best, z), area)]
    # a thousand times apart they name one grid (312 km, 312000 m): one way, the likelier
    ways = [(f, z) for f, z in ways if not any(
        g == f and y.score > z.score and same_figures(y, z, (1000.0,)) for g, y in ways)]
    if len(ways) != 1:
        return None
    f, z = ways[0]
    out = list(reads)
    out[f] = _taking(reads[f], z)
    return out


def rivals(labels: list[dict], reads: list[FamilyReading]) -> list[dict]:
    """The records left out that look like labels of their line: read with at least
    50 % confidence, with as many figures as the value named there, and not a value either
    family names (a neighbouring line's label, or the other family's by a corner, falls in
    this line's windows too). Street numbers and specks are not worth a warning."""
    named = [{r.best.text(k) for k in r.best.span()} if r.best is not None else set()
             for r in reads]
    out = []
    for r in labels:
        if r["used"] or r["value"] is None or r["confidence"] < 50.0:
            continue
        f = FAMILIES.index(r["family"])
        best = reads[f].best
        here = best.text(r["line"]) if best is not None else None
        if (here is not None and len(here.lstrip("-")) == len(r["text"].lstrip("-"))
                and r["text"] not in named[0] | named[1]):
            out.append(r)
    return out


def contradicted(labels: list[dict], reads: list[FamilyReading]) -> list[str]:
    """What contradicts each family whose leading figures rest on one glyph read alike on
    every label (empty when none).

    The figures every used label of a family shares from the power of ten just above its
    step up (the 3 of 3750 3500 3250 3000, the 686 of 6862000 ... 6865000) are not checked
    by the arithmetic of the values: a typeface whose 3 the reader takes for a 5 on every
    label gives 5750 ... 5000, every label agreeing, with a large margin. The labels where
    those figures change (2750 2500) are the witnesses the arithmetic has; when one of
    them is read surely (:func:`rivals`) with other leading figures than the value named
    on its line, but its first varying figure as named (:func:`_witness`), the shared
    figures are contradicted. Measured 2026-12-07 (docs/georef.md): the Jacoubet runs the
    networks never shown a real label placed wrong (4 and 2 of 30) are all refused, and
    no run placed right is, on every benchmark set."""
    out = []
    left_out = rivals(labels, reads)
    for f, r in enumerate(reads):
        best = r.best
        if best is None:
            continue
        used = [abs(x["value"]) for x in labels
                if x["used"] and x["family"] == FAMILIES[f] and x["value"] is not None]
        unit = 10.0 ** np.ceil(np.log10(abs(best.b) + 1.0))
        shared = {int(v // unit) for v in used}
        if len(shared) != 1:
            continue                   # the used labels themselves change those figures
        # by the frame only: inside the map stray numbers are printed like labels
        witnesses = [x for x in left_out if x["family"] == FAMILIES[f] and x["end"] != 0
                     and _witness(x["value"], best.text(x["line"]), unit)]
        if witnesses:
            shown = ", ".join(f"{x['text']!r} at ({x['box'][0]}, {x['box'][1]}) on the "
                              f"{best.text(x['line'])} line" for x in witnesses[:3])
            out.append(f"every {FAMILIES[f][:-1]} label used ({sequence_text(best)}) "
                       f"begins with {shared.pop()}, which the steps between them do not "
                       f"check, but {shown} read otherwise")
    return out


def _witness(value: float, named: str | None, unit: float) -> bool:
    """Whether a label reading ``value`` on a line named ``named`` reads its line's value
    otherwise from ``unit`` up while reading the first figure below ``unit`` (the first
    figure the step varies) as named: this line's label, read otherwise in its leading
    figures (2700 on the 4750 line, step 250), not a stray number there (a scale's 5000 on
    the 6424 line, step 1, differs in that figure 9 times in 10)."""
    if named is None:
        return False
    v, n = abs(value), abs(float(named))
    return (int(v // unit) != int(n // unit)
            and int(v // (unit / 10)) % 10 == int(n // (unit / 10)) % 10)
