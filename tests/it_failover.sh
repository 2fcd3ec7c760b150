#!/bin/bash
# Integration: a failover pair on one ibsim fabric, two SMs on two HCAs
# (SIM_HOST picks each one's node); the diag tools run from a third host.
#   - two ibsmd: the higher priority is MASTER, the other STANDBY (its sweep set
#     nothing), sminfo from a third node agrees, each knows the other;
#   - forged SMInfo Sets from an ordinary host (DISABLE, HANDOVER) and one with a
#     wrong SM_Key from an SM's port: refused with a MAD status, counted, logged;
#     an ordinary host's SMInfo Get sees SM_Key 0;
#   - kill -9 of the master: the standby is MASTER within 2 s, no LID changed,
#     every LFT entry the same (dump_fts before/after), only SMLids written (the
#     LFTs were read back), no port or link went down, ClientReregister set on
#     every host port (no state sync here: tests/it_failsync.sh has it),
#     the role changes as events;
#   - a higher-priority ibsmd started beside the master: HANDOVER/ACKNOWLEDGE,
#     the old master steps down before the new one steps up (sminfo sampled on
#     both; the two state_since times), no LFT block rewritten;
#   - a hung master (SIGSTOP 2.5 s), a master cut off by Unlink and healed: one
#     master at the end, the higher priority one;
#   - OpenSM 3.3 both ways (opensm -p N under umad2sim): ibsmd standby under an
#     OpenSM master takes over when it is killed; an OpenSM standby (polling
#     tuned to 500 ms x 1) takes over when ibsmd is killed.
# Hung-master phases are short: ibsim livelocks after ~400 MADs queued to a
# stopped process.
. "$(dirname "$0")/lib.sh"

MADINJECT="$top_builddir/tests/madinject"
"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || fail "topogen"
NODES=$(grep -cE '^(Switch|Hca|Ca)[[:space:]]' "$T/ft.net")
export SIM_HOST=ca-5 # the diag tools' host: no SM there

states_are() { [ "$(smd_field "$1" 'j["state"]') $(smd_field "$2" 'j["state"]')" = "$3" ]; }
# sm_state_at LID: SMState of the SM at LID, as sminfo reads it
sm_state_at() { sim_run 5 sminfo "$1" 2>/dev/null | sed -n 's/.* state \([0-9]\) .*/\1/p'; }
# sminfo_says LID STATE: sminfo from the tools' host names the master at LID, in STATE
sminfo_says() { sim_run 5 sminfo 2>/dev/null | grep -q "sm lid $1 .*state $2"; }
# key_seen LID: the SM_Key in the SMInfo a requester without the key gets from LID
key_seen() { sim_run 5 "$MADINJECT" --dlid "$1" --recv 2>/dev/null | sed -n 's/.*sm_key \(0x[0-9a-f]*\).*/\1/p'; }
# forge HOST LID MOD KEY,STATE,GUID,PRIO: an SMInfo Set from HOST; the answer's status
forge() {
	(cd "$T" && SIM_HOST=$1 LD_PRELOAD="$UMAD2SIM" timeout 5 "$MADINJECT" --dlid "$2" \
		--method 2 --attr 0x20 --mod "$3" --sminfo "$4" --recv 2>/dev/null) |
		sed -n 's/^answer .* status \(0x[0-9a-f]*\) .*/\1/p'
}
# fabric_ok TAG: the diags' view is correct; LIDs into $T/TAG.lids
fabric_ok() {
	capture "$1" && python3 "$FABCHECK" --topo "$T/$1.topo" --fts "$T/$1.fts" \
		--links "$T/$1.links" --nodes "$NODES" --lids-out "$T/$1.lids"
}
# took T0 NAME: seconds from T0 to NAME's last state change
took() { python3 -c "print(round($(smd_field "$2" 'j["state_since"]') - $1, 3))"; }
within() { python3 -c "import sys; sys.exit(not $1 <= $2)"; }
not() { ! "$@"; }
both_logged() { grep -q 'handing the subnet over' "$T/B.err" && grep -q 'handed the subnet over' "$T/A.err"; }

sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

