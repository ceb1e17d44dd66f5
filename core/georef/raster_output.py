"""Georeferenced rasters with GDAL: GeoTIFF (geotransform or warp), GCP VRT, world file.

Pixel convention: GDAL's, the same as the GCPs' (x right, y down, origin at the top-left
corner of the top-left pixel; the centre of pixel (i, j) is (i + 0.5, j + 0.5)). A
geotransform ``gt`` maps that point to ``(gt[0] + gt[1] x + gt[2] y, gt[3] + gt[4] x +
gt[5] y)``; a world file stores the centre of the top-left pixel instead of its corner.

GeoTIFFs are tiled (512 x 512), DEFLATE-compressed with the horizontal predictor
(lossless; level 1: six times faster than the default level 6 for 16 % more bytes on a
scanned sheet), BigTIFF when needed. A map-area mask (0 = outside) becomes an alpha band.
:func:`write_cog` copies one into a Cloud-Optimized GeoTIFF (the same tiles and compression,
with overviews, laid out for reading over HTTP).
"""

from __future__ import annotations

import contextlib
import html
import os
import uuid
from pathlib import Path

import numpy as np

from ..errors import InputError, option
from ..gdal_config import gdal_config
from ..interrupts import deferred, pending
from ..progress import Cancelled, ProgressCallback, report, sub_progress

RESAMPLING: tuple[str, ...] = ("near", "bilinear", "cubic", "lanczos")
GTIFF_OPTIONS = ["TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512", "COMPRESS=DEFLATE",
                 "PREDICTOR=2", "ZLEVEL=1", "BIGTIFF=IF_SAFER", "NUM_THREADS=ALL_CPUS"]
_MASK_LUT = "0:0,127:0,128:255,255:255"  # read_mask's threshold: >= 128 is inside


def _gdal():
    from osgeo import gdal

    gdal.UseExceptions()
    return gdal


class _GdalProgress:
    """A GDAL progress callback forwarding to ours; an exception never escapes into GDAL.

    A cancel (:class:`Cancelled` from our callback) or a stop signal (Ctrl-C, SIGTERM:
    GDAL runs inside :func:`core.interrupts.deferred`, so the signal waits there) makes it
    return 0: GDAL stops cleanly and closes its files. :meth:`check` re-raises a cancel;
    the signal is raised when the deferred block ends.
    """

    def __init__(self, progress: ProgressCallback | None, message: str) -> None:
        self.progress, self.message, self.cancelled = progress, message, None

    def __call__(self, fraction: float, _msg=None, _data=None) -> int:
        if pending() is not None:
            return 0
        try:
            report(self.progress, fraction, self.message)
        except Cancelled as exc:
            self.cancelled = exc
            return 0
        return 1

    def check(self) -> None:
        if self.cancelled is not None:
            raise self.cancelled


def _cancellable(call, cb: _GdalProgress):
    """Run ``call()`` (a GDAL function given ``cb``) so a stop signal or a cancel stops it
    through the callback; re-raise the cancel or the signal afterwards."""
    try:
        with deferred():
            result = call()
    except RuntimeError:   # GDAL's "User terminated ..." after the callback said stop
        cb.check()
        raise
    cb.check()
    return result


def _run_gdal(fn, *args, progress: ProgressCallback | None, message: str, **kwargs):
    cb = _GdalProgress(progress, message)
    with gdal_config(GDAL_PAM_ENABLED="NO"):
        ds = _cancellable(lambda: fn(*args, callback=cb, **kwargs), cb)
    if ds is None:
        raise RuntimeError(f"GDAL failed: {message}")
    return ds


def world_file_suffix(image_suffix: str) -> str:
    """The world-file suffix of an image suffix: .jpg -> .jgw, .png -> .pgw, .tif -> .tfw."""
    ext = image_suffix.lower().lstrip(".")
    if len(ext) < 2:
        return ".wld"
    return f".{ext[0]}{ext[-1]}w"


def format_world_file(geotransform: tuple[float, ...]) -> str:
    """World-file text: A, D, B, E, then the map position of the top-left pixel's centre."""
    x0, a, b, y0, d, e = geotransform
    cx = x0 + 0.5 * a + 0.5 * b
    cy = y0 + 0.5 * d + 0.5 * e
    return "\n".join(repr(float(v)) for v in (a, d, b, e, cx, cy)) + "\n"


