"""A stand-in for Strava's API v3 on loopback, for moonrunner-upload's tests
(Strava cannot be reached from here). It follows Strava's documentation:

OAuth (developers.strava.com/docs/authentication):
* `GET /oauth/authorize?client_id&redirect_uri&response_type=code&scope&state`
  redirects to `redirect_uri?state=…&code=…&scope=…` with the scopes granted,
  comma-separated (`read,activity:write`; `--grant` narrows it as a person
  unticking "Upload your activities" would);
* `POST /oauth/token` with `grant_type=authorization_code` (a code works once)
  or `refresh_token`: `token_type`, `access_token`, `expires_at`, `expires_in`,
  `refresh_token` (and `athlete` for the first). Access tokens expire after
  `--token-life` seconds (Strava: six hours). A refresh hands out a new refresh
  token (Strava may rotate it) and the old one stops working; an unknown or old
  refresh token is a 400.
* A revoked grant (`POST /_control {"revoke":true}`, as "Revoke access" on
  Strava's settings page): every token is refused with 401.

Uploads (developers.strava.com/docs/uploads):
* `POST /api/v3/uploads`, multipart form data: `file`, `data_type` (fit, tcx,
  gpx, and their .gz), `name`, `description`, `external_id`; `201 Created`
  with the upload status object `{id, id_str, external_id, error, status,
  activity_id}`, status "Your activity is still being processed.";
* `GET /api/v3/uploads/{id}`: "Your activity is still being processed." for
  `--processing` seconds, then "Your activity is ready." with `activity_id`,
  or "There was an error processing your activity." with `error` set;
* a file whose activity exists already (the same first record time and
  points) is an error: "<name> duplicate of <a href='/activities/ID'
  target='_blank'>NAME</a>"; a file that is not FIT is "…Improper FIT file…".

Rate limits (developers.strava.com/docs/rate-limits/, read 2026-11-29): an
overall limit (default 200 requests per 15 minutes, 2,000 a day) and a
"non-upload" (read) limit (default 100 and 1,000) that every endpoint but
`POST /uploads` (and creating activities, uploading media) counts against.
Every API answer carries `X-RateLimit-Limit` and `X-RateLimit-Usage` ("15-
minute,daily"), and `X-ReadRateLimit-Limit`/`-Usage`; the 15-minute windows
reset at :00, :15, :30 and :45, the daily ones at midnight UTC; past a limit
the answer is `429 Too Many Requests` with a JSON message and the same
headers, and refused requests still count. Limits are set with
`--limit 200,2000 --read-limit 100,1000` (the defaults, as documented).

Polling (developers.strava.com/docs/uploads/): the guide asks for one second
or more between polls; processing takes about 8 s on average there, and
`--processing` (default 1 s) keeps the tests short.

Faults ordered through `POST /_control` (standin_http.Faults): 5xx answers,
connections dropped before or after an upload is taken, slow answers.
`GET /_stored` lists the activities made, each with what its FIT says.

    strava_standin.py --port N [--token-life S] [--processing S] [--grant SCOPES]
"""
import argparse
import itertools
import threading
import time
import urllib.parse

import standin_http