# ---- a pair: A (priority 14) master, B (priority 0) standby ---------------------
smd A ca-0 --priority 14 --sweep-interval 1
wait_for 10 smd_up A || fail "A brings the subnet up"
smd B ca-1 --priority 0 --sweep-interval 1
check "B stands by" wait_for 10 smd_state_is B STANDBY
check "A stays MASTER" smd_state_is A MASTER
check "B's sweep set nothing (the standby touched no switch)" \
	test "$(smd_field B 'j["last_sweep_sets"]')" = 0
check "B knows A as its master (MASTER, priority 14)" test "$(smd_field B \
	'[(p["state"], p["priority"]) for p in j["peers"] if p["guid"] == j["failover"]["master"]]')" = "[('MASTER', 14)]"
check "the SM_Key is OpenSM's default on both" \
	test "$(smd_field A 'j["sm_key"]') $(smd_field B 'j["sm_key"]')" = "default default"
LID_A=$(smd_field A 'j["sm_lid"]')
LID_B=$(smd_field A '[p["lid"] for p in j["peers"] if p["state"] == "STANDBY"][0]')
check "A knows B as a standby (LID $LID_B)" test -n "$LID_B"
check "sminfo from a third node: the master is A (LID $LID_A), MASTER" sminfo_says "$LID_A" 3
check "sminfo of B's LID: STANDBY" test "$(sm_state_at "$LID_B")" = 2
fabric_ok before || fail "fabric correct before the takeover"
check "an ordinary host's SMInfo Get sees SM_Key 0" test "$(key_seen "$LID_A")" = 0x0000000000000000

# ---- forged SMInfo Sets -----------------------------------------------------------
# from ca-5 (not an SM): DISABLE and HANDOVER with the right key, claiming to be master
check "a forged DISABLE from an ordinary host is refused (status 0x001c)" \
	test "$(forge ca-5 "$LID_B" 3 1,3,0x0002c90200000101,15)" = 0x001c
check "a forged HANDOVER from an ordinary host is refused" \
	test "$(forge ca-5 "$LID_B" 1 1,3,0x0002c90200000601,15)" = 0x001c
# from A's own port (IsSM) but with a wrong SM_Key
check "a DISABLE with a wrong SM_Key from an SM's port is refused" \
	test "$(forge ca-0 "$LID_B" 3 0xbad,3,0x0002c90200000101,14)" = 0x001c
check "B is still STANDBY, 3 Sets refused, none obeyed" test "$(smd_field B \
	'(j["state"], j["failover"]["sets_refused"], j["failover"]["sets_accepted"])')" = "('STANDBY', 3, 0)"
check "the refusals are logged" test "$(grep -c 'refused SMInfo Set' "$T/B.err")" -ge 3

# ---- kill -9 of the master: B takes over within 2 s, changing nothing that works ----
"$SMCTL" --socket "$T/B.sock" events >"$T/B.events" 2>/dev/null &
EVENTS=$!
PIDS+=($EVENTS)
wait_for 30 subscribed "$T/B.sock" 1 || fail "smctl events subscribes to B"
t0=$(date +%s.%N)
smd_kill A KILL
wait_for 10 smd_state_is B MASTER
t=$(took "$t0" B)
check "B is MASTER $t s after the kill (within 2 s)" within "$t" 2.0
check "B's reason: the master stopped answering" grep -q "stopped answering" <<<"$(smd_field B 'j["state_reason"]')"
wait_for 10 smd_up B || fail "B brings the subnet up"
# the takeover sweep's end reached the stream: every event before it did too
wait_for 10 grep -q 'type=sweep_end ' "$T/B.events" || fail "B's sweep_end event"
kill "$EVENTS" 2>/dev/null
wait "$EVENTS" 2>/dev/null
check "the takeover wrote no LFT block ($(smd_field B 'j["last_sweep_lft_reads"]') read back)" \
	test "$(smd_field B '(j["last_sweep_lft_blocks"], j["last_sweep_lft_reads"] > 0)')" = "(0, True)"
check "the takeover set only SMLids ($(smd_field B 'j["last_sweep_sets"]') SMPs, $NODES nodes)" \
	test "$(smd_field B 'j["last_sweep_sets"]')" -le "$NODES"
