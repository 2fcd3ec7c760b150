#!/bin/bash
# Benchmark: the living fabric.  On a 3-level fat tree in ibsim (k = K), with
# the SM running, one fault at a time and its repair: an inter-switch link
# (a leaf uplink), a host link, every link of one spine switch.  For each SM
# (ibsmd with its defaults, then OpenSM 3.3 on a fresh ibsim) the time from
# the simulator's Unlink to the SM's subnet being up again after it: the
# time stamp of the SM's own "subnet up" log line (ibsmd) or "SUBNET UP"
# line (OpenSM) minus the time the Unlink was written to the simulator's
# console (polling a status costs more than the reaction), the sweep's own
# time, and for ibsmd the SMPs it sent
# and the LFT blocks it wrote (next to a full programming's).  Medians over
# RUNS.  Not a test.
#
#   bench/faults.sh [-k K] [-n RUNS] [-f isl,host,spine] [--no-opensm]
# ibsmd's time is also broken down by sweep phase (status last_sweep_phases_ms).
set -u
K=16
RUNS=3
OSM=1
FAULTS="isl host spine"
while [ $# -gt 0 ]; do
	case $1 in
	-k) K=$2; shift 2 ;;
	-n) RUNS=$2; shift 2 ;;
	-f) FAULTS=$(echo "$2" | tr ',' ' '); shift 2 ;;
	--no-opensm) OSM=0; shift ;;
	*) echo "usage: $0 [-k K] [-n RUNS] [-f isl,host,spine] [--no-opensm]"; exit 2 ;;
	esac
done
. "$(dirname "$0")/lib.sh" faults
SMPID=
"$B/ibsmd-topogen" fattree3 -k "$K" -o "$W/ft.net" || exit 1
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$W/ft.net")
UP=$((K / 2 + 1))
SPINE_PORTS=$(sed -n '/"sw-L3-0"/,/^$/p' "$W/ft.net" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')

now() { date +%s.%N; }
js() { "$B/smctl" --socket "$W/s.sock" --json status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print(eval(sys.argv[1], {}, o))" "$1" 2>/dev/null; }
# up_count: how many times the SM said its subnet is up
up_count() {
	case $SMNAME in
	ibsmd) js "sweeps if last_sweep_status == 'ok' else -1" ;;
	opensm) grep -c "SUBNET UP" "$W/osm.log" 2>/dev/null ;;
	esac
}
# the time stamp (s since the epoch) of the SM's last "subnet up" line
last_up_time() {
	case $SMNAME in
	ibsmd) grep "subnet up:" "$W/smd.err" | tail -1 | cut -d' ' -f1 |
		python3 -c "import sys, datetime; print(datetime.datetime.fromisoformat(sys.stdin.read().strip()).timestamp())" ;;
	opensm) grep "SUBNET UP" "$W/osm.log" | tail -1 |
		python3 -c "
import sys, datetime, time
f = sys.stdin.read().split()
t = datetime.datetime.strptime('%s %s %s %s' % (time.localtime().tm_year, f[0], f[1], f[2]), '%Y %b %d %H:%M:%S')
print(time.mktime(t.timetuple()) + int(f[3]) / 1e6)" ;;
	esac
}
# wait_up N: until up_count > N (at most 600 s); prints when the SM said so
wait_up() {
	local end=$((SECONDS + 600)) c
	while [ $SECONDS -lt $end ]; do
		c=$(up_count)
		if [ -n "$c" ] && [ "$c" -gt "$1" ]; then last_up_time; return 0; fi
		sleep 0.05
	done
	echo fail
	return 1
}
# the faults: name, console lines to break, console lines to repair
fault_cmds() {
	case $1 in
	isl) echo "Unlink \"sw-L1-0\"[$UP]" ;;
	host) echo 'Unlink "ca-5"[1]' ;;
	spine) for p in $SPINE_PORTS; do echo "Unlink \"sw-L3-0\"[$p]"; done ;;
	esac
}
repair_cmds() { fault_cmds "$1" | sed 's/^Unlink/ReLink/'; }

