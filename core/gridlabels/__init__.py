"""Reading the grid values printed on a sheet: which grid line is which.

Public API::

    from core.gridlabels import read_grid_labels
    labelling = read_grid_labels("sheet.jpg", graticule, crs=pyproj.CRS("EPSG:2154"))
    labelling.naming.grid(graticule.index)      # (N, 2) grid coordinates of the crossings
    labelling.certainty["margin"]               # evidence over the runner-up (log units)

A :class:`LabelsUnreadableError` (an ``InputError``) says why the values do not name the
grid surely, with what was read and the candidates. Pixel coordinates: x right, y down.
"""

from .agreement import MIN_MARGIN
from .orient import Naming
from .reader import GridLabelling, LabelsUnreadableError, read_grid_labels

__all__ = ["MIN_MARGIN", "GridLabelling", "LabelsUnreadableError", "Naming",
           "read_grid_labels"]
