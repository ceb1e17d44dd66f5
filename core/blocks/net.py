"""Block-interior probability from the small network in ``models/block_net.onnx`` (OpenCV DNN).

The network (see models/MODEL.md, trained by ``tools/train_blocks_net.py`` on ``core.synth``
sheets) reads the sheet reduced ``NET_REDUCE`` times (INTER_AREA), RGB scaled to
[-0.5, 0.5], and gives per reduced pixel the probability that it lies on a building block.
It runs in overlapping tiles so memory stays small on a 10000 x 10000 sheet.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).resolve().parent / "models" / "block_net.onnx"
NET_REDUCE = 4        #: the network's input is the sheet reduced this many times
_TILE = 512           #: tile size, reduced pixels (multiple of 8)
_OVERLAP = 48         #: overlap between tiles, reduced pixels (the margins are discarded)

_lock = threading.Lock()
_nets: dict[str, cv2.dnn.Net] = {}


def load_net(path: Path = MODEL_PATH) -> cv2.dnn.Net:
    """The OpenCV DNN network of ``path`` (read once per process)."""
    key = str(path)
    with _lock:
        if key not in _nets:
            _nets[key] = cv2.dnn.readNetFromONNX(key)
        return _nets[key]


def _run(net: cv2.dnn.Net, tile: np.ndarray) -> np.ndarray:
    """Probabilities ``(h, w) float32`` of one RGB uint8 tile (padded to a multiple of 8)."""
    h, w = tile.shape[:2]
    ph, pw = -h % 8, -w % 8
    if ph or pw:
        tile = cv2.copyMakeBorder(tile, 0, ph, 0, pw, cv2.BORDER_REFLECT)
    x = np.moveaxis(tile.astype(np.float32) * np.float32(1 / 255) - np.float32(0.5), -1, 0)
    with _lock:
        net.setInput(np.ascontiguousarray(x[None]))
        out = net.forward()
    return out[0, 0, :h, :w]


def reduced_probability(small: np.ndarray, path: Path = MODEL_PATH) -> np.ndarray:
    """Block probability ``(h, w) uint8`` (0-255) of an already reduced RGB image."""
    net = load_net(path)
    h, w = small.shape[:2]
    prob = np.zeros((h, w), np.uint8)
    step = _TILE - 2 * _OVERLAP
    for y0 in range(0, h, step):
        for x0 in range(0, w, step):
            ty0, tx0 = max(0, y0 - _OVERLAP), max(0, x0 - _OVERLAP)
            ty1, tx1 = min(h, y0 + step + _OVERLAP), min(w, x0 + step + _OVERLAP)
            p = _run(net, small[ty0:ty1, tx0:tx1])
            y1, x1 = min(h, y0 + step), min(w, x0 + step)
            prob[y0:y1, x0:x1] = np.round(
                p[y0 - ty0:y1 - ty0, x0 - tx0:x1 - tx0] * 255).astype(np.uint8)
    return prob


def block_probability(rgb: np.ndarray, scale: float = 1.0,
                      path: Path = MODEL_PATH) -> np.ndarray:
    """Block probability ``(H, W) uint8`` (0-255) of a full-resolution RGB uint8 sheet.

    The sheet is reduced ``NET_REDUCE * scale`` times (``scale``: as
    :attr:`BlockSettings.scale`, scan pixels per metre / 2.363; the network was trained at
    1), the network runs on tiles, and the result is enlarged back (bilinear).
    """
    height, width = rgb.shape[:2]
    factor = NET_REDUCE * scale
    small = cv2.resize(rgb, (max(8, round(width / factor)), max(8, round(height / factor))),
                       interpolation=cv2.INTER_AREA)
    prob = reduced_probability(small, path)
    return cv2.resize(prob, (width, height), interpolation=cv2.INTER_LINEAR)
