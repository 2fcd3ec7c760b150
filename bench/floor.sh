#!/bin/bash
# Benchmark: what a MAD costs any program under umad2sim, next to what it
# costs ibsmd and the simulator.  On one 3-level fat tree (k = K) in ibsim:
#   ibsmd   `ibsmd --once` (routing dumps off): its CPU (user + system, from
#           /usr/bin/time) per SMP it sent (a second run with -v counts them)
#   ibsim   the simulator's CPU over the same bring-up, per SMP
#   floor   tests/saflood, a minimal libibumad client (one send and one
#           receive per query, WINDOW outstanding, no logic of its own),
#           against the running ibsmd: its CPU per query
# and the ratios to the simulator's.  The floor is the least a program that
# talks through umad2sim pays per MAD it exchanges.  Not a test.
#
#   bench/floor.sh [-k K] [-n QUERIES]
set -u
K=20
N=60000
while [ $# -gt 0 ]; do
	case $1 in
	-k) K=$2; shift 2 ;;
	-n) N=$2; shift 2 ;;
	*) echo "usage: $0 [-k K] [-n QUERIES]"; exit 2 ;;
	esac
done
. "$(dirname "$0")/lib.sh" floor
[ -x "$B/tests/saflood" ] || make -C "$B" tests/saflood >/dev/null || exit 1
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
printf 'dump_max_lft_entries = 0\n' >"$W/ibsmd.conf"
"$B/ibsmd-topogen" fattree3 -k "$K" -o "$W/ft.net" || exit 1
once() { # once ARGS: ibsmd --once on a fresh simulator; "cpu_s sim_s" in $W/once (not in $(...): sim_up must set SIM here)
	sim_up "$W/ft.net"
	rm -rf "$W/state"
	local s0 s1
	s0=$(ticks "$SIM")
	(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM /usr/bin/time -f "%U %S" -o "$W/sm.time" \
		timeout 600 "$B/ibsmd" --once --config "$W/ibsmd.conf" --state-dir "$W/state" "$@" \
		>"$W/sm.out" 2>&1) || { echo "ibsmd --once failed: $(tail -2 "$W/sm.out")" >&2; exit 1; }
	s1=$(ticks "$SIM")
	echo "$(awk '{print $1 + $2}' "$W/sm.time") $(echo "($s1 - $s0) / $hz" | bc -l)" >"$W/once"
}
once -v
smps=$(sed -n 's/.*mad: \([0-9]*\) sent.*/\1/p' "$W/sm.out" | tail -1)
[ -n "$smps" ] || { echo "no SMP count in ibsmd's debug log" >&2; exit 1; }
once
read -r sm_cpu sim_cpu <"$W/once"
# the floor: saflood against a running ibsmd on the same fabric
sim_up "$W/ft.net"
rm -rf "$W/state"
(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config "$W/ibsmd.conf" \
	--state-dir "$W/state" --socket "$W/s.sock" >"$W/d.out" 2>&1) &
PIDS+=($!)
wait_until 300 bash -c "'$B/smctl' --socket '$W/s.sock' --json status 2>/dev/null | grep -q '\"subnet_up\": true'" ||
	{ echo "ibsmd did not bring the subnet up" >&2; exit 1; }
mkdir -p "$W/client"
(cd "$W/client" && SIM_HOST=ca-5 LD_PRELOAD=$UMAD2SIM /usr/bin/time -f "%U %S" -o "$W/fl.time" \
	timeout 600 "$B/tests/saflood" --sa-lid 1 --attr smir --count "$N" --window 16 \
	>"$W/fl.out" 2>/dev/null) || { echo "saflood failed" >&2; exit 1; }
answered=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["answered"])' "$W/fl.out")
fl_cpu=$(awk '{print $1 + $2}' "$W/fl.time")
python3 - "$K" "$smps" "$sm_cpu" "$sim_cpu" "$answered" "$fl_cpu" <<'PY'
import sys
k, smps, sm, sim, q, fl = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:5]), int(sys.argv[5]), float(sys.argv[6])
per = lambda cpu, n: cpu / n * 1e6
s = per(sim, smps)
print("fat tree k=%s: %d SMPs in the bring-up, %d queries for the floor" % (k, smps, q))
print("%-8s %10s %12s %8s" % ("", "CPU s", "us per MAD", "x ibsim"))
print("%-8s %10.2f %12.1f %8.2f" % ("ibsmd", sm, per(sm, smps), per(sm, smps) / s))
print("%-8s %10.2f %12.1f %8.2f" % ("ibsim", sim, s, 1.0))
print("%-8s %10.2f %12.1f %8.2f" % ("floor", fl, per(fl, q), per(fl, q) / s))
PY