cat >"$T/states.py" <<'EOF'
import sys
ev = [dict(kv.split("=", 1) for kv in l.split(" ") if "=" in kv) for l in open(sys.argv[1])]
st = [(e.get("previous"), e.get("state")) for e in ev if e.get("type") == "state"]
print(st)
sys.exit(0 if st == [("STANDBY", "DISCOVERING"), ("DISCOVERING", "MASTER")] else 1)
EOF
check "events: STANDBY -> DISCOVERING -> MASTER" python3 "$T/states.py" "$T/B.events"
check "events: no port or link went down, no LID changed" \
	not grep -Eq 'type=(port_down|link_down|lid_changed)' "$T/B.events"
fabric_ok after || fail "fabric correct after the takeover"
check "zero LIDs changed" cmp -s "$T/before.lids" "$T/after.lids"
check "every route intact (dump_fts before = after)" cmp -s "$T/before.fts" "$T/after.fts"
# no sync_peers here: the SA state was lost, every host port is told to register again
# (ibsim reads the bit back as 0: the counter of PortInfo Sets with it says)
check "sync off: ClientReregister set on every host port" \
	test "$(smd_field B '(j["sync"]["rereg_ports"], j["sync"]["rereg_takeovers"])')" = "($(smd_field B 'j["cas"]'), 1)"
check "sminfo from a third node: the master is B" sminfo_says "$LID_B" 3

# ---- handover to a newly started higher-priority SM ------------------------------
# sample both SMs' SMInfo in turn while A comes back at priority 14
(for _ in $(seq 30); do
	for l in $LID_A $LID_B; do
		echo "$(date +%s.%N) $l $(cd "$T" && LD_PRELOAD="$UMAD2SIM" timeout 3 sminfo "$l" 2>/dev/null |
			sed -n 's/.* state \([0-9]\) .*/\1/p')"
	done
done >"$T/handover.samples") &
SAMPLER=$!
PIDS+=($SAMPLER)
# the samples must cover B as master before A comes back: else, on a busy machine, the
# handover can be over before the sampler's first look at B and prove nothing
wait_for 30 grep -q " $LID_B 3\$" "$T/handover.samples" || fail "the sampler saw B as MASTER"
smd A ca-0 --priority 14 --sweep-interval 1
check "A becomes MASTER by handover" wait_for 15 smd_state_is A MASTER
check "B stands by again" wait_for 10 smd_state_is B STANDBY
wait "$SAMPLER" 2>/dev/null
check "B sent HANDOVER, A received it" test "$(smd_field B 'j["failover"]["handovers_sent"]') \
$(smd_field A 'j["failover"]["handovers_received"]')" = "1 1"
check "B stepped down before A stepped up (state_since)" \
	within "$(smd_field B 'j["state_since"]')" "$(smd_field A 'j["state_since"]')"
cat >"$T/samples.py" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
a = [float(t) for t, l, s in rows if l == sys.argv[2] and s == "3"]
b = [float(t) for t, l, s in rows if l == sys.argv[3] and s == "3"]
print(len(rows), "samples; A master from", min(a) if a else None, "B master until", max(b) if b else None)
sys.exit(0 if a and b and min(a) > max(b) else 1)
EOF
check "sminfo never saw both MASTER (A's first MASTER after B's last)" \
	python3 "$T/samples.py" "$T/handover.samples" "$LID_A" "$LID_B"
wait_for 10 smd_up A || fail "A brings the subnet up"
check "no LFT block rewritten after the handover" test "$(smd_field A 'j["last_sweep_lft_blocks"]')" = 0
check "the handover is logged on both" both_logged

# ---- a hung master (short SIGSTOP) ----------------------------------------------------
kill -STOP "${SMD_PID[A]}"
check "B takes over from the hung master" wait_for 5 smd_state_is B MASTER
kill -CONT "${SMD_PID[A]}"
check "one master at the end: A (higher) MASTER, B STANDBY" wait_for 10 states_are A B "MASTER STANDBY"
resolved_logged() { grep -q "is master too" "$T/A.err" "$T/B.err"; }
check "the two masters met and resolved it (logged)" resolved_logged