def _mask_source_xml(mask_path: Path, vrt_dir: Path | None, width: int, height: int) -> str:
    if vrt_dir is not None:
        name, relative = os.path.relpath(mask_path.resolve(), vrt_dir.resolve()), 1
    else:
        name, relative = str(mask_path.resolve()), 0
    return (f'<ComplexSource><SourceFilename relativeToVRT="{relative}">{name}'
            f"</SourceFilename><SourceBand>1</SourceBand>"
            f'<SrcRect xOff="0" yOff="0" xSize="{width}" ySize="{height}"/>'
            f'<DstRect xOff="0" yOff="0" xSize="{width}" ySize="{height}"/>'
            f"<LUT>{_MASK_LUT}</LUT></ComplexSource>")


def _add_alpha_from_mask(vrt, mask_path: Path, vrt_dir: Path | None) -> None:
    gdal = _gdal()
    vrt.AddBand(gdal.GDT_Byte)
    band = vrt.GetRasterBand(vrt.RasterCount)
    band.SetMetadataItem("source_0", _mask_source_xml(mask_path, vrt_dir, vrt.RasterXSize,
                                                      vrt.RasterYSize), "new_vrt_sources")
    band.SetColorInterpretation(gdal.GCI_AlphaBand)


def _open(path: Path):
    gdal = _gdal()
    try:
        return gdal.Open(str(path))
    except RuntimeError as exc:
        raise InputError(f"{path}: GDAL cannot read it ({exc}); give a JPEG, PNG or TIFF") \
            from None


def _creation_options(band_count: int, has_alpha: bool) -> list[str]:
    opts = list(GTIFF_OPTIONS)
    if band_count - int(has_alpha) == 3:
        opts.append("PHOTOMETRIC=RGB")
    if has_alpha:
        opts.append("ALPHA=YES")
    return opts


def build_overviews(path: Path, progress: ProgressCallback | None = None) -> None:
    """Add internal DEFLATE overviews, averaged: factors 2, 4, 8... down to the first level
    whose larger side is under 512 px."""
    gdal = _gdal()
    with gdal_config(COMPRESS_OVERVIEW="DEFLATE", PREDICTOR_OVERVIEW="2",
                 GDAL_NUM_THREADS="ALL_CPUS", GDAL_PAM_ENABLED="NO"):
        ds = gdal.Open(str(path), gdal.GA_Update)
        levels, f = [], 2
        while max(ds.RasterXSize, ds.RasterYSize) / f >= 256:
            levels.append(f)
            f *= 2
        if levels:
            cb = _GdalProgress(progress, "building overviews")
            _cancellable(lambda: ds.BuildOverviews("AVERAGE", levels, callback=cb), cb)
        ds = None


COG_OPTIONS = ["COMPRESS=DEFLATE", "PREDICTOR=YES", "LEVEL=1", "BLOCKSIZE=512",
               "OVERVIEWS=AUTO", "OVERVIEW_RESAMPLING=AVERAGE", "BIGTIFF=IF_SAFER",
               "NUM_THREADS=ALL_CPUS"]


def write_cog(src_path: Path, out_path: Path, *,
              progress: ProgressCallback | None = None) -> None:
    """Copy a GeoTIFF into a Cloud-Optimized GeoTIFF (GDAL's COG driver): 512 px tiles,
    DEFLATE as :data:`GTIFF_OPTIONS`, averaged overviews down to one tile, the header and
    overviews first so a client reads any part with a few HTTP range requests. An alpha
    band stays an alpha band. Cancellable through ``progress`` (GDAL's callback)."""
    gdal = _gdal()
    _run_gdal(gdal.Translate, str(out_path), str(src_path), format="COG",
              creationOptions=COG_OPTIONS, progress=progress,
              message="writing Cloud-Optimized GeoTIFF")


