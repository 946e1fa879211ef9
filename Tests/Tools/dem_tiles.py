#!/usr/bin/env python3
"""Terrain tiles for the simulated runs, with the errors real DEMs have.

Nothing can be downloaded at test time, so the tiles a runner would take from
NASA, viewfinderpanoramas or Copernicus are made here from a scenario's truth
(DATA/gps/sim/X.truth.json: the runner's true 1 Hz positions and altitudes):

* The true terrain. Along the path it is the runner's true altitude; between
  and beside the passes it is extended the way ground is: a broad field
  (the path's altitudes spread by a Gaussian of 120 m, so that parallel
  streets and the two sides of a hill agree) plus the path's own detail
  within a few tens of metres of it (a Gaussian of 12 m along and across),
  fading into a smooth regional field (gentle sinusoidal hills, tens of
  metres over ten kilometres) a few hundred metres away; the rest of the
  whole-degree tile is that regional field.
* The errors, drawn per realisation (`--realisation N` seeds them), with the
  magnitudes the DEMs' validations report and the issue states:
  - a correlated error field, 2-4 m RMS, Gaussian correlation 200-500 m
    (random plane waves): SRTM's and Copernicus's long-wavelength error
    (Rodriguez et al. 2006: 2-6 m RMSE in open terrain; Copernicus' 90 %
    linear error < 4 m);
  - white noise per posting, 0.5-1.5 m (SRTM's speckle);
  - a bias under trees and buildings: patches of a few hundred metres
    (a random field thresholded at the scenario's cover: a city 50 %, a
    trail 30 %, a track 10 %) that read 2-5 m high, with soft edges;
  - voids (-32768) in the .hgt tiles: up to three small clusters near the
    path (SRTM's radar shadows and water);
  - whole metres in .hgt (int16), float32 in GeoTIFF.
* The grids, as the products lay them out:
  - SRTM .hgt, 1" (3601 x 3601) and 3" (1201 x 1201), big-endian int16, rows
    from north to south, named by the south-west corner (N41E002.hgt), the
    edges shared with the neighbours; zipped as served (N41E002.hgt.zip,
    deflated) with --zip;
  - Copernicus GLO-30 / GLO-90 GeoTIFF (Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif,
    _30_ for GLO-90): float32, tiled 1024 x 1024, DEFLATE or LZW, pixel-is-point,
    3600 (GLO-30) or 1200 (GLO-90) rows, and columns thinned beyond 50 degrees
    of latitude as Copernicus does (2400 / 800 between 50 and 60 degrees);
    the georeferencing in ModelPixelScale, ModelTiepoint and the GeoKey
    directory (EPSG:4326).
  The 3" and GLO-90 postings are the centre of each 3 x 3 of the 1" DEM
  (errors included), as NGA sub-sampled SRTM 1" into SRTM3 (SRTM FAQ, 2004).

The held-out scenarios are scored with tiles from another generator: nothing
in the product may depend on these choices.

    python3 Tests/Tools/dem_tiles.py --data ../shared/data --scenario c_trail \\
        --realisation 1 --product srtm1|srtm3|glo30|glo90 [--zip] [--lzw] --out DIR
"""
import argparse
import array
import json
import math
import os
import random
import struct
import sys
import zipfile
import zlib

import rig

R_EARTH = 6371008.8
VOID = -32768
# What each kind of scenario is covered by (share of the ground under trees or buildings).
COVER = {"urban": 0.5, "trail": 0.3, "track": 0.1, "static": 0.2}
PRODUCTS = {
    # name: (arc-seconds between rows, format)
    "srtm1": (1, "hgt"),
    "srtm3": (3, "hgt"),
    "glo30": (1, "tif"),
    "glo90": (3, "tif"),
}


