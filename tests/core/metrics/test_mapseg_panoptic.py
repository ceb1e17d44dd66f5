"""MapSeg task 1 (COCO panoptic quality): conformance with icdar21-mapseg-eval 1.0.4 and the
corrections of its known errors."""

from __future__ import annotations

import warnings

import cv2
import numpy as np
import pytest
from skimage.measure import label as sk_label

from core.errors import InputError
from core.metrics.mapseg_errors import OfficialToolFailure
from core.metrics.panoptic import overlap_table, panoptic_quality

off_coco = pytest.importorskip("icdar21_mapseg_eval.coco")
off_iou = pytest.importorskip("icdar21_mapseg_eval.iou")

N_CASES = 264


# ---- independent references -------------------------------------------------------------

def naive_pq(ref: np.ndarray, pred: np.ndarray) -> tuple[float, float, float]:
    """COCO PQ by its definition, pair by pair (uint8: threshold 128 + 4-connected labels)."""
    def labels(img):
        if img.dtype == np.uint8:
            return sk_label(img >= 128, connectivity=1)
        return img.astype(np.int64)

    r, p = labels(ref), labels(pred)
    ref_ids = [g for g in np.unique(r) if g]
    pred_ids = [q for q in np.unique(p) if q]
    ious = []
    for g in ref_ids:
        gm = r == g
        for q in np.unique(p[gm]):
            if q == 0:
                continue
            pm = p == q
            iou = np.count_nonzero(gm & pm) / np.count_nonzero(gm | pm)
            if iou > 0.5:
                ious.append(iou)
    if not ref_ids or not pred_ids:
        return 0.0, 0.0, 0.0
    tp = len(ious)
    sq = float(np.mean(ious)) if tp else 0.0
    rq = tp / (tp + 0.5 * (len(pred_ids) - tp) + 0.5 * (len(ref_ids) - tp))
    return sq * rq, sq, rq


