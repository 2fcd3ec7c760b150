#!/bin/bash
# Benchmark: multicast join/leave cycles through the SA against ibsmd and
# against OpenSM, on the same ibsim fabric in the same run.  Not a test.
# tests/mcjoin on one host joins a group (the same MGID each time, then an
# MGID the SA assigns each time) and leaves it, COUNT times each; then we
# read back what is left: the groups saquery lists, the MLIDs the switches
# forward (dump_fts -M), the SM's RSS and CPU time, and (ibsmd) smctl
# status's multicast counters.  ibsim is restarted for each SM.
#
#   bench/mcjoin.sh [K]          a 2-level fat tree of radix K (default 8)
#   COUNT=10000 bench/mcjoin.sh
set -u
COUNT=${COUNT:-10000}
K=${1:-8}
. "$(dirname "$0")/lib.sh" mcjoin
SM=

sm_down() { [ -n "$SM" ] && { kill "$SM"; wait "$SM" 2>/dev/null; SM=; }; }
run() { (cd "$W" && LD_PRELOAD=$UMAD2SIM timeout 900 "$@"); }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# the MLIDs some switch forwards (dump_fts -M), groups saquery -g lists (one MAD: 3 at most)
mlids() { run dump_fts -M 2>/dev/null | awk '/^0x/ {print $1}' | sort -u | wc -l; }
groups() { run saquery -g 2>/dev/null | grep -c MGID; }
sa_ready() { for _ in $(seq 300); do run saquery -g >/dev/null 2>&1 && return 0; sleep 0.2; done; return 1; }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

"$B/ibsmd-topogen" fattree2 -k "$K" -o "$W/ft.net" || exit 1
printf "%-7s %-9s | %7s %6s %6s %5s %7s | %9s %9s | %8s %8s | %6s\n" sm mgid cycles joined \
	left mlids ms "groups" "fwd mlids" "rss KB" "cpu ms" "us/cyc"
for who in ibsmd opensm; do
	for mgid in ff15::beef 0; do
		sim_up "$W/ft.net"
		if [ "$who" = ibsmd ]; then
			(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --state-dir "$W/state-$$" \
				--socket "$W/sock" --sweep-interval 0 >"$W/ibsmd.out" 2>&1) &
		else
			(cd "$W" && LD_PRELOAD=$UMAD2SIM exec opensm -f "$W/opensm.log" -s 0 >"$W/opensm.out" 2>&1) &
		fi
		SM=$!
		PIDS+=("$SM")
		sa_ready || { echo "$who: the SA does not answer"; exit 1; }
		sleep 2 # let the first MFT programming end
		g0=$(groups) m0=$(mlids) r0=$(rss "$SM") c0=$(cpu "$SM")
		out=$(SIM_HOST=ca-1 run "$B/tests/mcjoin" cycle --count "$COUNT" --mgid "$mgid" 2>/dev/null)
		sleep 2
		c1=$(cpu "$SM")
		line=$(printf "%-7s %-9s | %7s %6s %6s %5s %7s | %4s->%-4s %4s->%-4s | %8s %8s | %6s" "$who" \
			"$mgid" "$COUNT" "$(field "$out" joined)" "$(field "$out" left)" \
			"$(field "$out" mlids)" "$(field "$out" ms)" "$g0" "$(groups)" "$m0" "$(mlids)" \
			"$r0->$(rss "$SM")" "$(((c1 - c0) * 1000 / $(getconf CLK_TCK)))" \
			"$(python3 -c "print('%.0f' % ($(field "$out" ms) * 1000 / $COUNT))")")
		echo "$line"
		if [ "$who" = ibsmd ]; then
			"$B/smctl" --socket "$W/sock" --json status |
				python3 -c 'import json,sys; print("        ibsmd multicast:", json.load(sys.stdin)["multicast"])'
		fi
		sm_down
	done
done
rm -rf "$W"
