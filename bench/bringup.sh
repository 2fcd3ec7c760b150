#!/bin/bash
# Benchmark: one full bring-up of a fresh simulated fabric, ibsmd --once vs
# opensm -o, side by side in the same run on the same ibsim topology (ibsim is
# restarted before each SM so both start from an unconfigured fabric).
# Reports wall time and peak RSS of each SM and the ratios.  Not a test.
#
#   bench/bringup.sh [K ...]      3-level fat trees of radix K (default 8 12 16 20)
set -u
. "$(dirname "$0")/lib.sh" bringup

# run NAME cmd...: prints "seconds kb rc"
run() {
	local out="$W/$1.time"; shift
	local rc=0
	(cd "$W" && LD_PRELOAD=$UMAD2SIM /usr/bin/time -o "$out" -f "%e %M" timeout 1800 "$@" \
		>"$W/last.out" 2>&1) || rc=$?
	echo "$(tail -1 "$out") $rc"
}

printf "%-10s %6s %6s | %9s %9s | %9s %9s | %7s %7s\n" fabric nodes lids \
	"ibsmd s" "opensm s" "ibsmd MB" "opensm MB" "time x" "mem x"
for k in ${@:-8 12 16 20}; do
	topo="$W/ft3-k$k.net"
	"$B/ibsmd-topogen" fattree3 -k "$k" -o "$topo"
	nodes=$(grep -cE '^(Switch|Hca)' "$topo")
	sim_up "$topo"
	rm -rf "$W/state"
	read -r is ikb irc <<<"$(run ibsmd "$B/ibsmd" --once --config /dev/null --routing minhop --state-dir "$W/state")"
	lids=$(sed -n 's/^subnet up: .* \([0-9]*\) LIDs.*/\1/p' "$W/last.out" | head -1)
	[ "$irc" = 0 ] || { echo "ibsmd failed on k=$k:"; tail -3 "$W/last.out"; continue; }
	sim_up "$topo"
	mkdir -p "$W/osm"; rm -f "$W/osm/"*
	read -r os okb orc <<<"$(OSM_CACHE_DIR=$W/osm OSM_TMP_DIR=$W/osm run opensm opensm -o -s 0 -f "$W/osm/osm.log")"
	[ "$orc" = 0 ] || { echo "opensm failed on k=$k"; tail -3 "$W/last.out"; continue; }
	printf "%-10s %6s %6s | %9s %9s | %9.1f %9.1f | %7.2f %7.2f\n" "ft3-k$k" "$nodes" "$lids" \
		"$is" "$os" "$(echo "$ikb/1024" | bc -l)" "$(echo "$okb/1024" | bc -l)" \
		"$(echo "$os/$is" | bc -l)" "$(echo "$okb/$ikb" | bc -l)"
done
echo "time x / mem x: how many times more OpenSM needed (higher is better for ibsmd)"
