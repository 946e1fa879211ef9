"""vm_check.py's check of the upload service as it boots (10): `moonrunner-upload.service`,
packaged and hardened, started by systemd beside the recorder, sends a finished session.

The service's own sandbox is what is under test here (its user, `PrivateUsers=yes` against
the control socket's directory and group, its state and runtime folders, the network it is
allowed); the targets' protocols are tested against real servers by `make test`. The target
is a WebDAV folder on the guest's loopback: `DAV_SERVER`, a stand-in that follows RFC 4918's
PUT (201 when it creates a file, 204 when it replaces one, 409 for a missing folder, MKCOL
201) with HTTP Basic authentication (401 without it).
"""
import hashlib
import json
import os
import time

import vm_durability

DAV_PORT = 8089
DAV_DIR = "/var/tmp/vmcheck-dav"
DAV_USER, DAV_PASSWORD = "runner", "vm-s3cret"
DAV_SERVER = r'''
import base64, http.server, os, sys
root, want = sys.argv[1], "Basic " + base64.b64encode(sys.argv[2].encode()).decode()
class H(http.server.BaseHTTPRequestHandler):
    def authorized(self):
        if self.headers.get("Authorization") == want:
            return True
        self.send_response(401); self.send_header("WWW-Authenticate", 'Basic realm="dav"')
        self.send_header("Content-Length", "0"); self.end_headers()
        return False
    def path_on_disk(self):
        return os.path.join(root, self.path.lstrip("/"))
    def do_MKCOL(self):
        if self.authorized():
            p = self.path_on_disk(); made = not os.path.isdir(p); os.makedirs(p, exist_ok=True)
            self.send_response(201 if made else 405); self.send_header("Content-Length", "0"); self.end_headers()
    def do_PUT(self):
        if not self.authorized():
            return
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        p = self.path_on_disk()
        if not os.path.isdir(os.path.dirname(p)):
            self.send_response(409)
        else:
            existed = os.path.exists(p)
            with open(p, "wb") as f:
                f.write(data)
            self.send_response(204 if existed else 201)
        self.send_header("Content-Length", "0"); self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(sys.argv[3])), H).serve_forever()
'''
DAV_UNIT = f"""[Unit]
Description=A WebDAV folder on loopback for the upload service (vm-check)

[Service]
ExecStart=/usr/bin/python3 /usr/local/lib/vmcheck-dav.py {DAV_DIR} {DAV_USER}:{DAV_PASSWORD} {DAV_PORT}
"""
UPLOAD = f"""upload:
  network_source: none
  first_retry_s: 2
  webdav:
    url: http://127.0.0.1:{DAV_PORT}/runs
"""


def upload_jobs(g):
    """The upload service's jobs as `moonrunner upload status --json` prints them, by (target, session)."""
    out = g.ssh("moonrunner --timeout 60 upload status --json", check=False).stdout
    jobs = {}
    for line in out.splitlines():
        try:
            reply = json.loads(line)
        except ValueError:
            continue
        for j in reply.get("jobs", []) if isinstance(reply, dict) else []:
            jobs[(j.get("target"), j.get("session"))] = j
    return jobs


def wait_for(cond, timeout, step=2):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(step)
    return None


def session(ctx):
    """A walk recorded until it has distance, then stopped; its id."""
    ctx.guest.ssh("moonrunner start --activity walk")
    st = ctx.wait_status(lambda s: s.get("session") and s.get("distance_m", 0) > 20, 120, "a session with distance")
    ctx.guest.ssh("moonrunner stop >/dev/null")
    return st["session"]


