"""Decoding a line family's printed values: the most probable arithmetic sequence given
every word's figure probabilities, and its margin over the runner-up.

The values printed along one family form an arithmetic sequence ``v = a + b k`` of the
line number k, ``b`` a round step (1, 2, 2.5 or 5 times a power of ten, in the units
printed: 250 toises, 1000 m, 1 km). A hypothesis (a, b) says which string stands by every
line; its **evidence** is, summed over the line ends (each side of the frame, and inside
the map), ``log(1 + p / chance(s))`` of the best word there, ``p`` the reader's
probability of that line's string s (:func:`.numerals.string_probabilities`, the exact CTC
probability), the words of one side all read the same way up (the side takes the way up its
words agree with best). A line end whose word reads another value, or that has none, adds
nothing. The evidence is a log-likelihood ratio against a word that is not this label
reading s anyway: :func:`chance` falls tenfold with every figure (a street, a speck or a
house number reads ``10`` far more often than ``6862000``), so weak readings of short
strings on many lines cannot add up to a sure reading of long ones; and a probability
below :data:`P_NOISE` is no evidence at all (the reader gives a five-figure string 0.0001
on words that are not it, which against a chance of 1e-6 would count 4.6 each). The
difference between
the best hypothesis and the next is how many times likelier the best is: the **margin**,
in natural-log units.

Hypotheses come from pairs of likely readings (:func:`.numerals.likely_strings`) on two
lines whose difference is a round step per line (with a spacing given, that step only),
and from each likely reading with the best hypothesis's step (so that the runner-up where
one digit of every label is read otherwise is always weighed: 5750 ... against 3750 ...).
Every hypothesis is scored exactly, not only from the readings that proposed it.

Sequences of the same figures with more or fewer zeros (``910000 911000`` and ``91000
91100``: small raised zeros are the hardest thing to count) are one reading of the figures:
not each other's runner-up, and a word's probability of a line's figures is summed over
their strings. Which count is printed is chosen with both families and the CRS
(:func:`.agreement.choose_zeros`).

Values: as printed (an unsigned sheet prints 3000 for -3000: the sign is decided later with
the text's direction, :mod:`.orient`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .numerals import likely_strings, pair_probabilities
from .words import Word

#: The chance a word that is not a given value still reads it, for one figure, falling
#: tenfold with each further figure, but not below CHANCE_FLOOR (the reader's own noise).
CHANCE_ONE = 0.01
CHANCE_FLOOR = 1e-6
#: A word reading a string with a probability below this is no evidence of it.
P_NOISE = 0.01
#: Readings that propose hypotheses: the likeliest strings of each word, at least this
#: probable, at most this many per word and way up.
PROPOSE_P = 0.05
PROPOSE_TOP = 5
#: Hypotheses scored exactly (the best by the readings that proposed them).
SCORED = 40
#: Readings at least this probable also propose the best hypothesis's step through them.
RUNNER_P = 0.1
#: Why a family is undetermined when only the CRS's area of use rules its values out.
OUTSIDE_AREA = "no sequence of the values read fits the grid CRS's area of use"
#: Mantissas of round steps.
ROUND = (1.0, 2.0, 2.5, 5.0)


@dataclass
class Sequence:
    """One hypothesis of a family's printed values ``a + b k`` and its evidence.

    Attributes
    ----------
    a, b : float
        Printed value of line 0 and the step per line (b may be negative).
    score : float
        Evidence (natural-log units, see the module docstring).
    ways : dict
        (family, end) -> 0 or 1: the way up each side's words are read (``Word.images``).
    way_margins : dict
        (family, end) -> how much better (evidence) the side's words read that way up than
        the other.
    support : dict
        (line, end) -> (word index, probability of the line's string in that word).
    """

    a: float
    b: float
    score: float = 0.0
    ways: dict = field(default_factory=dict)
    way_margins: dict = field(default_factory=dict)
    support: dict = field(default_factory=dict)

    def text(self, k: int) -> str | None:
        """The string printed by line k under this hypothesis (None: not a whole number)."""
        return value_text(self.a + self.b * k)

    def span(self) -> np.ndarray:
        """The lines some word was weighed on for this hypothesis, and one beyond each end
        (``(K,)`` int; empty when none)."""
        ks = [k for k, _ in self.support]
        return np.arange(min(ks) - 1, max(ks) + 2) if ks else np.arange(0)

    def lines_read(self, min_p: float = 0.5) -> set[int]:
        """The lines whose string some word reads with at least ``min_p``."""
        return {k for (k, _), (_, p) in self.support.items() if p >= min_p}


@dataclass
class FamilyReading:
    """What the words of one family say: the best sequence, the runner-up, the margin
    (best score less the runner-up's; 0 when undetermined) and why not, if undetermined;
    ``zeros``: the sequences of the best's figures with fewer or more zeros (ten or a
    hundred times, :func:`same_figures`), best first, which the margin does not weigh."""

    best: Sequence | None
    runner_up: Sequence | None
    margin: float
    why: str = ""
    candidates: list[Sequence] = field(default_factory=list)
    zeros: list[Sequence] = field(default_factory=list)


def chance(s: str) -> float:
    """How probable it is that a word that is not the label ``s`` reads ``s`` anyway."""
    figures = sum(c.isdigit() for c in s)
    return max(CHANCE_FLOOR, CHANCE_ONE * 10.0 ** (1 - max(1, figures)))


def evidence(p: float | np.ndarray, s: str) -> float | np.ndarray:
    """The evidence (natural-log units) of a word reading ``s`` with probability ``p``."""
    return np.log1p(np.where(np.asarray(p) >= P_NOISE, p, 0.0) / chance(s))


def value_text(v: float) -> str | None:
    """How a value is printed (``-250``, ``6862000``), or None if it is not whole."""
    r = round(v)
    if abs(v - r) > 1e-6:
        return None
    return str(int(r))


def _value(s: str) -> float | None:
    """The value of a printed string, or None (no leading zero, a leading minus only)."""
    body = s[1:] if s.startswith("-") else s
    if not body or not body.isdigit() or (len(body) > 1 and body[0] == "0"):
        return None
    return float(s)


def is_round_step(b: float) -> bool:
    """Whether ``|b|`` is 1, 2, 2.5 or 5 times a power of ten, at least 1."""
    b = abs(b)
    if b < 1 or abs(b * 2 - round(b * 2)) > 1e-9:
        return False
    mantissa = b / 10.0 ** np.floor(np.log10(b))
    return any(abs(mantissa - m) < 1e-9 for m in ROUND)


def decode_family(words: list[Word], logp: np.ndarray, steps: set[float] | None = None,
                  plausible: Callable[[np.ndarray], bool] | None = None,
                  rule_out_best: bool = False) -> FamilyReading:
    """The best sequence of one family's printed values.

    Parameters
    ----------
    words : list of Word
        The family's candidate words.
    logp : (len(words), 2, T, C) array
        The reader's output for each word, as cut and turned half a turn.
    steps : set of float, optional
        The steps per line allowed (absolute, in printed units), e.g. from ``--spacing``.
    plausible : callable, optional
        ``plausible(values)``: whether the printed values of the family's lines (a
        ``(K,)`` array) can be grid coordinates at all (the CRS's area of use); the others
        are not runner-ups, and when the best is one of them the family is undetermined
        (:data:`OUTSIDE_AREA`).
    rule_out_best : bool
        Rule out the best too when it fails ``plausible`` (a test deduced from the other
        family, not the CRS alone): the best that passes is named.

    Returns
    -------
    FamilyReading
    """
    lines = sorted({w.line for w in words})
    if len(lines) < 2:
        return FamilyReading(None, None, 0.0, f"words found by {len(lines)} line(s), 2 or "
                                              "more are needed")
    readings = []                      # (line, value, probability)
    likely = likely_strings(logp.reshape(-1, *logp.shape[2:]), PROPOSE_P)
    for i, w in enumerate(words):
        for o in (0, 1):
            for s, p in likely[2 * i + o][:PROPOSE_TOP]:
                v = _value(s)
                if v is not None and len(s.lstrip("-")) >= 2:
                    readings.append((w.line, v, p))
    hyps = _proposals(readings, steps)
    if not hyps:
        return FamilyReading(None, None, 0.0, "no two readings on different lines form a "
                                              "sequence of round steps")
    scorer = _Scorer(words, logp)
    # the proposals ranked by their readings alone, then the best scored exactly
    best_of: dict[tuple[int, float], float] = {}
    for line, v, p in readings:
        key = (line, round(v, 6))
        best_of[key] = max(best_of.get(key, 0.0), p)
    weight = {key: float(evidence(p, value_text(key[1]) or "")) for key, p in best_of.items()}
    rough = {(a, b): sum(weight.get((k, round(a + b * k, 6)), 0.0) for k in lines)
             for a, b in hyps}
    ranked = sorted(rough, key=lambda h: -rough[h])[:SCORED]
    scored = dict(zip(ranked, scorer.score_all(ranked), strict=True))
    best = max(scored.values(), key=lambda s: s.score)
    # the best's step through every likely reading (at least RUNNER_P): the runner-up where
    # one digit of every label reads otherwise
    more = sorted({(round(v - b * k, 6), b) for (k, v), p in best_of.items()
                   if p >= RUNNER_P for b in (best.b, -best.b)} - set(scored))
    scored.update(zip(more, scorer.score_all(more), strict=True))
    ordered = sorted(scored.values(), key=lambda s: -s.score)
    if plausible is not None:
        # the CRS's area of use rules out runner-ups, never the best: when the words say
        # most surely values the CRS cannot hold, the CRS (or the reading) is wrong, and a
        # weaker sequence that fits is no answer
        ks = np.arange(min(lines) - 1, max(lines) + 2)
        if not rule_out_best and not plausible(ordered[0].a + ordered[0].b * ks):
            return FamilyReading(None, None, 0.0, OUTSIDE_AREA)
        ordered = [s for s in ordered if plausible(s.a + s.b * ks)]
        if not ordered:
            return FamilyReading(None, None, 0.0, OUTSIDE_AREA)
    best = ordered[0]
    # the same figures with other zeros are no runner-up: in thousands (844 km and 844000
    # m, read from one word with its raised zeros or without) they name the grid alike;
    # ten or a hundred times (small raised zeros miscounted) they are the same reading of
    # the figures, and how many zeros is settled with both families and the CRS
    # (``reader``); a word's probability of each is its probability of the figures
    others = [s for s in ordered[1:] if not same_figures(s, best)]
    second = others[0] if others else None
    margin = best.score - (second.score if second is not None else 0.0)
    alike = [s for s in ordered[1:] if same_figures(s, best)]
    zeros = [s for s in alike if not same_figures(s, best, (1000.0,))]
    for s in (best, *zeros):                 # the counts the reader may name
        s.support = scorer.support_of_figures(s, [best, *alike])
    return FamilyReading(best, second, margin, candidates=[best, *others[:4]], zeros=zeros)


def same_figures(s: Sequence, t: Sequence,
                 factors: tuple[float, ...] = (10.0, 100.0, 1000.0)) -> bool:
    """Whether one sequence is the other times one of ``factors`` (``a`` and ``b`` both):
    the same figures followed by more zeros."""
    return any(abs(x.a - f * y.a) < 1e-6 * max(1.0, abs(x.a))
               and abs(x.b - f * y.b) < 1e-6 * max(1.0, abs(x.b))
               for f in factors for x, y in ((s, t), (t, s)))


def _proposals(readings: list[tuple[int, float, float]], steps: set[float] | None
               ) -> set[tuple[float, float]]:
    """(a, b) of every pair of readings on different lines a round step apart per line
    (``steps``: those steps only)."""
    if len(readings) < 2:
        return set()
    k = np.array([r[0] for r in readings], np.float64)
    v = np.array([r[1] for r in readings])
    i, j = np.triu_indices(len(readings), 1)
    dk = k[j] - k[i]
    ok = dk != 0
    i, j, dk = i[ok], j[ok], dk[ok]
    b = (v[j] - v[i]) / dk
    out = set()
    for bi, ii in zip(b.tolist(), i.tolist(), strict=True):
        if steps is not None:
            if not any(abs(abs(bi) - s) < 1e-6 for s in steps):
                continue
        elif not is_round_step(bi):
            continue
        out.add((round(v[ii] - bi * k[ii], 6), round(bi, 6)))
    return out


class _Scorer:
    """Exact evidence of hypotheses, the words' string probabilities computed once per
    string."""

    def __init__(self, words: list[Word], logp: np.ndarray) -> None:
        self.words, self.logp = words, logp
        self.cache: dict[tuple[int, str], np.ndarray] = {}
        self.by_end: dict[tuple[int, int], list[int]] = {}
        for i, w in enumerate(words):
            self.by_end.setdefault((w.line, w.end), []).append(i)

    def score_all(self, hyps: list[tuple[float, float]]) -> list[Sequence]:
        """The evidence of every hypothesis (a, b); each word's probabilities of all the
        strings they ask of it computed at once."""
        need: dict[int, set[str]] = {}
        for a, b in hyps:
            for (k, _), idx in self.by_end.items():
                s = value_text(a + b * k)
                if s is not None:
                    for i in idx:
                        need.setdefault(i, set()).add(s)
        pairs = sorted((i, s) for i, strings in need.items() for s in strings
                       if (i, s) not in self.cache)
        if pairs:
            rows = np.array([2 * i + o for i, _ in pairs for o in (0, 1)])
            probs = pair_probabilities(self.logp.reshape(-1, *self.logp.shape[2:]), rows,
                                       [s for _, s in pairs for _ in (0, 1)]).reshape(-1, 2)
            for key, pr in zip(pairs, probs, strict=True):
                self.cache[key] = pr
        return [self.score(a, b) for a, b in hyps]

    def _prob(self, i: int, s: str) -> np.ndarray:
        return self.cache[(i, s)]

    def support_of_figures(self, seq: Sequence, alike: list[Sequence]) -> dict:
        """``seq``'s support (``Sequence.support``) with each word's probability of the
        line's figures: summed over the strings ``alike`` (scored sequences of the same
        figures with other zeros, ``seq`` among them) print there, read ``seq``'s way up."""
        out = {}
        for (k, end), idx in self.by_end.items():
            if (k, end) not in seq.support:
                continue
            o = seq.ways[(self.words[idx[0]].family, end)]
            texts = {t for t in (s.text(k) for s in alike) if t is not None}
            probs = [sum(float(self.cache[(i, t)][o]) for t in texts if (i, t) in self.cache)
                     for i in idx]
            j = int(np.argmax(probs))
            out[(k, end)] = (idx[j], min(1.0, probs[j]))
        return out

    def score(self, a: float, b: float) -> Sequence:
        seq = Sequence(a, b)
        sides: dict[tuple[int, int], np.ndarray] = {}
        best_word: dict[tuple[int, int], list[tuple[int, float]]] = {}
        for (k, end), idx in self.by_end.items():
            s = seq.text(k)
            if s is None or len(s.lstrip("-")) < 1:
                continue
            probs = np.array([self._prob(i, s) for i in idx])            # (n, 2)
            top = probs.max(axis=0)
            side = (self.words[idx[0]].family, end)
            sides[side] = sides.get(side, np.zeros(2)) + evidence(top, s)
            best_word[(k, end)] = [(idx[int(np.argmax(probs[:, o]))], float(top[o]))
                                   for o in (0, 1)]
        for side, totals in sides.items():
            o = int(np.argmax(totals))
            seq.ways[side] = o
            seq.way_margins[side] = float(totals[o] - totals[1 - o])
            seq.score += float(totals[o])
        for (k, end), per_way in best_word.items():
            o = seq.ways[(self.words[self.by_end[(k, end)][0]].family, end)]
            seq.support[(k, end)] = per_way[o]
        return seq
