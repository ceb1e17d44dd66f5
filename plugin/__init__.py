"""The QGIS side of Graticule Georeferencer: actions, dialogs, tasks, Processing provider.

Everything here talks to QGIS; the work itself is done by ``core`` (no qgis imports).
"""
