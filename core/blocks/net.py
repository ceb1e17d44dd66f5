"""Block-interior and edge probabilities from the small networks in ``models/`` (OpenCV DNN).

``block_probability``: ``models/block_net.onnx``; ``edge_probability``: the closed-shape edge
network of the shapes level, ``models/edge_net.onnx`` (see its card, models/EDGE_MODEL.md,
trained by ``tools/train_edges_net.py``; full-resolution input, half-resolution output, its
edge threshold in ``edge_net.json``; ``views``: each tile also run transposed and the maps
averaged).

The network (see models/MODEL.md, trained by ``tools/train_blocks_net.py`` on ``core.synth``
sheets) reads the sheet reduced ``input_reduce`` times (INTER_AREA), RGB scaled to
[-0.5, 0.5], and gives the probability that a pixel lies on a building block, on a grid
``output_stride`` times coarser than its input. These numbers, and the tiling, come from
the JSON file next to the model (``block_net.json``). It runs in overlapping tiles so
memory stays small on a 10000 x 10000 sheet.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from ..onnx_nets import cached_network

MODEL_PATH = Path(__file__).resolve().parent / "models" / "block_net.onnx"
EDGE_MODEL_PATH = MODEL_PATH.with_name("edge_net.onnx")

#: held while a network runs a tile (one OpenCV DNN network runs one input at a time)
_lock = threading.Lock()


@dataclass(frozen=True)
class NetGeometry:
    """How a model is run (its JSON file): sizes in input pixels unless said otherwise."""

    input_reduce: int = 4    #: the input is the sheet reduced this many times
    output_stride: int = 1   #: the output grid is this many times coarser than the input
    input_multiple: int = 8  #: input sides must be multiples of this
    tile: int = 512          #: tile size (multiple of input_multiple and output_stride)
    overlap: int = 48        #: overlap between tiles, margins discarded (multiple of stride)
    threshold: float = 0.5   #: probability above which a pixel is positive (edge network)


def load_net(path: Path = MODEL_PATH) -> tuple[cv2.dnn.Net, NetGeometry]:
    """The OpenCV DNN network of ``path`` and its geometry (``path`` with suffix .json),
    read once per process (again if the model file changes)."""
    return cached_network(path, "the network", "models/MODEL.md, models/EDGE_MODEL.md",
                          _read_geometry)


def _read_geometry(path: Path) -> NetGeometry:
    return NetGeometry(**json.loads(path.with_suffix(".json").read_text()))


def _run(net: cv2.dnn.Net, g: NetGeometry, tile: np.ndarray) -> np.ndarray:
    """Probabilities ``(ceil(h / s), ceil(w / s)) float32`` (``s``: the output stride) of
    one RGB uint8 tile of ``h x w`` pixels (padded to the input multiple)."""
    h, w = tile.shape[:2]
    ph, pw = -h % g.input_multiple, -w % g.input_multiple
    if ph or pw:
        tile = cv2.copyMakeBorder(tile, 0, ph, 0, pw, cv2.BORDER_REFLECT)
    x = np.moveaxis(tile.astype(np.float32) * np.float32(1 / 255) - np.float32(0.5), -1, 0)
    with _lock:
        net.setInput(np.ascontiguousarray(x[None]))
        out = net.forward()
    s = g.output_stride
    return out[0, 0, :-(-h // s), :-(-w // s)]


#: the views the probability is averaged over with ``flips=True``: identity, left-right,
#: up-down (each its own inverse)
FLIP_VIEWS = ((slice(None), slice(None)), (slice(None), slice(None, None, -1)),
              (slice(None, None, -1), slice(None)))


#: the views the edge network's probability is averaged over (``views``: the first 1, 2
#: or 4), applied to each tile: identity, transpose, half turn, anti-transpose (each acts
#: on the first two axes and is its own inverse)
DIHEDRAL_VIEWS: tuple[Callable[[np.ndarray], np.ndarray], ...] = (
    lambda a: a, lambda a: a.swapaxes(0, 1), lambda a: a[::-1, ::-1],
    lambda a: a[::-1, ::-1].swapaxes(0, 1))


def _run_views(net: cv2.dnn.Net, g: NetGeometry, views: int, tile: np.ndarray
               ) -> np.ndarray:
    """As :func:`_run`, the mean over the first ``views`` of :data:`DIHEDRAL_VIEWS` of the
    tile (padded to the input multiple first, so the output cells line up exactly)."""
    h, w = tile.shape[:2]
    ph, pw = -h % g.input_multiple, -w % g.input_multiple
    if ph or pw:
        tile = cv2.copyMakeBorder(tile, 0, ph, 0, pw, cv2.BORDER_REFLECT)
    total = None
    for view in DIHEDRAL_VIEWS[:views]:
        p = view(_run(net, g, np.ascontiguousarray(view(tile))))
        total = p.copy() if total is None else total + p
    s = g.output_stride
    return total[:-(-h // s), :-(-w // s)] * np.float32(1 / views)


def tiled_probability(run: Callable[[np.ndarray], np.ndarray], g: NetGeometry,
                      small: np.ndarray) -> np.ndarray:
    """Probabilities ``float32`` on the output grid of ``small`` (sides multiples of the
    output stride), computed in overlapping tiles of ``g.tile`` pixels (``g.overlap`` on
    each side, discarded). ``run(tile)`` gives one tile's probabilities,
    ``(ceil(h / s), ceil(w / s))`` for an ``h x w`` tile (``s``: the output stride)."""
    h, w = small.shape[:2]
    s = g.output_stride
    prob = np.zeros((h // s, w // s), np.float32)
    step = g.tile - 2 * g.overlap
    for y0 in range(0, h, step):
        for x0 in range(0, w, step):
            ty0, tx0 = max(0, y0 - g.overlap), max(0, x0 - g.overlap)
            ty1, tx1 = min(h, y0 + step + g.overlap), min(w, x0 + step + g.overlap)
            p = run(small[ty0:ty1, tx0:tx1])
            # tile origins are multiples of s, so the output cells line up
            oy0, ox0 = y0 // s, x0 // s
            oy1, ox1 = min(h, y0 + step) // s, min(w, x0 + step) // s
            cy, cx = ty0 // s, tx0 // s
            prob[oy0:oy1, ox0:ox1] = p[oy0 - cy:oy1 - cy, ox0 - cx:ox1 - cx]
    return prob


def reduced_probability(small: np.ndarray, path: Path = MODEL_PATH,
                        flips: bool = False, views: int = 1) -> np.ndarray:
    """Block probability ``uint8`` (0-255) of an RGB image already reduced
    ``input_reduce`` times, on the output grid: ``(ceil(h / s), ceil(w / s))``, ``s`` the
    model's output stride. With ``flips`` the mean over the image and its left-right and
    up-down mirror images (three runs; steadier on drawing styles unlike the training
    sheets). ``views`` (1, 2 or 4): each tile's probability is the mean over the first
    ``views`` of :data:`DIHEDRAL_VIEWS` (one run each)."""
    if views not in (1, 2, 4):
        raise ValueError(f"views must be 1, 2 or 4, not {views}")
    net, g = load_net(path)
    h, w = small.shape[:2]
    s = g.output_stride
    # pad to a multiple of the stride so that mirrored output cells line up exactly
    padded = (cv2.copyMakeBorder(small, 0, -h % s, 0, -w % s, cv2.BORDER_REFLECT)
              if h % s or w % s else small)
    mirrors = FLIP_VIEWS if flips else FLIP_VIEWS[:1]
    total = np.zeros((padded.shape[0] // s, padded.shape[1] // s), np.float32)
    run = partial(_run_views, net, g, views) if views > 1 else partial(_run, net, g)
    for view in mirrors:
        mirrored = np.ascontiguousarray(padded[view])
        total += tiled_probability(run, g, mirrored)[view]
    prob = total * np.float32(255 / len(mirrors))
    return np.round(prob[:-(-h // s), :-(-w // s)]).astype(np.uint8)


def needed_window(mask: np.ndarray, margin: int, align: int = 64) -> tuple[slice, slice]:
    """The part of a sheet a network must see for the pixels of ``mask`` ((H, W) bool,
    True where results are used): the mask's bounding box grown by ``margin`` px, its
    origin on a multiple of ``align`` px (so reduced grids line up), within the sheet.
    The whole sheet when the mask is empty."""
    height, width = mask.shape
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8) if mask.dtype == bool else mask)
    if w == 0 or h == 0:
        return slice(0, height), slice(0, width)
    y0, x0 = max(0, y - margin) // align * align, max(0, x - margin) // align * align
    return slice(y0, min(height, y + h + margin)), slice(x0, min(width, x + w + margin))


def block_probability(rgb: np.ndarray, scale: float = 1.0, path: Path = MODEL_PATH,
                      flips: bool = False, views: int = 1,
                      mask: np.ndarray | None = None) -> np.ndarray:
    """Block probability ``(H, W) uint8`` (0-255) of a full-resolution RGB uint8 sheet.

    The sheet is reduced ``input_reduce * scale`` times (``scale``: as
    :attr:`BlockSettings.scale`, scan pixels per metre / 2.363; the network was trained at
    1), the network runs on tiles (``flips``, ``views``: see :func:`reduced_probability`),
    and the result is enlarged back (bilinear). ``mask`` ((H, W) bool, e.g. the map area):
    the network only runs on its bounding box grown by twice the tiles' overlap (in full
    pixels; beyond any cell the mask's pixels depend on), the rest of the result is 0.
    """
    height, width = rgb.shape[:2]
    g = load_net(path)[1]
    factor = g.input_reduce * scale
    rows, cols = (slice(0, height), slice(0, width)) if mask is None else needed_window(
        mask, round(2 * g.overlap * factor))
    crop = rgb[rows, cols]
    ch, cw = crop.shape[:2]
    size = (max(8, round(cw / factor)), max(8, round(ch / factor)))
    small = crop if size == (cw, ch) else cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    prob = cv2.resize(reduced_probability(small, path, flips, views), (cw, ch),
                      interpolation=cv2.INTER_LINEAR)
    if (ch, cw) == (height, width):
        return prob
    out = np.zeros((height, width), np.uint8)
    out[rows, cols] = prob
    return out


def edge_probability(rgb: np.ndarray, scale: float = 1.0,
                     path: Path = EDGE_MODEL_PATH, views: int = 1,
                     mask: np.ndarray | None = None) -> np.ndarray:
    """Closed-shape edge probability ``(H, W) uint8`` (0-255) of a full-resolution RGB
    uint8 sheet, from the edge network: computed on its half-resolution output grid and
    enlarged back (bilinear). ``scale``: as :func:`block_probability`. ``views`` (1, 2 or
    4): the mean over each tile and its transpose (2), and their half turns (4); each view
    is one more run of the network. ``mask``: as :func:`block_probability`."""
    return block_probability(rgb, scale, path, views=views, mask=mask)


def edge_model_available(path: Path = EDGE_MODEL_PATH) -> bool:
    """Whether the edge network and its geometry file are installed."""
    return path.is_file() and path.with_suffix(".json").is_file()
