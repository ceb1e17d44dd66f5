"""Reading a sheet for detection while the grid is searched: the decoding of a large JPEG
takes as long as the whole grid search, so both run at once.

For a JPEG file, three tasks run on their own threads (OpenCV's decoders and most of the
search release the GIL):

1. the full-resolution red channel (what the lines are followed on);
2. the map-area mask file, if any;
3. the red channel decoded at half size (the JPEG decoder's DCT scaling, about half the
   cost of the full decoding), its reduced ridge images and the grid search on them.

Other inputs (arrays, PNG, TIFF) are read first and searched after, as one task.
Pixel conventions: those of :mod:`core.graticule.detect`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from ..imageio import ImageLike, is_jpeg, read_header, read_mask, read_red_channel
from .gridsearch import ReducedImages, reduced_images, reduced_images_from_half

T = TypeVar("T")
MASK_WHAT = "map-area mask"


def read_and_search(image: ImageLike, mask: ImageLike | None,
                    search: Callable[[ReducedImages], T]
                    ) -> tuple[np.ndarray, np.ndarray | None, T | None]:
    """``(red channel, mask, search(reduced images))`` of a sheet.

    Args:
        image: path of the scan, or an RGB/grey uint8 array.
        mask: map-area mask (path or array, 0 = outside) or None.
        search: run on the reduced ridge images (not run, None returned, when the mask is
            empty: the caller reports that).

    Returns:
        The ``(H, W)`` uint8 red channel, the ``(H, W)`` bool mask (or None) and what
        ``search`` returned.

    Raises:
        InputError: an unreadable image or mask, or a mask of another size.
    """
    if isinstance(image, np.ndarray) or not is_jpeg(image):
        gray, map_mask = _read_full(image, mask)
        return gray, map_mask, _search_unless_empty(
            search, lambda: reduced_images(gray, map_mask), map_mask)
    width, height = read_header(image)   # a bad file fails here, before any thread
    with ThreadPoolExecutor(2) as pool:
        mask_job = None if mask is None else pool.submit(
            read_mask, mask, (height, width), what=MASK_WHAT)
        search_job = pool.submit(_search_half, image, mask_job, (width, height), search)
        gray = read_red_channel(image)
        map_mask = None if mask_job is None else mask_job.result()
        found = search_job.result()
    return gray, map_mask, found


def _read_full(image: ImageLike, mask: ImageLike | None
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """The red channel and the mask; a mask file is decoded while the image is."""
    if mask is None or isinstance(mask, np.ndarray):
        gray = read_red_channel(image)
        return gray, None if mask is None else read_mask(mask, gray.shape, what=MASK_WHAT)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(read_mask, mask, what=MASK_WHAT)
        gray = read_red_channel(image)
        map_mask = pending.result()
    return gray, read_mask(map_mask, gray.shape, what=f"{MASK_WHAT} {mask}")


def _search_half(image: ImageLike, mask_job: Future | None, size: tuple[int, int],
                 search: Callable[[ReducedImages], T]) -> T | None:
    half = read_red_channel(image, reduce=2)
    map_mask = None if mask_job is None else mask_job.result()
    return _search_unless_empty(
        search, lambda: reduced_images_from_half(half, map_mask, size), map_mask)


def _search_unless_empty(search: Callable[[ReducedImages], T],
                         images: Callable[[], ReducedImages],
                         map_mask: np.ndarray | None) -> T | None:
    if map_mask is not None and not map_mask.any():
        return None
    return search(images())
