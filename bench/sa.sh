#!/bin/bash
# Benchmark: SA queries answered per second by ibsmd and by OpenSM, on the
# same ibsim fabric in the same run, and the SM's CPU time per query.  Not a
# test.  tests/saflood keeps WINDOW queries outstanding from one host:
# NodeRecord GetTable by LID (nr) and PathRecord Get from that host to a LID
# (pr), cycling over every LID.  ibsim is restarted for each SM.
#
#   bench/sa.sh [K ...]          3-level fat trees of radix K (default 8 16)
#   COUNT=20000 WINDOW=16 bench/sa.sh
set -u
COUNT=${COUNT:-20000}
WINDOW=${WINDOW:-16}
. "$(dirname "$0")/lib.sh" sa
SM=

sm_down() { [ -n "$SM" ] && { kill "$SM"; wait "$SM" 2>/dev/null; SM=; }; }

# cpu PID: user + system time in clock ticks
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# flood ATTR LIDS SMPID: "per_second cpu_us_per_query answered"
flood() {
	local c0 c1 out
	c0=$(cpu "$3")
	out=$(mkdir -p "$W/client" && cd "$W/client" && LD_PRELOAD=$UMAD2SIM timeout 600 "$B/tests/saflood" --sa-lid 1 --attr "$1" \
		--lids "$2" --count "$COUNT" --window "$WINDOW" 2>/dev/null)
	c1=$(cpu "$3")
	python3 - "$out" "$c0" "$c1" "$(getconf CLK_TCK)" <<'PY'
import json, sys
try:
    j = json.loads(sys.argv[1])
except Exception:
    print("- - 0"); sys.exit()
cpu_s = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4])
n = j["answered"]
print("%.0f %s %d" % (j["per_second"], "%.1f" % (cpu_s * 1e6 / n) if n else "-", n))
PY
}

printf "%-8s %6s %4s | %12s %12s | %12s %12s | %7s\n" fabric lids attr \
	"ibsmd q/s" "opensm q/s" "ibsmd us/q" "opensm us/q" "q/s x"
for k in ${@:-8 16}; do
	topo="$W/ft3-k$k.net"
	"$B/ibsmd-topogen" fattree3 -k "$k" -o "$topo"
	sim_up "$topo"
	rm -rf "$W/state"
	(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config /dev/null --state-dir "$W/state" \
		--socket "$W/ibsmd.sock" --sweep-interval 0 >"$W/ibsmd.log" 2>&1) &
	SM=$!
	PIDS+=("$SM")
	for _ in $(seq 600); do grep -q "subnet up" "$W/ibsmd.log" && break; sleep 0.1; done
	lids=$(sed -n 's/.*subnet up: .* \([0-9]*\) LIDs.*/\1/p' "$W/ibsmd.log" | head -1)
	declare -A I O
	for a in nr pr; do I[$a]=$(flood "$a" "1-$lids" "$SM"); done
	sm_down
	# -d2: OpenSM flushes its log after each line ("SUBNET UP" is what we
	# wait for); a subnet not up after 60 s gets a fresh simulator, 3 tries
	for try in 1 2 3; do
		sim_up "$topo"
		# a directory of its own: umad2sim keeps a fake sysfs in the cwd
		rm -rf "$W/osm"; mkdir -p "$W/osm"
		(cd "$W/osm" && OSM_CACHE_DIR=$W/osm OSM_TMP_DIR=$W/osm LD_PRELOAD=$UMAD2SIM exec opensm -d2 \
			-s 0 -f "$W/osm/osm.log" >"$W/opensm.out" 2>&1) &
		SM=$!
	PIDS+=("$SM")
		up=
		for _ in $(seq 600); do
			grep -q "SUBNET UP" "$W/osm/osm.log" "$W/opensm.out" 2>/dev/null && { up=1; break; }
			sleep 0.1
		done
		[ -n "$up" ] && break
		echo "opensm did not bring the subnet up (try $try)" >&2
		sm_down
	done
	for a in nr pr; do O[$a]=$(flood "$a" "1-$lids" "$SM"); done
	sm_down
	for a in nr pr; do
		read -r iq icpu _ <<<"${I[$a]}"
		read -r oq ocpu _ <<<"${O[$a]}"
		ratio=$( [ "$iq" != - ] && [ "$oq" != - ] && [ "$oq" != 0 ] && echo "$iq/$oq" | bc -l || echo 0)
		printf "%-8s %6s %4s | %12s %12s | %12s %12s | %7.2f\n" "ft3-k$k" "$lids" "$a" \
			"$iq" "$oq" "$icpu" "$ocpu" "$ratio"
	done
done
echo "q/s: answered queries per second from one host, $WINDOW outstanding; us/q: the SM's CPU time per query"
