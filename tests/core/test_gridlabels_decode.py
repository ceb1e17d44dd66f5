"""Decoding printed grid values (core.gridlabels.decode, orient; issue 33), on reader outputs
made up figure by figure, so that what is tested is the decision, not the network."""

import numpy as np
import pytest

from core.georef.crs import parse_crs
from core.graticule.result import GraticuleResult, LineFamily
from core.gridlabels.decode import decode_family, is_round_step, value_text
from core.gridlabels.numerals import N_CLASSES, SYMBOLS, string_probabilities
from core.gridlabels.orient import area_of_use, candidates, node_extent, within_area
from core.gridlabels.words import Word

T = 48


def _logp(text: str, sure: float = 0.95, other: dict | None = None) -> np.ndarray:
    """A made-up reader output spelling ``text`` (each figure ``sure``; ``other`` maps a
    place in the text to (symbol, probability) read there instead)."""
    p = np.full((T, N_CLASSES), 1e-4)
    p[:, 0] = 1.0
    t = 2
    for i, c in enumerate(text):
        for _ in range(2):
            p[t] = 1e-4
            p[t, 1 + SYMBOLS.index(c)] = sure
            if other and i in other:
                alt, q = other[i]
                p[t, 1 + SYMBOLS.index(alt)] = q
            p[t, 0] = 1e-3
            t += 1
        t += 1                                  # a blank between figures
    p /= p.sum(axis=1, keepdims=True)
    return np.log(p)


def _word(family: int, line: int, end: int = -1) -> Word:
    up = (0.0, -1.0)
    return Word(family, line, end, (0, 0, 10, 5), [np.zeros((4, 8), np.uint8)] * 2,
                [up, (0.0, 1.0)], 5.0)


def _family(texts: dict[int, str], how: dict | None = None
            ) -> tuple[list[Word], np.ndarray]:
    """Words on the lines of ``texts`` (line -> text), read as ``how[line]`` says (the
    keywords of :func:`_logp`); the other way up each reads 00."""
    words, logp = [], []
    for k, text in texts.items():
        words.append(_word(0, k))
        junk = _logp("00")
        logp.append(np.stack([_logp(text, **(how or {}).get(k, {})), junk]))
    return words, np.array(logp)


def test_made_up_output_reads_its_text():
    probs = string_probabilities(_logp("3750")[None], ["3750", "5750", "375"])[0]
    assert probs[0] > 0.8 and probs[1] < 1e-3 and probs[2] < 1e-3


def test_round_steps_and_printed_values():
    assert all(is_round_step(b) for b in (1, 2, 2.5, 5, 250, -1000, 25000))
    assert not any(is_round_step(b) for b in (0.5, 3, 300, 750, 1.5))
    assert value_text(-3000.0) == "-3000" and value_text(12.5) is None


def test_the_sequence_is_decoded_with_a_margin():
    words, logp = _family({0: "3750", 1: "3500", 2: "3250", 3: "3000"})
    r = decode_family(words, logp)
    assert (r.best.a, r.best.b) == (3750.0, -250.0)
    assert r.best.lines_read() == {0, 1, 2, 3}
    # four labels read surely: about four times log(1 + 0.9 / 0.01) over any runner-up
    assert r.margin > 3 * np.log1p(0.5 / 0.01)


def test_the_runner_up_a_digit_off_on_every_label_is_weighed():
    """Old-style 3 and 5 alike: the thousands figure of every label read 3 (0.6) or 5
    (0.4); the two 2xxx labels decide, and the margin says how surely."""
    amb = {0: ("5", 0.4)}
    words, logp = _family({0: "3750", 1: "3500", 2: "3250", 3: "3000", 4: "2750", 5: "2500"},
                          {k: {"other": amb, "sure": 0.6} for k in range(4)})
    r = decode_family(words, logp)
    assert (r.best.a, r.best.b) == (3750.0, -250.0)
    assert r.runner_up is not None
    second = {r.runner_up.text(k) for k in range(4)}
    assert all(t.startswith("5") for t in second)        # the 5... reading was weighed
    # without the two 2xxx labels, nothing separates them as well
    words2, logp2 = words[:4], logp[:4]
    r2 = decode_family(words2, logp2)
    assert r2.margin < r.margin


def test_one_line_read_is_not_enough():
    words, logp = _family({2: "3000"})
    r = decode_family(words, logp)
    assert r.best is None and "2 or more" in r.why