def write_geotiff_affine(image_path: Path, out_path: Path, geotransform: tuple[float, ...],
                         crs_wkt: str, mask_path: Path | None = None, *,
                         progress: ProgressCallback | None = None) -> None:
    """The original pixels, unchanged, with a geotransform (no resampling).

    With ``mask_path`` (0/255, same size), an alpha band makes the outside transparent.
    """
    gdal = _gdal()
    src = _open(image_path)
    vrt_name = f"/vsimem/georef_{uuid.uuid4().hex}.vrt"
    try:
        vrt = gdal.Translate(vrt_name, src, format="VRT")
        vrt.SetGeoTransform(list(geotransform))
        vrt.SetProjection(crs_wkt)
        if mask_path is not None:
            _add_alpha_from_mask(vrt, Path(mask_path), None)
        n = vrt.RasterCount
        _run_gdal(gdal.Translate, str(out_path), vrt, format="GTiff",
                  creationOptions=_creation_options(n, mask_path is not None),
                  progress=progress, message="writing GeoTIFF")
        vrt = None
    finally:   # not there when a stop signal came before GDAL made it
        with contextlib.suppress(RuntimeError):
            gdal.Unlink(vrt_name)


def write_gcp_vrt(image_path: Path, out_path: Path, pixel_xy: np.ndarray, map_xy: np.ndarray,
                  crs_wkt: str, mask_path: Path | None = None,
                  final_dir: Path | None = None) -> None:
    """A VRT of the original image carrying the GCPs (for gdalwarp, QGIS...).

    ``final_dir`` is the directory the VRT will finally live in (paths are made relative
    to it when possible); defaults to ``out_path``'s.
    """
    gdal = _gdal()
    src = _open(image_path)
    gcps = _gcp_list(pixel_xy, map_xy)
    with gdal_config(GDAL_PAM_ENABLED="NO"):
        vrt = gdal.Translate(str(out_path), src, format="VRT", GCPs=gcps, outputSRS=crs_wkt)
        if mask_path is not None:
            _add_alpha_from_mask(vrt, Path(mask_path), Path(final_dir or out_path.parent))
        vrt.FlushCache()
        vrt = None


def _gcp_list(pixel_xy: np.ndarray, map_xy: np.ndarray) -> list:
    gdal = _gdal()
    return [gdal.GCP(float(mx), float(my), 0.0, float(px), float(py), "", f"gcp{k + 1}")
            for k, ((px, py), (mx, my)) in enumerate(zip(pixel_xy, map_xy, strict=True))]


def _band_xml(band: int, source: Path, source_band: int, interp: str, lut: bool) -> str:
    kind = "ComplexSource" if lut else "SimpleSource"
    extra = f"<LUT>{_MASK_LUT}</LUT>" if lut else ""
    return (f'<VRTRasterBand dataType="Byte" band="{band}"><ColorInterp>{interp}</ColorInterp>'
            f'<{kind}><SourceFilename relativeToVRT="0">{source}</SourceFilename>'
            f"<SourceBand>{source_band}</SourceBand>{extra}</{kind}></VRTRasterBand>")


def _colour_name(band: int, count: int) -> str:
    """VRT colour interpretation of colour band ``band`` (1-based) of ``count``."""
    if count == 1:
        return "Gray"
    return ("Red", "Green", "Blue")[band - 1] if band <= 3 else "Undefined"


