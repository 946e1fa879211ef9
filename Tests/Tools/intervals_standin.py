"""A stand-in for intervals.icu's API on loopback, for moonrunner-upload's
tests (intervals.icu cannot be reached from here). It follows the API's
documentation (intervals.icu/api/v1/docs, and the "integration cookbook"
of its forum):

* HTTP Basic authentication with the user `API_KEY` and the athlete's
  personal API key as the password; anything else is `401`;
* `POST /api/v1/athlete/{id}/activities` with multipart form data (`file`: a
  FIT, TCX or GPX file) and the optional query parameters `name`,
  `description` and `external_id`: `201` with the activity (`id` such as
  `i1001`, `icu_athlete_id`, `external_id`, `name`, `start_date_local`,
  `distance`, `moving_time`…);
* the athlete id `0` means the key's own athlete; another athlete's id is `403`;
* `GET /api/v1/athlete/{id}/activities?oldest=YYYY-MM-DD&newest=YYYY-MM-DD`:
  the activities of those days, newest first, each with its `external_id`.

Faults ordered through `POST /_control` (standin_http.Faults): 5xx answers,
connections dropped before or after an upload is taken, slow answers.
`GET /_stored` lists the activities, each with what its FIT says.

    intervals_standin.py --port N --athlete i123 --key KEY
"""
import argparse
import base64
import datetime
import itertools
import threading

import standin_http


class Intervals:
    def __init__(self, args):
        self.args, self.faults, self.lock = args, standin_http.Faults(), threading.Lock()
        self.activities, self.ids = [], itertools.count(1001)

    def stored(self):
        with self.lock:
            return {"activities": list(self.activities)}

    def route(self, h, method, path, query, body):
        parts = path.strip("/").split("/")
        if parts[:3] != ["api", "v1", "athlete"] or len(parts) != 5 or parts[4] != "activities":
            return 404, {}, {"status": 404, "error": "Not Found"}
        want = "Basic " + base64.b64encode(f"API_KEY:{self.args.key}".encode()).decode()
        if h.headers.get("Authorization") != want:
            return 401, {}, {"status": 401, "error": "Unauthorized"}
        if parts[3] not in ("0", self.args.athlete):
            return 403, {}, {"status": 403, "error": "Access denied"}
        if method == "GET":
            oldest, newest = query.get("oldest", "0000"), query.get("newest", "9999") + "T23:59:59"
            with self.lock:
                found = [a for a in self.activities if oldest <= a["start_date_local"] <= newest]
            return 200, {}, sorted(found, key=lambda a: a["start_date_local"], reverse=True)
        if method != "POST":
            return 405, {}, {"status": 405}
        fault = self.faults.next()
        if fault and fault[0] == "drop_before":
            return None
        if fault and fault[0] == "fail":
            return fault[1], {}, {"status": fault[1], "error": "Internal Server Error"}
        data = standin_http.multipart(h.headers["Content-Type"], body).get("file") or b""
        if data[8:12] != b".FIT":
            return 422, {}, {"status": 422, "error": "Unsupported file type"}
        summary = standin_http.fit_summary(data)
        start = datetime.datetime.fromtimestamp(summary.get("start") or 0, datetime.timezone.utc)
        with self.lock:
            activity = dict(summary, id=f"i{next(self.ids)}", icu_athlete_id=self.args.athlete,
                            external_id=query.get("external_id"), name=query.get("name"),
                            start_date_local=start.strftime("%Y-%m-%dT%H:%M:%S"), distance=summary.get("distance_m"),
                            moving_time=summary.get("timer_s"))
            self.activities.append(activity)
        return None if fault and fault[0] == "drop_after" else (201, {}, activity)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--athlete", required=True)
    p.add_argument("--key", required=True)
    standin_http.serve(Intervals(p.parse_args()), p.parse_args().port)


if __name__ == "__main__":
    main()
