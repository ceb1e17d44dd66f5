"""The numeral reader: a small learned recognizer of printed grid values, run with OpenCV DNN.

The network (``models/numeral_net.onnx``, card ``models/NUMERAL_MODEL.md``, trained by
``make train-numeral-net`` on numerals rendered in many typefaces) reads one word of
figures written left to right: ``0-9`` and a minus sign; spaces between groups of figures,
units (``km``) and anything else give no output. Its output is, per column step of
:data:`STEP` input pixels, the log-probabilities of a blank and of each symbol
(connectionist temporal classification, CTC). :func:`string_probabilities` gives the exact
probability of any candidate string (the CTC sum over its alignments), so that a bounded
set of hypotheses (arithmetic sequences of grid values) can be scored rather than read
blind; :func:`likely_strings` proposes the strings worth trying.

Everything before the network is NumPy and OpenCV operations that give the same pixels in
OpenCV 4.6 and 4.11 (area and linear resizing, integer arithmetic), so that the plugin's
runtime and the venv read alike.

Example
-------
>>> crops = [word_image(dark, box, turns=0)]           # doctest: +SKIP
>>> logp = read_logits(np.stack([net_input(c) for c in crops]))   # doctest: +SKIP
>>> string_probabilities(logp, ["3750", "5750"])        # doctest: +SKIP
array([[0.93, 0.02]])
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import cv2
import numpy as np

from ..onnx_nets import cached_network

MODEL_PATH = Path(__file__).resolve().parent / "models" / "numeral_net.onnx"
#: Input height and width of the network, pixels; one output step per STEP input columns.
INPUT_H = 32
INPUT_W = 192
STEP = 4
#: The symbols after the blank (class 0): class 1 + i is SYMBOLS[i].
SYMBOLS = "0123456789-"
BLANK = 0
N_CLASSES = 1 + len(SYMBOLS)
#: Words fed to the network at once.
BATCH = 64
#: A word's image: its box with this share of the text's height added above and below,
#: and this share on each side.
MARGIN_Y = 0.5
MARGIN_X = 0.4

_lock = threading.Lock()
_INDEX = {c: 1 + i for i, c in enumerate(SYMBOLS)}


def word_image(dark: np.ndarray, box, turns: int) -> np.ndarray:
    """The image of one word for the reader, its text left to right.

    Parameters
    ----------
    dark : (H, W) uint8
        Ink darkness of the strip or sheet the word was found in (0 paper, 255 ink).
    box : sequence of 4 numbers
        The word's box (x0, y0, x1, y1) in ``dark``'s pixels (x right, y down).
    turns : int
        Quarter turns counter-clockwise (``numpy.rot90``) that make the text upright and
        read left to right (0 or 2 for text along x, 1 or 3 for text along y).

    Returns
    -------
    (h, w) uint8
        The word with margins (:data:`MARGIN_Y`, :data:`MARGIN_X` of its text height),
        turned; paper (0) where the margins leave ``dark``.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    along_x = turns % 2 == 0
    height = (y1 - y0) if along_x else (x1 - x0)
    my, mx = (MARGIN_Y, MARGIN_X) if along_x else (MARGIN_X, MARGIN_Y)
    a, b = int(np.floor(y0 - my * height)), int(np.ceil(y1 + my * height))
    c, d = int(np.floor(x0 - mx * height)), int(np.ceil(x1 + mx * height))
    out = np.zeros((max(1, b - a), max(1, d - c)), np.uint8)
    ya, yb = max(0, a), min(dark.shape[0], b)
    xa, xb = max(0, c), min(dark.shape[1], d)
    if yb > ya and xb > xa:
        out[ya - a:yb - a, xa - c:xb - c] = dark[ya:yb, xa:xb]
    return np.ascontiguousarray(np.rot90(out, turns))


