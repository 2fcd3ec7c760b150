#!/bin/bash
# Soak: the SM on ibsim for an hour (SOAK_SECONDS, default 3600) under
# random faults, then a check that the fabric is whole.  Not in make check.
#
#   SOAK_SECONDS=180 [SOAK_K=4] [SOAK_SEED=N] [BUILD=build] tests/soak/soak.sh
#
# Each round (every 2-6 s) injects one of, at random:
#   flap   Unlink a random link (host or inter-switch), ReLink it 1-4 s later
#   drop   Error "node"[port] RATE: a random port drops 10-50 % of its MADs,
#          healed 2-8 s later
#   flood  tests/saflood: 2,000 SA queries (NodeRecord, PathRecord or
#          SMInfoRecord) from a random host
#   ctl    control-socket clients: 20 smctl reads, 12 idle connections held
#          for 10 s, a request dripped a byte a second
#   sminfo a forged SMInfo Set (HANDOVER, DISABLE, STANDBY, DISCOVER) with a
#          wrong SM_Key from a random host: it must be refused
# It samples the SM's RSS and heap in use every round and checks it is alive.  At the end
# every fault is healed, a sweep is asked for, and tests/fabcheck.py checks
# from the diags' view (ibnetdiscover, dump_fts, iblinkinfo) that every
# host reaches every host.  The last lines are the report: faults injected
# by kind, SA queries sent and answered, crashes (0 or the test fails), RSS
# and heap in use at start and end.
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
top_builddir=$(cd "$top_srcdir/${BUILD:-build}" && pwd)
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
DUR=${SOAK_SECONDS:-3600}
K=${SOAK_K:-4}
RANDOM=${SOAK_SEED:-$$}
INJECT="$top_builddir/tests/madinject"
SAFLOOD="$top_builddir/tests/saflood"
for b in "$INJECT" "$SAFLOOD"; do
	[ -x "$b" ] || make -C "$top_builddir" "tests/$(basename "$b")" >/dev/null || exit 1
done

