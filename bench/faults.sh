#!/bin/bash
# Benchmark: the living fabric.  On a 3-level fat tree in ibsim (k = K), with
# the SM running, one fault at a time and its repair: an inter-switch link
# (a leaf uplink), a host link, every link of one spine switch at once, and
# the same spine cut port by port (GAP ms between its ports, as a switch
# reboots or a line card fails).  Each fault is timed going down (isl, host,
# spine, spine_ports) and coming back (isl_back, ...: the ReLink to the
# subnet up again).  For each SM
# (ibsmd with its defaults, then OpenSM 3.3 on a fresh ibsim) the time from
# the simulator's Unlink to the SM's subnet being up again after it: the
# time stamp of the SM's own "subnet up" log line (ibsmd) or "SUBNET UP"
# line (OpenSM) minus the time the Unlink was written to the simulator's
# console (polling a status costs more than the reaction), the sweep's own
# time, and for ibsmd the SMPs it sent
# and the LFT blocks it wrote (next to a full programming's).  Medians over
# RUNS.  Not a test.
#
# SMD_ARGS: more options for ibsmd (e.g. -v); KEEP=1 keeps the scratch directory.
#   bench/faults.sh [-k K] [-n RUNS] [-f isl,host,spine,spine_ports] [-g GAP]
#                   [--no-opensm]
# Between steps ibsmd settles: its background re-balance done and programmed.
# last cmd: ibsmd's time from the last console line (the last port of
# spine_ports: the cut itself takes ports x ~12 ms) to the subnet up.
# ibsmd's time is also broken down by sweep phase (status last_sweep_phases_ms),
# with the sweeps it took (ups: how many "subnet up" from the command until
# the SM settled, heavy: of those, not incremental) and how they routed
# (repair/engine/background: routing/repair.c, the full engine on the
# critical path, the engine's re-balance run in the background).
set -u
K=16
RUNS=3
OSM=1
FAULTS="isl host spine spine_ports"
GAP=10
while [ $# -gt 0 ]; do
	case $1 in
	-k) K=$2; shift 2 ;;
	-n) RUNS=$2; shift 2 ;;
	-f) FAULTS=$(echo "$2" | tr ',' ' '); shift 2 ;;
	-g) GAP=$2; shift 2 ;;
	--no-opensm) OSM=0; shift ;;
	*) echo "usage: $0 [-k K] [-n RUNS] [-f isl,host,spine,spine_ports] [-g GAP] [--no-opensm]"; exit 2 ;;
	esac
done
. "$(dirname "$0")/lib.sh" faults
SMPID=
LINKS0=0
"$B/ibsmd-topogen" fattree3 -k "$K" -o "$W/ft.net" || exit 1
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$W/ft.net")
UP=$((K / 2 + 1))
SPINE_PORTS=$(sed -n '/^Switch.*"sw-L3-0"/,/^$/p' "$W/ft.net" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')

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
# ibsmd's first "subnet up" line after T0 (s since the epoch) with LINKS
# links active, its time stamp; nothing when none yet
ibsmd_up_with() {
	python3 - "$W/smd.err" "$1" "$2" <<'PY'
import sys, datetime, re
t0, links = float(sys.argv[2]), int(sys.argv[3])
for l in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\S+) ibsmd \S+: subnet up: .* (\d+) links active", l)
    if m and int(m.group(2)) == links:
        t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
        if t > t0:
            print(t)
            break
PY
}
# wait_done N T0 LINKS: until the change is whole.  ibsmd: its first "subnet
# up" after T0 with LINKS links active (a background re-balance after it is
# not counted; the log is read, the SM is not polled); OpenSM: until
# up_count > N and no further SUBNET UP for 2 s, its last.  Prints the time.
wait_done() {
	local end=$((SECONDS + 600)) t last=
	while [ $SECONDS -lt $end ]; do
		case $SMNAME in
		ibsmd)
			t=$(ibsmd_up_with "$2" "$3")
			[ -n "$t" ] && { echo "$t"; return 0; }
			sleep 0.05
			;;
		opensm)
			wait_up "$1" >/dev/null || break
			last=$(up_count)
			sleep 2
			[ "$(up_count)" = "$last" ] && { last_up_time; return 0; }
			;;
		esac
	done
	echo fail
	return 1
}
# the faults: name, console lines to break, console lines to repair
fault_cmds() {
	case $1 in
	isl) echo "Unlink \"sw-L1-0\"[$UP]" ;;
	host) echo 'Unlink "ca-5"[1]' ;;
	spine | spine_ports) for p in $SPINE_PORTS; do echo "Unlink \"sw-L3-0\"[$p]"; done ;;
	esac
}
repair_cmds() { fault_cmds "$1" | sed 's/^Unlink/ReLink/'; }
# send LINES to the simulator's console: at once, or for spine_ports one line
# every GAP ms
SLEEP=$(python3 -c "print($GAP / 1000)")
send_cmds() {
	if [ "$1" = spine_ports ]; then
		local l
		while read -r l; do
			echo "$l" >&7
			now >"$W/tlast"
			sleep "$SLEEP"
		done
	else
		cat >&7
		now >"$W/tlast"
	fi
}
# the "subnet up" lines of ibsmd's log so far; of those the heavy ones (not
# incremental, no re-balance), the repaired ones, the background re-balances
ups_total() { grep -c "subnet up:" "$W/smd.err"; }
ups_heavy() { grep "subnet up:" "$W/smd.err" | grep -v "(incremental" | grep -vc "(re-balanced"; }
ups_repaired() { grep "subnet up:" "$W/smd.err" | grep -c "routing (repaired)"; }
ups_rebalanced() { grep "subnet up:" "$W/smd.err" | grep -c "(re-balanced"; }

