"""The Processing provider ``graticule_georeferencer``: one algorithm per core capability."""

from __future__ import annotations

from qgis.core import QgsProcessingProvider

from ..i18n import tr
from ..main import icon
from .building_blocks import BuildingBlocksAlgorithm
from .detect_graticule import DetectGraticuleAlgorithm
from .georeference import GeoreferenceAlgorithm
from .map_area import MapAreaAlgorithm
from .mapseg_evaluation import MapSegEvaluation
from .refit_gcps import RefitGcpsAlgorithm

ALGORITHMS = (DetectGraticuleAlgorithm, GeoreferenceAlgorithm, RefitGcpsAlgorithm,
              MapAreaAlgorithm, BuildingBlocksAlgorithm)


class GraticuleGeoreferencerProvider(QgsProcessingProvider):
    """Graticule detection, georeferencing, map area, building blocks and MapSeg scores."""

    def id(self) -> str:
        return "graticule_georeferencer"

    def name(self) -> str:
        return tr("Graticule Georeferencer")

    def longName(self) -> str:
        return tr("Graticule Georeferencer: historical map sheets")

    def icon(self):
        return icon("icon.svg")

    def loadAlgorithms(self) -> None:
        for algorithm in ALGORITHMS:
            self.addAlgorithm(algorithm())
        for task in ("T1", "T2", "T3"):
            self.addAlgorithm(MapSegEvaluation(task))
