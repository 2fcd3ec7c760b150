#!/bin/bash
# Benchmark: the background read of every port's SL2VL and VLArb tables
# (sm/vltables.h) on 3-level fat trees of radix K under ibsim: the daemon
# brings the subnet up, then reads; reports the bring-up (first sweep) and
# the read: nodes, Gets, time, the set's memory, the daemon's peak RSS, and
# the fabric's memory (smctl status, issue 15's accounting).  Not a test;
# timings are noisy on a shared machine.
#
#   bench/vltables.sh [K ...]     (default 24)
#   READ=false bench/vltables.sh  the same without the read (for the RSS baseline)
set -u
ks=${*:-24}
. "$(dirname "$0")/lib.sh" vltables

st() { "$B/smctl" --socket "$W/sm.sock" --timeout 20 --json status 2>/dev/null; }
field() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

echo "# $(date -u +%Y-%m-%d) $(uname -m), $(nproc) cores; bench/vltables.sh $*"
for k in $ks; do
	topo="$W/ft3-k$k.net"
	"$B/ibsmd-topogen" fattree3 -k "$k" -o "$topo"
	sim_up "$topo"
	rm -rf "$W/state"
	echo "read_vl_tables = ${READ:-true}" >"$W/ibsmd.conf"
	(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config "$W/ibsmd.conf" --routing minhop \
		--state-dir "$W/state" --socket "$W/sm.sock" --sweep-interval 0 -v \
		>"$W/sm.out" 2>&1) &
	pid=$!
	t0=$(date +%s.%N)
	for _ in $(seq 36000); do
		st | grep -q '"subnet_up": true' && break
		sleep 0.1
	done
	t_up=$(echo "$(date +%s.%N) - $t0" | bc)
	sent_up=$(st | field 'j["mad"]["sent"]')
	for _ in $(seq 72000); do
		[ "${READ:-true}" = false ] && sleep 5 && break
		[ "$(st | field 'j["vl_tables"]["reading"]' 2>/dev/null)" = 0 ] &&
			[ "$(st | field 'j["vl_tables"]["reads"]' 2>/dev/null)" -ge 1 ] && break
		sleep 0.5
	done
	s=$(st)
	rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
	echo "k=$k: up in ${t_up}s with $sent_up SMPs; read: $(echo "$s" | field 'j["vl_tables"]')"
	echo "  peak RSS ${rss} kB; $(grep -o 'debug: memory:.*' "$W/sm.out" | tail -1)"
	grep -o 'VL tables: .*' "$W/sm.out" | tail -1 | sed 's/^/  /'
	kill "$pid"
	wait "$pid" 2>/dev/null
done