def official(ref: np.ndarray, pred: np.ndarray):
    """The official value, or the exception it raises."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return tuple(float(v) for v in off_coco.COCO(ref, pred))
    except Exception as exc:  # the official tool's crashes: AssertionError, ValueError...
        return exc


def official_quirks(ref: np.ndarray, pred: np.ndarray) -> set[str]:
    """Which documented errors of the official tool apply, found with its own internals."""
    quirks = set()
    mode_a, mode_b = off_coco._deduce_mode(ref, pred)
    for img, mode in ((ref, mode_a), (pred, mode_b)):
        if img.dtype == np.uint8 and mode == "labelmap":
            quirks.add("d: grey levels read as labels")
    la = off_coco._compute_labelmap(ref) if mode_a == "segmentation" else ref
    lb = off_coco._compute_labelmap(pred) if mode_b == "segmentation" else pred
    hist = off_iou.intersections(la, lb)
    if (hist.sum(axis=1)[1:] == 0).any() or (hist.sum(axis=0)[1:] == 0).any():
        quirks.add("f: absent labels")
    with np.errstate(all="ignore"):
        iou_a, iou_b = off_iou.compute_IoUs(hist)
    for best, iou in ((hist.argmax(axis=1), iou_a), (hist.argmax(axis=0), iou_b)):
        if ((best[1:] == 0) & (iou[1:] > 0.5)).any():
            quirks.add("e: background match")
    a1 = iou_a[1:][iou_a[1:] > 0.5]
    if len(np.unique(a1)) != len(a1):
        quirks.add("a: equal IoUs")
    return quirks


# ---- random cases ---------------------------------------------------------------------------

def _blocks(rng, h, w, n, *, border=False, holes=False, touching=False):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        bw, bh = (int(v) for v in rng.integers(2, 14, 2))
        if border:
            x0 = int(rng.choice([0, w - bw, int(rng.integers(0, w))]))
            y0 = int(rng.choice([0, h - bh, int(rng.integers(0, h))]))
        else:
            x0, y0 = int(rng.integers(-2, w)), int(rng.integers(-2, h))
        shape = int(rng.integers(3))
        if shape == 0 or touching:
            cv2.rectangle(img, (x0, y0), (x0 + bw - 1, y0 + bh - 1), 255, -1)
        elif shape == 1:
            cv2.ellipse(img, (x0, y0), (bw // 2 + 1, bh // 2 + 1), int(rng.integers(180)),
                        0, 360, 255, -1)
        else:
            cv2.rectangle(img, (x0, y0), (x0 + bw + 3, y0 + bh + 3), 255, -1)
        if holes and bw > 4 and bh > 4:
            img[y0 + 2:y0 + bh - 2, x0 + 2:x0 + bw - 2] = 0
        if touching:  # a neighbour sharing an edge, or only a corner
            dx, dy = (bw, 0) if rng.random() < 0.5 else (bw, bh)
            cv2.rectangle(img, (x0 + dx, y0 + dy), (x0 + dx + 4, y0 + dy + 4), 255, -1)
    return img


def _perturb(rng, ref):
    pred = ref.copy()
    for _ in range(int(rng.integers(1, 4))):
        op = int(rng.integers(7))
        if op == 0:
            pred = cv2.dilate(pred, np.ones((2, 2), np.uint8))
        elif op == 1:
            pred = cv2.erode(pred, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)))
        elif op == 2:
            pred = np.roll(pred, int(rng.integers(-2, 3)), axis=int(rng.integers(2)))
        elif op == 3:  # drop a block
            n, lab = cv2.connectedComponents((pred > 127).view(np.uint8), connectivity=4)
            if n > 1:
                pred[lab == rng.integers(1, n)] = 0
        elif op == 4:  # cut a line: splits blocks
            pred[int(rng.integers(pred.shape[0])), :] = 0
        elif op == 5:  # bridge: merges blocks
            p0 = tuple(int(v) for v in rng.integers(0, 40, 2))
            p1 = tuple(int(v) for v in rng.integers(0, 40, 2))
            cv2.line(pred, p0, p1, 255, 1)
        else:
            pred = np.maximum(pred, _blocks(rng, *pred.shape, int(rng.integers(1, 3))))
    return pred


def _as_labelmap(rng, mask, dtype, gaps):
    lab = sk_label(mask >= 128, connectivity=1)
    if gaps and lab.max() > 0:  # non-contiguous label values
        lab = np.where(lab > 0, lab * 3 + int(rng.integers(0, 3)), 0)
    else:  # renumber randomly: labels are not in raster order
        perm = np.concatenate(([0], rng.permutation(lab.max()) + 1))
        lab = perm[lab]
    return lab.astype(dtype)


def make_case(i: int, rng) -> tuple[str, np.ndarray, np.ndarray]:
    """Case ``i`` of the suite: a kind (edge cases in turn) and its reference/prediction."""
    h, w = int(rng.integers(24, 56)), int(rng.integers(24, 64))
    kinds = ["random", "random", "identical", "touching", "holes", "border", "labelmap16",
             "labelmap32-gaps", "empty-pred", "empty-ref", "both-empty", "stray-grey",
             "nearly-full", "noise"]
    kind = kinds[i % len(kinds)]
    n = int(rng.integers(1, 12))
    ref = _blocks(rng, h, w, n, border=kind == "border", holes=kind == "holes",
                  touching=kind == "touching")
    pred = _perturb(rng, ref)
    if kind == "identical":
        pred = ref.copy()
    elif kind == "labelmap16":
        ref, pred = (_as_labelmap(rng, m, np.uint16, False) for m in (ref, pred))
    elif kind == "labelmap32-gaps":
        ref = _as_labelmap(rng, ref, np.int32, True)
        pred = _as_labelmap(rng, pred, np.int32, bool(rng.random() < 0.5))
    elif kind == "empty-pred":
        pred = np.zeros_like(ref)
    elif kind == "empty-ref":
        ref = np.zeros_like(pred)
    elif kind == "both-empty":
        ref, pred = np.zeros_like(ref), np.zeros_like(pred)
    elif kind == "stray-grey":
        y, x = int(rng.integers(h)), int(rng.integers(w))
        pred[y, x] = 254 if pred[y, x] == 255 else 200
    elif kind == "nearly-full":
        ref = 255 - _blocks(rng, h, w, 2)
        pred = _perturb(rng, ref)
    elif kind == "noise":
        pred = np.where(rng.random((h, w)) < 0.3, 255, pred).astype(np.uint8)
    return kind, ref, pred


def test_random_suite_matches_official_and_definition():
    rng = np.random.default_rng(20210905)
    compared, quirk_seen, crashes = 0, {}, 0
    for i in range(N_CASES):
        kind, ref, pred = make_case(i, rng)
        name = f"case {i} ({kind})"
        ours = panoptic_quality(ref, pred)
        # the default is COCO PQ by its definition
        assert np.allclose((ours.pq, ours.sq, ours.rq), naive_pq(ref, pred),
                           rtol=0, atol=1e-12), name
        # official=True is the official tool bit for bit, crashes included
        want = official(ref, pred)
        if isinstance(want, Exception):
            crashes += 1
            with pytest.raises(OfficialToolFailure):
                panoptic_quality(ref, pred, official=True)
            continue
        got = panoptic_quality(ref, pred, official=True)
        assert (got.pq, got.sq, got.rq) == want, name
        # without a documented error of the official tool, both agree within 1e-9
        quirks = official_quirks(ref, pred)
        for q in quirks:
            quirk_seen[q] = quirk_seen.get(q, 0) + 1
        if not quirks:
            assert abs(ours.pq - want[0]) <= 1e-9, name
            assert abs(ours.sq - want[1]) <= 1e-9, name
            assert abs(ours.rq - want[2]) <= 1e-9, name
            compared += want[0] > 0
    assert compared >= 100, compared  # cases with a nonzero PQ compared within 1e-9
    assert crashes >= 10, crashes  # empty references, background matches
    assert set(quirk_seen) == {"a: equal IoUs", "d: grey levels read as labels",
                               "f: absent labels", "e: background match"}, quirk_seen


# ---- values worked out by hand ----------------------------------------------------------

def _img(h=20, w=30):
    return np.zeros((h, w), np.uint8)


def test_known_value_exact_and_shifted_blocks():
    ref, pred = _img(), _img()
    ref[2:6, 2:6] = ref[10:14, 10:14] = 255
    pred[2:6, 2:6] = 255
    pred[10:14, 11:15] = 255  # shifted by one column: IoU 12 / 20
    res = panoptic_quality(ref, pred)
    assert res.sq == pytest.approx(0.8) and res.rq == 1.0 and res.pq == pytest.approx(0.8)
    assert list(res.matched_iou) == [0.6, 1.0]
    assert list(res.curve.thresholds) == [0.6, 1.0]
    assert list(res.curve.fscore) == [1.0, 0.5]
    assert list(res.ref_segments.iou) == [1.0, 0.6]


def test_equal_ious_count_each_match_not_once():
    """Quirk (a): the official SQ averages the distinct IoU values."""
    ref, pred = _img(), _img()
    for x in (1, 8, 15):
        ref[2:6, x:x + 4] = 255
    pred[2:6, 1:5] = 255  # IoU 1
    pred[2:6, 9:13] = 255  # IoU 0.6
    pred[2:6, 16:20] = 255  # IoU 0.6
    assert panoptic_quality(ref, pred).sq == pytest.approx((1 + 0.6 + 0.6) / 3)
    off = panoptic_quality(ref, pred, official=True)
    assert off.sq == pytest.approx(0.8) and off.rq == 1.0
    assert (off.pq, off.sq, off.rq) == official(ref, pred)


def test_stray_grey_pixel_is_thresholded():
    """Quirk (d): a 254 pixel makes the official tool read the mask as a label map."""
    ref = _img()
    ref[2:8, 2:8] = ref[10:16, 12:20] = 255
    pred = ref.copy()
    pred[0, 0] = 254
    res = panoptic_quality(ref, pred)
    assert (res.n_ref, res.n_pred, res.n_matched) == (2, 3, 2)
    assert res.pq == pytest.approx(2 / 2.5)
    off = panoptic_quality(ref, pred, official=True)
    assert off.pq == official(ref, pred)[0] < 0.01


def test_background_is_never_a_match():
    """Quirk (e): the official tool matches a segment to a small background (PQ 0.707)."""
    ref = np.full((10, 10), 255, np.uint8)
    ref[0, 0] = 0
    pred = np.zeros((10, 10), np.uint8)
    pred[:3, :] = 255
    assert panoptic_quality(ref, pred).pq == 0.0
    off = panoptic_quality(ref, pred, official=True)
    assert off.pq == official(ref, pred)[0] == pytest.approx(70 / 99)


def test_label_map_gaps_are_not_missed_segments():
    """Quirk (f): absent label values count as reference segments in the official tool."""
    ref = np.zeros((12, 12), np.uint16)
    ref[1:5, 1:5], ref[7:11, 7:11] = 10, 30
    res = panoptic_quality(ref, ref.copy())
    assert (res.pq, res.n_ref) == (1.0, 2)
    off = panoptic_quality(ref, ref.copy(), official=True)
    assert off.n_ref == 30 and off.rq == pytest.approx(4 / 60)
    assert (off.pq, off.sq, off.rq) == official(ref, ref.copy())


def test_four_connectivity_and_label_maps():
    mask = _img()
    mask[2:5, 2:5] = 255
    mask[5:8, 5:8] = 255  # touches the first block only at a corner: two blocks
    mask[2:5, 5:8] = 0
    assert panoptic_quality(mask, mask).n_ref == 2
    mask[2:5, 5:8] = 255  # now they share edges: one block
    assert panoptic_quality(mask, mask).n_ref == 1
    lab = np.zeros((20, 30), np.int32)
    lab[1:3, 1:3] = lab[10:12, 20:22] = 7  # one segment in two pieces
    lab[5:8, 5:8] = 2**31 - 1
    res = panoptic_quality(lab, lab)
    assert (res.n_ref, res.pq) == (2, 1.0)


def test_empty_inputs_score_zero_and_official_crash_is_reported():
    ref = _img()
    ref[3:9, 3:9] = 255
    empty = _img()
    for a, b in ((ref, empty), (empty, ref), (empty, empty)):
        res = panoptic_quality(a, b)
        assert (res.pq, res.sq, res.rq) == (0.0, 0.0, 0.0)
    assert panoptic_quality(ref, empty, official=True).pq == 0.0
    with pytest.raises(OfficialToolFailure, match="official.*fails.*empty reference"):
        panoptic_quality(empty, ref, official=True)


@pytest.mark.parametrize(("ref", "pred", "message"), [
    (np.zeros((5, 5), np.float32), np.zeros((5, 5), np.uint8), "float32"),
    (np.zeros((5, 5, 3), np.uint8), np.zeros((5, 5), np.uint8), "single-channel"),
    (np.full((5, 5), -1, np.int32), np.zeros((5, 5), np.int32), "negative"),
    (np.zeros((5, 5), np.int8), np.zeros((5, 5), np.int8), "int8"),
    (np.zeros((5, 5), np.uint8), np.zeros((5, 6), np.uint8), "one size"),
])
def test_bad_arrays_are_input_errors(ref, pred, message):
    with pytest.raises(InputError, match=message):
        panoptic_quality(ref, pred)


def test_overlap_table_counts_every_pair_across_slices(monkeypatch):
    import core.metrics.panoptic as panoptic

    monkeypatch.setattr(panoptic, "_CHUNK_PIXELS", 37)  # many slices, runs cut at edges
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, (23, 17))
    b = rng.integers(0, 5, (23, 17)).astype(np.uint16)
    r, p, n = overlap_table(a, b)
    dense = np.zeros((4, 5), np.int64)
    np.add.at(dense, (a.ravel(), b.ravel().astype(np.int64)), 1)
    assert (dense[r, p] == n).all() and n.sum() == a.size and np.count_nonzero(dense) == len(n)
