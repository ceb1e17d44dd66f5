"""A small learned reader of printed figures (grid labels), run with OpenCV DNN.

The network (``models/digit_net.onnx``, card ``models/DIGIT_MODEL.md``, trained by
``make train-digit-net`` on labels rendered in the fonts of :mod:`core.synth`) reads one
word of figures written left to right: its input is the word's ink darkness (0 paper, 1
ink) scaled to :data:`INPUT_H` pixels high and padded or squeezed to :data:`INPUT_W` wide;
its output, per column step of 4 input pixels, the log-probabilities of a blank and of the
figures 0-9 (connectionist temporal classification, CTC). :func:`string_probabilities`
gives the probability of every candidate string (the exact CTC sum over alignments), so that
a bounded set of hypotheses (the multiples of the grid spacing) can be scored rather than
read blind.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from ..onnx_nets import cached_network

MODEL_PATH = Path(__file__).resolve().parent / "models" / "digit_net.onnx"
#: Input height and width of the network, pixels; one output step per STEP input columns.
INPUT_H = 32
INPUT_W = 128
STEP = 4
#: Output classes: blank, then the figures 0-9.
BLANK = 0
#: Words fed to the network at once.
BATCH = 64

#: held while the network runs (one OpenCV DNN network runs one batch at a time)
_lock = threading.Lock()


def net_input(dark: np.ndarray) -> np.ndarray:
    """The network's input ``(INPUT_H, INPUT_W) float32`` in 0-1 of a word's darkness
    (``uint8``, 0 paper to 255 ink, the word roughly centred, text left to right): scaled to
    the input height (aspect kept), squeezed when too wide, centred on blank paper, its
    contrast stretched so that its 99th-percentile ink is 1."""
    h, w = dark.shape[:2]
    k = INPUT_H / max(h, 1)
    nw = int(np.clip(round(w * k), 1, INPUT_W))
    small = cv2.resize(dark, (nw, INPUT_H), interpolation=cv2.INTER_AREA if k < 1
                       else cv2.INTER_LINEAR).astype(np.float32)
    top = float(np.percentile(small, 99))
    small *= np.float32(1.0 / max(top, 1.0))
    out = np.zeros((INPUT_H, INPUT_W), np.float32)
    x0 = (INPUT_W - nw) // 2
    out[:, x0:x0 + nw] = np.minimum(small, 1.0)
    return out


def load_net(path: Path = MODEL_PATH) -> cv2.dnn.Net:
    """The OpenCV DNN network of ``path``, read once per process."""
    return cached_network(path, "the figure reader", "models/DIGIT_MODEL.md")[0]


def read_logits(inputs: np.ndarray, path: Path = MODEL_PATH) -> np.ndarray:
    """Log-probabilities ``(N, T, 11)`` (T = INPUT_W / STEP steps; class 0 blank, 1 + d the
    figure d) of ``(N, INPUT_H, INPUT_W)`` inputs from :func:`net_input`."""
    net = load_net(path)
    out = []
    for i in range(0, len(inputs), BATCH):
        x = np.ascontiguousarray(inputs[i:i + BATCH, None], dtype=np.float32)
        with _lock:
            net.setInput(x)
            y = net.forward()                     # (n, 11, 1, T) logits
        y = y[:, :, 0, :].transpose(0, 2, 1).astype(np.float64)
        y -= y.max(axis=2, keepdims=True)
        out.append(y - np.log(np.exp(y).sum(axis=2, keepdims=True)))
    return np.concatenate(out) if out else np.zeros((0, INPUT_W // STEP, 11))


def best_path(logp: np.ndarray) -> str:
    """The figures read along the most likely path of one word's ``(T, 11)`` output
    (repeats merged, blanks dropped)."""
    best = logp.argmax(axis=1)
    keep = (best != BLANK) & np.r_[True, best[1:] != best[:-1]]
    return "".join(str(int(c) - 1) for c in best[keep])


#: A string holding a figure whose probability stays below this at every step is not
#: scored (its probability is smaller still): 0.
MIN_FIGURE = 1e-3
#: Words whose strings are scored together (the forward sums of 1200 strings of 64 words
#: hold about 7 MB).
FORWARD_WORDS = 64


def string_probabilities(logp: np.ndarray, strings: list[str]) -> np.ndarray:
    """Probability ``(N, S)`` of each string (figures only) given each word's ``(T, 11)``
    output: the CTC forward sum over all alignments (probabilities rescaled at every step).
    Strings with a figure the word never shows (below :data:`MIN_FIGURE`) get 0."""
    holds = np.zeros((len(strings), 10), bool)          # string i holds figure d
    for i, s in enumerate(strings):
        holds[i, [int(c) for c in s]] = True
    out = np.zeros((len(logp), len(strings)))
    for w in range(0, len(logp), FORWARD_WORDS):      # all words at once, a few MB each
        prob = np.exp(logp[w:w + FORWARD_WORDS])
        unseen = prob.max(axis=1)[:, 1:] < MIN_FIGURE                        # (n, 10)
        out[w:w + FORWARD_WORDS] = np.where(
            (unseen[:, None, :] & holds[None]).any(axis=2), 0.0, _forward(prob, strings))
    return out


def _forward(prob: np.ndarray, strings: list[str]) -> np.ndarray:
    """CTC probabilities ``(N, S)`` of ``strings`` for outputs ``prob`` ``(N, T, 11)``."""
    n, t_steps, _ = prob.shape
    out = np.zeros((n, len(strings)))
    by_len: dict[int, list[int]] = {}
    for i, s in enumerate(strings):
        by_len.setdefault(len(s), []).append(i)
    for length, idx in by_len.items():
        lab = np.array([[1 + int(c) for c in strings[i]] for i in idx])      # (S, L)
        ext = np.zeros((len(idx), 2 * length + 1), np.int64)              # blank, c1, ...
        ext[:, 1::2] = lab
        # a skip from s-2 to s is allowed onto a figure that differs from the one before
        skip = np.zeros(ext.shape, bool)
        skip[:, 3::2] = lab[:, 1:] != lab[:, :-1]
        alpha = np.zeros((n, *ext.shape))
        alpha[:, :, :2] = prob[:, 0][:, ext[:, :2]]
        log_scale = np.zeros((n, len(idx)))
        for t in range(t_steps):
            if t:
                nxt = alpha.copy()
                nxt[:, :, 1:] += alpha[:, :, :-1]
                nxt[:, :, 2:] += np.where(skip[:, 2:], alpha[:, :, :-2], 0.0)
                alpha = nxt * prob[:, t][:, ext]
            c = np.maximum(alpha.sum(axis=2), 1e-300)
            alpha /= c[:, :, None]
            log_scale += np.log(c)
        out[:, idx] = np.exp(log_scale) * (alpha[:, :, -1] + alpha[:, :, -2])
    return out
