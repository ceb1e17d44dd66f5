"""Tuning of building-block and closed-shape extraction.

Lengths are in pixels of the full-resolution sheet at the reference scale (1:5000 scanned
at 300 dpi, about 0.42 m per pixel, 2363 px per 1000 m). For other scans set ``scale`` to
(pixels per metre of the scan) / 2.363: every length and area is multiplied accordingly.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class BlockSettings:
    """Parameters of :func:`core.blocks.segment_sheet`."""

    scale: float = 1.0
    # ink
    ink_radius: int = 7            #: black-hat radius: ink is darker than paper within it
    ink_threshold: int = 50        #: black-hat level (0-255) above which a pixel is ink
    red_margin: int = 40           #: red minus max(green, blue) above which ink is red
    black_level: int = 140         #: neutral pixels darker than this (red channel) are black ink
    letter_area: int = 400         #: ink components smaller than this (and short) are text
    letter_extent: int = 60        #: ... and whose bounding box is shorter than this
    # long thin straight lines (graticule, folds)
    remove_long_lines: bool = True
    long_line_strip: int = 200     #: length of the strips the line profiles are taken over
    long_line_contrast: float = 30  #: mean black-hat excess of a line over its surroundings
    long_line_coverage: float = 0.5  #: fraction of the strips a line must cross
    long_line_half_width: int = 3  #: half-width of the erased band
    long_line_dark: int = 100      #: darker lines are outlines ...
    long_line_crossing: float = 0.1  #: ... unless this share of the ink beside them crosses
    long_line_dark_coverage: float = 0.8  #: ... and they cross this share of the strips
    # hatching
    hatch_close: int = 2           #: closing radius bridging the gaps between strokes
    hatch_open: int = 4            #: opening radius removing lines and keeping hatched blobs
    hatch_min_radius: float = 8    #: a hatched blob holds a disk this large (words do not)
    hatch_max_ink: float = 0.72    #: ... and at most this share of it is ink
    hatch_stroke: int = 15         #: ... and made of straight strokes this long
    hatch_parallel: float = 0.5    #: ... at least this share of its ink in one direction
    hatch_margin: int = 3          #: ink this close to the blob's edge (its outline) is kept
    # lettering touching line work
    text_line_length: int = 41     #: line work lies on straight runs of ink this long
    text_angles: int = 24          #: directions tried for those runs
    text_max_keep: int = 1         #: off-line pieces up to this extent are kept
    # line network
    thinning_iterations: int = 8   #: enough for lines up to about 16 px wide
    spur_length: int = 10          #: skeleton branches up to this long are removed
    max_gap: float = 300           #: facing line ends at most this far apart are joined
    gap_angle: float = 12          #: ... if aligned within this angle (degrees)
    corner_gap: float = 16         #: line ends at most this far apart, pointing at each other
    corner_extend: float = 60      #: two line ends whose extensions meet within this are joined
    end_gap: int = 12              #: a line end is extended to a line at most this far ahead
    extend_to_end: float = 200       #: ... to another line's end at most this far ahead
    extend_to_line: float = 0      #: ... to any line at most this far ahead
    # regions
    edge_seal: float = 0           #: outlines this close to the map's edge close there
    min_shape_area: int = 1000     #: smaller closed shapes are dropped
    min_block_area: int = 2000     #: smaller blocks are dropped
    min_shape_radius: float = 0    #: closed shapes thinner than this (radius) are dropped
    street_fraction: float = 0.03  #: a region larger than this share of the map is open space
    corridor_ratio: float = 20.0   #: area / (inscribed radius)^2 above which a region is a corridor
    corridor_radius: float = 40    #: ... whose inscribed radius is at most this
    corridor_min_area: int = 1000  #: ... and whose area is at least this
    corridor_reach: float = 8      #: ... and grows across small regions up to 2x this wide
    network_ratio: float = 30.0    #: a region this elongated or branched ...
    network_min_area: int = 20000  #: ... and at least this large is open space
    network_spread: float = 60.0   #: or area / (median half-width)^2 above this (leaks)
    street_margin: int = 3         #: blocks stop this far from the street (outline width)
    # block-interior network (models/block_net.onnx, OpenCV DNN)
    block_net: bool = True         #: blocks are the network's block pixels (else: line network)
    net_flips: bool = True         #: probability averaged over the sheet and two mirror images
    net_threshold: float = 0.5     #: block probability above which a pixel is on a block
    net_join: int = 2              #: blocks at most 2x this apart (a wall, no street) are one
    net_open: int = 3              #: opening radius removing bridges and slivers
    net_bridge: int = 5            #: gaps cut by long thin lines are closed up to 2x this
    net_fill_holes: int = 250_000  #: holes enclosed by a block up to this area (px) are filled
    # closed-shape edge network (models/edge_net.onnx, OpenCV DNN; shapes level)
    edge_net: bool = True          #: shapes from the edge network if installed (else lines)
    edge_threshold: float | None = None  #: edge probability threshold (None: the model's)
    #: edge map averaged over each tile and its transpose (2), their half turns too (4), or not (1)
    edge_views: int = 2
    edge_close_gaps: bool = False  #: close the gaps of the thinned edges as the line network's

    @classmethod
    def for_level(cls, level: str, **changes) -> BlockSettings:
        """The defaults tuned for ``level`` ("blocks" or "shapes"), with ``changes``.

        Blocks (MapSeg task 1): from the block-interior network (``block_net``; both
        levels); with ``block_net=False`` from the line network instead, with corridor
        growth, so street pieces cut off by text or rails are open space, and the spread
        test for blocks leaked into the street network (docs/maparea-blocks.md compares
        the two).
        Shapes (every closed shape, real 1925 atlas): no corridor growth (narrow buildings
        and sidewalk strips are shapes), no spread test, longer spurs pruned, no extension
        of line ends onto other lines or to corners (text and hatching stubs would cut
        shapes), strips thinner than ``min_shape_radius`` (between water lines or rails)
        dropped, outlines sealed at the map's edge.
        """
        base = cls() if level == "blocks" else cls(
            corridor_ratio=float("inf"), end_gap=0, corner_extend=0, spur_length=15,
            network_spread=float("inf"), min_shape_radius=6, edge_seal=4)
        return base.with_changes(**changes) if changes else base

    def px(self, value: float) -> int:
        """A length in pixels at this scan's scale (at least 1)."""
        return max(1, round(value * self.scale))

    def area(self, value: float) -> int:
        """An area in pixels at this scan's scale."""
        return max(1, round(value * self.scale * self.scale))

    def with_changes(self, **changes) -> BlockSettings:
        """A copy with some fields changed (unknown names are a TypeError)."""
        names = {f.name for f in fields(self)}
        unknown = set(changes) - names
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        return replace(self, **changes)
