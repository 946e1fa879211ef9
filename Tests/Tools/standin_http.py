"""What the upload stand-ins (strava_standin.py, intervals_standin.py) share:
a threaded stdlib HTTP server on loopback, multipart form data read with the
standard library's email parser, the faults a test orders through
`POST /_control` (answers failed with a status, connections dropped before
or after the request is taken, slow answers), and what a test reads back of
the files stored (`GET /_stored`): points, distance and times read from
each FIT file with Garmin's FIT SDK when it is there.
"""
import email.parser
import email.policy
import hashlib
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def multipart(content_type, body):
    """The fields of a multipart/form-data body: {name: bytes}."""
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    out = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        out[name] = part.get_payload(decode=True)
    return out


def fit_summary(data):
    """What a service reads of a FIT activity: points, the last record's distance, first and last times."""
    summary = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    try:
        from garmin_fit_sdk import Decoder, Stream
    except ImportError:
        return summary
    messages, errors = Decoder(Stream.from_byte_array(bytearray(data))).read()
    records = messages.get("record_mesgs", [])
    session = (messages.get("session_mesgs") or [{}])[0]
    summary.update(points=len(records), errors=[str(e) for e in errors],
                   distance_m=(records[-1].get("distance") if records else None),
                   session_distance_m=session.get("total_distance"),
                   elapsed_s=session.get("total_elapsed_time"), timer_s=session.get("total_timer_time"),
                   # A file without records (a session that stood still, a treadmill) still
                   # starts when its session does: two such files are not one activity.
                   start=(records[0]["timestamp"] if records else session.get("start_time")).timestamp()
                   if records or session.get("start_time") else None,
                   end=records[-1]["timestamp"].timestamp() if records else None)
    return summary


class Faults:
    """What the next requests to a path suffer, as a test ordered (`POST /_control`):
    `fail`: statuses to answer instead (one per request); `drop_before`: connections
    closed before the request is taken; `drop_after`: requests taken, then the connection
    closed without an answer; `slow`: seconds to wait before answering."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fail, self.drop_before, self.drop_after, self.slow = [], 0, 0, 0.0

    def order(self, spec):
        with self.lock:
            self.fail = list(spec.get("fail", self.fail))
            self.drop_before = spec.get("drop_before", self.drop_before)
            self.drop_after = spec.get("drop_after", self.drop_after)
            self.slow = spec.get("slow", self.slow)

    def next(self):
        """('fail', status) | ('drop_before',) | ('drop_after',) | None, used up as it is given."""
        with self.lock:
            if self.slow:
                time.sleep(self.slow)
            if self.drop_before:
                self.drop_before -= 1
                return ("drop_before",)
            if self.fail:
                return ("fail", self.fail.pop(0))
            if self.drop_after:
                self.drop_after -= 1
                return ("drop_after",)
        return None


class Handler(BaseHTTPRequestHandler):
    """Routes by method and path to the service object's `route(handler, method, path, query, body)`,
    which answers `(status, headers, json_or_bytes)`, or None to drop the connection."""
    protocol_version = "HTTP/1.1"
    service = None

    def log_message(self, fmt, *args):
        pass

    def handle_any(self, method):
        parsed = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        query = dict(urllib.parse.parse_qsl(parsed.query))
        if parsed.path == "/_control" and method == "POST":
            self.service.faults.order(json.loads(body or b"{}"))
            return self.answer(200, {}, {"ok": True})
        if parsed.path == "/_stored" and method == "GET":
            return self.answer(200, {}, self.service.stored())
        answer = self.service.route(self, method, parsed.path, query, body)
        if answer is None:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.answer(*answer)

    def answer(self, status, headers, payload):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Type", headers.get("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")


def serve(service, port):
    """Serves `service` on 127.0.0.1:`port` until killed."""
    handler = type("H", (Handler,), {"service": service})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    print(json.dumps({"listening": port}), flush=True)
    server.serve_forever()
