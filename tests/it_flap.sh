#!/bin/bash
# Integration: a flapping link.  A host link of a 2-level fat tree is
# flapped 100 times quickly (ibsim Unlink/ReLink): the daemon keeps
# answering, quarantines the switch port once it went down flap_threshold
# times (disabled, logged with both ends, a port_quarantined event, listed by
# `smctl ports --unhealthy`), keeps it disabled while the flapping goes on,
# until the operator's `smctl port enable NODE PORT` (quarantine_s = 0: the
# quarantine holds however long the checks take on a loaded machine).  A
# second round, with quarantine_s = 25 s (SIGHUP), is ended by the timer:
# the port is enabled again after quarantine_s, and the subnet converges
# with every node and its LID back (ibsim leaves an enabled port Polling: an
# Unlink and ReLink stand for the link training).  Last, a babbling port: 20
# port-error traps from a host about its own port quarantine its link
# (below the threshold nothing; traps about another node's port never count).
. "$(dirname "$0")/lib.sh"

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || fail "topogen"
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
export SIM_HOST=ca-0
conf() { # conf QUARANTINE_S
	printf 'flap_threshold = 5\nflap_window_s = 60\nquarantine_s = %s\nsweep_holddown_ms = 200\ntrap_flood_threshold = 20\n' "$1" >"$T/ibsmd.conf"
}
conf 0
sm_start "$T/state" -F "$T/ibsmd.conf" --sweep-interval 2
js() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print(eval(sys.argv[1], {}, o))" "$1" 2>/dev/null; }
up_with() { [ "$(js "nodes if subnet_up and last_sweep_status == 'ok' else 0")" = "$1" ]; }
check "daemon brings $N nodes up" wait_for 30 up_with "$N"
"$SMCTL" --socket "$SM_SOCK" events >"$T/events.log" 2>&1 &
EV=$!
PIDS+=("$EV")
wait_for 30 subscribed "$SM_SOCK" 1 || fail "smctl events subscribes"
LID=$("$SMCTL" --socket "$SM_SOCK" --json node ca-3 | python3 -c "import json,sys; print(json.load(sys.stdin)['lid'])")
SW=$("$SMCTL" --socket "$SM_SOCK" --json node ca-3 | python3 -c "import json,sys; p=json.load(sys.stdin)['ports'][0]; print(p['peer_guid'], p['peer_port'])")
read -r SWGUID SWPORT <<<"$SW"
check "ca-3 (LID $LID) hangs off $SWGUID port $SWPORT" test -n "$SWPORT"

# 100 flaps, quickly; the daemon must answer throughout
slow=0
for i in $(seq 100); do
	echo 'Unlink "ca-3"[1]' >&7
	sleep 0.05
	echo 'ReLink "ca-3"[1]' >&7
	sleep 0.05
	if [ $((i % 10)) = 0 ]; then
		timeout 5 "$SMCTL" --socket "$SM_SOCK" status >/dev/null 2>&1 || slow=$((slow + 1))
	fi
done
check "the daemon answered smctl all through the flapping ($slow of 10 checks failed)" test "$slow" = 0
# a flap is counted when a sweep sees the link down: on a loaded machine (a
# sanitizer build beside) sweeps may see fewer than flap_threshold of the 100
# quick ones; flap slower then, a sweep's time each, until it is quarantined
quarantined() { grep -q "0x$(printf %016x $((SWGUID))) .*port $SWPORT quarantined:" "$T/smd.err"; }
for i in $(seq 10); do
	quarantined && break
	echo 'Unlink "ca-3"[1]' >&7
	sleep 1
	echo 'ReLink "ca-3"[1]' >&7
	sleep 1
done
check "the port was quarantined" wait_for 20 grep -q "0x$(printf %016x $((SWGUID))) .*port $SWPORT quarantined: [0-9]* link downs in 60 s" "$T/smd.err"
check "the log names the other end" grep -q "quarantined: .*link to \"ca-3\"" "$T/smd.err"
check "status counts it ($(js flapping))" test "$(js "flapping['quarantined']")" = 1
F0=$FAILS
check "smctl ports --unhealthy lists it" wait_for 10 bash -c "'$SMCTL' --socket '$SM_SOCK' --json ports --unhealthy | tee '$T/unhealthy.json' | python3 -c \"import json,sys; a=json.load(sys.stdin); sys.exit(0 if [(p['node_guid'], p['port']) for p in a] == [('$SWGUID', $SWPORT)] else 1)\""
[ "$FAILS" = "$F0" ] || log "smctl ports --unhealthy said: $(cat "$T/unhealthy.json")"
check "a port_quarantined event" wait_for 5 grep -q "type=port_quarantined .*port=$SWPORT" "$T/events.log"
check "while quarantined the subnet is up without ca-3 ($((N - 1)) nodes)" wait_for 20 up_with $((N - 1))
check "--unhealthy is refused for lids" bash -c "! '$SMCTL' --socket '$SM_SOCK' call lids '{\"unhealthy\": true}' >/dev/null 2>&1"

# the first round is ended by the operator
check "smctl port enable releases it" "$SMCTL" --socket "$SM_SOCK" port enable "$SWGUID" "$SWPORT"
check "released: none quarantined ($(js flapping))" wait_for 10 bash -c "[ \"\$('$SMCTL' --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"flapping\"][\"quarantined\"])')\" = 0 ]"
sim_cmd 'Unlink "ca-3"[1]'
sim_cmd 'ReLink "ca-3"[1]'
check "and the subnet converges again: $N nodes" wait_for 30 up_with "$N"

