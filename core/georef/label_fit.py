"""From grid values read on the sheet to the labelling of the detected grid.

The values printed along one line family form an arithmetic sequence ``v = a + b * k`` of
the line index k (step b = the grid spacing, in the units printed: a round number, 1, 2,
2.5 or 5 times a power of ten). Every pair of readings
on two different lines proposes (a, b); the proposal most readings agree with exactly wins
(a misread label, a street number or a missing label cannot move it); the readings that
disagree are reported and left out. A family is determined when at least three lines agree,
or two lines read at both ends (four readings), or two lines read clearly, or two lines
whose step is the one the other family gives on three lines or more (a warning then says
that few labels named the grid).

Which family is the easting and where north is come from the direction the text's top
points (easting labels stand upright on a north-up sheet; northing labels are upright too
or turned a quarter counter-clockwise, reading upwards; when one family's labels are
turned to be read from outside the frame on each side, the other, upright, is the easting).
The eastings increase eastward and
the northings northward: values that fall eastward are printed without their minus sign
(Jacoubet's atlas west of the Paris meridian) and are negated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, option
from ..graticule.result import GraticuleResult
from .grid_labels import Labelling, index_shift
from .label_reader import LabelReading

#: Units the printed values may be in, as multiples of the grid-CRS unit (652 for 652000).
UNIT_FACTORS = (1.0, 1000.0)
MIN_LINES = 3
#: Two lines whose every reading is at least this sure (Tesseract's 0-100) also do, with a
#: warning.
CLEAR = 90.0
#: Without --spacing, a step read below this is taken as thousands (652, 653: kilometres).
KM_BELOW = 50.0


@dataclass
class FamilyFit:
    """The sequence ``value = a + b * k`` read along one family, and who agrees."""

    a: float
    b: float
    words: list[int]
    lines: set[int]
    up: np.ndarray = field(default_factory=lambda: np.zeros(2))


def _matches(r: LabelReading, a: float, b: float) -> bool:
    return r.value is not None and abs(r.value - (a + b * r.line)) < 1e-6 * max(1.0, abs(b))


def _round_step(b: float) -> bool:
    """Grid spacings are round whole numbers: 1, 2, 2.5 or 5 times a power of ten (250
    toises, 1000 m)."""
    if abs(b) < 1 or b != round(b):
        return False
    mantissa = abs(b) / 10.0 ** np.floor(np.log10(abs(b)))
    return any(abs(mantissa - m) < 1e-9 for m in (1.0, 2.0, 2.5, 5.0))


def fit_family(readings: list[LabelReading], spacing: float | None,
               two_lines: bool = False) -> tuple[FamilyFit | None, str]:
    """The best arithmetic sequence of one family's readings, or (None, why not).

    ``two_lines``: two lines agreeing are enough (the step is known from elsewhere)."""
    rs = [r for r in readings if r.value is not None and len(r.text.lstrip("-")) >= 2]
    steps = None if spacing is None else {spacing / u for u in UNIT_FACTORS}
    scored: dict[tuple[float, float], tuple] = {}
    for i, ri in enumerate(rs):
        for rj in rs[i + 1:]:
            if ri.line == rj.line or ri.word == rj.word:
                continue
            b = (rj.value - ri.value) / (rj.line - ri.line)
            if not _round_step(b) or (steps is not None
                                      and not any(abs(abs(b) - s) < 1e-9 for s in steps)):
                continue
            a = ri.value - b * ri.line
            if (a, b) in scored:
                continue
            agree = {}
            for r in rs:
                if _matches(r, a, b) and (r.word not in agree
                                          or r.confidence > agree[r.word].confidence):
                    agree[r.word] = r
            lines = {r.line for r in agree.values()}
            conf = sum(r.confidence for r in agree.values())
            scored[(a, b)] = ((len(lines), len(agree), conf), agree, lines)
    if not scored:
        return None, "no two readings on different lines form a sequence"
    ranked = sorted(scored.items(), key=lambda kv: kv[1][0], reverse=True)

    def enough(lines: set, agree: dict) -> bool:
        return (len(lines) >= MIN_LINES or (len(lines) >= 2 and (two_lines or len(agree) >= 4))
                or (len(lines) >= 2 and min(r.confidence for r in agree.values()) >= CLEAR))

    good = [kv for kv in ranked if enough(kv[1][2], kv[1][1])]
    if not good:
        (a, b), (key, agree, lines) = ranked[0]
        return None, (f"only {len(agree)} readings on {len(lines)} lines agree (needs "
                      f"{MIN_LINES} lines, or 2 lines read at both ends or read clearly)")
    (a, b), (key, agree, lines) = good[0]
    if len(good) > 1 and good[1][1][0][:2] >= key[:2]:
        (a2, b2) = good[1][0]
        return None, (f"two sequences fit equally well ({a:g} {b:+g} per line and {a2:g} "
                      f"{b2:+g} per line)")
    up = np.mean([r.up for r in agree.values()], axis=0)
    return FamilyFit(a, b, sorted(agree), lines, up), ""


def _fit_both(families: list[list[LabelReading]], spacing: float | None
              ) -> tuple[list[FamilyFit | None], list[str]]:
    """Fit both families; without ``spacing``, with the one step (in grid units, up to
    thousands) both agree on best, so that a sequence of stray numbers in one family
    cannot impose its step."""
    fits, why = zip(*(fit_family(rs, spacing) for rs in families), strict=True)
    fits, why = list(fits), list(why)
    if spacing is None and fits.count(None) == 1:
        # a family read on two lines only: enough when its step is the step the other
        # family, read on three lines or more, gives (in full units or in thousands)
        k = fits.index(None)
        other = fits[1 - k]
        if len(other.lines) >= MIN_LINES:
            for step in (abs(other.b), abs(other.b) * 1000.0):
                fit, _ = fit_family(families[k], step, two_lines=True)
                if fit is not None:
                    fits[k], why[k] = fit, ""
                    break
    if spacing is not None or any(f is None for f in fits) or abs(fits[0].b) == abs(fits[1].b):
        return fits, why
    best = None
    for step in {abs(f.b) * u for f in fits for u in UNIT_FACTORS}:
        trial = [fit_family(rs, step)[0] for rs in families]
        if all(trial):
            key = (sum(len(f.lines) for f in trial), sum(len(f.words) for f in trial))
            if best is None or key > best[0]:
                best = (key, trial)
    return (best[1], ["", ""]) if best else (fits, why)


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(*v))
    return v / n if n > 0 else v


def _ccw(v: np.ndarray) -> np.ndarray:
    """``v`` turned a quarter counter-clockwise on screen (y down)."""
    return np.array([v[1], -v[0]])


def _directions(result: GraticuleResult, fits: list[FamilyFit], inside: bool = False
                ) -> tuple[int, np.ndarray, str | None]:
    """(index of the easting family, north as an image unit vector, warning or None).

    ``inside``: the labels were read along the lines inside the map, where both
    families' text may run along its line (eastings reading upwards, northings upright):
    then the northings' top, turned a quarter counter-clockwise, is the eastings' top."""
    ups = [_unit(f.up) for f in fits]
    dirs = []
    for fam in (result.columns, result.rows):
        t = np.radians(fam.normal_angle_deg)
        dirs.append(np.array([-np.sin(t), np.cos(t)]))      # along the lines
    para = [abs(float(u @ d)) > 0.7 for u, d in zip(ups, dirs, strict=True)]
    if para[0] != para[1]:
        east_fam = 0 if para[0] else 1
        return east_fam, ups[east_fam], None
    if para[0] and para[1]:
        # a family whose labels point every way (turned to be read from outside the frame
        # on each side, as Jacoubet's northings) is not the one printed upright
        steady = [float(np.hypot(*f.up)) > 0.5 for f in fits]
        if steady[0] != steady[1]:
            east_fam = 0 if steady[0] else 1
            return east_fam, ups[east_fam], None
        if float(_ccw(ups[0]) @ ups[1]) > 0.7:
            return 0, ups[0], None
        return 1, ups[1], None
    if inside:
        for east_fam in (0, 1):
            if float(_ccw(ups[1 - east_fam]) @ ups[east_fam]) > 0.7:
                return east_fam, ups[1 - east_fam], None
    return 0, np.array([0.0, -1.0]), ("the direction of the labels' text says nothing "
                                      "of the sheet's orientation: taken as north-up")


def labelling_from_readings(result: GraticuleResult, readings: list[LabelReading],
                            spacing: float | None) -> tuple[Labelling, list[dict]]:
    """The labelling of the detected grid from the values read, and the label records.

    ``spacing``: the grid spacing in grid-CRS units, or None to take the step read.
    Raises InputError (asking for --anchor) when the labels do not determine the grid.
    """
    names = ("columns", "rows")
    fits, why = _fit_both([[r for r in readings if r.family == n] for n in names], spacing)
    records = label_records(readings, fits)
    if any(f is None for f in fits):
        detail = (family_reasons([(n, w) for n, f, w in zip(names, fits, why, strict=True)
                                  if f is None])
                  + f"; {len({r.word for r in readings})} words read")
        raise LabelsUnreadableError(
            f"the grid values printed on the sheet do not determine the grid ({detail})",
            records, request=ask_anchor(), field="anchor", detail=detail)
    east_fam, north, warning = _directions(result, fits,
                                           bool(readings) and all(r.inside for r in readings))
    east = np.array([-north[1], north[0]])
    warnings = [warning] if warning else []
    # unit of the printed values: from --spacing, or the step read
    steps = [abs(f.b) for f in fits]
    if spacing is None:
        if not any(abs(max(steps) - u * min(steps)) < 1e-9 for u in UNIT_FACTORS):
            raise LabelsUnreadableError(f"the labels read give two grid spacings ({steps[0]:g} "
                                        f"and {steps[1]:g}); give {option('spacing')}", records,
                                        field="spacing")
        spacing = max(steps)          # one family printed in thousands, the other in full
        if spacing < KM_BELOW:
            spacing *= 1000.0
            warnings.append(f"the labels step by {steps[0]:g}: read as thousands of grid "
                            f"units (spacing {spacing:g}); give {option('spacing')} if not")
    factors = [spacing / s for s in steps]
    p = np.zeros((2, 2), int)
    origin = np.zeros(2)
    shift = index_shift(result)
    for f, (fam, fit) in enumerate(zip((result.columns, result.rows), fits, strict=True)):
        axis = 0 if f == east_fam else 1
        t = np.radians(fam.normal_angle_deg)
        normal = np.array([np.cos(t), np.sin(t)])
        want = int(np.sign(normal @ (east if axis == 0 else north))) or 1
        sign = want * int(np.sign(fit.b))           # negate values that fall the wrong way
        if sign < 0 and fit.a + fit.b * min(fit.lines) < 0:
            warnings.append(f"the {names[f]} labels carry a minus sign yet fall "
                            f"{'eastward' if axis == 0 else 'northward'}; check the sheet")
        p[axis, f] = want
        # grid value of line k: sign * factor * (a + b k); detection index = k - shift
        origin[axis] = sign * factors[f] * (fit.a + fit.b * shift[f])
    for name, fit in zip(names, fits, strict=True):
        if len(fit.lines) < MIN_LINES:
            warnings.append(f"only two {name} lines were read ({len(fit.words)} labels): "
                            "check the labelling")
    labelling = Labelling(orientation=p, origin=np.round(origin, 9), spacing=float(spacing),
                          north_in_image=_north_word(north), mirrored=False,
                          warnings=warnings, source="labels", labels=records)
    rejected = [r for r in records if not r["used"]]
    if rejected:
        labelling.warnings.append(
            f"{len(rejected)} grid label(s) read disagree with the others and were left out: "
            + ", ".join(f"{r['text']!r} at ({r['box'][0]}, {r['box'][1]})" for r in rejected[:6])
            + (" ..." if len(rejected) > 6 else ""))
    return labelling, records


def ask_anchor() -> str:
    """The request that ends a refusal: how to say which intersection is which."""
    return (f"say which intersection is which with {option('anchor')} X,Y=E,N or "
            f"{option('gcps')} FILE.points")


def _north_word(north: np.ndarray) -> str:
    x, y = north
    if abs(x) > abs(y):
        return "right" if x > 0 else "left"
    return "down" if y > 0 else "up"


class LabelsUnreadableError(InputError):
    """The labels do not determine the grid; ``labels`` holds what was read, ``reason``
    why they do not (the message without its closing ``request``, e.g. :func:`ask_anchor`,
    so that a later reading can say it again and ask once)."""

    def __init__(self, reason: str, labels: list[dict] | None = None, *,
                 request: str | None = None, field: str | None = None,
                 value: object = None, detail: str | None = None):
        super().__init__(reason if request is None else f"{reason}; {request}", field=field,
                         value=value)
        self.reason = reason
        self.detail = reason if detail is None else detail   # why, per family
        self.labels = list(labels or [])


def family_reasons(reasons: list[tuple[str, str]]) -> str:
    """``"columns: why; rows: other"``, or ``"columns and rows: why"`` when both families
    fail for the same reason (a reason without a family's name is given alone)."""
    if len(reasons) == 2 and reasons[0][1] == reasons[1][1]:
        return f"{reasons[0][0]} and {reasons[1][0]}: {reasons[0][1]}"
    return "; ".join(f"{name}: {why}" if name else why for name, why in reasons)


def label_records(readings: list[LabelReading], fits: list[FamilyFit | None]) -> list[dict]:
    """One plain record per word read as a number of two figures or more: box (x0, y0,
    x1, y1 pixels), text, value, family, line, used and why (for the report, the picture
    and the plugin). Words read as nothing, a letter or one figure are not labels."""
    by_word: dict[int, list[LabelReading]] = {}
    for r in readings:
        by_word.setdefault(r.word, []).append(r)
    fit_of = dict(zip(("columns", "rows"), fits, strict=True))
    out = []
    for word, rs in sorted(by_word.items()):
        fit = fit_of[rs[0].family]
        used = [r for r in rs if fit is not None and word in fit.words and _matches(
            r, fit.a, fit.b)]
        best = used[0] if used else max(rs, key=lambda r: (r.value is not None, r.confidence))
        if best.value is None or len(best.text.lstrip("-")) < 2:
            continue     # no number of two figures or more read: not a label
        if used:
            why = "agrees with the sequence read along its family"
        elif fit is None:
            why = "its family's labels do not form a sequence"
        else:
            why = f"disagrees: {fit.a + fit.b * best.line:g} expected on this line"
        if best.inside:
            why = "read inside the map by its line; " + why
        out.append({"family": best.family, "line": best.line, "end": best.end,
                    "box": [int(v) for v in best.box], "text": best.text,
                    "value": best.value, "confidence": round(best.confidence, 1),
                    "up": [round(v, 3) for v in best.up], "used": bool(used), "why": why,
                    "inside": best.inside})
    return out
