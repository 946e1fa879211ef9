"""The heart-rate strap in the tools: bluez_standin.py driven on a private system bus
(system_bus.py), the reconnection it times, and the R-R intervals a session's FIT export carries
(Garmin's FIT SDK, loaded when `fit_rr` is called)."""
import json
import os
import subprocess
import sys
import threading

import rig


class StandIn:
    """bluez_standin.py with its JSON log read on a thread."""

    def __init__(self, env, trace, rate, speed, log, connect_delay=0.3, seed=22, loop=False):
        self.proc = subprocess.Popen([sys.executable, os.path.join(rig.HERE, "bluez_standin.py"),
                                      "--trace", trace, "--rate", str(rate), "--speed", str(speed),
                                      "--connect-delay", str(connect_delay), "--shuffle", "--seed", str(seed),
                                      *(["--loop"] if loop else [])],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, text=True)
        self.events = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                self.events.append(e)

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def where(self, kind, after=0.0):
        with self.lock:
            return [e for e in self.events if e["event"] == kind and e["at"] >= after]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def reconnect_after(standin, since, timeout=30):
    """Seconds from the strap advertising again (after `since`) to its first notification after a StartNotify."""
    rig.wait_for(lambda: standin.where("advertising", since), timeout, "the strap to advertise again")
    back = standin.where("advertising", since)[0]["at"]
    rig.wait_for(lambda: standin.where("start_notify", back) and standin.where("notify", standin.where("start_notify", back)[0]["at"]),
             timeout, "notifications after the reconnect")
    first = standin.where("notify", standin.where("start_notify", back)[0]["at"])[0]["at"]
    return first - back


def fit_rr(bin_dir, sock, session, work):
    """A session's FIT export read by Garmin's FIT SDK: (its R-R intervals in ms, the decoder's
    errors, records with a heart rate, records)."""
    path = os.path.join(work, "s.fit")
    rig.cli(bin_dir, sock, "export", str(session), "--format", "fit", "-o", path)
    from garmin_fit_sdk import Decoder, Stream
    messages, errors = Decoder(Stream.from_file(path)).read()
    rr = []
    for m in messages.get("hrv_mesgs", []):
        times = m.get("time")
        times = times if isinstance(times, list) else [times]
        rr += [round(t * 1000) for t in times if t is not None]
    records = messages.get("record_mesgs", [])
    return rr, [str(e) for e in errors], sum(1 for r in records if r.get("heart_rate") is not None), len(records)