class Terrain:
    """The scenario's true terrain and one realisation of a DEM's errors, in local metres."""

    BROAD_SIGMA = 120.0   # m: how far the path's altitude spreads sideways
    ALONG = 10.0          # m: the path's own detail along it (steps, a ramp, an underpass)
    ACROSS = 60.0         # m: how far beside the path the ground keeps the path's height
    RASTER = 40.0         # m: cell of the broad field's and the distance's rasters
    BUCKET = 100.0        # m: cell of the path-point index (the kernel's reach fits in 5 x 5)
    TAPER = (250.0, 500.0)  # m from the path: errors fade out between these

    def __init__(self, truth, realisation):
        p = truth["positions"]
        lats, lons, alts = p["lat"], p["lon"], p["alt_msl"]
        self.lat0, self.lon0 = sum(lats) / len(lats), sum(lons) / len(lons)
        self.ky = R_EARTH * math.pi / 180
        self.kx = self.ky * math.cos(math.radians(self.lat0))
        pts, last = [], None
        for la, lo, z in zip(lats, lons, alts):
            x, y = self.xy(la, lo)
            if last is None or math.hypot(x - last[0], y - last[1]) >= 3.0:
                pts.append((x, y, z))
                last = (x, y)
        self.points = pts
        self.zc = sorted(alts)[len(alts) // 2]
        rnd = random.Random(f"regional:{truth.get('scenario')}")
        self.regional = [(rnd.uniform(8, 20), rnd.uniform(6e3, 14e3), rnd.uniform(0, 2 * math.pi)) for _ in range(2)]
        xs = [q[0] for q in pts]
        ys = [q[1] for q in pts]
        m = self.TAPER[1] + 4 * self.RASTER
        self.box = (min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m)
        x0, y0, x1, y1 = self.box
        self.nx, self.ny = int((x1 - x0) / self.RASTER) + 2, int((y1 - y0) / self.RASTER) + 2
        self.buckets = {}
        for i, (x, y, _) in enumerate(pts):
            self.buckets.setdefault((int(math.floor(x / self.BUCKET)), int(math.floor(y / self.BUCKET))), []).append(i)
        self._broad_field()
        self._distances()
        # The direction of the path at each point (from its neighbours).
        self.tangents = []
        for n in range(len(pts)):
            a, b = pts[max(n - 1, 0)], pts[min(n + 1, len(pts) - 1)]
            dx, dy = b[0] - a[0], b[1] - a[1]
            norm = math.hypot(dx, dy) or 1.0
            self.tangents.append((dx / norm, dy / norm))
        self._errors(truth.get("kind", "track"), random.Random(f"{truth.get('scenario')}:{realisation}"))

    def xy(self, lat, lon):
        return (lon - self.lon0) * self.kx, (lat - self.lat0) * self.ky

    def base(self, x, y):
        """The regional field: gentle hills around the path's median altitude."""
        (a1, l1, p1), (a2, l2, p2) = self.regional
        return self.zc + a1 * math.sin(2 * math.pi * x / l1 + p1) + a2 * math.sin(2 * math.pi * y / l2 + p2)

    def _cell(self, x, y):
        x0, y0, _, _ = self.box
        return int(round((x - x0) / self.RASTER)), int(round((y - y0) / self.RASTER))

    def _broad_field(self):
        """Normalised Gaussian convolution of the path's altitudes on the raster (separable)."""
        num = [0.0] * (self.nx * self.ny)
        den = [0.0] * (self.nx * self.ny)
        for x, y, z in self.points:
            i, j = self._cell(x, y)
            num[j * self.nx + i] += z - self.base(x, y)
            den[j * self.nx + i] += 1
        s = self.BROAD_SIGMA / self.RASTER
        half = int(3 * s) + 1
        kern = [math.exp(-0.5 * (k / s) ** 2) for k in range(-half, half + 1)]
        for grid in (num, den):
            self._blur(grid, kern, half)
        self.num, self.den, self.w0 = num, den, 0.05 * max(den)

    def _blur(self, g, kern, half):
        nx, ny = self.nx, self.ny
        for j in range(ny):
            row = g[j * nx:(j + 1) * nx]
            for i in range(nx):
                g[j * nx + i] = sum(kern[k + half] * row[i + k] for k in range(-half, half + 1) if 0 <= i + k < nx)
        for i in range(nx):
            col = g[i::nx]
            for j in range(ny):
                g[j * nx + i] = sum(kern[k + half] * col[j + k] for k in range(-half, half + 1) if 0 <= j + k < ny)

    def _distances(self):
        """Distance from each raster cell to the nearest path point (nearest-point propagation, two passes)."""
        nx, ny = self.nx, self.ny
        x0, y0, _, _ = self.box
        near = [-1] * (nx * ny)
        dist = [float("inf")] * (nx * ny)

        def consider(k, n):
            if n < 0:
                return
            cx, cy = x0 + (k % nx) * self.RASTER, y0 + (k // nx) * self.RASTER
            px, py, _ = self.points[n]
            d = math.hypot(px - cx, py - cy)
            if d < dist[k]:
                dist[k], near[k] = d, n

        for n, (x, y, _) in enumerate(self.points):
            i, j = self._cell(x, y)
            consider(j * nx + i, n)
        for order, steps in ((range(nx * ny), ((-1, 0), (0, -1), (-1, -1), (1, -1))),
                             (range(nx * ny - 1, -1, -1), ((1, 0), (0, 1), (1, 1), (-1, 1)))):
            for k in order:
                i, j = k % nx, k // nx
                for di, dj in steps:
                    if 0 <= i + di < nx and 0 <= j + dj < ny:
                        consider(k, near[(j + dj) * nx + i + di])
        self.dist = dist

    def _bilinear(self, g, x, y):
        x0, y0, _, _ = self.box
        fx, fy = (x - x0) / self.RASTER, (y - y0) / self.RASTER
        i, j = min(max(int(fx), 0), self.nx - 2), min(max(int(fy), 0), self.ny - 2)
        u, v = min(max(fx - i, 0), 1), min(max(fy - j, 0), 1)
        k = j * self.nx + i
        return ((1 - u) * (1 - v) * g[k] + u * (1 - v) * g[k + 1] + (1 - u) * v * g[k + self.nx]
                + u * v * g[k + self.nx + 1])

    def inside(self, x, y):
        x0, y0, x1, y1 = self.box
        return x0 <= x <= x1 and y0 <= y <= y1

    def distance(self, x, y):
        """Metres to the path (to within a raster cell); infinite outside the raster."""
        return self._bilinear(self.dist, x, y) if self.inside(x, y) else float("inf")

    def broad(self, x, y):
        b = self.base(x, y)
        if not self.inside(x, y):
            return b
        return b + self._bilinear(self.num, x, y) / (self._bilinear(self.den, x, y) + self.w0)

    def truth(self, x, y):
        """The true terrain at (x, y): near the path, the altitude of the path beside it (a
        Gaussian of ALONG metres along the path and ACROSS metres across it: ground keeps its
        height across a street or a trail for a while), fading into the broad field."""
        if not self.inside(x, y):
            return self.base(x, y)
        bx, by = int(math.floor(x / self.BUCKET)), int(math.floor(y / self.BUCKET))
        sw = sz = 0.0
        ra, rc = 0.5 / self.ALONG ** 2, 0.5 / self.ACROSS ** 2
        for dx in (-2, -1, 0, 1, 2):
            for dy in (-2, -1, 0, 1, 2):
                for n in self.buckets.get((bx + dx, by + dy), ()):
                    px, py, pz = self.points[n]
                    ex, ey = x - px, y - py
                    tx, ty = self.tangents[n]
                    a, c = ex * tx + ey * ty, ex * ty - ey * tx
                    q = a * a * ra + c * c * rc
                    if q < 12:
                        w = math.exp(-q)
                        sw += w
                        sz += w * pz
        if sw == 0:
            return self.broad(x, y)
        w0 = 0.02
        return (sz + w0 * self.broad(x, y)) / (sw + w0)

    def _errors(self, kind, rnd):
        self.sigma_corr = rnd.uniform(2.0, 4.0)
        self.corr_length = rnd.uniform(200.0, 500.0)
        self.sigma_white = rnd.uniform(0.5, 1.5)
        self.bias = rnd.uniform(2.0, 5.0)
        cover = COVER.get(kind, 0.25)
        n = 64
        self.waves = [(rnd.gauss(0, 1 / self.corr_length), rnd.gauss(0, 1 / self.corr_length), rnd.uniform(0, 2 * math.pi))
                      for _ in range(n)]
        self.wave_amp = self.sigma_corr * math.sqrt(2 / n)
        m = 24
        self.cover_waves = [(rnd.gauss(0, 1 / 120.0), rnd.gauss(0, 1 / 120.0), rnd.uniform(0, 2 * math.pi)) for _ in range(m)]
        self.cover_amp = math.sqrt(2 / m)
        # The field is close to a unit Gaussian: its (1 - cover) quantile is the threshold.
        self.cover_threshold = _normal_quantile(1 - cover)
        self.white = rnd
        self.voids = []
        for _ in range(rnd.randint(0, 3)):
            x, y, _ = self.points[rnd.randrange(len(self.points))]
            self.voids.append((x + rnd.uniform(-60, 60), y + rnd.uniform(-60, 60), rnd.uniform(20, 45)))

    def error(self, x, y, d):
        """This realisation's DEM error at (x, y), `d` metres from the path, faded out far from it."""
        if d >= self.TAPER[1]:
            return 0.0
        taper = 1.0 if d <= self.TAPER[0] else 0.5 * (1 + math.cos(math.pi * (d - self.TAPER[0]) / (self.TAPER[1] - self.TAPER[0])))
        corr = self.wave_amp * sum(math.cos(kx * x + ky * y + ph) for kx, ky, ph in self.waves)
        c = self.cover_amp * sum(math.cos(kx * x + ky * y + ph) for kx, ky, ph in self.cover_waves)
        cover = self.bias / (1 + math.exp(-(c - self.cover_threshold) / 0.15))
        return taper * (corr + cover + self.white.gauss(0, self.sigma_white))

    def in_void(self, lat, lon):
        x, y = self.xy(lat, lon)
        return any((x - vx) ** 2 + (y - vy) ** 2 < r * r for vx, vy, r in self.voids)

    def dem(self, lat, lon):
        """The DEM's value at a posting of the finest product: the true terrain plus the error."""
        x, y = self.xy(lat, lon)
        return self.truth(x, y) + self.error(x, y, self.distance(x, y))


def _normal_quantile(p):
    """The standard normal's p-quantile, by bisection on its distribution function."""
    a, b = -8.0, 8.0
    for _ in range(80):
        m = (a + b) / 2
        if 0.5 * (1 + math.erf(m / math.sqrt(2))) < p:
            a = m
        else:
            b = m
    return (a + b) / 2


def tile_name(lat, lon):
    """N41E002 for the tile whose south-west corner is (41, 2)."""
    return f"{'N' if lat >= 0 else 'S'}{abs(lat):02d}{'E' if lon >= 0 else 'W'}{abs(lon):03d}"


def copernicus_name(lat, lon, arcsec):
    ns, ew = ("N" if lat >= 0 else "S"), ("E" if lon >= 0 else "W")
    return f"Copernicus_DSM_COG_{10 * arcsec}_{ns}{abs(lat):02d}_00_{ew}{abs(lon):03d}_00_DEM.tif"


def copernicus_columns(lat, rows):
    """Copernicus thins the columns away from the equator (its Product Handbook, table 'width')."""
    band = max(abs(lat), abs(lat + 1))
    factor = 1 if band <= 50 else 1.5 if band <= 60 else 2 if band <= 70 else 3 if band <= 80 else 5 if band <= 85 else 10
    return int(rows / factor)


class Grid:
    """A product's postings over one tile: `rows` x `cols` from (south + 1, west) southward and
    eastward by (dlat, dlon) degrees. The finest grid (1") is computed near the path; a coarser
    one (3") takes every third of its postings."""

    def __init__(self, terrain, south, west, rows, cols, dlat, dlon, fine=None, factor=1):
        self.terrain, self.rows, self.cols, self.dlat, self.dlon = terrain, rows, cols, dlat, dlon
        self.first_lat, self.first_lon = south + 1, west
        self.fine, self.factor = fine, factor
        self.near = {}
        if fine is None:
            self._compute()

    def position(self, i, j):
        return self.first_lat - i * self.dlat, self.first_lon + j * self.dlon

    def _compute(self):
        t = self.terrain
        x0, y0, x1, y1 = t.box
        for i in range(self.rows):
            lat = self.first_lat - i * self.dlat
            y = (lat - t.lat0) * t.ky
            if not y0 <= y <= y1:
                continue
            for j in range(self.cols):
                lon = self.first_lon + j * self.dlon
                x = (lon - t.lon0) * t.kx
                if x0 <= x <= x1:
                    self.near[(i, j)] = t.dem(lat, lon)

    def value(self, i, j):
        """The posting's value (voids are the writer's business)."""
        if self.fine is None:
            v = self.near.get((i, j))
        else:
            # The centre of the 3 x 3 fine postings, as NGA sub-sampled SRTM 1" into SRTM3 (SRTM FAQ, 2004).
            v = self.fine.near.get((self.factor * i, self.factor * j))
        if v is not None:
            return v
        lat, lon = self.position(i, j)
        return self.terrain.base(*self.terrain.xy(lat, lon))

    def is_near(self, i, j):
        k = self.factor if self.fine is not None else 1
        return (k * i, k * j) in (self.fine or self).near

    def rows_of(self, fill, voids):
        """Each row as a list: `fill(value)`, or None in a void. The regional field is a sum of a
        function of the row and one of the column, so rows away from the path cost one addition
        a posting."""
        t = self.terrain
        (a1, l1, p1), (a2, l2, p2) = t.regional
        col_term = [a1 * math.sin(2 * math.pi * ((self.first_lon + j * self.dlon - t.lon0) * t.kx) / l1 + p1)
                    for j in range(self.cols)]
        fine = self.fine or self
        k = self.factor if self.fine is not None else 1
        near_cols = sorted({j // k for (_, j) in fine.near}) if fine.near else []
        lo, hi = (near_cols[0], near_cols[-1]) if near_cols else (1, 0)
        for i in range(self.rows):
            lat = self.first_lat - i * self.dlat
            row_term = t.zc + a2 * math.sin(2 * math.pi * ((lat - t.lat0) * t.ky) / l2 + p2)
            row = [fill(row_term + c) for c in col_term]
            if any(self.is_near(i, j) for j in (lo, lo + 1, hi - 1, hi)):
                for j in range(lo, hi + 1):
                    if not self.is_near(i, j):
                        continue
                    if voids and t.in_void(*self.position(i, j)):
                        row[j] = None
                    else:
                        row[j] = fill(self.value(i, j))
            yield row


def grids(terrain, south, west, family):
    """The fine (30 m) and coarse (90 m) grids of a product family over the tile: `srtm` (.hgt,
    3601 / 1201 postings each way, the edges shared) or `glo` (Copernicus, 3600 / 1200 rows,
    columns thinned by latitude)."""
    if family == "srtm":
        fine = Grid(terrain, south, west, 3601, 3601, 1 / 3600, 1 / 3600)
        return fine, Grid(terrain, south, west, 1201, 1201, 1 / 1200, 1 / 1200, fine, 3)
    cols = copernicus_columns(south, 3600)
    fine = Grid(terrain, south, west, 3600, cols, 1 / 3600, 1 / cols)
    return fine, Grid(terrain, south, west, 1200, cols // 3, 1 / 1200, 3 / cols, fine, 3)


def write_hgt(grid, south, west, path, zipped):
    data = array.array("h")
    for row in grid.rows_of(lambda v: max(-32767, min(32767, int(round(v)))), voids=True):
        data.extend(VOID if v is None else v for v in row)
    if sys.byteorder == "little":
        data.byteswap()
    name = tile_name(south, west) + ".hgt"
    if zipped:
        with zipfile.ZipFile(os.path.join(path, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(name, data.tobytes())
        return os.path.join(path, name + ".zip")
    with open(os.path.join(path, name), "wb") as f:
        f.write(data.tobytes())
    return os.path.join(path, name)


def lzw_encode(data):
    """TIFF's LZW for one block, as libtiff writes it: codes MSB first from 9 to 12 bits, the width
    growing once the next free code passes the widest the current width holds, Clear when the table
    is full (4094 codes) and at the start, EOI at the end."""
    out, acc, nbits = bytearray(), 0, 0
    width = 9
    table = {bytes([i]): i for i in range(256)}
    next_code = 258

    def emit(code):
        nonlocal acc, nbits
        acc = (acc << width) | code
        nbits += width
        while nbits >= 8:
            nbits -= 8
            out.append((acc >> nbits) & 0xFF)
        acc &= (1 << nbits) - 1

    def grown():
        """After a new code: Clear when the table is full, else a wider code when it needs one."""
        nonlocal table, next_code, width
        if next_code == 4094:
            emit(256)
            table = {bytes([i]): i for i in range(256)}
            next_code, width = 258, 9
        elif next_code > (1 << width) - 1:
            width += 1

    emit(256)
    w = b""
    for byte in data:
        wc = w + bytes([byte])
        if wc in table:
            w = wc
            continue
        emit(table[w])
        table[wc] = next_code
        next_code += 1
        grown()
        w = bytes([byte])
    if w:
        emit(table[w])
        next_code += 1
        grown()
    emit(257)
    if nbits:
        out.append((acc << (8 - nbits)) & 0xFF)
    return bytes(out)


def write_geotiff(grid, south, west, arcsec, path, lzw=False, block=1024, georeferenced=True):
    rows, cols = grid.rows, grid.cols
    # Copernicus has no voids (they were filled before release).
    values = list(grid.rows_of(lambda v: round(v * 100) / 100, voids=False))
    blocks = []
    for by in range(0, rows, block):
        for bx in range(0, cols, block):
            buf = array.array("f", [0.0] * (block * block))
            for i in range(min(block, rows - by)):
                src = values[by + i][bx:bx + block]
                buf[i * block:i * block + len(src)] = array.array("f", src)
            if sys.byteorder != "little":
                buf.byteswap()
            raw = buf.tobytes()
            blocks.append(lzw_encode(raw) if lzw else zlib.compress(raw, 6))
    out = os.path.join(path, copernicus_name(south, west, arcsec))
    tags = {
        256: (3, [cols]), 257: (3, [rows]), 258: (3, [32]), 259: (3, [5 if lzw else 8]), 262: (3, [1]),
        277: (3, [1]), 284: (3, [1]), 339: (3, [3]), 322: (3, [block]), 323: (3, [block]),
    }
    if georeferenced:
        tags[33550] = (12, [grid.dlon, grid.dlat, 0.0])
        # Pixel-is-point: the tie point is the centre of the first posting, (west, south + 1).
        tags[33922] = (12, [0.0, 0.0, 0.0, float(west), float(south + 1), 0.0])
        tags[34735] = (3, [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 2, 2048, 0, 1, 4326])
    write_tiff(out, tags, blocks)
    return out


def write_tiff(path, tags, blocks):
    """A little-endian classic TIFF with tiles: the tags {tag: (type, values)} and the blocks in order."""
    offsets_at = 8
    data = bytearray()
    offsets, counts = [], []
    for b in blocks:
        offsets.append(offsets_at + len(data))
        counts.append(len(b))
        data += b
        if len(data) % 2:
            data += b"\0"
    tags = dict(tags)
    tags[324] = (4, offsets)
    tags[325] = (4, counts)
    ifd_at = offsets_at + len(data)
    entries = sorted(tags.items())
    extra_at = ifd_at + 2 + 12 * len(entries) + 4
    extra = bytearray()
    ifd = bytearray(struct.pack("<H", len(entries)))
    sizes = {3: ("H", 2), 4: ("I", 4), 12: ("d", 8)}
    for tag, (typ, vals) in entries:
        fmt, _ = sizes[typ]
        payload = struct.pack("<" + fmt * len(vals), *vals)
        if len(payload) <= 4:
            ifd += struct.pack("<HHI", tag, typ, len(vals)) + payload.ljust(4, b"\0")
        else:
            ifd += struct.pack("<HHII", tag, typ, len(vals), extra_at + len(extra))
            extra += payload
    ifd += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", ifd_at))
        f.write(data)
        f.write(ifd)
        f.write(extra)


def tiles_for(truth):
    """The whole-degree tiles the run touches (south-west corners)."""
    p = truth["positions"]
    return sorted({(math.floor(la), math.floor(lo)) for la, lo in zip(p["lat"], p["lon"])})


def make(data, scenario, realisation, out, products=("srtm1",), zipped=False, lzw=False):
    """Writes the products' tiles for the scenario's run into `out/PRODUCT/` (a 1" and a 3" .hgt
    have the same name); their paths."""
    with open(os.path.join(data, "gps", "sim", scenario + ".truth.json")) as f:
        truth = json.load(f)
    terrain = Terrain(truth, realisation)
    paths = []
    for south, west in tiles_for(truth):
        for family in ("srtm", "glo"):
            wanted = [p for p in products if p.startswith(family)]
            if not wanted:
                continue
            fine, coarse = grids(terrain, south, west, family)
            for p in wanted:
                grid = fine if PRODUCTS[p][0] == 1 else coarse
                folder = os.path.join(out, p)
                os.makedirs(folder, exist_ok=True)
                if family == "srtm":
                    paths.append(write_hgt(grid, south, west, folder, zipped))
                else:
                    paths.append(write_geotiff(grid, south, west, PRODUCTS[p][0], folder, lzw))
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, check=False)
    options = {
        "--scenario": dict(required=True, help="a scenario of DATA/gps/sim"),
        "--realisation": dict(type=int, default=1, help="which draw of the DEM's errors (a seed)"),
        "--product": dict(choices=sorted(PRODUCTS), action="append", help="repeat for several; default srtm1"),
        "--zip": dict(action="store_true", help=".hgt.zip as NASA serves them"),
        "--lzw": dict(action="store_true", help="GeoTIFF with LZW instead of DEFLATE"),
        "--out": dict(required=True, help="the folder the products' folders go in"),
    }
    for flag, how in options.items():
        ap.add_argument(flag, **how)
    args = ap.parse_args()
    for p in make(args.data, args.scenario, args.realisation, args.out, args.product or ["srtm1"], args.zip, args.lzw):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
