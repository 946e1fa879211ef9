#!/usr/bin/env python3
"""Climb from a terrain model on the simulated runs.

Makes terrain tiles for every scenario of DATA/gps/sim with `dem_tiles.py`
(the scenario's true terrain with the errors real DEMs have, one set per
error realisation, cached in .build/dem-tiles), then runs `moonrunner analyze
--gps X.gpsd.json --dem DIR --json` with SRTM 1" (30 m) and 3" (90 m) tiles
and scores the climb and descent against the truth (gain: the scenario's
`true_elevation_gain_m`; loss: the sum of the descents of
`positions.alt_msl`). The table per scenario shows the truth, GPS alone, GPS
with the 30 m and the 90 m DEM (the mean over realisations and the worst)
and the barometer.

Targets, for every scenario, spacing and realisation:
  hilly runs (more than 10 m of true climb per km)  gain and loss within
                                                    max(3 m, 10 %) of the truth
  flat runs                                         gain and loss at most the
                                                    truth + 5 m
  the altitude source is `dem`; the zipped 3" tiles give the same figures
  as the plain ones; Copernicus GeoTIFF tiles (GLO-30 DEFLATE, GLO-90 LZW)
  meet the same targets.

--cv cross-validates the one tuned setting, the terrain band (analyze
--terrain-option band_m=B, B in BANDS): by scenario (the band chosen on the
other scenarios, scored on the one left out) and by error realisation (chosen
on the other realisations), and prints the cross-validated figures beside the
default's on all data. The choice minimises the targets missed, then the
summed error (either way) in units of each target's allowance.

    python3 Tests/Tools/eval_terrain.py --bin .build/release [--data ../shared/data] \\
        [--realisations 3] [--cv] [--check] [--jobs 2] [--tiles DIR]

Every scenario of DATA/gps/sim whose truth carries its terrain is scored; none is named here.
--tiles DIR adds tiles made by another generator (DIR/SCENARIO/, any format the daemon reads),
scored against the same targets.

--bin is the build folder. When the data folder is absent the script says
SKIP loudly and exits 0.
"""
import argparse
import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

import dem_tiles
import rig

BANDS = [2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]
SPACINGS = {"30 m": "srtm1", "90 m": "srtm3"}
# Bump when dem_tiles.py changes what it writes: cached tiles of another version are made again.
TILES_VERSION = "1"


def scenarios_in(sim):
    """Every simulated run in the folder whose truth has the true terrain under it (none named here:
    the held-out scenarios are scored the same way)."""
    names = []
    for f in sorted(os.listdir(sim)):
        if f.endswith(".truth.json") and os.path.exists(os.path.join(sim, f[:-len(".truth.json")] + ".gpsd.json")):
            with open(os.path.join(sim, f)) as fh:
                if "alt_msl" in json.load(fh).get("positions", {}):
                    names.append(f[:-len(".truth.json")])
    return names


def truth_of(sim, name):
    """Gain, loss, hilly (over 10 m of climb a km) and whether the wearer goes anywhere (over 100 m)."""
    with open(os.path.join(sim, f"{name}.truth.json")) as f:
        d = json.load(f)
    alts = d["positions"]["alt_msl"]
    loss = sum(max(0.0, a - b) for a, b in zip(alts, alts[1:]))
    metres = d["positions"]["dist_m"][-1]
    km = max(metres / 1000, 1e-9)
    return d["true_elevation_gain_m"], loss, d["true_elevation_gain_m"] / km > 10, metres > 100


def tiles(cache, data, name, realisation, products, **kw):
    """The folder of each product's tiles for one scenario and realisation, made when missing."""
    root = os.path.join(cache, f"v{TILES_VERSION}", f"r{realisation}", name + ("-zip" if kw.get("zipped") else "")
                        + ("-lzw" if kw.get("lzw") else ""))
    missing = [p for p in products if not os.path.isdir(os.path.join(root, p))]
    if missing:
        work = root + ".part"
        shutil.rmtree(work, ignore_errors=True)
        dem_tiles.make(data, name, realisation, work, missing, **kw)
        os.makedirs(root, exist_ok=True)
        for p in missing:
            os.rename(os.path.join(work, p), os.path.join(root, p))
        shutil.rmtree(work, ignore_errors=True)
    return {p: os.path.join(root, p) for p in products}


