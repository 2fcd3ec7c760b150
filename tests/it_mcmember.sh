#!/bin/bash
# Integration: multicast joins and leaves through the SA (MCMemberRecord) on
# an ibsim fat tree, read back with tools we did not write.
#   - at start-up saquery MCMR lists the IPoIB broadcast group (MLID
#     0xC000) and ClassPortInfo says IsUDMulticastSupported;
#   - hosts join a new group (tests/mcjoin, each attached to its own CA):
#     full, non and send-only members, one MLID; saquery MCMR shows the
#     group with its members hidden, saquery --smkey (the sa_key) shows them;
#     dump_fts -M shows the tree (tests/mftcheck.py: a packet from any member
#     reaches every receiver once, nobody else, switches off the tree hold
#     nothing); a host joins the broadcast group as IPoIB does;
#   - refusals with their status: a conflicting Q_Key, a join for another
#     host's port (ERR_REQ_DENIED; with the key it is a proxy join), an
#     unknown PortGID, a leave of a group that does not exist, malformed
#     MCMemberRecords (tests/madinject); the daemon goes on;
#   - subscribers of traps 66 and 67 get Reports for the create and delete;
#   - leaving: the last full member's leave deletes the group, the MLID's
#     entries are cleared in every switch, saquery no longer lists it, and
#     smctl status's multicast counters are where they started;
#   - 10,000 join/leave cycles from one host (and 1,000 with MGID 0) leave
#     groups, members, MLIDs and the highest MLID where they started;
#   - osmtest -f m: its multicast flow passes every check, its create with
#     JoinState 0xF (SendOnlyFullMember) included, up to its final count.
. "$(dirname "$0")/lib.sh"