"$TOPOGEN" fattree2 -k "$K" -o "$T/ft.net" || { fail "topogen"; finish; }
NODES=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
mapfile -t HOSTS < <(sed -n 's/^Hca[[:space:]]*[0-9]* "\([^"]*\)".*/\1/p' "$T/ft.net")
# every link once, as "node"[port]: host ports and switch-to-switch ports
mapfile -t LINKS < <(awk '
	/^(Switch|Hca)/ { match($0, /"[^"]*"/); cur = substr($0, RSTART, RLENGTH); sw = /^Switch/ }
	/^\[/ { p = $1; gsub(/[\[\]]/, "", p); peer = $2; sub(/\[.*/, "", peer)
		if (!sw || peer ~ /sw-/) { key = cur < peer ? cur peer : peer cur
			if (!(key in seen)) { seen[key] = 1; print cur "[" p "]" } } }' "$T/ft.net")
sim_start "$T/ft.net" -N 1000 || { fail "ibsim starts"; finish; }
chmod 0711 "$T"
sm_start "$T/state" --sweep-interval 5
wait_for 60 grep -q "subnet up" "$T/smd.err" || { fail "subnet up"; finish; }
SOCK=$SM_SOCK
SMLID=$(sim_run 20 sminfo 2>/dev/null | sed -n 's/^sminfo: sm lid \([0-9]*\).*/\1/p')
SMLID=${SMLID:-1}
MAXLID=$(("${#HOSTS[@]}" + NODES))
j() { "$SMCTL" --socket "$SOCK" --json status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print($1)"; }
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$SM_PID/status" 2>/dev/null; }
# the heap in use (malloc's count, the metrics' ibsmd_memory_bytes{owner="heap"}), kB:
# growing with it, RSS is a leak or a table that grows; flat under a growing RSS, fragmentation
heap() {
	"$SMCTL" --socket "$SOCK" metrics 2>/dev/null |
		awk '/^ibsmd_memory_bytes\{owner="heap"\}/ { printf "%d", $2 / 1024 }'
}
pick() { local -n a=$1; echo "${a[RANDOM % ${#a[@]}]}"; }

declare -A N_FAULT=([flap]=0 [drop]=0 [flood]=0 [ctl]=0 [sminfo]=0)
SENT=0 ANSWERED=0 CRASHES=0 REFUSED_OK=0 ROUNDS=0
HEAL=() # "when|command" pairs due
BG=()   # the floods' and ctl clients' PIDs
sleep 10 # past the first sweeps: the RSS baseline of a running SM
RSS0=$(rss)
HEAP0=$(heap)
log "soak: ${DUR} s on fattree2 k=$K ($NODES nodes, ${#LINKS[@]} links), SM pid $SM_PID, RSS ${RSS0} kB"
END=$((SECONDS + DUR))
RSSLOG="$T/rss.log"

heal_due() { # run the heal commands that are due (all with "all")
	local keep=() h
	for h in "${HEAL[@]}"; do
		if [ "${1:-}" = all ] || [ "${h%%|*}" -le $SECONDS ]; then sim_cmd "${h#*|}"; else keep+=("$h"); fi
	done
	HEAL=("${keep[@]}")
}

flood() {
	local host attr out
	host=$(pick HOSTS)
	attr=$(pick ATTRS)
	out=$(cd "$T" && SIM_HOST=$host LD_PRELOAD="$UMAD2SIM" timeout 60 "$SAFLOOD" --sa-lid "$SMLID" \
		--attr "$attr" --count 2000 --window 16 --lids "1-$MAXLID" 2>/dev/null | tail -1)
	echo "$out" >>"$T/flood.log"
}
ATTRS=(nr pr smir)

ctl_abuse() {
	for _ in $(seq 20); do "$SMCTL" --socket "$SOCK" status >/dev/null 2>&1; done
	setpriv --reuid=65534 --regid=0 --clear-groups /usr/bin/python3 -c '
import socket, sys, time
held = []
for _ in range(12):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1]); held.append(s)
    except OSError:
        pass
d = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
d.connect(sys.argv[1])
for b in b"{\"cmd\":\"status\"}":
    try:
        d.send(bytes([b]))
    except OSError:
        break
    time.sleep(1)
' "$SOCK" >/dev/null 2>&1 &
	BG+=("$!")
}

while [ $SECONDS -lt $END ]; do
	ROUNDS=$((ROUNDS + 1))
	heal_due
	case $((RANDOM % 5)) in
	0)
		l=$(pick LINKS)
		sim_cmd "Unlink ${l}"
		HEAL+=("$((SECONDS + 1 + RANDOM % 4))|ReLink ${l}")
		N_FAULT[flap]=$((N_FAULT[flap] + 1))
		;;
	1)
		l=$(pick LINKS)
		sim_cmd "Error ${l} $((10 + RANDOM % 41))"
		HEAL+=("$((SECONDS + 2 + RANDOM % 7))|Error ${l} 0")
		N_FAULT[drop]=$((N_FAULT[drop] + 1))
		;;
	2)
		flood &
		BG+=("$!")
		N_FAULT[flood]=$((N_FAULT[flood] + 1))
		;;
	3)
		ctl_abuse
		N_FAULT[ctl]=$((N_FAULT[ctl] + 1))
		;;
	4)
		host=$(pick HOSTS)
		mod=$((2 + RANDOM % 4)) # 1 HANDOVER is for a master; 2-5
		st=$(cd "$T" && SIM_HOST=$host LD_PRELOAD="$UMAD2SIM" timeout 5 "$INJECT" --dlid "$SMLID" \
			--method 2 --attr 0x20 --mod "$mod" --sminfo "0x$(printf '%04x%04x' $RANDOM $RANDOM)dead,3" \
			--recv 2>/dev/null | sed -n 's/^answer .* status \(0x[0-9a-f]*\) .*/\1/p')
		N_FAULT[sminfo]=$((N_FAULT[sminfo] + 1))
		# refused (0x001c), or its answer lost to a drop; never obeyed
		if [ "${st:-none}" = 0x0000 ]; then fail "a forged SMInfo Set (mod $mod) was obeyed"
		else REFUSED_OK=$((REFUSED_OK + 1)); fi
		;;
	esac
	if ! kill -0 "$SM_PID" 2>/dev/null; then
		CRASHES=$((CRASHES + 1))
		fail "the SM died in round $ROUNDS: $(tail -3 "$T/smd.err")"
		break
	fi
	echo "$SECONDS $(rss) $(heap)" >>"$RSSLOG"
	sleep $((2 + RANDOM % 5))