def test_a_given_spacing_restricts_the_step():
    words, logp = _family({0: "1000", 2: "2000"})        # step 500 a line, or 1000 a line?
    free = decode_family(words, logp)
    assert free.best.b == 500.0
    assert decode_family(words, logp, {250.0}).best is None or \
        decode_family(words, logp, {250.0}).best.b in (250.0, -250.0)


def _grid(angle: float = 0.0) -> GraticuleResult:
    cols = LineFamily(normal_angle_deg=angle, spacing_px=100.0, offset_px=50.0,
                      indices=(0, 1, 2, 3))
    rows = LineFamily(normal_angle_deg=angle + 90.0, spacing_px=100.0, offset_px=50.0,
                      indices=(0, 1, 2, 3))
    idx = np.array([(i, j) for j in range(4) for i in range(4)])
    t = np.radians(angle)
    n0, n1 = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    pts = np.array([(50 + 100 * i) * n0 + (50 + 100 * j) * n1 for i, j in idx])
    return GraticuleResult(points=pts, index=idx, confidence=np.ones(len(idx)),
                           columns=cols, rows=rows, image_size=(500, 500))


def _seq(a: float, b: float):
    from core.gridlabels.decode import Sequence

    s = Sequence(a, b)
    s.support = {(k, -1): (0, 0.9) for k in range(4)}
    return s


def test_the_area_of_use_tells_eastings_from_northings():
    """Lambert-93: a seven-figure value can only be a northing, whatever the text says;
    columns (vertical lines) printed 6 860 000 ... are the northings (north to the left
    or right), rows the eastings."""
    g = _grid()
    # columns 6860000 falling leftwards? values grow with k along +x: north is +x (right)
    seqs = [_seq(6860000.0, 1000.0), _seq(652000.0, 1000.0)]
    names = candidates(g, seqs, None)
    area = area_of_use(parse_crs("EPSG:2154"))
    assert area is not None and area[2] < 1.4e6 and 5.9e6 < area[1] < 6.1e6 < 7.2e6 < area[3]
    placed = [n for n in names if within_area(n, node_extent(g), area)]
    assert placed and all(n.east_family == 1 for n in placed)
    assert len({(n.orientation.tobytes(), n.origin.tobytes()) for n in placed}) == 1


def test_no_area_of_use_leaves_the_choice_to_the_text():
    g = _grid()
    seqs = [_seq(-3000.0, 250.0), _seq(3750.0, -250.0)]
    names = candidates(g, seqs, None)
    assert {n.east_family for n in names} == {0, 1}      # both possible without the text
    assert all(within_area(n, node_extent(g), None) for n in names)


@pytest.mark.parametrize(("spacing", "ok"), [(250.0, True), (1000.0, False)])
def test_a_given_spacing_must_be_the_step(spacing, ok):
    names = candidates(_grid(), [_seq(3000.0, -250.0), _seq(3750.0, -250.0)], spacing)
    assert bool(names) == ok


def test_rows_read_from_outside_the_frame_are_not_the_eastings_however_many_each_side():
    """Jacoubet's way: column labels upright (top up), row labels read from outside the
    frame (top left on the left side, right on the right). Three labels read on one side
    and one on the other must not make the rows look upright."""
    from core.gridlabels.orient import text_north

    g = _grid()
    up, left, right = np.array([0.0, -1.0]), np.array([-1.0, 0.0]), np.array([1.0, 0.0])
    sides = {(0, -1): up, (0, 1): up, (1, -1): left, (1, 1): right}
    assert text_north(g, sides, False)[0] == 0
    assert np.allclose(text_north(g, sides, False)[1], up)
    # a side whose way up is not sure is left out: one side each is not enough to tell
    # upright from read-from-outside, and no other rule names the rows
    assert text_north(g, {(0, -1): up, (1, -1): left}, False)[0] == 0
    # turned labels on the rows reading upwards (top left) on both sides: columns east
    assert text_north(g, {(0, -1): up, (1, -1): left, (1, 1): left}, False)[0] == 0
    # a family whose sides disagree on the way its text runs says nothing
    assert text_north(g, {(0, -1): up, (0, 1): left, (1, -1): left}, False) is None


