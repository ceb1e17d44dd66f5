"""Core's one-line errors in the words of the plugin's forms.

Core writes its messages for the command line ("check --spacing"); in QGIS the same advice
names the field to change ("check the grid spacing"). Messages stay in English (core has no
translations); only the option names are replaced.
"""

from __future__ import annotations

import re

_PHRASES = (
    ("give the GCPs with --gcps FILE.points --gcps-only",
     "place the GCPs by hand in QGIS's georeferencer"),
    ("--anchor X,Y=E,N", "an anchor X,Y=E,N"),
    ("--gcps FILE.points", "a .points file of known points"),
    ("choose another -o directory", "choose another output folder"),
)
_OPTIONS = {
    "--anchor": "anchor", "--gcps-only": "known points only", "--gcps": "known points",
    "--spacing": "the grid spacing", "--grid-crs": "the grid CRS", "--crs": "the target CRS",
    "--transform": "the transform", "--mask": "the map-area mask",
    "--outdir": "the output folder", "--threshold": "the outlier threshold",
    "--outliers": "the outlier rejection", "--resampling": "the resampling",
}
_OPTION = re.compile(r"--[a-z][a-z-]*")


def plain_words(message: str) -> str:
    """``message`` with command-line options replaced by the names of the form's fields."""
    for cli, plain in _PHRASES:
        message = message.replace(cli, plain)
    return _OPTION.sub(lambda m: _OPTIONS.get(m.group(0), m.group(0)), message)