done
# the floods and ctl clients of the last rounds end by themselves (bounded)
for p in "${BG[@]}"; do
	for _ in $(seq 600); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill "$p" 2>/dev/null
done
heal_due all
RSS1=$(rss)
HEAP1=$(heap)
ST=$(j 'o["state"]')
check "the SM ran the whole soak (no crash)" kill -0 "$SM_PID"
check "and is master ($ST)" test "$ST" = MASTER
"$SMCTL" --socket "$SOCK" sweep --wait >/dev/null 2>&1 || "$SMCTL" --socket "$SOCK" sweep >/dev/null 2>&1
wait_for 60 bash -c "[ \"\$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"last_sweep_status\"] == \"ok\" else 0)')\" = $NODES ]"
capture final || fail "capture"
check "every host reaches every host (fabcheck)" python3 "$FABCHECK" --topo "$T/final.topo" \
	--fts "$T/final.fts" --links "$T/final.links" --nodes "$NODES"
read -r SENT ANSWERED < <(python3 -c '
import json, sys
s = a = 0
for line in open(sys.argv[1]) if len(sys.argv) > 1 else []:
    try:
        o = json.loads(line); s += o["sent"]; a += o["answered"]
    except Exception:
        pass
print(s, a)' "$T/flood.log" 2>/dev/null || echo "0 0")
RSSMAX=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$RSSLOG")
# flat: the end within 20 % (and 8 MiB) of the start
check "RSS flat: ${RSS0} kB -> ${RSS1} kB (max ${RSSMAX} kB)" \
	test "$RSS1" -le $((RSS0 + RSS0 / 5 + 8192))
# bounded: the heap in use may grow by what fills once (the 256-event ring, the
# engine's spare queue chunks, control buffers), not by the hour; a sanitizer
# build counts no heap (0): no check there
if [ "${HEAP0:-0}" -gt 0 ]; then
	check "heap in use bounded: ${HEAP0} kB -> ${HEAP1} kB" test "${HEAP1:-0}" -le $((HEAP0 + 1536))
fi
log "report: ${DUR} s, $ROUNDS rounds; faults: flap ${N_FAULT[flap]}, drop ${N_FAULT[drop]}," \
	"SA flood ${N_FAULT[flood]}, ctl ${N_FAULT[ctl]}, forged SMInfo ${N_FAULT[sminfo]} (not obeyed: $REFUSED_OK)"
log "report: SA queries sent $SENT, answered $ANSWERED; heavy sweeps $(j 'o["sweeps"]')," \
	"light sweeps $(j 'o["light_sweeps"]'), traps $(j 'o["traps"]');" \
	"ctl request_timeouts $(j 'o["ctl"]["request_timeouts"]') rejected $(j 'o["ctl"]["rejected"]');" \
	"crashes $CRASHES; RSS start ${RSS0} kB, end ${RSS1} kB, max ${RSSMAX} kB;" \
	"heap in use start ${HEAP0:-?} kB, end ${HEAP1:-?} kB"
check "the faults were seen: a sweep for each flap or so ($(j 'o["sweeps"]') for ${N_FAULT[flap]})" \
	test "$(j 'o["sweeps"]')" -ge $((N_FAULT[flap] / 2))
check "SIGTERM stops it cleanly" sm_stop
finish
