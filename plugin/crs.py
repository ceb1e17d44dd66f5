"""Coordinate reference systems between QGIS and core: the Paris atlas grid as a custom CRS.

core takes CRSs as text (EPSG code, WKT or PROJ string, see ``core.georef.crs.parse_crs``);
QGIS widgets give :class:`QgsCoordinateReferenceSystem` objects.
"""

from __future__ import annotations

from qgis.core import QgsApplication, QgsCoordinateReferenceSystem

#: Name of the Paris atlas grid in QGIS's list of custom CRSs (stored once, not translated).
PARIS_ATLAS_NAME = "Atlas municipal de Paris – grid (Paris Observatory)"
#: Output CRS proposed by default: RGF93 v1 / Lambert-93, France's official projection.
DEFAULT_TARGET = "EPSG:2154"
_AUTHORITIES = ("EPSG:", "IGNF:", "ESRI:", "OGC:")


def paris_atlas_crs() -> QgsCoordinateReferenceSystem:
    """The Paris atlas grid, registered as a custom ("USER") CRS on first use.

    QGIS keeps custom CRSs in the user's profile database, so the grid stays available in
    every projection selector (under "User-defined") after the plugin is unloaded.
    """
    from ..core.georef.crs import PRESETS

    wanted = QgsCoordinateReferenceSystem.fromProj(PRESETS["paris-atlas"])
    registry = QgsApplication.coordinateReferenceSystemRegistry()
    for details in registry.userCrsList():
        if details.name == PARIS_ATLAS_NAME or details.crs == wanted:
            return details.crs
    srsid = registry.addUserCrs(wanted, PARIS_ATLAS_NAME,
                                QgsCoordinateReferenceSystem.Format.FormatWkt)
    if srsid < 0:  # read-only profile: use the definition without registering it
        return wanted
    return QgsCoordinateReferenceSystem.fromSrsId(srsid)


def core_crs_text(crs: QgsCoordinateReferenceSystem) -> str:
    """The text core's ``parse_crs`` reads for ``crs``: its authority code, else WKT2."""
    authid = crs.authid()
    if authid.upper().startswith(_AUTHORITIES):
        return authid
    return crs.toWkt(QgsCoordinateReferenceSystem.WktVariant.WKT_PREFERRED)


def result_crs(result) -> QgsCoordinateReferenceSystem:
    """The output CRS of a ``core.georef.GeorefResult``, from the WKT of its report."""
    return QgsCoordinateReferenceSystem.fromWkt(result.report["crs"]["output_wkt"])
