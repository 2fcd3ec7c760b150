#!/bin/bash
# Benchmark: the performance manager and the HTTP endpoint on a 3-level fat
# tree in ibsim.  For each radix K:
#   - a heavy sweep (smctl sweep, waited for) with the performance manager off;
#   - one counter sweep of every ACTIVE port: wall time and PerfMgt MADs;
#   - heavy sweeps while counter sweeps run back to back (perfmgr_sweep_time_s
#     = 1, shorter than one counter sweep), to see what they cost a sweep;
#   - GET /metrics: latency of a fresh text and of a cached one, and its size;
#     GET /api/counters and /api/ports likewise; the daemon's RSS.
# Not a test.
#
#   bench/perfmgr.sh [K ...]      (default 16)
set -u
. "$(dirname "$0")/lib.sh" perfmgr
SMD=
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
SOCK="$W/ibsmd.sock"

ctl() { "$B/smctl" --socket "$SOCK" --timeout 600 "$@"; }
jq_() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }
# the performance manager's summary (status.perfmgr: the counters list of a large
# fabric is more than the control socket queues for one reply)
pm() { ctl --json status | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["perfmgr"]))'; }
cycles() { pm | jq_ 'j["cycles"]'; }

sm_up() { # sm_up CONF
	(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config "$1" --state-dir "$W/state" \
		--socket "$SOCK" --http "127.0.0.1:$PORT" >"$W/smd.out" 2>"$W/smd.err") &
	SMD=$!
	PIDS+=("$SMD")
	for _ in $(seq 1800); do
		ctl --json status 2>/dev/null | grep -q '"subnet_up": true' && return 0
		sleep 0.2
	done
	echo "the subnet did not come up"; tail -3 "$W/smd.err"; exit 1
}

sm_down() { kill "$SMD"; wait "$SMD" 2>/dev/null; SMD=; }

# heavy N: N heavy sweeps, one at a time; prints their durations (ms)
heavy() {
	local out=()
	for _ in $(seq "$1"); do
		ctl call sweep '{"wait": true}' >/dev/null
		out+=("$(ctl --json status | jq_ 'j["last_sweep_ms"]')")
	done
	echo "${out[*]}"
}

# fetch PATH N: N GETs; "min median max seconds, bytes"
fetch() {
	local path=$1 n=$2 t=()
	for _ in $(seq "$n"); do
		[ "${3:-}" = fresh ] && sleep 1.05 # past the 1 s cache of /metrics
		t+=("$(curl -s -o "$W/body" -w '%{time_total}' "$URL$path")")
	done
	printf '%s\n' "${t[@]}" | sort -n | awk -v b="$(stat -c %s "$W/body")" \
		'{v[NR]=$1} END {printf "%.4f %.4f %.4f s, %d bytes\n", v[1], v[int((NR+1)/2)], v[NR], b}'
}

avg() { echo "$*" | tr ' ' '\n' | awk '{s += $1; n++} END {printf "%.1f", s / n}'; }

for k in ${@:-16}; do
	topo="$W/ft3-k$k.net"
	"$B/ibsmd-topogen" fattree3 -k "$k" -o "$topo"
	nodes=$(grep -cE '^(Switch|Hca)' "$topo")
	sim_up "$topo"
	echo "== ft3-k$k: $nodes nodes"

	printf 'sweep_interval = 0\nperfmgr = false\nperfmgr_sweep_time_s = 3600\n' >"$W/off.conf"
	sm_up "$W/off.conf"
	base=$(heavy 10)
	echo "heavy sweeps, perfmgr off (ms):            $base  (mean $(avg $base))"
	echo "RSS, perfmgr off: $(awk '/^VmRSS/ {print $2}' /proc/$SMD/status) kB"

	# one counter sweep: perfmgr on with a long interval: the first sweep starts at once
	sed -i 's/^perfmgr = false/perfmgr = true/' "$W/off.conf"
	kill -HUP "$SMD"
	for _ in $(seq 3000); do [ "$(cycles)" -ge 1 ] && break; sleep 0.1; done
	pm >"$W/c.json"
	echo "counter sweep: $(jq_ '"%d ports, %.1f ms, %d PerfMgt MADs (%d failed)" % (j["ports"], j["last_cycle_ms"], j["mads"], j["failures"])' <"$W/c.json")"
	echo "GET /metrics fresh (min median max):        $(fetch /metrics 5 fresh)"
	echo "GET /metrics cached:                        $(fetch /metrics 20)"
	echo "GET /api/counters:                          $(fetch /api/counters 5)"
	echo "GET /api/ports:                             $(fetch /api/ports 5)"
	curl -s "$URL/metrics" >"$W/metrics.txt"
	echo "/metrics: $(wc -l <"$W/metrics.txt") lines, $(grep -c '^ibsmd_port_' "$W/metrics.txt") per-port samples"
	echo "RSS, perfmgr on: $(awk '/^VmRSS/ {print $2}' /proc/$SMD/status) kB"

	# counter sweeps back to back, heavy sweeps meanwhile
	sed -i 's/^perfmgr_sweep_time_s = 3600/perfmgr_sweep_time_s = 1/' "$W/off.conf"
	kill -HUP "$SMD"
	sleep 2
	m0=$(pm | jq_ 'j["mads"]')
	busy=$(heavy 10)
	pm >"$W/c2.json"
	echo "heavy sweeps, counter sweeps running (ms):  $busy  (mean $(avg $busy))"
	echo "  meanwhile: $(jq_ '"%d PerfMgt MADs sent, %d counter sweeps done, %d held back for a sweep" % (j["mads"] - '"$m0"', j["cycles"], j["sweep_waits"])' <"$W/c2.json")"
	sm_down
	kill "$SIM"; wait "$SIM" 2>/dev/null; SIM=
done
