"""Names of the linear units of a CRS, historical ones included.

PROJ names the units it knows (``metre``, ``US survey foot`` ...); a unit given only by its
length (``+to_meter=1.94903631``) is ``unknown`` to it. Old French maps use such units:
they are named here by their length, so that reports and GeoPackage descriptions say
"toise" rather than "unknown".
"""

from __future__ import annotations

import math

#: Historical linear units by their length in metres (the Paris units of 1668-1799).
HISTORICAL_UNITS_M: dict[str, float] = {
    "toise": 1.94903631,       # toise du Châtelet (Jacoubet's atlas of Paris, 1836)
    "pied du roi": 0.32483939,
    "perche de Paris": 5.84710893,
}


def unit_from_length(metres: float, rel_tol: float = 1e-6) -> str | None:
    """The name of a historical unit of this length, or None.

    >>> unit_from_length(1.94903631)
    'toise'
    >>> unit_from_length(1.0) is None
    True
    """
    for name, length in HISTORICAL_UNITS_M.items():
        if math.isclose(metres, length, rel_tol=rel_tol):
            return name
    return None


def linear_unit_name(crs, unknown: str = "unknown") -> str:
    """The name of the linear unit of a ``pyproj.CRS``: PROJ's, else a historical unit of
    :data:`HISTORICAL_UNITS_M` by its length, else ``"units of <length> m"``; ``unknown``
    when the CRS has no axis or no length for its unit.

    >>> import pyproj
    >>> linear_unit_name(pyproj.CRS("EPSG:2154"))
    'metre'
    >>> linear_unit_name(pyproj.CRS("+proj=aeqd +lat_0=48.8 +lon_0=2.3 +ellps=GRS80 "
    ...                             "+to_meter=1.94903631 +type=crs"))
    'toise'
    """
    try:
        axis = crs.axis_info[0]
    except (IndexError, AttributeError):
        return unknown
    if axis.unit_name and axis.unit_name != "unknown":
        return axis.unit_name
    factor = axis.unit_conversion_factor
    if not factor or factor == 1.0:
        return unknown
    return unit_from_length(factor) or f"units of {factor:.6g} m"