declare -A RES PH
# step NAME CMDS: the console lines of CMDS (fault_cmds or repair_cmds) for
# the fault, timed until the subnet is up; for ibsmd what it cost; then
# let the SM settle
step() {
	local name=$1 f=${1%_back} c0 t0 t1 sent0 sent1 u0 h0 rp0 rb0 blocks0 blocks1 want
	c0=$(up_count)
	if [ "$SMNAME" = ibsmd ]; then
		sent0=$(js "mad['sent']")
		u0=$(ups_total)
		h0=$(ups_heavy)
		rp0=$(ups_repaired)
		rb0=$(ups_rebalanced)
		blocks0=$(grep "subnet up:" "$W/smd.err" | sed -n 's/.* \([0-9]*\) LFT blocks.*/\1/p' |
			awk '{s += $1} END {print s + 0}')
	fi
	t0=$(now)
	"$2" "$f" | send_cmds "$f"
	case $name in
	*_back) want=$LINKS0 ;;
	spine*) want=$((LINKS0 - $(echo $SPINE_PORTS | wc -w))) ;;
	*) want=$((LINKS0 - 1)) ;;
	esac
	t1=$(wait_done "$c0" "$t0" "$want") || { echo "$SMNAME $name: not up again"; return 1; }
	RES[$SMNAME,$name,t]+="$(python3 -c "print(round(($t1 - $t0) * 1000))") "
	RES[$SMNAME,$name,last]+="$(python3 -c "print(round(($t1 - $(cat "$W/tlast")) * 1000))") "
	if [ "$SMNAME" = ibsmd ]; then
		sleep 0.3
		RES[$SMNAME,$name,ms]+="$(js "round(last_sweep_ms)") "
		RES[$SMNAME,$name,inc]+="$(js "last_sweep_incremental['incremental']") "
		PH[$name]+="$(js "' '.join('%s=%.0f' % kv for kv in last_sweep_phases_ms.items())")
