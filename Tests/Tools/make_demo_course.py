#!/usr/bin/env python3
"""Builds the course the demo follows (Tests/Fixtures/demo/walk.course.gpx).

The demo walk (make_demo.py) goes out and back along the route of iKalman's
gps_example_1 (a real 646 m walk, MIT licence). This draws that route as a
route planner would: out to the turn and back again, a vertex every 8-15 m,
each leg along its own side of the path (a few metres apart, as a planner's
line along a street centre is a few metres from where people walk), as a
GPX track. `make run` adds it with `moonrunner course add` and follows it.

Run from the repository root:  python3 Tests/Tools/make_demo_course.py ../shared/data Tests/Fixtures/demo
"""
import math
import os
import random
import sys

from make_demo import ALT, along, planar, route, to_ll

SIDE = 2.0  # metres each leg is drawn to the right of the way it is walked


def main():
    data, out = sys.argv[1], sys.argv[2]
    lat0, lon0, xy, cum = planar(route(os.path.join(data, "gps/real/ikalman/gps_example_1")))
    length = cum[-1]

    def at(d):
        x, y, course = along(xy, cum, d)
        return x, y, math.sin(math.radians(course)), math.cos(math.radians(course))

    rng = random.Random(13)
    vertices = []
    for leg in (1, -1):   # out, then back
        d = 0.0
        while True:
            at_d = d if leg == 1 else length - d
            x, y, ux, uy = at(at_d)
            # Right of the direction walked: (uy, -ux) going out, the other side coming back.
            vertices.append((x + leg * SIDE * uy, y - leg * SIDE * ux))
            if d >= length:
                break
            d = min(length, d + rng.uniform(8, 15))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<gpx version="1.1" creator="MoonRunner make_demo_course.py" xmlns="http://www.topografix.com/GPX/1/1">',
             ' <metadata><name>Demo walk, out and back</name>'
             '<desc>Derived from iKalman gps_example_1, (c) 2009 Kevin Lacker, MIT licence</desc></metadata>',
             ' <trk><name>Demo walk, out and back</name><trkseg>']
    for x, y in vertices:
        lat, lon = to_ll(lat0, lon0, x, y)
        lines.append(f'  <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ALT:.1f}</ele></trkpt>')
    lines += [' </trkseg></trk>', '</gpx>', '']
    with open(os.path.join(out, "walk.course.gpx"), "w") as f:
        f.write("\n".join(lines))
    print(f"demo course: {len(vertices)} points, {2 * length:.0f} m", file=sys.stderr)


if __name__ == "__main__":
    main()