def test_a_family_that_can_only_be_eastings_makes_the_other_northings():
    """Columns read 469 470 471 (km: in Lambert-93 only eastings); the rows' two clear
    labels, 6770 and 6769 (km northings), are outweighed by street numbers reading 10 11 12
    13 on four rows (an easting of 10 km lies in Lambert-93's area of use, a northing does
    not): taken alone the rows stay open; once the columns are the eastings, the rows are
    northings and named 6772 ... surely."""
    from core.gridlabels import agreement, reader
    from core.gridlabels.orient import plausible_values

    texts = [(0, 0, "469"), (0, 1, "470"), (0, 2, "471"), (1, 2, "6770"), (1, 3, "6769"),
             (1, 0, "10"), (1, 1, "11"), (1, 2, "12"), (1, 3, "13")]
    words = [_word(f, k) for f, k, _ in texts]
    logp = np.array([np.stack([_logp(s), _logp("00")]) for _, _, s in texts])
    area = area_of_use(parse_crs("EPSG:2154"))
    reads = [reader._decode(words, logp, f, None, plausible_values(area)) for f in (0, 1)]
    assert agreement.sure(reads[0]) and not agreement.sure(reads[1])
    named = reader._other_axis(words, logp, reads, None, area)
    assert named[0] is reads[0]
    assert agreement.sure(named[1]) and [named[1].best.text(k) for k in (2, 3)] == ["6770",
                                                                                   "6769"]
    # without an area of use nothing is ruled out
    assert reader._other_axis(words, logp, reads, None, None) == reads


def test_only_words_that_look_like_a_lines_label_are_warned_about():
    """Left-out words worth a warning read surely as a value of the named one's length
    that neither family names: not a street number, not a neighbour's or a corner's label."""
    from core.gridlabels import agreement
    from core.gridlabels.decode import FamilyReading, Sequence

    cols = Sequence(2000.0, -250.0, support={(k, -1): (0, 0.9) for k in range(4)})
    rows = Sequence(3750.0, -250.0, support={(k, -1): (0, 0.9) for k in range(4)})
    reads = [FamilyReading(cols, None, 20.0), FamilyReading(rows, None, 20.0)]

    def rec(family, line, text, confidence=90.0):
        return {"family": family, "line": line, "text": text, "value": float(text),
                "confidence": confidence, "used": False}

    labels = [rec("rows", 0, "5750"),                 # the row's label, a figure misread
              rec("rows", 2, "12"),                   # a street number
              rec("rows", 1, "5500", confidence=30),  # unsure
              rec("columns", 0, "1750"),              # the next column's label
              rec("columns", 0, "3750"),              # the corner's row label
              {**rec("columns", 1, "1750"), "used": True}]
    assert [r["text"] for r in agreement.rivals(labels, reads)] == ["5750"]


def _one_zero_unsure(text: str, blank: float = 0.7) -> np.ndarray:
    """``text``'s made-up output with its last figure (a zero) read as blank ``blank`` of
    the time: the small raised zeros of ``910000`` counted as two or as three."""
    logp = np.exp(_logp(text))
    t = 2 + 3 * (len(text) - 1)                    # the last figure's two steps
    for step in (t, t + 1):
        logp[step] = 1e-4
        logp[step, 0] = blank
        logp[step, 1 + SYMBOLS.index("0")] = 1 - blank
    logp /= logp.sum(axis=1, keepdims=True)
    return np.log(logp)


def _raised_zeros(area):
    """Columns 910000 911000 912000 and rows 6989000 6988000 6987000 (Lambert-93, m), each
    label's last zero read or not about as often (so 91000 ... and 698900 ... as likely)."""
    from core.gridlabels import reader
    from core.gridlabels.orient import plausible_values

    texts = [(0, k, str(910000 + 1000 * k)) for k in range(3)] + \
        [(1, k, str(6989000 - 1000 * k)) for k in range(3)]
    words = [_word(f, k) for f, k, _ in texts]
    logp = np.array([np.stack([_one_zero_unsure(s), _logp("00")]) for _, _, s in texts])
    fits = plausible_values(area)
    return words, logp, [reader._decode(words, logp, f, None, fits) for f in (0, 1)]


def test_small_zeros_miscounted_are_one_reading_of_the_figures():
    """No count of zeros is read surely on any label, but the figures are: the sequence ten
    times smaller is not the runner-up (it is kept aside as another count of zeros) and
    each line's probability is that of its figures."""
    words, logp, reads = _raised_zeros(area_of_use(parse_crs("EPSG:2154")))
    p = string_probabilities(logp[:1, 0], ["910000", "91000"])[0]
    assert 0.3 < p[0] < 0.5 and 0.3 < p[1] < 0.5       # neither count sure on its own
    for r, zeros in zip(reads, ({910000.0, 91000.0}, {6989000.0, 698900.0}), strict=True):
        assert {r.best.a, *(z.a for z in r.zeros)} == zeros
        assert r.best.lines_read() == {0, 1, 2}
        assert r.runner_up is None or r.runner_up.a not in zeros


