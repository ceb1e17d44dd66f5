"""core.png_gray: the fast mask decoder gives OpenCV's pixels, or None (then OpenCV decodes)."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from core import png_gray
from core.imageio import read_mask

pytestmark = pytest.mark.skipif(not png_gray.available(), reason="zlib-ng not installed")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _filtered(img: np.ndarray, kinds: list[int]) -> bytes:
    """The PNG filtering of ``img`` (one byte per pixel), row y with filter ``kinds[y]``."""
    h, w = img.shape
    out = bytearray()
    prior = np.zeros(w, np.int32)
    for y in range(h):
        row = img[y].astype(np.int32)
        left = np.r_[0, row[:-1]]
        up_left = np.r_[0, prior[:-1]]
        kind = kinds[y]
        if kind == 0:
            pred = np.zeros(w, np.int32)
        elif kind == 1:
            pred = left
        elif kind == 2:
            pred = prior
        elif kind == 3:
            pred = (left + prior) // 2
        else:
            p = left + prior - up_left
            pa, pb, pc = np.abs(p - left), np.abs(p - prior), np.abs(p - up_left)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prior, up_left))
        out.append(kind)
        out += ((row - pred) & 255).astype(np.uint8).tobytes()
        prior = row
    return bytes(out)


def _png(img: np.ndarray, kinds: list[int], extra: bytes = b"", depth: int = 8,
         colour: int = 0) -> bytes:
    h, w = img.shape
    header = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)
    data = zlib.compress(_filtered(img, kinds), 9)
    # the stream split over two IDAT chunks, as large files are
    return (png_gray.SIGNATURE + _chunk(b"IHDR", header) + extra
            + _chunk(b"IDAT", data[:len(data) // 2]) + _chunk(b"IDAT", data[len(data) // 2:])
            + _chunk(b"IEND", b""))


def test_every_filter_type_gives_opencvs_pixels(tmp_path):
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (40, 33), dtype=np.uint8)
    img[10:25, 4:30] = 255   # a mask-like block among noise
    kinds = [y % 5 for y in range(40)]
    path = tmp_path / "all_filters.png"
    path.write_bytes(_png(img, kinds, extra=_chunk(b"pHYs", b"\0" * 9)))
    out = png_gray.read_gray_png(path)
    assert out is not None
    assert np.array_equal(out, img)
    assert np.array_equal(out, cv2.imread(str(path), cv2.IMREAD_UNCHANGED))
    # a mask straight from the rows: the same as thresholding the pixels
    inside = png_gray.read_gray_png(path, threshold=128)
    assert inside.dtype == bool and np.array_equal(inside, img >= 128)


def test_masks_written_by_opencv_decode_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(png_gray, "CHUNK_BYTES", 1000)   # many chunks of a few rows
    mask = np.zeros((300, 420), np.uint8)
    cv2.fillPoly(mask, [np.array([[20, 30], [400, 10], [380, 290], [40, 260]])], 255)
    path = tmp_path / "mask.png"
    cv2.imwrite(str(path), mask)
    assert np.array_equal(png_gray.read_gray_png(path), mask)
    assert np.array_equal(read_mask(path), mask >= 128)


@pytest.mark.parametrize("case", ["rgb", "16-bit", "palette chunk", "truncated stream",
                                  "too many slow rows", "jpeg"])
def test_other_files_are_left_to_opencv(tmp_path, case):
    img = np.full((20, 30), 255, np.uint8)
    data = _png(img, [0] * 20)
    if case == "rgb":
        data = _png(img, [0] * 20, colour=2)
    elif case == "16-bit":
        data = _png(img, [0] * 20, depth=16)
    elif case == "palette chunk":
        data = _png(img, [0] * 20, extra=_chunk(b"tRNS", b"\0\0"))
    elif case == "truncated stream":
        data = data[:-30]
    elif case == "too many slow rows":
        img = np.full((png_gray.MAX_SLOW_ROWS + 2, 30), 255, np.uint8)
        data = _png(img, [4] * len(img))
    elif case == "jpeg":
        data = cv2.imencode(".jpg", img)[1].tobytes()
    path = tmp_path / "other.png"
    path.write_bytes(data)
    assert png_gray.read_gray_png(path) is None


def test_a_stream_longer_than_its_header_says_is_not_inflated_past_it(tmp_path):
    path = tmp_path / "long.png"
    # the header says 10 rows; the stream holds 1000
    big = np.zeros((1000, 10), np.uint8)
    stream = zlib.compress(_filtered(big, [0] * 1000))
    data = (png_gray.SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", 10, 10, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", stream) + _chunk(b"IEND", b""))
    path.write_bytes(data)
    out = png_gray.read_gray_png(path)
    assert out is not None and out.shape == (10, 10) and not out.any()