def misses(gain, loss, truth, hilly):
    """What misses the targets, and the error in units of each target's allowance (for the choice:
    either way from the truth, so that a flat run does not simply favour the widest band)."""
    out, cost = [], 0.0
    for what, got, want in (("gain", gain, truth[0]), ("loss", loss, truth[1])):
        if hilly:
            allowed = max(3.0, 0.1 * want)
            cost += abs(got - want) / allowed
            if abs(got - want) > allowed:
                out.append(f"{what} off by {got - want:+.1f} m (allowed {allowed:.1f})")
        else:
            cost += abs(got - want) / 5.0
            if got - want > 5:
                out.append(f"{what} {got - want:+.1f} m over the truth (allowed 5)")
    return out, cost


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rig.common_args(ap, jobs=rig.CORES)
    ap.add_argument("--realisations", type=int, default=3, help="DEM error realisations per scenario (default 3)")
    ap.add_argument("--cv", action="store_true", help="cross-validate the terrain band by scenario and by realisation")
    ap.add_argument("--tiles", help="a folder of SCENARIO/ folders of tiles made by another generator: each is "
                    "scored against the same targets as the tiles made here")
    ap.add_argument("--cache", default=os.path.join(rig.ROOT, ".build", "dem-tiles"), help="where the tiles are kept")
    args = ap.parse_args()

    sim = os.path.join(args.data, "gps", "sim")
    baro_dir = os.path.join(args.data, "baro")
    if not os.path.isdir(sim):
        return rig.skip(f"{sim} not found")
    rig.program(args.bin, "moonrunner")
    scenarios = scenarios_in(sim)
    realisations = list(range(1, args.realisations + 1))
    truths = {s: truth_of(sim, s) for s in scenarios}

    print(f"tiles: {len(scenarios)} scenarios x {len(realisations)} realisations (cached in {args.cache})", flush=True)
    folders = {}
    for s in scenarios:
        for r in realisations:
            folders[(s, r)] = tiles(args.cache, args.data, s, r, list(SPACINGS.values()))

    def run(job):
        s, extra = job
        r = rig.analyze(args.bin, "--gps", os.path.join(sim, f"{s}.gpsd.json"), *extra)
        return job, (r["elevation_gain_m"], r["elevation_loss_m"], r["altitude_source"], r.get("altitude_shares"))

    bands = [None] + (BANDS if args.cv else [])
    jobs = []
    for s in scenarios:
        jobs.append((s, ()))
        baro = os.path.join(baro_dir, f"{s}.baro.csv.gz")
        if os.path.exists(baro):
            jobs.append((s, ("--baro", baro)))
        for r in realisations:
            for label, product in SPACINGS.items():
                for b in bands:
                    opt = () if b is None else ("--terrain-option", f"band_m={b}")
                    jobs.append((s, ("--dem", folders[(s, r)][product], *opt)))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(run, jobs))

    def dem(s, r, product, band=None):
        opt = () if band is None else ("--terrain-option", f"band_m={band}")
        return results[(s, ("--dem", folders[(s, r)][product], *opt))]

    targets = rig.Targets(args.check)
    table(scenarios, truths, realisations, results, sim, baro_dir, dem, targets)
    formats(args, scenarios, truths, targets, sim)
    if args.tiles:
        given(args, scenarios, truths, targets, sim)
    if args.cv:
        cross_validate(scenarios, truths, realisations, dem)
    return targets.report()


def table(scenarios, truths, realisations, results, sim, baro_dir, dem, targets):
    """The table per scenario, and every scenario x spacing x realisation against its target."""
    print()
    print(f"{'scenario':<13} {'':>4} {'truth':>7} {'GPS':>7} {'DEM 30 m':>17} {'DEM 90 m':>17} {'baro':>7}")
    print(f"{'':<13} {'':>4} {'':>7} {'':>7} {'mean':>8} {'worst':>8} {'mean':>8} {'worst':>8}")
    for s in scenarios:
        gain_t, loss_t, hilly, _ = truths[s]
        gps = results[(s, ())]
        baro_key = (s, ("--baro", os.path.join(baro_dir, f"{s}.baro.csv.gz")))
        baro = results.get(baro_key)
        for i, (what, want) in enumerate((("gain", gain_t), ("loss", loss_t))):
            cells = []
            for product in SPACINGS.values():
                got = [dem(s, r, product)[i] for r in realisations]
                worst = max(got, key=lambda g: abs(g - want))
                cells.append(f"{sum(got) / len(got):8.1f} {worst:8.1f}")
            print(f"{s if i == 0 else '':<13} {what:>4} {want:7.1f} {gps[i]:7.1f} {' '.join(cells)} "
                  f"{(baro[i] if baro else float('nan')):7.1f}")
    print()
    for s in scenarios:
        gain_t, loss_t, hilly, goes = truths[s]
        for label, product in SPACINGS.items():
            for r in realisations:
                gain, loss, source, shares = dem(s, r, product)
                problems, _ = misses(gain, loss, (gain_t, loss_t), hilly)
                # A wearer who stays put has too few points for any source to hold the majority.
                if source != "dem" and goes:
                    problems.append(f"altitude source {source}")
                word = targets.expect(f"{s}/DEM {label}/realisation {r}: " + "; ".join(problems), not problems)
                if problems:
                    print(f"{s} DEM {label} realisation {r}: {word}: " + "; ".join(problems))
    kinds = ", ".join(f"{s} {'hilly' if truths[s][2] else 'flat'}" for s in scenarios)
    print(f"targets: hilly within max(3 m, 10 %), flat at most the truth + 5 m ({kinds})")