def test_the_count_of_zeros_is_chosen_by_both_families_and_the_crs():
    """Lambert-93: 698900 cannot be a northing nor 91000 step 100 go with 6989000 step 1000:
    910000 and 6989000 are named. With no area of use to tell, both counts stay open and
    the family is not named (the refusal says how many zeros is unclear)."""
    from core.gridlabels import agreement, reader

    area = area_of_use(parse_crs("EPSG:2154"))
    words, logp, reads = _raised_zeros(area)
    named = agreement.choose_zeros(reads, area)
    assert [(r.best.a, r.best.b) for r in named] == [(910000.0, 1000.0), (6989000.0, -1000.0)]
    assert all(agreement.sure(r) for r in named)
    _, _, free = _raised_zeros(None)
    open_ = agreement.choose_zeros(free, None)
    assert not any(agreement.sure(r) for r in open_)
    assert all("zeros" in reader._why(r) for r in open_)


def _read_on(a: float, b: float, score: float, lines: range):
    """A sequence ``a + b k`` whose string a word by the frame reads with probability 0.9
    on each of ``lines``."""
    from core.gridlabels.decode import Sequence

    return Sequence(a, b, score=score, support={(k, -1): (k, 0.9) for k in lines})


def _labelled(family: str, a: float, b: float, used: range, rivals: dict[int, str],
              rival_end: int = 1):
    """A family's sure sequence ``a + b k`` whose labels on the lines ``used`` agree, and
    sure labels left out (line -> text) at ``rival_end`` of their line (0: inside the
    map), as :func:`reader._records` gives them."""
    from core.gridlabels.decode import FamilyReading

    seq = _read_on(a, b, 40.0, used)
    records = [{"family": family, "line": k, "end": -1, "box": [100 * k, 20, 100 * k + 60, 40],
                "text": seq.text(k), "value": a + b * k, "confidence": 90.0, "used": True}
               for k in used]
    records += [{"family": family, "line": k, "end": rival_end,
                 "box": [100 * k, 900, 100 * k + 60, 920],
                 "text": t, "value": float(t), "confidence": 85.0, "used": False}
                for k, t in rivals.items()]
    return FamilyReading(seq, None, 15.6), records


@pytest.mark.parametrize(("rows", "contradicted"), [
    # a network never shown Jacoubet's labels (021, measured): its old-style 3 read as a 5
    # on every row label, the 2750 line's labels read 2700 and 2780 (4750 named there)
    ((5750.0, range(4), {4: "2700", 5: "2780"}), True),
    # the right reading, two of its labels misread 3 -> 5 by the shipped network: the used
    # labels 3750 ... 2750 change their leading figure, the arithmetic checks it
    ((3750.0, range(5), {1: "5500", 2: "5250"}), False),
    # a label misread in its low figures only is no witness of the leading ones
    ((5750.0, range(4), {1: "5700"}), False),
    # nor a stray number by the line (a scale's 2000 on the 4750 line): it does not read
    # the line's varying figures (the 7 of 4750)
    ((5750.0, range(4), {4: "2000"}), False),
])
def test_leading_figures_shared_by_every_label_are_refused_when_a_label_reads_them_otherwise(
        rows, contradicted):
    from core.gridlabels import agreement

    a, used, rivals = rows
    columns, col_records = _labelled("columns", 2000.0, -250.0, range(5), {})
    named, row_records = _labelled("rows", a, -250.0, used, rivals)
    found = agreement.contradicted(col_records + row_records, [columns, named])
    assert bool(found) is contradicted
    if contradicted:
        assert found[0].startswith("every row label used (5750 5500 5250 5000) begins "
                                   "with 5, which the steps between them do not check, "
                                   "but '2700' at (400, 900) on the 4750 line")