def warp_gcps(image_path: Path, out_path: Path, pixel_xy: np.ndarray, map_xy: np.ndarray,
              crs_wkt: str, *, order: int | None = None, tps: bool = False,
              mask_path: Path | None = None, resampling: str = "bilinear",
              progress: ProgressCallback | None = None) -> None:
    """Warp an image with GDAL's GCP polynomial (``order`` 1-3) or thin plate spline on
    every core; outside the image, and outside the map-area mask if given, is transparent.

    Speed: GDAL's fast warp kernels are only used without a source alpha band and
    compression while warping costs three times more, so the colour bands are warped
    uncompressed with a footprint alpha, the mask separately (nearest neighbour, same
    grid), and the result compressed in one pass.
    """
    gdal = _gdal()
    if resampling not in RESAMPLING:
        raise InputError(f"unknown resampling {resampling!r}; choose one of "
                         f"{', '.join(RESAMPLING)}")
    src = _open(image_path)
    n = src.RasterCount
    gcps = _gcp_list(pixel_xy, map_xy)
    tag = f"{os.getpid()}_{uuid.uuid4().hex[:8]}"
    src_vrt, mask_vrt = f"/vsimem/src_{tag}.vrt", f"/vsimem/mask_{tag}.vrt"
    colour_tmp = out_path.with_name(f".{out_path.stem}.colour.{tag}.tif")
    mask_tmp = out_path.with_name(f".{out_path.stem}.mask.{tag}.tif")
    transformer = {"tps": True} if tps else {"polynomialOrder": int(order)}
    common = {"format": "GTiff", "dstSRS": crs_wkt, "multithread": True, "warpMemoryLimit": 512,
              "warpOptions": ["NUM_THREADS=ALL_CPUS", "INIT_DEST=0"],
              "creationOptions": ["TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512",
                                  "BIGTIFF=IF_SAFER"], **transformer}
    try:
        with gdal_config(GDAL_PAM_ENABLED="NO"):
            gdal.Translate(src_vrt, src, format="VRT", GCPs=gcps, outputSRS=crs_wkt)
        _run_gdal(gdal.Warp, str(colour_tmp), src_vrt, resampleAlg=resampling,
                  dstAlpha=True, progress=sub_progress(progress, 0.0, 0.7),
                  message="warping", **common)
        warped = gdal.Open(str(colour_tmp))
        gt, w, h = warped.GetGeoTransform(), warped.RasterXSize, warped.RasterYSize
        warped = None
        bands = [_band_xml(b, colour_tmp, b, _colour_name(b, n), False)
                 for b in range(1, n + 1)]
        if mask_path is not None:
            with gdal_config(GDAL_PAM_ENABLED="NO"):
                gdal.Translate(mask_vrt, _open(Path(mask_path)), format="VRT", bandList=[1],
                               GCPs=gcps, outputSRS=crs_wkt)
            bounds = (gt[0], gt[3] + h * gt[5], gt[0] + w * gt[1], gt[3])
            _run_gdal(gdal.Warp, str(mask_tmp), mask_vrt, resampleAlg="near",
                      outputBounds=bounds, width=w, height=h,
                      progress=sub_progress(progress, 0.7, 0.8), message="warping the mask",
                      **common)
            bands.append(_band_xml(n + 1, mask_tmp, 1, "Alpha", True))
        else:
            bands.append(_band_xml(n + 1, colour_tmp, n + 1, "Alpha", False))
        stack = (f'<VRTDataset rasterXSize="{w}" rasterYSize="{h}">'
                 f"<SRS>{html.escape(crs_wkt)}</SRS>"
                 f"<GeoTransform>{', '.join(repr(float(v)) for v in gt)}</GeoTransform>"
                 + "".join(bands) + "</VRTDataset>")
        _run_gdal(gdal.Translate, str(out_path), stack, format="GTiff",
                  creationOptions=_creation_options(n + 1, True),
                  progress=sub_progress(progress, 0.8, 1.0), message="compressing")
    finally:
        for name in (src_vrt, mask_vrt):
            with contextlib.suppress(RuntimeError):
                gdal.Unlink(name)
        colour_tmp.unlink(missing_ok=True)
        mask_tmp.unlink(missing_ok=True)


def suggested_output_grid(forward, width: int, height: int,
                          samples: int = 64) -> tuple[tuple[float, ...], int, int]:
    """Output geotransform and size for warping a ``width`` x ``height`` image with
    ``forward`` (pixel -> map), north-up, square pixels, as GDAL's suggested warp output:
    the pixel size keeps the number of pixels along the image diagonal."""
    t = np.linspace(0.0, 1.0, samples)
    edge = np.concatenate([np.column_stack([t * width, np.zeros_like(t)]),
                           np.column_stack([np.full_like(t, width), t * height]),
                           np.column_stack([t * width, np.full_like(t, height)]),
                           np.column_stack([np.zeros_like(t), t * height])])
    m = forward(edge)
    if not np.all(np.isfinite(m)):
        raise InputError(f"the transform sends part of the image to infinity; set "
                         f"{option('transform')} to affine or check the GCPs",
                         field="transform")
    corners = forward(np.array([[0.0, 0.0], [width, height]]))
    diag = float(np.hypot(*(corners[1] - corners[0])))
    res = diag / float(np.hypot(width, height))
    minx, miny = m.min(axis=0)
    maxx, maxy = m.max(axis=0)
    w = max(1, int(np.ceil((maxx - minx) / res - 1e-9)))
    h = max(1, int(np.ceil((maxy - miny) / res - 1e-9)))
    return (float(minx), res, 0.0, float(maxy), 0.0, -res), w, h


