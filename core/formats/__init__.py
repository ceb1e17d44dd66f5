"""Readers and writers for the point formats the tool exchanges: MapSeg CSV, QGIS .points."""