def net_input(word: np.ndarray) -> np.ndarray:
    """The network's input ``(INPUT_H, INPUT_W) float32`` in 0-1 of a word image
    (:func:`word_image`): scaled to the input height (aspect kept; area averaging down,
    linear up), squeezed when too wide, centred on blank paper, its contrast stretched so
    that its 99th-percentile ink is 1."""
    h, w = word.shape[:2]
    k = INPUT_H / max(h, 1)
    nw = int(np.clip(round(w * k), 1, INPUT_W))
    small = cv2.resize(word, (nw, INPUT_H), interpolation=cv2.INTER_AREA if k < 1
                       else cv2.INTER_LINEAR)
    top = max(float(np.percentile(small, 99)), 1.0)
    out = np.zeros((INPUT_H, INPUT_W), np.float32)
    x0 = (INPUT_W - nw) // 2
    out[:, x0:x0 + nw] = np.minimum(small.astype(np.float32) / np.float32(top), 1.0)
    return out


def load_net(path: Path | None = None) -> cv2.dnn.Net:
    """The OpenCV DNN network of ``path`` (default :data:`MODEL_PATH`), read once per
    process."""
    return cached_network(path or MODEL_PATH, "the numeral reader",
                          "models/NUMERAL_MODEL.md")[0]


def read_logits(inputs: np.ndarray, path: Path | None = None) -> np.ndarray:
    """Log-probabilities ``(N, T, N_CLASSES)`` (T = INPUT_W / STEP; class 0 blank, 1 + i
    the symbol ``SYMBOLS[i]``) of ``(N, INPUT_H, INPUT_W)`` inputs from :func:`net_input`.
    Rounded to 1e-4 so that the last bits of OpenCV's arithmetic, which differ between its
    versions, cannot tip a decision."""
    net = load_net(path)
    out = []
    for i in range(0, len(inputs), BATCH):
        x = np.ascontiguousarray(inputs[i:i + BATCH, None], dtype=np.float32)
        with _lock:
            net.setInput(x)
            y = net.forward()                     # (n, C, 1, T) logits
        y = y[:, :, 0, :].transpose(0, 2, 1).astype(np.float64)
        y -= y.max(axis=2, keepdims=True)
        out.append(np.round(y - np.log(np.exp(y).sum(axis=2, keepdims=True)), 4))
    return np.concatenate(out) if out else np.zeros((0, INPUT_W // STEP, N_CLASSES))


def best_path(logp: np.ndarray) -> str:
    """The string read along the most likely path of one word's ``(T, C)`` output."""
    best = logp.argmax(axis=1)
    keep = (best != BLANK) & np.r_[True, best[1:] != best[:-1]]
    return "".join(SYMBOLS[int(c) - 1] for c in best[keep])


#: :func:`likely_strings`: symbols tried at each place of the best path (those at least
#: this probable there), and how many strings at most.
ALTERNATIVE_P = 0.05
MAX_LIKELY = 48


def likely_strings(logp: np.ndarray, min_p: float = 0.01) -> list[list[tuple[str, float]]]:
    """Strings each word may read, most probable first, with their probabilities (at least
    ``min_p``), for ``(N, T, C)`` outputs: the best path, each of its symbols swapped for
    any other at least :data:`ALTERNATIVE_P` probable there, and with one symbol dropped or
    a likely one inserted (a figure lost under a tick, or a speck read as one)."""
    cands = [_candidates(lp) for lp in logp]
    rows = np.repeat(np.arange(len(logp)), [len(c) for c in cands])
    probs = pair_probabilities(logp, rows, [s for c in cands for s in c])
    out, at = [], 0
    for c in cands:
        p = probs[at:at + len(c)]
        at += len(c)
        order = np.argsort(-p, kind="stable")
        out.append([(c[i], float(p[i])) for i in order if p[i] >= min_p][:MAX_LIKELY])
    return out


def _candidates(logp: np.ndarray) -> list[str]:
    """The strings :func:`likely_strings` weighs for one word's ``(T, C)`` output."""
    prob = np.exp(logp)
    best = logp.argmax(axis=1)
    segs = []                      # (first step, last step) of each symbol on the path
    t = 0
    while t < len(best):
        u = t
        while u + 1 < len(best) and best[u + 1] == best[t]:
            u += 1
        if best[t] != BLANK:
            segs.append((t, u))
        t = u + 1
    options = []
    for a, b in segs:
        p = prob[a:b + 1, 1:].max(axis=0)
        opts = [SYMBOLS[i] for i in np.argsort(-p) if p[i] >= ALTERNATIVE_P][:3]
        options.append(opts or [SYMBOLS[int(best[a]) - 1]])
    cands = {"".join(c) for c in itertools.islice(itertools.product(*options), MAX_LIKELY)}
    core = "".join(o[0] for o in options)
    cands |= {core[:i] + core[i + 1:] for i in range(len(core))}
    gaps = prob[:, 1:].max(axis=0)
    extra = [SYMBOLS[i] for i in np.argsort(-gaps)[:3]]
    cands |= {core[:i] + c + core[i:] for i in range(len(core) + 1) for c in extra}
    cands.discard("")
    return sorted(cands)


def string_probabilities(logp: np.ndarray, strings: list[str]) -> np.ndarray:
    """Probability ``(N, S)`` of each string (symbols of :data:`SYMBOLS`) given each word's
    ``(T, C)`` output: the CTC forward sum over all alignments."""
    n, s = len(logp), len(strings)
    rows = np.repeat(np.arange(n), s)
    return pair_probabilities(logp, rows, [t for _ in range(n) for t in strings]).reshape(n, s)


#: Pairs (word, string) scored at once (memory: a few MB per thousand pairs).
PAIRS_AT_ONCE = 20000


def pair_probabilities(logp: np.ndarray, rows: np.ndarray, strings: list[str]) -> np.ndarray:
    """CTC probability of ``strings[i]`` in word ``rows[i]`` (``logp``: ``(N, T, C)``
    outputs), for every pair i at once: one forward pass over the pairs of each string
    length (rescaled at every step), so that thousands of hypotheses cost a few passes."""
    rows = np.asarray(rows, np.int64)
    out = np.zeros(len(strings))
    if not len(strings):
        return out
    prob = np.exp(logp)
    t_steps = prob.shape[1]
    lengths = np.array([len(t) for t in strings])
    for length in np.unique(lengths):
        if length == 0 or length > t_steps:
            continue
        for chunk in np.array_split(np.flatnonzero(lengths == length),
                                    max(1, int(np.sum(lengths == length)) // PAIRS_AT_ONCE + 1)):
            if len(chunk):
                lab = np.array([[_INDEX[c] for c in strings[i]] for i in chunk])
                out[chunk] = _forward(prob, rows[chunk], lab)
    return out


def _forward(prob: np.ndarray, rows: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """CTC probabilities ``(P,)`` of the label rows ``lab`` ``(P, L)`` in words ``rows``."""
    p, length = lab.shape
    ext = np.zeros((p, 2 * length + 1), np.int64)              # blank, c1, blank, c2, ...
    ext[:, 1::2] = lab
    skip = np.zeros(ext.shape, bool)
    skip[:, 3::2] = lab[:, 1:] != lab[:, :-1]
    pick = (rows[:, None], ext)
    alpha = np.zeros(ext.shape)
    alpha[:, :2] = prob[:, 0][pick][:, :2]
    log_scale = np.zeros(p)
    for t in range(prob.shape[1]):
        if t:
            nxt = alpha.copy()
            nxt[:, 1:] += alpha[:, :-1]
            nxt[:, 2:] += np.where(skip[:, 2:], alpha[:, :-2], 0.0)
            alpha = nxt * prob[:, t][pick]
        c = np.maximum(alpha.sum(axis=1), 1e-300)
        alpha /= c[:, None]
        log_scale += np.log(c)
    return np.exp(log_scale) * (alpha[:, -1] + alpha[:, -2])
