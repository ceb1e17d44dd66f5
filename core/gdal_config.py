"""GDAL configuration options set for a block of code, the previous values restored after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def gdal_config(**options: str) -> Iterator[None]:
    """Set GDAL configuration options (``GDAL_PAM_ENABLED="NO"`` ...) for the block,
    restoring the previous values (unset ones to unset) when it ends, however it ends."""
    from osgeo import gdal

    old = {k: gdal.GetConfigOption(k) for k in options}
    for k, v in options.items():
        gdal.SetConfigOption(k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            gdal.SetConfigOption(k, v)
