#!/bin/bash
# Benchmark: SA queries answered per second by ibsmd and by OpenSM, on the
# same ibsim fabric in the same run, and the SM's CPU time per query.  Not a
# test.  tests/saflood keeps WINDOW queries outstanding from one host:
# NodeRecord GetTable by LID (nr) and PathRecord Get from that host to a LID
# (pr), cycling over every LID.  ibsim is restarted for each SM.
#
#   bench/sa.sh [K ...]          3-level fat trees of radix K (default 8 16)
#   COUNT=20000 WINDOW=16 bench/sa.sh
#
# The job-start storm (--storm): every host of a 3-level fat tree of radix K
# (default 24: 3,456 hosts) asks a PathRecord to every other host of its job
# (hosts in groups of JOB, default 64: 217,728 queries), by SGID and DGID as
# rdma_cm does, from CLIENTS tests/saflood processes at once (default 8, on
# hosts ca-1..; ibsim serves 10 clients), WINDOW outstanding each; every
# answer checked (tests/saflood: GIDs, LIDs, each GUID's LID the same
# throughout).  With FLAP=1 a leaf uplink goes down and up every second
# while the storm runs (the answers must stay right during the sweeps).
# Queries per second (all answers over the wall time of the storm), the
# SM's CPU per query, side by side with OpenSM on the same fabric.
#
#   bench/sa.sh --storm [-k K] [-j JOB] [-c CLIENTS]
set -u
COUNT=${COUNT:-20000}
WINDOW=${WINDOW:-16}
STORM=0
SK=24
JOB=64
CLIENTS=8
if [ "${1:-}" = --storm ]; then
	STORM=1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-k) SK=$2; shift 2 ;;
		-j) JOB=$2; shift 2 ;;
		-c) CLIENTS=$2; shift 2 ;;
		*) echo "usage: $0 --storm [-k K] [-j JOB] [-c CLIENTS]"; exit 2 ;;
		esac
	done
fi
. "$(dirname "$0")/lib.sh" sa
SM=

sm_down() { [ -n "$SM" ] && { kill "$SM"; wait "$SM" 2>/dev/null; SM=; }; }

# cpu PID: user + system time in clock ticks
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# machine_ticks: "busy idle" clock ticks of every CPU (/proc/stat)
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat; }

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

# storm_sm NAME: bring NAME up on the storm's fabric, run the storm, print
# "per_second cpu_us_per_query answered wrong errors timeouts seconds"
storm_sm() {
	local name=$1 c0 c1 t0 t1 pids=() i
	sim_up "$W/storm.net"
	rm -rf "$W/state" "$W/osm" "$W/ibsmd.log"
	mkdir -p "$W/osm"
	case $name in
	ibsmd)
		(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config /dev/null \
			--state-dir "$W/state" --socket "$W/ibsmd.sock" --sweep-interval 0 \
			>"$W/ibsmd.log" 2>&1) &
		;;
	opensm)
		(cd "$W/osm" && SIM_HOST=ca-0 OSM_CACHE_DIR=$W/osm OSM_TMP_DIR=$W/osm \
			LD_PRELOAD=$UMAD2SIM exec opensm -d2 -s 0 -f "$W/osm/osm.log" \
			>"$W/opensm.out" 2>&1) &
		;;
	esac
	SM=$!
	PIDS+=("$SM")
	for _ in $(seq 3000); do
		grep -qs "subnet up\|SUBNET UP" "$W/ibsmd.log" "$W/osm/osm.log" && break
		sleep 0.1
	done
	sleep 2
	# PERF=FILE: a CPU profile of ibsmd during the storm (perf report -i FILE)
	local perfpid=
	if [ "$name" = ibsmd ] && [ -n "${PERF:-}" ]; then
		perf record -F 2000 -g -o "$PERF" -p "$SM" >/dev/null 2>&1 &
		perfpid=$!
	fi
	c0=$(cpu "$SM")
	s0=$(cpu "$SIM")
	m0=$(machine_ticks)
	t0=$(date +%s.%N)
	for i in $(seq 0 $((CLIENTS - 1))); do
		mkdir -p "$W/c$i"
		(cd "$W/c$i" && SIM_HOST=ca-$((i + 1)) LD_PRELOAD=$UMAD2SIM exec timeout 900 \
			"$B/tests/saflood" --sa-lid 1 --attr storm --guids "$W/storm.guids" --job "$JOB" \
			--slice "$i/$CLIENTS" --window "$WINDOW" --timeout 4000 >"$W/c$i/out" 2>&1) &
		pids+=($!)
	done
	if [ "${FLAP:-0}" = 1 ]; then
		while kill -0 "${pids[0]}" 2>/dev/null; do
			echo "Unlink \"sw-L1-2\"[$((SK / 2 + 1))]" >&7
			sleep 0.5
			echo "ReLink \"sw-L1-2\"[$((SK / 2 + 1))]" >&7
			sleep 0.5
		done
	fi
	for p in "${pids[@]}"; do wait "$p"; done
	t1=$(date +%s.%N)
	c1=$(cpu "$SM")
	s1=$(cpu "$SIM")
	m1=$(machine_ticks)
	[ -n "$perfpid" ] && { kill -INT "$perfpid"; wait "$perfpid" 2>/dev/null; }
	# ibsmd: MADs per hand-off from its receiver thread to the loop
	local per=-
	if [ "$name" = ibsmd ]; then
		per=$("$B/smctl" --socket "$W/ibsmd.sock" metrics 2>/dev/null | awk '
			$1 == "ibsmd_umad_received_total" {r = $2}
			$1 == "ibsmd_umad_batches_total" {b = $2}
			$1 == "ibsmd_umad_wakeups_total" {k = $2}
			END {if (b && k) printf "%.1f/%.1f", r / b, r / k; else print "-"}')
	fi
	sm_down
	python3 - "$W" "$CLIENTS" "$t0" "$t1" "$c0" "$c1" "$(getconf CLK_TCK)" "$s0" "$s1" "$per" "$m0" "$m1" <<'PY'
import json, sys
w, n, t0, t1, c0, c1, tck = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
s0, s1, per = int(sys.argv[8]), int(sys.argv[9]), sys.argv[10]
b0, i0 = map(int, sys.argv[11].split())
b1, i1 = map(int, sys.argv[12].split())
busy = (b1 - b0) / tck
tot = {"answered": 0, "wrong": 0, "errors": 0, "timeouts": 0}
for i in range(n):
    try:
        j = json.loads(open("%s/c%d/out" % (w, i)).read().strip().splitlines()[-1])
    except Exception:
        continue
    for k in tot:
        tot[k] += j.get(k, 0)
a = tot["answered"]
cpu = (c1 - c0) / tck
sim = (s1 - s0) / tck
print("%.0f %s %d %d %d %d %.1f %s %.0f %s %s" % (a / (t1 - t0), "%.1f" % (cpu * 1e6 / a) if a else "-", a,
      tot["wrong"], tot["errors"], tot["timeouts"], t1 - t0,
      "%.1f" % (sim * 1e6 / a) if a else "-", 100 * sim / (t1 - t0), per,
      "%.1f" % ((busy - cpu - sim) * 1e6 / a) if a else "-"))
PY
}