# ---- a master cut off and healed ---------------------------------------------------------
sim_cmd 'Unlink "ca-0"[1]'
check "B takes over from the cut-off master" wait_for 5 smd_state_is B MASTER
sim_cmd 'ReLink "ca-0"[1]'
check "healed: one master, A; B STANDBY" wait_for 15 states_are A B "MASTER STANDBY"
wait_for 10 smd_up A
fabric_ok healed || fail "fabric correct after the heal"
smd_kill A
smd_kill B

# ---- OpenSM master, ibsmd standby: ibsmd takes over ------------------------------------
mkdir -p "$T/osm1" "$T/osm2"
(cd "$T" && SIM_HOST=ca-0 OSM_CACHE_DIR="$T/osm1" OSM_TMP_DIR="$T/osm1" LD_PRELOAD="$UMAD2SIM" \
	exec opensm -p 10 -f "$T/osm1/osm.log" >"$T/osm1.out" 2>&1) &
OSM=$!
PIDS+=($OSM)
osm_master() { sim_run 3 sminfo 2>/dev/null | grep -q 'priority 10 state 3'; }
check "OpenSM is master" wait_for 20 osm_master
smd C ca-1 --priority 1
check "ibsmd stands by under OpenSM (its SMInfo, key 1, taken)" wait_for 10 smd_state_is C STANDBY
check "ibsmd's peer is OpenSM: MASTER, priority 10, same SM_Key" test "$(smd_field C \
	'[(p["state"], p["priority"], p["sm_key"]) for p in j["peers"]]')" = "[('MASTER', 10, 'same')]"
sim_run 30 ibnetdiscover >"$T/osm-before.topo" 2>/dev/null &&
	python3 "$FABCHECK" --topo "$T/osm-before.topo" --lids-out "$T/osm-before.lids" >/dev/null ||
	fail "LIDs under OpenSM"
t0=$(date +%s.%N)
kill -9 "$OSM"
wait "$OSM" 2>/dev/null
wait_for 10 smd_state_is C MASTER
t=$(took "$t0" C)
check "ibsmd is MASTER $t s after OpenSM's kill (within 2 s)" within "$t" 2.0
wait_for 10 smd_up C || fail "ibsmd brings the subnet up after OpenSM"
fabric_ok osm-after || fail "fabric correct after ibsmd took over from OpenSM"
check "every LID OpenSM gave is kept" cmp -s "$T/osm-before.lids" "$T/osm-after.lids"

# ---- ibsmd master, OpenSM standby: OpenSM takes over ------------------------------------
# force_log_flush: OpenSM buffers its log otherwise
printf 'force_log_flush TRUE\nsminfo_polling_timeout 500\npolling_retry_number 1\n' >"$T/osm2/opensm.conf"
(cd "$T" && SIM_HOST=ca-0 OSM_CACHE_DIR="$T/osm2" OSM_TMP_DIR="$T/osm2" LD_PRELOAD="$UMAD2SIM" \
	exec opensm -F "$T/osm2/opensm.conf" -p 0 -f "$T/osm2/osm.log" >"$T/osm2.out" 2>&1) &
OSM=$!
PIDS+=($OSM)
check "OpenSM stands by under ibsmd (it got ibsmd's SM_Key)" \
	wait_for 20 grep -q 'Entering STANDBY state' "$T/osm2/osm.log"
check "ibsmd stays MASTER" smd_state_is C MASTER
OSM_LID=$LID_A # OpenSM runs on A's host, which keeps its LID
osm_standby_peer() { [ "$(smd_field C '[p["state"] for p in j["peers"] if p["priority"] == 0]')" = "['STANDBY']" ]; }
check "ibsmd sees OpenSM as a standby peer" wait_for 10 osm_standby_peer
smd_kill C KILL
osm_is_master() { [ "$(sm_state_at "$OSM_LID")" = 3 ]; }
check "OpenSM takes over when ibsmd is killed" wait_for 15 osm_is_master
osm_up() { osm_is_master && fabric_ok osm2-after; }
check "fabric correct after OpenSM took over" wait_for 15 osm_up
check "every LID kept by OpenSM" cmp -s "$T/osm-after.lids" "$T/osm2-after.lids"
kill "$OSM" 2>/dev/null
sim_stop
finish
