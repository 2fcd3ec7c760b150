#!/bin/bash
# Integration: bad input on the HTTP endpoint (tests/httpabuse.py) against a
# daemon on ibsim with the performance manager on.
#   - oversized, malformed and refused requests get their statuses at once;
#     nothing outside the web root is served; orders are refused;
#   - slow clients (a byte a second) are dropped at the head deadline while
#     others are served;
#   - idle connections beyond http_max_clients get 503;
#   - 1,000 concurrent scrapes of /metrics and of /api/ports: all answered
#     (200, or 503/refused beyond the cap), none hangs, the daemon's memory
#     stays bounded (RSS and the heap in use; not under AddressSanitizer,
#     whose RSS holds its quarantine and whose heap reads 0: the log says
#     so), a heavy sweep ordered meanwhile completes and light sweeps go on;
#     every connection is gone afterwards;
#   - the endpoint is off by default, and a bad http_listen stops the start.
. "$(dirname "$0")/lib.sh"

for t in ibsim curl; do
	command -v "$t" >/dev/null || { log "SKIP: $t not installed"; exit 77; }
done
ABUSE="$top_srcdir/tests/httpabuse.py"
HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$HTTP_PORT"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1

# off by default: no listener
sm_start "$T/state0" --config /dev/null
check "without http_listen the subnet comes up" wait_for 60 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "without http_listen nothing listens" bash -c "! curl -s -m 2 \"$URL/metrics\" >/dev/null"
sm_stop
check "a bad http_listen is refused at start-up" bash -c "! \"$IBSMD\" --config /dev/null --http nowhere --check-config >/dev/null 2>&1"

cat >"$T/ibsmd.conf" <<EOF
perfmgr = true
perfmgr_sweep_time_s = 1
sweep_interval = 1
http_root = $top_srcdir/web
EOF
sm_start "$T/state" --config "$T/ibsmd.conf" --http "127.0.0.1:$HTTP_PORT"
ctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 "$@"; }
jget() { ctl --json status | python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$SM_PID/status"; }
metric() { curl -s -m 5 "$URL/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# the heap in use, kB (malloc's count; 0 under AddressSanitizer)
heap_kb() { ctl metrics | awk '$1 == "ibsmd_memory_bytes{owner=\"heap\"}" {printf "%d", $2 / 1024}'; }

check "--http: the subnet comes up" wait_for 60 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "--http: GET /api/status answers" wait_for 10 bash -c "curl -sf -m 2 \"$URL/api/status\" | grep -q '\"ok\":true'"
check "malformed, oversized and refused requests" python3 "$ABUSE" "$HTTP_PORT" bad
check "idle connections over the cap get 503" python3 "$ABUSE" "$HTTP_PORT" cap 70
check "slow clients are dropped, others served meanwhile" python3 "$ABUSE" "$HTTP_PORT" slow 20

RSS0=$(rss_kb)
HEAP0=$(heap_kb)
SW0=$(jget 'j["sweeps"]')
LS0=$(jget 'j["light_sweeps"]')
python3 "$ABUSE" "$HTTP_PORT" flood 1000 /metrics >"$T/flood1.out" 2>&1 &
FLOOD=$!
PIDS+=("$FLOOD")
t0=$(date +%s.%N)
check "a heavy sweep ordered during the flood completes" \
	bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --timeout 20 call sweep '{\"wait\": true}' >/dev/null"
log "the sweep took $(echo "$(date +%s.%N) - $t0" | bc) s during the flood"
check "1,000 concurrent scrapes of /metrics: all answered, none hung" wait "$FLOOD"
cat "$T/flood1.out"
python3 "$ABUSE" "$HTTP_PORT" flood 1000 "/api/ports" >"$T/flood2.out" 2>&1
check "1,000 concurrent GET /api/ports: all answered, none hung" grep -q "^ok: " "$T/flood2.out"
cat "$T/flood2.out"
RSS1=$(rss_kb)
HEAP1=$(heap_kb)
log "daemon RSS ${RSS0} kB before the floods, ${RSS1} kB after; heap in use ${HEAP0:-?} kB, ${HEAP1:-?} kB"
if [ -n "$ASAN" ]; then
	log "memory bounds not checked: an AddressSanitizer build (its RSS holds the quarantine, its heap in use reads ${HEAP1:-?})"
else
	check "memory stays bounded (RSS grew < 32 MiB)" test $((RSS1 - RSS0)) -lt 32768
	check "memory stays bounded (heap in use grew < 32 MiB)" \
		test "${HEAP0:-0}" -gt 0 -a $((${HEAP1:-0} - ${HEAP0:-0})) -lt 32768
fi
check "heavy sweeps went on" test "$(jget 'j["sweeps"]')" -gt "$SW0"
# every sweep_interval (1 s), which the floods (well under a second) may not span: polled
light_went_on() { test "$(jget 'j["light_sweeps"]')" -gt "$LS0"; }
check "light sweeps went on" wait_for 15 light_went_on
check "every HTTP connection is closed afterwards" wait_for 15 bash -c "[ \"\$(curl -s -m 5 \"$URL/metrics\" | awk '\$1 == \"ibsmd_http_clients\" {print \$2}')\" = 1 ]"
# what stays held is the cached /metrics text, counted once
check "no reply bytes are left queued but the cached /metrics text" wait_for 10 bash -c \
	"curl -s -m 5 \"$URL/metrics\" >\"$T/m.txt\" && [ \$(awk '\$1 == \"ibsmd_http_queued_bytes\" {print \$2}' \"$T/m.txt\") -le \$((\$(stat -c %s \"$T/m.txt\") + 4096)) ]"
log "ibsmd_http_requests_total $(metric ibsmd_http_requests_total), rejected $(metric ibsmd_http_rejected_total), timeouts $(metric ibsmd_http_timeouts_total)"
check "the daemon still answers the control socket" bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" status >/dev/null"
check "the counter sweeps go on" wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket \"$SM_SOCK\" --json counters | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"cycles\"])') -gt 3 ]"
check "the daemon stops cleanly" sm_stop
finish