if [ "$STORM" = 1 ]; then
	"$B/ibsmd-topogen" fattree3 -k "$SK" -o "$W/storm.net" || exit 1
	# the hosts' port GUIDs (ibsim: a CA's port 1 is its node GUID + 1)
	sed -n 's/^caguid=0x\([0-9a-f]*\).*/\1/p' "$W/storm.net" |
		while read -r g; do printf '%016x\n' $((16#$g + 1)); done >"$W/storm.guids"
	H=$(wc -l <"$W/storm.guids")
	declare -A R
	for sm in ibsmd opensm; do
		storm_sm "$sm" >"$W/res.$sm" # not in a subshell: the simulator's PID stays known
		R[$sm]=$(tail -1 "$W/res.$sm")
	done
	echo "job-start storm: ft3 k=$SK, $H hosts in jobs of $JOB, PathRecord Get by GIDs from" \
		"$CLIENTS clients x $WINDOW outstanding${FLAP:+, a leaf uplink flapping every second}"
	printf "%-8s %8s %9s %9s %6s %6s %8s %7s %10s %8s %9s %10s\n" sm "q/s" "cpu us/q" answered \
		wrong errors timeouts seconds "sim us/q" "sim cpu%" "MADs/b/w" "rest us/q"
	for sm in ibsmd opensm; do
		read -r q u a wr e to sec su sp per rest <<<"${R[$sm]}"
		printf "%-8s %8s %9s %9s %6s %6s %8s %7s %10s %8s %9s %10s\n" "$sm" "$q" "$u" "$a" "$wr" \
			"$e" "$to" "$sec" "$su" "$sp" "$per" "$rest"
	done
	echo "sim: the simulator's CPU over the storm; MADs/b/w: MADs per hand-off from ibsmd's" \
		"receiver thread to its loop / per wake-up of the loop; rest: the machine's other busy" \
		"CPU a query (the clients, everything else), from /proc/stat; $(nproc) CPUs"
	read -r iq iu _ <<<"${R[ibsmd]}"
	read -r oq ou _ <<<"${R[opensm]}"
	python3 -c "
iq, iu, oq, ou = '$iq', '$iu', '$oq', '$ou'
f = lambda a, b: '%.2fx' % (float(a) / float(b)) if a not in ('-', '0') and b not in ('-', '0') else '-'
print('ibsmd / OpenSM: queries per second %s, CPU per query %s' % (f(iq, oq), f(iu, ou)))"
	exit 0
fi

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