"
	fi
	sleep 1.5
	# ibsmd: the engine's re-balance in the background done and programmed
	# (at most 120 s), so that the next fault starts from a fresh routing's
	# balance, as the first did
	if [ "$SMNAME" = ibsmd ]; then
		for _ in $(seq 1200); do
			[ "$(js "last_route_rebalance['due'] or last_route_rebalance['running']")" = False ] &&
				break
			sleep 0.1
		done
		sent1=$(js "mad['sent']")
		blocks1=$(grep "subnet up:" "$W/smd.err" | sed -n 's/.* \([0-9]*\) LFT blocks.*/\1/p' |
			awk '{s += $1} END {print s + 0}')
		RES[$SMNAME,$name,mads]+="$((sent1 - sent0)) "
		RES[$SMNAME,$name,blocks]+="$((blocks1 - blocks0)) "
		RES[$SMNAME,$name,sweeps]+="$(($(ups_total) - u0))/$(($(ups_heavy) - h0)) "
		RES[$SMNAME,$name,route]+="$(($(ups_repaired) - rp0))/$(($(ups_total) - u0 - $(ups_repaired) + rp0 - $(ups_rebalanced) + rb0))/$(($(ups_rebalanced) - rb0)) "
	fi
	return 0
}
run_sm() {
	SMNAME=$1
	sim_up "$W/ft.net"
	rm -rf "$W/state" "$W/osm.log"
	mkdir -p "$W/state"
	case $SMNAME in
	ibsmd)
		(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --state-dir "$W/state" \
			--socket "$W/s.sock" -s 10 ${SMD_ARGS:-} >"$W/smd.out" 2>"$W/smd.err") &
		;;
	opensm)
		(cd "$W" && SIM_HOST=ca-0 LD_PRELOAD=$UMAD2SIM exec opensm -d2 -s 10 -f "$W/osm.log" \
			--guid_routing_order_no_scatter >/dev/null 2>&1) &
		;;
	esac
	SMPID=$!
	PIDS+=("$SMPID")
	wait_up 0 >/dev/null || { echo "$SMNAME: subnet never up"; return 1; }
	[ "$SMNAME" = ibsmd ] && FULL_BLOCKS=$(js last_sweep_lft_blocks) && LINKS0=$(js links)
	# a quiet subnet: the SL2VL/VLArb tables read in the background after the
	# bring-up (sm/vltables.h; (n+1)^2 Gets a switch) are read whole first
	if [ "$SMNAME" = ibsmd ]; then
		for _ in $(seq 3000); do
			[ "$(js "vl_tables['reading']")" = 0 ] && break
			sleep 0.2
		done
	fi
	PERFPID=
	# PERF=FILE: a CPU profile of ibsmd over the faults (perf report -i FILE)
	if [ "$SMNAME" = ibsmd ] && [ -n "${PERF:-}" ]; then
		perf record -F 2000 -g -o "$PERF" -p "$SMPID" >/dev/null 2>&1 &
		PERFPID=$!
	fi
	sleep 2
	for f in $FAULTS; do
		for r in $(seq "$RUNS"); do
			step "$f" fault_cmds || break
			step "${f}_back" repair_cmds || break
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
STEPS=
for f in $FAULTS; do STEPS+="$f ${f}_back "; done
uniqc() { echo $1 | tr ' ' '\n' | sort | uniq -c | awk '{printf "%s%sx%s", (NR > 1 ? "," : ""), $1, $2}'; }
echo "3-level fat tree k=$K: $N nodes; $RUNS runs each; medians (ibsmd: a full programming writes ${FULL_BLOCKS:-?} LFT blocks); spine_ports: ${GAP} ms between ports"
printf '%-16s %9s %9s %6s %9s %8s %7s %8s %10s %12s %14s\n' fault "ibsmd ms" "OpenSM ms" ratio \
	"last cmd" "sweep ms" SMPs "LFT blks" "ups/heavy" incremental "repair/engine/bg"
for f in $STEPS; do
	a=$(med "${RES[ibsmd,$f,t]:-}")
	o=$(med "${RES[opensm,$f,t]:-}")
	ratio=$(python3 -c "a, o = '$a', '$o'
print('%.1fx' % (float(o) / float(a)) if a not in ('-', '0', '') and o not in ('-', '') else '-')")
	printf '%-16s %9s %9s %6s %9s %8s %7s %8s %10s %12s %14s\n' "$f" "$a" "$o" "$ratio" \
		"$(med "${RES[ibsmd,$f,last]:-}")" "$(med "${RES[ibsmd,$f,ms]:-}")" "$(med "${RES[ibsmd,$f,mads]:-}")" \
		"$(med "${RES[ibsmd,$f,blocks]:-}")" "$(uniqc "${RES[ibsmd,$f,sweeps]:-}")" \
		"$(uniqc "${RES[ibsmd,$f,inc]:-}")" "$(uniqc "${RES[ibsmd,$f,route]:-}")"
done
# where ibsmd's time went, by sweep phase (ms, medians; route_* and publish_* are parts of route/publish)
for f in $STEPS; do
	[ -n "${PH[$f]:-}" ] || continue
	printf '%s phases:' "$f"
	for k in $(echo "${PH[$f]}" | head -1 | tr ' ' '\n' | cut -d= -f1); do
		v=$(echo "${PH[$f]}" | tr ' ' '\n' | grep "^$k=" | cut -d= -f2 | tr '\n' ' ')
		printf ' %s %s' "$k" "$(med "$v")"
	done
	echo
done