_CV_INTERP = {"near": 0, "bilinear": 1, "cubic": 2, "lanczos": 4}  # cv2.INTER_* values


def warp_projective(image_path: Path, out_path: Path, pixel_to_map: np.ndarray, crs_wkt: str,
                    mask_path: Path | None = None, *, resampling: str = "bilinear",
                    strip_rows: int = 1024, progress: ProgressCallback | None = None) -> None:
    """Warp with an exact homography (3x3 pixel -> map) using OpenCV, in strips of rows.

    GDAL 3.6 has no projective GCP transformer, so this is done with cv2.warpPerspective
    (multi-threaded) and written with GDAL; resampling names map to OpenCV's.
    """
    import cv2

    from ..imageio import read_image, read_mask
    from .transforms import apply_homogeneous

    gdal = _gdal()
    if resampling not in RESAMPLING:
        raise InputError(f"unknown resampling {resampling!r}; choose one of "
                         f"{', '.join(RESAMPLING)}")
    img = read_image(image_path)
    h_in, w_in = img.shape[:2]
    alpha_src = (read_mask(mask_path, (h_in, w_in)).view(np.uint8) * np.uint8(255)
                 if mask_path is not None else np.full((h_in, w_in), 255, np.uint8))
    hmat = np.asarray(pixel_to_map, dtype=np.float64)
    gt, w_out, h_out = suggested_output_grid(lambda p: apply_homogeneous(hmat, p), w_in, h_in)
    inv = np.linalg.inv(hmat)
    shift_back = np.array([[1.0, 0.0, -0.5], [0.0, 1.0, -0.5], [0.0, 0.0, 1.0]])
    bands = img.shape[2] if img.ndim == 3 else 1
    drv = gdal.GetDriverByName("GTiff")
    with gdal_config(GDAL_PAM_ENABLED="NO"):
        ds = drv.Create(str(out_path), w_out, h_out, bands + 1, gdal.GDT_Byte,
                        options=_creation_options(bands + 1, True))
        ds.SetGeoTransform(list(gt))
        ds.SetProjection(crs_wkt)
        ds.GetRasterBand(bands + 1).SetColorInterpretation(gdal.GCI_AlphaBand)
        interp = _CV_INTERP[resampling] | cv2.WARP_INVERSE_MAP
        for r0 in range(0, h_out, strip_rows):
            rows = min(strip_rows, h_out - r0)
            # output OpenCV pixel (i, j) -> its centre -> map -> input corner coords -> OpenCV
            out_to_map = np.array([[gt[1], 0.0, gt[0] + 0.5 * gt[1]],
                                   [0.0, gt[5], gt[3] + (r0 + 0.5) * gt[5]],
                                   [0.0, 0.0, 1.0]])
            m = shift_back @ inv @ out_to_map
            strip = cv2.warpPerspective(img, m, (w_out, rows), flags=interp,
                                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            alpha = cv2.warpPerspective(alpha_src, m, (w_out, rows),
                                        flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            strip = strip.reshape(rows, w_out, bands)
            for b in range(bands):
                ds.GetRasterBand(b + 1).WriteArray(strip[:, :, b], 0, r0)
            ds.GetRasterBand(bands + 1).WriteArray(alpha, 0, r0)
            report(progress, (r0 + rows) / h_out, "warping")
        ds.FlushCache()
        ds = None


def raster_extent(path: Path) -> tuple[tuple[float, float, float, float], str]:
    """``((minx, miny, maxx, maxy), wkt)`` of a georeferenced raster (for checks)."""
    gdal = _gdal()
    ds = gdal.Open(str(path))
    gt = ds.GetGeoTransform()
    w, h = ds.RasterXSize, ds.RasterYSize
    xs = [gt[0] + gt[1] * x + gt[2] * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
    ys = [gt[3] + gt[4] * x + gt[5] * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
    return (min(xs), min(ys), max(xs), max(ys)), ds.GetProjection()