# a second round, quarantine_s = 25 s: the quarantine ends by itself (enabled,
# ca-3 back with its LID)
reloads=$(grep -c "configuration reloaded" "$T/smd.err")
conf 25
kill -HUP "$SM_PID"
check "SIGHUP: quarantine_s = 25" wait_for 20 bash -c "[ \$(grep -c 'configuration reloaded' '$T/smd.err') -gt $reloads ]"
for i in $(seq 8); do echo 'Unlink "ca-3"[1]' >&7; sleep 0.1; echo 'ReLink "ca-3"[1]' >&7; sleep 0.3; done
# (as above: slower, a sweep's time a flap, while the sweeps saw too few)
for i in $(seq 10); do
	[ "$(js "flapping['quarantines']")" = 2 ] && break
	echo 'Unlink "ca-3"[1]' >&7
	sleep 1
	echo 'ReLink "ca-3"[1]' >&7
	sleep 1
done
check "quarantined again" wait_for 20 bash -c "[ \"\$('$SMCTL' --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"flapping\"][\"quarantines\"])')\" = 2 ]"
check "quarantine over: enabled again" wait_for 60 grep -q "quarantine over after 25 s: enabled" "$T/smd.err"
sim_cmd 'Unlink "ca-3"[1]'
sim_cmd 'ReLink "ca-3"[1]'
check "and the subnet converges: $N nodes" wait_for 30 up_with "$N"
check "ca-3 has its LID again" test "$("$SMCTL" --socket "$SM_SOCK" --json node ca-3 | python3 -c "import json,sys; print(json.load(sys.stdin)['lid'])")" = "$LID"
check "a port_released event (the operator's, then the timer's)" \
	wait_for 5 bash -c "[ \$(grep -c 'type=port_released ' '$T/events.log') -ge 2 ]"
capture healed || fail "capture"
check "every node has its LID, every link ACTIVE" python3 "$FABCHECK" --topo "$T/healed.topo" \
	--fts "$T/healed.fts" --links "$T/healed.links" --nodes "$N"
# a babbling port: ca-2's node sends port-error traps (129) about its own port; at
# trap_flood_threshold (20) in flap_window_s the switch end of its link is quarantined
INJECT="$top_builddir/tests/madinject"
SMLID=$(js sm_lid)
LID2=$("$SMCTL" --socket "$SM_SOCK" --json node ca-2 | python3 -c "import json,sys; print(json.load(sys.stdin)['lid'])")
read -r SW2GUID SW2PORT <<<"$("$SMCTL" --socket "$SM_SOCK" --json node ca-2 | python3 -c "import json,sys; p=json.load(sys.stdin)['ports'][0]; print(p['peer_guid'], p['peer_port'])")"
traps() { # traps HOST COUNT LID: trap 129s from HOST about port 1 of LID
	(export SIM_HOST=$1; sim_run 30 "$INJECT" --dlid "$SMLID" --class 0x01 --method 0x05 \
		--attr 0x02 --trap 129 --notice-port "$3,1" --count "$2" --interval 5 >/dev/null 2>&1)
}
q0=$(js "flapping['quarantines']")
traps ca-2 19 "$LID2" || fail "madinject 19 trap 129s"
check "19 port-error traps are counted" wait_for 10 bash -c "[ \"\$('$SMCTL' --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"flapping\"][\"port_traps\"])')\" -ge 19 ]"
check "19 are below the threshold: nothing quarantined" test "$(js "flapping['quarantines']")" = "$q0"
p0=$(js "flapping['port_traps']")
t0=$(js traps)
traps ca-2 10 "$LID" || fail "madinject trap 129s about ca-3"
wait_for 10 bash -c "[ \"\$('$SMCTL' --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"traps\"])')\" -ge $((t0 + 10)) ]" ||
	fail "the 10 traps about ca-3 arrive"
check "traps from ca-2 about ca-3's port are not counted" test "$(js "flapping['port_traps']")" = "$p0"
traps ca-2 5 "$LID2" || fail "madinject 5 more trap 129s"
check "the 20th quarantines ca-2's switch port" wait_for 10 grep -q "0x$(printf %016x $((SW2GUID))) .*port $SW2PORT quarantined: 20 port-error traps in 60 s about CA \"ca-2\" port 1" "$T/smd.err"
check "a port_quarantined event for it" wait_for 5 grep -q "type=port_quarantined .*port=$SW2PORT .*port-error traps" "$T/events.log"
check "the metrics count it" bash -c "'$SMCTL' --socket '$SM_SOCK' metrics | grep -q '^ibsmd_port_error_traps_total [0-9]'"
check "while quarantined the subnet is up without ca-2 ($((N - 1)) nodes)" wait_for 20 up_with $((N - 1))
check "smctl port enable releases it" "$SMCTL" --socket "$SM_SOCK" port enable "$SW2GUID" "$SW2PORT"
sim_cmd 'Unlink "ca-2"[1]'
sim_cmd 'ReLink "ca-2"[1]'
check "and the subnet converges: $N nodes" wait_for 30 up_with "$N"
check "the daemon survived it all" kill -0 "$SM_PID"
check "SIGTERM stops it cleanly" sm_stop
finish