MCJ="$top_builddir/tests/mcjoin"
SAC="$top_builddir/tests/saclient"
INJECT="$top_builddir/tests/madinject"
MFTCHECK="$top_srcdir/tests/mftcheck.py"
KEY=0x1 # the SA key of this test's daemon (OpenSM's default sa_key, what osmtest sends)
jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
mc() { jctl status | jget "j['multicast']$1"; }
subnet_up() { jctl status 2>/dev/null | jget 'j["subnet_up"]' 2>/dev/null | grep -qx True; }
# mcj HOST mcjoin-args...: mcjoin attached to HOST; its JSON line(s)
mcj() { local h=$1; shift; (export SIM_HOST=$h; sim_run 600 "$MCJ" "$@" 2>>"$T/mcjoin.err"); }
# field JSON-LINE KEY
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# saquery with a 5 s timeout (its default, 1 s, is short on a loaded 2-core machine),
# asked again when unanswered (tests/lib.sh saq)
sq() { saq "$@"; }
guid_of() { jctl lids | python3 -c '
import json,sys
print(next(l["port_guid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]))' "$1"; }
# the multicast counters that must come back: groups, members, MLIDs, the highest MLID
counters() { mc "['groups'], j['multicast']['members'], j['multicast']['mlids'], j['multicast']['mlid_top']"; }
# mft MLID mftcheck-args...: the switches' tables for MLID, as dump_fts -M reads them, check
mft() {
	local mlid=$1; shift
	sim_run 60 ibnetdiscover >"$T/topo" 2>/dev/null &&
		sim_run 60 dump_fts -M >"$T/mfts" 2>/dev/null &&
		python3 "$MFTCHECK" --topo "$T/topo" --mfts "$T/mfts" --mlid "$mlid" "$@" >"$T/mftcheck.out"
}
not_mft() { ! mft "$@"; }
inj_status() { (export SIM_HOST=ca-2; sim_run 20 "$INJECT" --dlid "$SMLID" --class 0x03 --attr 0x38 "$@" --recv 2>/dev/null) |
	sed -n 's/^answer method 0x.. status \(0x....\).*/\1/p'; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
printf 'sa_key = %s\n' "$KEY" >"$T/ibsmd.conf"
sm_start "$T/state" -F "$T/ibsmd.conf" --sweep-interval 0
wait_for 60 subnet_up || fail "subnet up: $(tail -3 "$T/smd.err")"
SMLID=$(jctl status | jget 'j["sm_lid"]')
for h in 0 1 2 3 4 5 6 7; do eval "G$h=$(guid_of ca-$h)"; done

# ---- start-up ---------------------------------------------------------------------
sq ca-1 MCMR >"$T/mcmr0"
check "saquery MCMR lists the IPoIB broadcast group at start-up" \
	grep -q "MGID\.*ff12:401b:ffff::ffff:ffff$" "$T/mcmr0"
check "with MLID 0xc000 and Q_Key 0xb1b" \
	bash -c "grep -q 'mlid\.*0xc000$' '$T/mcmr0' && grep -q 'qkey\.*0xb1b$' '$T/mcmr0'"
cpi_caps() { sq ca-1 -c | grep -q 'Capability mask\.*0x2600$'; }
check "ClassPortInfo: IsUDMulticastSupported (bit 9), IsMultiPathSupported (10) and IsPortInfoCapMaskMatchSupported" cpi_caps
check "mftcheck.py rejects a tree that is not there (0xc001 for ca-1 before any join)" \
	not_mft 0xc001 --receivers "$G1"
BASE=$(counters)
BASE_G=$(mc "['groups']")
BASE_M=$(mc "['members']")
log "multicast counters at start: $BASE"

# ---- joins from several hosts -------------------------------------------------------
MG=ff15::1:2
J1=$(mcj ca-1 join --mgid $MG)
check "ca-1 creates $MG (full member)" test "$(field "$J1" status)" = 0x0000
MLID=$(field "$J1" mlid)
check "the answer: an MLID above the broadcast group's, the parameters asked for" \
	test "$MLID $(field "$J1" qkey) $(field "$J1" join_state) $(field "$J1" mtu) $(field "$J1" rate)" = \
	"0xc001 0x11223344 1 4 3"
J3=$(mcj ca-3 join --mgid $MG)
J6=$(mcj ca-6 join --mgid $MG --state non --mask 0x10003)
J4=$(mcj ca-4 join --mgid $MG --state sendonly --mask 0x10003)
check "ca-3 joins (full), ca-6 (non), ca-4 (send-only): the same MLID" \
	test "$(field "$J3" mlid) $(field "$J6" mlid) $(field "$J4" mlid)" = "$MLID $MLID $MLID"
check "each answered with its JoinState" \
	test "$(field "$J3" join_state) $(field "$J6" join_state) $(field "$J4" join_state)" = "1 2 4"
sq ca-2 MCMR >"$T/mcmr1"
check "saquery MCMR from ca-2 lists the group, members hidden (untrusted)" \
	bash -c "grep -q 'MGID\.*$MG\$' '$T/mcmr1' && ! grep -q 'PortGid\.*fe80' '$T/mcmr1'"
sq ca-2 --smkey $KEY MCMR >"$T/mcmr1k"
gid6() { python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' "$1"; }
# member GUID JOINSTATE: saquery --smkey, by MGID and PortGID, lists that member (one
# record a query: ibsim has no RMPP, a client sees only an answer's first MAD, 3 records)
member() {
	sq ca-2 --smkey $KEY --mgid $MG --gid "$(gid6 "$1")" MCMR >"$T/member"
	grep -q "PortGid\.*$(gid6 "$1")\$" "$T/member" && grep -q "JoinState\.*0x$2\$" "$T/member" && return
	# what came back instead, for the log of a failure
	log "member $1 (JoinState $2): saquery said: $(tr '\n' ' ' <"$T/member" | tr -s ' .' | cut -c1-300) / $(tr '\n' ' ' <"$T/saq.err" | cut -c1-200)"
	return 1
}
members_listed() { member "$G1" 1 && member "$G3" 1 && member "$G6" 2 && member "$G4" 4; }
check "saquery --smkey MCMR shows its four members (by MGID and PortGID)" members_listed
check "smctl status: one group and four members more, four SA joins" \
	test "$(mc "['groups'], j['multicast']['members'], j['multicast']['sa_joins']")" = \
	"($((BASE_G + 1)), $((BASE_M + 4)), 4)"
check "dump_fts -M: the tree reaches ca-1, ca-3, ca-6 from every member, nothing else" \
	wait_for 20 mft "$MLID" --receivers "$G1,$G3,$G6" --senders "$G4"
[ -s "$T/mftcheck.out" ] && log "$(head -5 "$T/mftcheck.out")"
check "  and mftcheck.py rejects it as the tree of another set (ca-2 a receiver too)" \
	not_mft "$MLID" --receivers "$G1,$G2,$G3,$G6" --senders "$G4"
check "ibsim took every MFT Set" test "$(mc "['mft_errors']")" = 0

# IPoIB's own join: the broadcast group by MGID, P_Key and Q_Key
JB=$(mcj ca-0 join --mgid ff12:401b:ffff::ffff:ffff --qkey 0xb1b --mask 0x10087)
check "ca-0 joins the broadcast group as IPoIB does (MLID 0xc000)" \
	test "$(field "$JB" status) $(field "$JB" mlid)" = "0x0000 0xc000"
check "dump_fts -M: 0xc000 now reaches ca-0's leaf" wait_for 20 mft 0xc000 --receivers "$G0"

# ---- refusals -----------------------------------------------------------------------
st() { field "$1" status; }
check "a join with another Q_Key: ERR_REQ_INVALID" \
	test "$(st "$(mcj ca-2 join --mgid $MG --qkey 0x99)")" = 0x0200
check "ca-2 joining for ca-5's PortGID: ERR_REQ_DENIED" \
	test "$(st "$(mcj ca-2 join --mgid $MG --guid "$G5")")" = 0x0700
JP=$(mcj ca-2 --smkey $KEY join --mgid $MG --guid "$G5")
check "with the SA key it is a proxy join (ProxyJoin 1)" \
	test "$(st "$JP") $(field "$JP" proxy) $(field "$JP" port_guid)" = "0x0000 True $G5"
check "and leaves by proxy too" test "$(st "$(mcj ca-2 --smkey $KEY leave --mgid $MG --guid "$G5")")" = 0x0000
check "a join for a PortGID no port has: ERR_REQ_INVALID_GID" \
	test "$(st "$(mcj ca-2 --smkey $KEY join --mgid $MG --guid 0x1234)")" = 0x0500
check "a leave of a group that does not exist: ERR_REQ_INVALID" \
	test "$(st "$(mcj ca-2 leave --mgid ff15::dead)")" = 0x0200
check "a join without JoinState: ERR_REQ_INSUFFICIENT_COMPONENTS" \
	test "$(st "$(mcj ca-2 join --mgid $MG --mask 0x3)")" = 0x0600
check "JoinState SendOnlyFullMember creates a group (served since issue 27), and leaves it" \
	test "$(st "$(mcj ca-2 join --mgid ff15::5 --state 8)") $(st "$(mcj ca-2 leave --mgid ff15::5 --state 8)")" = "0x0000 0x0000"
check "malformed: a mask past the record -> ERR_REQ_INVALID" \
	test "$(inj_status --method 0x02 --mask 0xfffff)" = 0x0200
check "malformed: a Delete of zeros -> ERR_REQ_INSUFFICIENT_COMPONENTS" \
	test "$(inj_status --method 0x15 --mask 0)" = 0x0600
check "malformed: a Set of garbage is answered" test -n "$(inj_status --method 0x02 --garbage)"
check "malformed: a Set cut to the SA header is answered" \
	test -n "$(inj_status --method 0x02 --len 56 --mask 0x10003)"
check "the daemon goes on" subnet_up
check "the group is as it was: its four members" members_listed

# ---- Reports of traps 66 and 67 -------------------------------------------------------
bg_sub() { # bg_sub HOST OUT TRAP: a subscriber waiting for one Report
	(cd "$T" && SIM_HOST=$1 LD_PRELOAD="$UMAD2SIM" exec timeout -k 5 60 stdbuf -oL "$SAC" \
		inform --trap "$3" --wait 40 --count 1 >"$2" 2>>"$T/saclient.err") &
	PIDS+=("$!")
	echo $!
}
P66=$(bg_sub ca-7 "$T/r66" 66)
P67=$(bg_sub ca-5 "$T/r67" 67)
check "ca-7 subscribes to trap 66, ca-5 to 67" \
	wait_for 15 bash -c "grep -q ^subscribed '$T/r66' && grep -q ^subscribed '$T/r67'"
JR=$(mcj ca-2 join --mgid ff15::6:7)
check "ca-2 creates ff15::6:7" test "$(st "$JR")" = 0x0000
check "ca-7 gets a Report of trap 66 for it" wait_for 20 grep -q "^report trap 66 gid 0x0000000000060007 " "$T/r66"
check "ca-2 leaves it" test "$(st "$(mcj ca-2 leave --mgid ff15::6:7)")" = 0x0000
check "ca-5 gets a Report of trap 67 for it" wait_for 20 grep -q "^report trap 67 gid 0x0000000000060007 " "$T/r67"
for p in $P66 $P67; do for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done; done

# ---- an MGID the SA assigns ---------------------------------------------------------
JZ=$(mcj ca-2 join --mgid 0)
check "MGID 0: the SA assigns ff12:a01b:fe80::..." bash -c "[[ '$(field "$JZ" mgid)' == ff12:a01b:fe80::* ]]"
check "ca-5 joins it by that MGID" \
	test "$(st "$(mcj ca-5 join --mgid "$(field "$JZ" mgid)" --state non --mask 0x10003)")" = 0x0000
check "ca-2 leaves it (the group goes, ca-5 with it)" \
	test "$(st "$(mcj ca-2 leave --mgid "$(field "$JZ" mgid)")")" = 0x0000

# ---- leave all ----------------------------------------------------------------------
check "ca-4 (send-only), ca-6 (non), ca-3 leave: the group stays (ca-1 is a full member)" \
	test "$(st "$(mcj ca-4 leave --mgid $MG --state sendonly)")$(st "$(mcj ca-6 leave --mgid $MG --state non)")$(st "$(mcj ca-3 leave --mgid $MG)")" = 0x00000x00000x0000
only_ca1() { member "$G1" 1 && ! member "$G3" 1; }
check "saquery --smkey lists it with ca-1, no longer ca-3" only_ca1
JL=$(mcj ca-1 leave --mgid $MG)
check "the last full member leaves: answered with JoinState 0 and the MLID" \
	test "$(st "$JL") $(field "$JL" join_state) $(field "$JL" mlid)" = "0x0000 0 $MLID"
# answered, and without the group (an unanswered query is no proof)
not_listed() { sq ca-2 MCMR >"$T/mcmr2" && ! grep -q "MGID\.*$MG\$" "$T/mcmr2"; }
check "saquery MCMR no longer lists $MG" not_listed
check "dump_fts -M: no switch forwards $MLID any more" wait_for 20 mft "$MLID" --empty
[ -s "$T/mftcheck.out" ] && log "$(head -5 "$T/mftcheck.out")"
check "ca-0 leaves the broadcast group, which stays (well known)" \
	test "$(st "$(mcj ca-0 leave --mgid ff12:401b:ffff::ffff:ffff)")" = 0x0000
check "dump_fts -M: 0xc000 forwards nowhere" wait_for 20 mft 0xc000 --empty
check "smctl status: groups, members, MLIDs, top MLID where they started ($BASE)" test "$(counters)" = "$BASE"

# ---- 10,000 join/leave cycles --------------------------------------------------------
J0=$(mc "['sa_joins']")
C1=$(mcj ca-5 cycle --count 10000 --mgid ff15::beef)
log "cycles: $C1"
check "10,000 join/leave cycles from ca-5: every join and leave answered" \
	test "$(field "$C1" joined) $(field "$C1" left) $(field "$C1" failed)" = "10000 10000 0"
check "  all on one MLID" test "$(field "$C1" mlids)" = 1
C2=$(mcj ca-5 cycle --count 1000 --mgid 0)
log "cycles with MGID 0: $C2"
check "1,000 more with MGID 0 (a new MGID each): every one answered, one MLID" \
	test "$(field "$C2" joined) $(field "$C2" left) $(field "$C2" mlids)" = "1000 1000 1"
check "smctl status: 11,000 SA joins more" test "$(mc "['sa_joins']")" = $((J0 + 11000))
check "groups, members, MLIDs, top MLID where they started ($BASE)" test "$(counters)" = "$BASE"
check "dump_fts -M: the cycles' MLID forwards nowhere" wait_for 30 mft 0xc001 --empty
check "ibsim took every MFT Set" test "$(mc "['mft_errors']")" = 0

# ---- osmtest's multicast flow ----------------------------------------------------------
if command -v osmtest >/dev/null; then
	sim_run 120 osmtest -f c -i "$T/osmtest.dat" -l "$T/osmtest-c.log" >"$T/osmtest-c.out" 2>&1
	sim_run 300 osmtest -f m -i "$T/osmtest.dat" -l "$T/osmtest-m.log" >"$T/osmtest-m.out" 2>&1
	log "osmtest -f m: $(grep -o 'TEST "Multicast" [A-Z]*' "$T/osmtest-m.out")"
	# its first failure, outside the errors it expects
	first=$(grep -o 'ERR 0[0-9A-F]\{3\}:* [A-Za-z].*' "$T/osmtest-m.log" | grep -v 'ERR 0003\|ERR 0224' | head -1)
	log "osmtest -f m, first failure: $first"
	# issue 27: SendOnlyFullMember served, the flow runs to its end; its first failure is
	# the final count (ERR 02FE: two groups it made with IPoIB-like MGIDs are left)
	osmt_m_to_end() {
		grep -q 'Cleanup all MCG that are not IPoIB' "$T/osmtest-m.log" &&
			{ [ -z "$first" ] || [[ "$first" == 'ERR 02FE:'* ]]; }
	}
	check "osmtest -f m passes every check of its flow, the create with JoinState 0xF included" \
		osmt_m_to_end
	check "the daemon goes on after osmtest" subnet_up
else
	log "osmtest (Debian opensm) not installed: its flow is skipped"
fi
sm_stop || fail "ibsmd stops"
sim_stop
finish