def test_a_number_inside_the_map_is_no_witness_of_the_labels_leading_figures():
    """Values printed inside the map, 874 875 876 877 (km), and a house number 216 printed
    the same way by the 876 line (measured on a generated sheet): its last figure matches
    the line's 1 time in 10, which would make it a witness by the frame; inside the map it
    is none. The same reading by the frame still is one."""
    from core.gridlabels import agreement

    rows, row_records = _labelled("rows", 6643.0, -1.0, range(4), {})
    columns, inside = _labelled("columns", 874.0, 1.0, range(4), {2: "216"}, rival_end=0)
    assert agreement.contradicted(inside + row_records, [columns, rows]) == []
    _, by_frame = _labelled("columns", 874.0, 1.0, range(4), {2: "216"})
    assert agreement.contradicted(by_frame + row_records, [columns, rows])


def test_steps_that_conflict_take_the_one_count_of_zeros_that_makes_them_alike():
    """Small raised zeros read 312^00 (31200 ... step 100) more surely than 312^000, the rows
    6922 6921 ... (kilometres, step 1): only 312000 ... step 1000 (or 312 km, the same grid)
    steps alike and fits Lambert-93, so the columns are named 312000 ...; without an area
    of use the rows' count could change too, several ways remain and nothing is chosen."""
    from core.gridlabels import agreement
    from core.gridlabels.decode import FamilyReading

    def family(best, zeros, second=None):
        r = FamilyReading(best, second, best.score - (second.score if second else 0.0),
                          zeros=zeros)
        r.index = []
        return r

    def seq(a, b, score):
        return _read_on(a, b, score, range(4))

    columns = family(seq(31200.0, 100.0, 59.1), [seq(312000.0, 1000.0, 53.6),
                                                 seq(312.0, 1.0, 38.9)],
                     seq(400.0, -100.0, 36.0))
    rows = family(seq(6923.0, -1.0, 34.7), [seq(692300.0, -100.0, 20.0)])
    area = area_of_use(parse_crs("EPSG:2154"))
    named = agreement.recount([columns, rows], area)
    assert (named[0].best.a, named[0].best.b) == (312000.0, 1000.0)
    assert named[0].margin == pytest.approx(53.6 - 36.0)
    assert named[1] is rows
    assert agreement.recount([columns, rows], None) is None


def test_zeros_missed_on_both_families_are_restored_by_the_one_grid_that_fits():
    """Raised zeros missed on every label of both families (measured on a generated
    sheet): columns 70600 (or 706000, as likely) step 100, rows 681800 step -100, read
    surely. No count the reader weighed fits Lambert-93 (681800 is no northing); the
    figures as read with zeros added to both name one grid in it: 706000 and 6818000 (in
    metres; 706 and 6818 km is the same grid). With no area of use no zero is added: the
    counts as read that step alike are named."""
    from core.gridlabels import agreement
    from core.gridlabels.decode import FamilyReading

    def family(best, zeros, second):
        r = FamilyReading(best, second, best.score - second.score, zeros=zeros)
        r.index = []
        return r

    columns = family(_read_on(70600.0, 100.0, 53.5, range(2, 5)),
                     [_read_on(706000.0, 1000.0, 51.0, range(2, 5))],
                     _read_on(70900.0, -100.0, 38.9, range(2, 5)))
    rows = family(_read_on(681800.0, -100.0, 90.6, range(4)),
                  [_read_on(68180.0, -10.0, 83.0, range(4))],
                  _read_on(681600.0, 100.0, 32.4, range(4)))
    area = area_of_use(parse_crs("EPSG:2154"))
    named = agreement.choose_zeros([columns, rows], area)
    assert [(r.best.a, r.best.b) for r in named] == [(706000.0, 1000.0), (6818000.0, -1000.0)]
    assert all(agreement.sure(r) for r in named)
    assert named[1].best.support == rows.best.support        # the same figures read
    free = agreement.choose_zeros([columns, rows], None)
    assert [(r.best.a, r.best.b) for r in free] == [(70600.0, 100.0), (681800.0, -100.0)]


def test_inside_the_map_only_words_read_surely_as_numbers_are_candidates():
    """Inside the map most words are map text: a lone figure read surely, a two-figure
    number whose figures are each as likely another (10, 18, 70 or 78), are no candidates;
    a value read surely either way up is."""
    from core.gridlabels.reader import _numbers

    blank = _logp("")
    unsure = _logp("10", sure=0.5, other={0: ("7", 0.5), 1: ("8", 0.5)})
    logp = np.array([np.stack([_logp("1"), blank]), np.stack([unsure, blank]),
                     np.stack([blank, _logp("945")])])
    assert _numbers(logp).tolist() == [False, False, True]