def formats(args, scenarios, truths, targets, sim):
    """Zipped .hgt and Copernicus GeoTIFF tiles of realisation 1 on every scenario."""
    print()
    print(f"{'scenario':<13} {'tiles':<26} {'gain':>7} {'loss':>7}  verdict")
    for s in scenarios:
        gain_t, loss_t, hilly, _ = truths[s]
        gps = os.path.join(sim, f"{s}.gpsd.json")
        plain = tiles(args.cache, args.data, s, 1, ["srtm3"])["srtm3"]
        zipped = tiles(args.cache, args.data, s, 1, ["srtm3"], zipped=True)["srtm3"]
        glo = tiles(args.cache, args.data, s, 1, ["glo30"])["glo30"]
        glo90 = tiles(args.cache, args.data, s, 1, ["glo90"], lzw=True)["glo90"]
        reference = rig.analyze(args.bin, "--gps", gps, "--dem", plain)
        for label, folder in (("SRTM 3\" zipped", zipped), ("GLO-30 GeoTIFF, DEFLATE", glo), ("GLO-90 GeoTIFF, LZW", glo90)):
            r = rig.analyze(args.bin, "--gps", gps, "--dem", folder)
            problems, _ = misses(r["elevation_gain_m"], r["elevation_loss_m"], (gain_t, loss_t), hilly)
            if label.endswith("zipped") and (r["elevation_gain_m"], r["elevation_loss_m"]) != (
                    reference["elevation_gain_m"], reference["elevation_loss_m"]):
                problems.append("differs from the same tiles unzipped")
            word = targets.expect(f"{s}/{label}: " + "; ".join(problems), not problems)
            print(f"{s:<13} {label:<26} {r['elevation_gain_m']:7.1f} {r['elevation_loss_m']:7.1f}  {word}"
                  + (": " + "; ".join(problems) if problems else ""))


def given(args, scenarios, truths, targets, sim):
    """Tiles made elsewhere (TILES/SCENARIO/), scored as the tiles made here; a scenario without them is said."""
    print()
    print(f"{'scenario':<13} {'tiles from ' + args.tiles:<40} {'gain':>7} {'loss':>7}  verdict")
    for s in scenarios:
        folder = os.path.join(args.tiles, s)
        if not os.path.isdir(folder):
            print(f"{s:<13} {'(none)':<40}")
            continue
        gain_t, loss_t, hilly, goes = truths[s]
        r = rig.analyze(args.bin, "--gps", os.path.join(sim, f"{s}.gpsd.json"), "--dem", folder)
        problems, _ = misses(r["elevation_gain_m"], r["elevation_loss_m"], (gain_t, loss_t), hilly)
        if r["altitude_source"] != "dem" and goes:
            problems.append(f"altitude source {r['altitude_source']}")
        word = targets.expect(f"{s}/given tiles: " + "; ".join(problems), not problems)
        print(f"{s:<13} {folder[-40:]:<40} {r['elevation_gain_m']:7.1f} {r['elevation_loss_m']:7.1f}  {word}"
              + (": " + "; ".join(problems) if problems else ""))


def cross_validate(scenarios, truths, realisations, dem):
    """The band chosen without the scenario (or realisation) it is scored on."""
    def cost(cases, band):
        total_misses, total_cost = 0, 0.0
        for s, r, product in cases:
            gain, loss, _, _ = dem(s, r, product, band)
            m, c = misses(gain, loss, truths[s][:2], truths[s][2])
            total_misses += len(m)
            total_cost += c
        return total_misses, total_cost

    def choose(cases):
        return min(BANDS, key=lambda b: cost(cases, b))

    every = [(s, r, p) for s in scenarios for r in realisations for p in SPACINGS.values()]
    print()
    print(f"cross-validation of the terrain band (candidates {BANDS} m)")
    all_band = choose(every)
    m, c = cost(every, None)
    print(f"  all data: chosen {all_band} m; the default: {m} misses (cost {c:.1f}); "
          f"the chosen: {cost(every, all_band)[0]} misses")
    for by, groups in (("scenario", [[k for k in every if k[0] == s] for s in scenarios]),
                       ("realisation", [[k for k in every if k[1] == r] for r in realisations])):
        missed, lines = 0, []
        for held in groups:
            train = [k for k in every if k not in held]
            band = choose(train)
            m, _ = cost(held, band)
            missed += m
            name = held[0][0] if by == "scenario" else f"r{held[0][1]}"
            lines.append(f"{name}: {band} m, {m} missed")
        print(f"  by {by}: {missed} of {2 * len(every)} figures missed cross-validated ({'; '.join(lines)})")


if __name__ == "__main__":
    sys.exit(main())
