#!/usr/bin/env bash
# `make run`: replays the bundled demo walk through a real gpsd (gpsfake) and
# moonrunnerd with the emulated MPU-6050, SPEED times faster than real time,
# starts the web app (moonrunner-web) on loopback and prints how to pair a
# browser with it, adds the walk's planned course and follows it, shows
# `moonrunner watch`, stops the session at the end and shows it.
# Everything lives in .build/demo-run; Ctrl-C leaves no process behind.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN:-$root/.build/release}
speed=${SPEED:-10}
demo=$root/Tests/Fixtures/demo
work=${WORK:-$root/.build/demo-run}

rm -rf "$work"
mkdir -p "$work/state"
sock=$work/moonrunner.sock
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
duration=$(python3 -c "import json; print(int(json.load(open('$demo/walk.truth.json'))['duration_s']))")
per_epoch=$(python3 -c "import json; print(json.load(open('$demo/walk.truth.json'))['nmea_sentences_per_epoch'])")
cycle=$(python3 -c "print(1.0 / ($speed * $per_epoch))")

webport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
admin=$work/web-run/admin.sock

gpsfake_pid=""
daemon_pid=""
web_pid=""
cleanup() {
    trap - EXIT INT TERM
    [ -n "$web_pid" ] && kill -TERM "$web_pid" 2>/dev/null && wait "$web_pid" 2>/dev/null || true
    [ -n "$daemon_pid" ] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null || true
    # gpsfake runs in its own session with the gpsd it started: end the whole group.
    [ -n "$gpsfake_pid" ] && kill -TERM -- "-$gpsfake_pid" 2>/dev/null || true
    sleep 0.3
    [ -n "$gpsfake_pid" ] && kill -KILL -- "-$gpsfake_pid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'echo; echo "interrupted"; exit 130' INT TERM

echo "MoonRunner demo: a ${duration} s walk replayed at ${speed}x (gpsd on 127.0.0.1:$port, state in $work)"
# A private TMPDIR for gpsd's control socket: a stale /tmp/gpsfake-<pid>.sock
# left by an earlier gpsfake would make this one connect before gpsd is up.
TMPDIR="$work" setsid gpsfake -1 -q -P "$port" -c "$cycle" "$demo/walk.nmea" >"$work/gpsfake.log" 2>&1 &
gpsfake_pid=$!
for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

"$bin/moonrunnerd" --state-dir "$work/state" --socket "$sock" --gpsd "127.0.0.1:$port" \
    --imu "replay:$demo/walk-imu.csv.gz,speed=$speed" --log-level notice 2>"$work/moonrunnerd.log" &
daemon_pid=$!
for _ in $(seq 100); do
    [ -S "$sock" ] && break
    sleep 0.05
done

# The phone's screen, on loopback: a browser on this machine pairs with the code printed here.
"$bin/moonrunner-web" --listen "127.0.0.1:$webport" --socket "$sock" --state-dir "$work/web" \
    --admin-socket "$admin" 2>"$work/moonrunner-web.log" &
web_pid=$!
for _ in $(seq 100); do
    [ -S "$admin" ] && break
    sleep 0.05
done
echo "web app (moonrunner-web) at http://127.0.0.1:$webport/ — pair a browser with it:"
"$bin/moonrunner" web pair --admin-socket "$admin" || echo "(the web app did not start: see $work/moonrunner-web.log)"

course=$("$bin/moonrunner" --socket "$sock" course add "$demo/walk.course.gpx" --json \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["course"]["id"])')
echo "course #$course added from walk.course.gpx (the walk's route out and back, as a planner draws it)"
"$bin/moonrunner" --socket "$sock" start --activity walk --course "$course" >/dev/null
echo "session started, following course #$course; watching in 5 s (Ctrl-C to end early)"
sleep 5
# The recording has played when its fixes stop (gpsfake stays up while a
# client is connected): the daemon then reports the GPS lost. Replays run a
# little slower than SPEED, so a fixed wait would cut the end, and with it
# the course's finish; at most twice the nominal time.
"$bin/moonrunner" --socket "$sock" watch &
watch_pid=$!
deadline=$(( SECONDS + 2 * duration / speed + 10 ))
gps_health() {
    "$bin/moonrunner" --socket "$sock" status --json 2>/dev/null \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["gps"]["health"])' 2>/dev/null || true
}
seen_fixes=""
while [ "$SECONDS" -lt "$deadline" ]; do
    health=$(gps_health)
    [ "$health" = ok ] && seen_fixes=1
    [ -n "$seen_fixes" ] && [ "$health" != ok ] && break
    sleep 1
done
sleep 1
kill -TERM "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
echo
"$bin/moonrunner" --socket "$sock" stop >/dev/null
id=$("$bin/moonrunner" --socket "$sock" sessions --json --limit 1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["sessions"][0]["id"])')
echo "=== moonrunner show $id ==="
"$bin/moonrunner" --socket "$sock" show "$id"
echo "(truth: $(python3 -c "import json; t = json.load(open('$demo/walk.truth.json')); print(f\"{t['true_distance_m']:.0f} m, moving {t['true_moving_time_s']:.0f} s, {t['steps']} steps\")"))"
echo "the session in the web app: http://127.0.0.1:$webport/sessions/$id"
if [ -t 0 ] && [ -z "${NO_WAIT:-}" ]; then
    echo "the web app keeps running until you press Enter (or Ctrl-C)"
    read -r _ || true
fi