declare -A RES PH
run_sm() {
	SMNAME=$1
	sim_up "$W/ft.net"
	rm -rf "$W/state" "$W/osm.log"
	mkdir -p "$W/state"
	case $SMNAME in
	ibsmd)
		(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --state-dir "$W/state" \
			--socket "$W/s.sock" -s 10 >"$W/smd.out" 2>"$W/smd.err") &
		;;
	opensm)
		(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec opensm -d2 -s 10 -f "$W/osm.log" \
			--guid_routing_order_no_scatter >/dev/null 2>&1) &
		;;
	esac
	SMPID=$!
	PIDS+=("$SMPID")
	wait_up 0 >/dev/null || { echo "$SMNAME: subnet never up"; return 1; }
	[ "$SMNAME" = ibsmd ] && FULL_BLOCKS=$(js last_sweep_lft_blocks)
	PERFPID=
	# PERF=FILE: a CPU profile of ibsmd over the faults (perf report -i FILE)
	if [ "$SMNAME" = ibsmd ] && [ -n "${PERF:-}" ]; then
		perf record -F 2000 -g -o "$PERF" -p "$SMPID" >/dev/null 2>&1 &
		PERFPID=$!
	fi
	sleep 2
	for f in $FAULTS; do
		for r in $(seq "$RUNS"); do
			local c0 t0 t1 sent0 sent1
			c0=$(up_count)
			[ "$SMNAME" = ibsmd ] && sent0=$(js "mad['sent']")
			t0=$(now)
			fault_cmds "$f" >&7
			t1=$(wait_up "$c0") || { echo "$SMNAME $f: not up again"; break; }
			RES[$SMNAME,$f,t]+="$(python3 -c "print(round(($t1 - $t0) * 1000))") "
			if [ "$SMNAME" = ibsmd ]; then
				sleep 0.3
				sent1=$(js "mad['sent']")
				RES[$SMNAME,$f,ms]+="$(js "round(last_sweep_ms)") "
				RES[$SMNAME,$f,mads]+="$((sent1 - sent0)) "
				RES[$SMNAME,$f,blocks]+="$(js last_sweep_lft_blocks) "
				RES[$SMNAME,$f,inc]+="$(js "last_sweep_incremental['incremental']") "
				PH[$f]+="$(js "' '.join('%s=%.0f' % kv for kv in last_sweep_phases_ms.items())")
"
			fi
			# repair, and let the SM settle
			c0=$(up_count)
			repair_cmds "$f" >&7
			wait_up "$c0" >/dev/null
			sleep 1.5
		done
	done
	[ -n "$PERFPID" ] && { kill -INT "$PERFPID"; wait "$PERFPID" 2>/dev/null; }
	kill "$SMPID"
	wait "$SMPID" 2>/dev/null
	SMPID=
}
med() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR + 1) / 2)] : "-")}'; }

run_sm ibsmd
[ "$OSM" = 1 ] && run_sm opensm
echo "3-level fat tree k=$K: $N nodes; $RUNS runs each; medians (ibsmd: a full programming writes ${FULL_BLOCKS:-?} LFT blocks)"
printf '%-8s %14s %14s %12s %10s %12s %12s\n' fault "ibsmd ms" "OpenSM ms" "ratio" "SMPs" "LFT blocks" "incremental"
for f in isl host spine; do
	a=$(med "${RES[ibsmd,$f,t]:-}")
	o=$(med "${RES[opensm,$f,t]:-}")
	ratio=$(python3 -c "a, o = '$a', '$o'
print('%.1fx' % (float(o) / float(a)) if a not in ('-', '0', '') and o not in ('-', '') else '-')")
	printf '%-8s %14s %14s %12s %10s %12s %12s\n' "$f" "$a" "$o" "$ratio" \
		"$(med "${RES[ibsmd,$f,mads]:-}")" "$(med "${RES[ibsmd,$f,blocks]:-}")" \
		"$(echo ${RES[ibsmd,$f,inc]:-} | tr ' ' '\n' | sort | uniq -c | tr '\n' ' ')"
done
echo "(ibsmd's own sweep ms: isl $(med "${RES[ibsmd,isl,ms]:-}"), host $(med "${RES[ibsmd,host,ms]:-}"), spine $(med "${RES[ibsmd,spine,ms]:-}"))"
# where ibsmd's time went, by sweep phase (ms, medians; route_* and publish_* are parts of route/publish)
for f in isl host spine; do
	[ -n "${PH[$f]:-}" ] || continue
	printf '%s phases:' "$f"
	for k in $(echo "${PH[$f]}" | head -1 | tr ' ' '\n' | cut -d= -f1); do
		v=$(echo "${PH[$f]}" | tr ' ' '\n' | grep "^$k=" | cut -d= -f2 | tr '\n' ' ')
		printf ' %s %s' "$k" "$(med "$v")"
	done
	echo
done