class Strava:
    def __init__(self, args):
        self.args, self.faults, self.lock = args, standin_http.Faults(), threading.Lock()
        self.codes, self.access, self.refresh = set(), {}, set()
        self.uploads, self.activities = {}, {}
        self.ids = itertools.count(1000)
        self.revoked = False
        self.window, self.usage, self.reads = int(time.time() // 900), [0, 0], [0, 0]

    def stored(self):
        with self.lock:
            return {"activities": list(self.activities.values()), "uploads": len(self.uploads)}

    def limits(self, read):
        """Counts the request (against the read limit too unless it is the upload); the headers; whether a limit is spent."""
        with self.lock:
            if int(time.time() // 900) != self.window:
                self.window, self.usage[0], self.reads[0] = int(time.time() // 900), 0, 0
            self.usage = [u + 1 for u in self.usage]
            if read:
                self.reads = [u + 1 for u in self.reads]
            limit = [int(x) for x in self.args.limit.split(",")]
            headers = {"X-RateLimit-Limit": self.args.limit, "X-RateLimit-Usage": ",".join(map(str, self.usage))}
            spent = any(u > l for u, l in zip(self.usage, limit))
            rlimit = [int(x) for x in self.args.read_limit.split(",")]
            headers.update({"X-ReadRateLimit-Limit": self.args.read_limit,
                            "X-ReadRateLimit-Usage": ",".join(map(str, self.reads))})
            if read:
                spent = spent or any(u > l for u, l in zip(self.reads, rlimit))
            return headers, spent

    def tokens(self, athlete=False):
        access, refresh = f"a{next(self.ids)}", f"r{next(self.ids)}"
        self.access[access] = time.time() + self.args.token_life
        self.refresh.add(refresh)
        out = {"token_type": "Bearer", "access_token": access, "refresh_token": refresh,
               "expires_at": int(self.access[access]), "expires_in": self.args.token_life}
        if athlete:
            out["athlete"] = {"id": 7, "firstname": "Stand", "lastname": "In"}
        return out

    def route(self, h, method, path, query, body):
        if path == "/_control" or path == "/_revoke":
            return None
        if method == "GET" and path == "/oauth/authorize":
            code = f"c{next(self.ids)}"
            self.codes.add(code)
            q = urllib.parse.urlencode({"state": query.get("state", ""), "code": code, "scope": self.args.grant})
            return 302, {"Location": query["redirect_uri"] + "?" + q}, b""
        if method == "POST" and path == "/oauth/token":
            return self.token(dict(urllib.parse.parse_qsl(body.decode())))
        if not path.startswith("/api/v3/"):
            return 404, {}, {"message": "Record Not Found"}
        headers, spent = self.limits(not (method == "POST" and path == "/api/v3/uploads"))
        if spent:
            return 429, headers, {"message": "Rate Limit Exceeded"}
        auth = h.headers.get("Authorization", "")
        expires = self.access.get(auth[len("Bearer "):]) if auth.startswith("Bearer ") else None
        if self.revoked or expires is None or expires < time.time():
            return 401, headers, {"message": "Authorization Error", "errors": [{"resource": "Athlete", "field": "access_token",
                                                                               "code": "invalid"}]}
        if method == "POST" and path == "/api/v3/uploads":
            return self.upload(h, body, headers)
        if method == "GET" and path.startswith("/api/v3/uploads/"):
            with self.lock:
                up = self.uploads.get(path.rsplit("/", 1)[1])
                return (200, headers, self.status(up)) if up else (404, headers, {"message": "Record Not Found"})
        return 404, headers, {"message": "Record Not Found"}

    def token(self, form):
        with self.lock:
            if self.revoked:
                return 401, {}, {"message": "Authorization Error"}
            if form.get("grant_type") == "authorization_code" and form.get("code") in self.codes:
                self.codes.discard(form["code"])
                return 200, {}, self.tokens(athlete=True)
            if form.get("grant_type") == "refresh_token" and form.get("refresh_token") in self.refresh:
                self.refresh.discard(form["refresh_token"])  # rotated: the old one stops working
                return 200, {}, self.tokens()
            return 400, {}, {"message": "Bad Request", "errors": [{"resource": "RefreshToken", "code": "invalid"}]}

    def upload(self, h, body, headers):
        fault = self.faults.next()
        if fault and fault[0] == "drop_before":
            return None
        if fault and fault[0] == "fail":
            return fault[1], headers, {"message": "Internal Server Error"}
        fields = standin_http.multipart(h.headers["Content-Type"], body)
        data = fields.get("file") or b""
        with self.lock:
            uid = str(next(self.ids))
            self.uploads[uid] = {"id": int(uid), "external_id": (fields.get("external_id") or b"").decode(),
                                 "name": (fields.get("name") or b"").decode(), "data": data, "at": time.time()}
            status = self.status(self.uploads[uid])
        return None if fault and fault[0] == "drop_after" else (201, headers, status)

    def status(self, up):
        """The upload status object; processing ends `--processing` s after the upload."""
        base = {"id": up["id"], "id_str": str(up["id"]), "external_id": up["external_id"], "error": None,
                "status": "Your activity is still being processed.", "activity_id": None}
        if time.time() - up["at"] < self.args.processing:
            return base
        if "activity" not in up:
            data = up["data"]
            if data[8:12] != b".FIT":
                up["error"] = f"{up['external_id']}: Improper FIT file: header is not .FIT"
            else:
                summary = standin_http.fit_summary(data)
                key = (summary.get("start"), summary.get("points"))
                dup = next((a for a in self.activities.values() if a["key"] == key), None)
                if dup:
                    up["error"] = (f"{up['external_id']} duplicate of <a href='/activities/{dup['id']}' "
                                   f"target='_blank'>{dup['name']}</a>")
                else:
                    aid = next(self.ids)
                    self.activities[aid] = dict(summary, id=aid, key=key, name=up["name"], external_id=up["external_id"])
                    up["activity"] = aid
        if up.get("error"):
            return dict(base, error=up["error"], status="There was an error processing your activity.")
        return dict(base, status="Your activity is ready.", activity_id=up["activity"])


class Control(standin_http.Faults):
    """The stand-in's faults, plus revoking the grant."""

    def __init__(self, strava):
        super().__init__()
        self.strava = strava

    def order(self, spec):
        if "revoke" in spec:
            self.strava.revoked = bool(spec["revoke"])
        super().order(spec)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--token-life", type=float, default=21600)
    p.add_argument("--processing", type=float, default=1.0)
    p.add_argument("--grant", default="read,activity:write")
    p.add_argument("--limit", default="200,2000")
    p.add_argument("--read-limit", default="100,1000")
    args = p.parse_args()
    strava = Strava(args)
    strava.faults = Control(strava)
    standin_http.serve(strava, args.port)


if __name__ == "__main__":
    main()