def upload_service(check, ctx):
    g = ctx.guest
    g.ssh(f"mkdir -p {DAV_DIR} && cat > /usr/local/lib/vmcheck-dav.py", input=DAV_SERVER)
    g.ssh("cat > /etc/systemd/system/vmcheck-dav.service", input=DAV_UNIT)
    g.ssh("systemctl daemon-reload && systemctl start vmcheck-dav.service")
    # The daemon's file with the upload section: the daemon ignores it, the service reads it.
    vm_durability.live_feed(ctx)
    ctx.configure(imu="none", extra="auto_pause:\n  enabled: false\n" + UPLOAD)
    ctx.wait_status(lambda s: s.get("gps", {}).get("health") == "ok", 180, "GPS fixes in the daemon")
    g.ssh("moonrunner stop >/dev/null 2>&1; true")   # a session a failed check left open
    sid_before = session(ctx)
    g.ssh("systemctl enable --now moonrunner-upload.service", timeout=300)
    state = wait_for(lambda: g.ssh("systemctl is-active moonrunner-upload.service", check=False).stdout.strip()
                     == "active" and "active", 120)
    setup = g.ssh("moonrunner --timeout 60 upload setup webdav", check=False,
                  input=f"user={DAV_USER}\npassword={DAV_PASSWORD}\n")
    targets = g.ssh("moonrunner --timeout 60 upload targets", check=False)
    check.expect(state == "active" and setup.returncode == 0 and "WebDAV" in targets.stdout
                 and DAV_PASSWORD not in setup.stdout + targets.stdout,
                 "10. moonrunner-upload is active under systemd (its own user, PrivateUsers=yes) and answers "
                 "`moonrunner upload setup|targets` on its socket; the password is not shown back",
                 setup.stdout + setup.stderr + targets.stdout + targets.stderr + g.journal("moonrunner-upload", 30))

    # The announcer (its own user, in the control group) keeps a watch on the upload socket.
    g.ssh("cat > /etc/moonrunner/announce.yaml", input="language: en\nalsa_device: \"null\"\nmax_delay_s: 5\n")
    g.ssh("systemctl enable --now moonrunner-announce.service", timeout=300)
    watching = wait_for(lambda: "watching uploads at" in g.journal("moonrunner-announce", 40), 120)
    check.expect(bool(watching), "10. moonrunner-announce reached the upload service's socket (to say uploads)",
                 g.journal("moonrunner-announce", 30))

    # A new session, stopped: the service sees the stop through the control socket and sends it.
    sid = session(ctx)
    t0 = time.monotonic()
    job = wait_for(lambda: (upload_jobs(g).get(("webdav", sid)) or {}).get("state") == "done"
                   and upload_jobs(g)[("webdav", sid)], 180)
    took = time.monotonic() - t0
    sent = g.ssh(f"ls {DAV_DIR}/runs", check=False).stdout.split()
    names = [n for n in sent if n.endswith(f"-{sid}.fit")]
    same = False
    if names:
        g.ssh(f"moonrunner export {sid} --format fit -o /tmp/u.fit")
        local_sent, local_export = os.path.join(ctx.work, "sent.fit"), os.path.join(ctx.work, "export.fit")
        g.get(f"{DAV_DIR}/runs/{names[0]}", local_sent)
        g.get("/tmp/u.fit", local_export)
        digest = [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in (local_sent, local_export)]
        same = digest[0] == digest[1]
    earlier = [n for n in sent if n.endswith(f"-{sid_before}.fit")]
    check.expect(bool(job) and len(names) == 1 and same,
                 f"10. session {sid}, stopped, is in the WebDAV folder once, byte for byte its FIT export, "
                 f"{took:.0f} s after the stop; the session that stopped before the target was connected "
                 f"{'was sent too' if earlier else 'was not'}", f"jobs {upload_jobs(g)}\nfolder {sent}\n"
                 + g.journal("moonrunner-upload", 40))

    rating = g.ssh("systemd-analyze security moonrunner-upload.service | tail -n 1", check=False).stdout.strip()
    exposure = next((float(w) for w in rating.split() if w.replace(".", "", 1).isdigit()), None)
    check.expect(exposure is not None and exposure <= 2.0,
                 f"10. systemd-analyze security on the booted system: {rating}", rating)

    # A wearer's account in the control group reads the uploads (PrivateUsers maps it to nobody inside).
    g.ssh("id wearer >/dev/null 2>&1 || useradd --no-create-home --groups moonrunner wearer")
    as_wearer = g.ssh("runuser -u wearer -- moonrunner --timeout 60 upload status", check=False)
    check.expect(as_wearer.returncode == 0 and str(sid) in as_wearer.stdout,
                 "10. a user in the moonrunner group (not root) reads `moonrunner upload status`",
                 as_wearer.stdout + as_wearer.stderr)
    g.ssh("systemctl disable --now moonrunner-upload.service moonrunner-announce.service vmcheck-dav.service",
          check=False, timeout=120)


CHECKS = {10: upload_service}
