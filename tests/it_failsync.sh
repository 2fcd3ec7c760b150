#!/bin/bash
# Integration: SA state carried from a master to its standby (failover/sync.c) on one
# ibsim fabric, two ibsmd on two HCAs (SIM_HOST), the clients on other hosts.
#   - A (priority 14) master, B standby; each serves sync_listen and pulls from
#     the other's (sync_peers); hosts join the IPoIB broadcast group and a test
#     group (tests/mcjoin), register a service (tests/saclient);
#   - B holds A's document (smctl status sync.held); a request with a wrong
#     SM_Key is refused by A (403, logged); a hostile peer also in B's
#     sync_peers (tests/syncfake.py: garbage, truncated, another SM's GUID, 17
#     MiB, version 2) is refused with a log line each, and B keeps A's state;
#   - kill -9 of A: B is master and answers the same MCMemberRecord (MGID, MLID,
#     members) and ServiceRecord queries; the MFTs (dump_fts -M) are the same,
#     B read them back and wrote no MFT block;
#     no ClientReregister was set (the counter of PortInfo Sets with it: ibsim
#     reads the bit back as 0 whatever was set);
#   - A comes back as a standby, pulls B's state, is raised to priority 14: B
#     hands the subnet over (HANDOVER, ACKNOWLEDGE) and A carries the groups and
#     service, with the same MLID and no ClientReregister;
#   - C, an ibsmd without sync, stands by under A; kill -9 of A: C takes over
#     and sets ClientReregister on every host port (the counter).
. "$(dirname "$0")/lib.sh"

MCJ="$top_builddir/tests/mcjoin"
SAC="$top_builddir/tests/saclient"
FAKE="$top_srcdir/tests/syncfake.py"
KEY=0x1
"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || fail "topogen"
export SIM_HOST=ca-5 # the diag tools' host: no SM there

# three free TCP ports on 127.0.0.1
read -r PA PB PF < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
printf 'sa_key = %s\nsync_listen = 127.0.0.1:%s\nsync_peers = 127.0.0.1:%s\nsync_interval_ms = 300\n' \
	"$KEY" "$PA" "$PB" >"$T/A.conf"
printf 'sa_key = %s\nsync_listen = 127.0.0.1:%s\nsync_peers = 127.0.0.1:%s,127.0.0.1:%s\nsync_interval_ms = 300\n' \
	"$KEY" "$PB" "$PA" "$PF" >"$T/B.conf"
printf 'sa_key = %s\n' "$KEY" >"$T/C.conf"

jfield() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
mcj() { local h=$1; shift; (export SIM_HOST=$h; sim_run 60 "$MCJ" "$@" 2>>"$T/mcjoin.err"); }
on() { local h=$1; shift; (export SIM_HOST=$h; sim_run 30 "$SAC" "$@" 2>>"$T/saclient.err"); }
sq() { saq "$@"; } # saquery, 5 s timeout, asked again when unanswered (tests/lib.sh)
guid_of() { "$SMCTL" --socket "$T/$1.sock" --timeout 5 --json lids | python3 -c '
import json,sys
print(next(l["port_guid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]))' "$2"; }
gid6() { python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' "$1"; }
# member MGID GUID JOINSTATE: the SA (queried with the SA key) lists that member
member() {
	sq ca-6 --smkey $KEY --mgid "$1" --gid "$(gid6 "$2")" MCMR >"$T/member"
	grep -q "PortGid\.*$(gid6 "$2")\$" "$T/member" && grep -q "JoinState\.*0x$3\$" "$T/member"
}
# group_mlid MGID: the MLID saquery MCMR gives for it
group_mlid() { sq ca-6 --mgid "$1" MCMR | sed -n 's/^[[:space:]]*Mlid\.*\(0x[0-9a-f]*\)$/\1/ip' | head -1; }
# http_code URL KEY: the HTTP status of a sync request with that SM_Key header
http_code() { python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"X-Ibsmd-SM-Key": sys.argv[2]}), timeout=3)
    print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception as e:
    print("error", e)
PY
}
held() { smd_field B "j['sync']['held'] and (j['sync']['held']['master'], j['sync']['held']['groups'], j['sync']['held']['services'])"; }
not() { ! "$@"; }

sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

# ---- the pair, with sync ------------------------------------------------------------
smd A ca-0 -F "$T/A.conf" --priority 14 --sweep-interval 1
wait_for 20 smd_up A || fail "A brings the subnet up: $(tail -3 "$T/A.err")"
smd B ca-1 -F "$T/B.conf" --priority 0 --sweep-interval 1
check "B stands by" wait_for 15 smd_state_is B STANDBY
GA=$(smd_field A 'j["sm_guid"]')
MG=ff15::1:2
BC=ff12:401b:ffff::ffff:ffff
J2=$(mcj ca-2 join --mgid $MG)
J3=$(mcj ca-3 join --mgid $MG --state non --mask 0x10003)
JB=$(mcj ca-4 join --mgid $BC --qkey 0xb1b --mask 0x10087)
MLID=$(jfield "$J2" mlid)
check "hosts join: $MG at $MLID (ca-2 full, ca-3 non), ca-4 the IPoIB broadcast group" \
	test "$(jfield "$J2" status) $(jfield "$J3" status) $(jfield "$JB" status) $(jfield "$JB" mlid)" = \
	"0x0000 0x0000 0x0000 0xc000"
on ca-2 sr-set --id 0x1234 --name failsync-test >"$T/set"
check "ca-2 registers a service" grep -q '^status 0x0000$' "$T/set"
G2=$(guid_of A ca-2)
G3=$(guid_of A ca-3)
G4=$(guid_of A ca-4)
check "B holds A's state: 2 groups, 1 service" wait_for 10 test "$(held)" = "('$GA', 2, 1)"
log "document: $(python3 -c '
import sys, time, urllib.request
t = time.time()
b = urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"X-Ibsmd-SM-Key": sys.argv[2]}), timeout=3).read()
print("%d bytes in %.1f ms" % (len(b), (time.time() - t) * 1e3))' "http://127.0.0.1:$PA/ibsmd/sync/v1" $KEY)"
sim_run 60 dump_fts -M >"$T/mft.before" 2>/dev/null
check "dump_fts -M reads MLID $MLID before" grep -qi "$MLID" "$T/mft.before"

# ---- what is refused ------------------------------------------------------------------
check "A refuses a sync request with a wrong SM_Key (403)" \
	test "$(http_code "http://127.0.0.1:$PA/ibsmd/sync/v1" 0x2)" = 403
check "  and with none" test "$(http_code "http://127.0.0.1:$PA/ibsmd/sync/v1" '')" = 403
check "  and logs it" grep -q 'sync: request from 127.0.0.1:[0-9]* refused: wrong SM_Key' "$T/A.err"
check "A answers the right key (200)" test "$(http_code "http://127.0.0.1:$PA/ibsmd/sync/v1" $KEY)" = 200
check "B, a standby, answers 503" test "$(http_code "http://127.0.0.1:$PB/ibsmd/sync/v1" $KEY)" = 503
python3 "$FAKE" "$PF" "http://127.0.0.1:$PA/ibsmd/sync/v1" $KEY 2>>"$T/fake.err" &
FAKE_PID=$!
PIDS+=($FAKE_PID)
saw() { grep -q "sync: document from 127.0.0.1:$PF refused: $1" "$T/B.err"; }
check "a hostile peer: garbage refused (logged)" wait_for 15 saw 'not JSON'
check "  a truncated document refused" wait_for 10 saw 'not JSON: .*premature\|not JSON: .*end of file\|not JSON: .*unexpected'
check "  another SM's document refused" wait_for 10 saw "it is SM 0x00000000deadbeef's"
check "  a 17 MiB answer refused" wait_for 10 saw 'no answer (refused, timed out, or over'
check "  version 2 refused" wait_for 10 saw 'version 2'
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null
check "B still holds A's state" test "$(held)" = "('$GA', 2, 1)"
check "B counts the refusals" test "$(smd_field B 'j["sync"]["rejected"] >= 5')" = True

# ---- kill -9 of the master: B carries the state over --------------------------------
# (once B has pulled A's document again since the hostile peer went away)
acc=$(smd_field B 'j["sync"]["accepted"]')
pulled_again() { [ "$(smd_field B 'j["sync"]["accepted"]')" -gt "$acc" ]; }
wait_for 10 pulled_again || fail "B pulls A's document again"
t0=$(date +%s.%N)
smd_kill A KILL
check "B is MASTER" wait_for 10 smd_state_is B MASTER
t=$(python3 -c "print(round($(smd_field B 'j["state_since"]') - $t0, 3))")
check "B is MASTER $t s after the kill (within 2 s)" python3 -c "import sys; sys.exit(not $t <= 2.0)"
wait_for 15 smd_up B || fail "B brings the subnet up"
log "B: $(smd_field B 'j["sync"]["last_takeover"]')"
log "B: subnet up, last sweep $(smd_field B 'j["last_sweep_ms"]') ms, $(smd_field B 'j["last_sweep_sets"]') SMPs set"
check "B logged the state carried" grep -q 'sync: takeover: carried generation .* 2 groups (3 members), 1 services' "$T/B.err"
check "the test group answered with the same MLID ($MLID)" test "$(group_mlid $MG)" = "$MLID"
check "the IPoIB broadcast group at 0xc000" test "$(group_mlid $BC)" = 0xc000
two_members() { member $MG "$G2" 1 && member $MG "$G3" 2; }
check "its members still there: ca-2 full, ca-3 non" two_members
check "ca-4 still in the broadcast group" member $BC "$G4" 1
sq ca-6 SR >"$T/sr"
check "saquery SR: ca-2's service still registered" \
	bash -c "grep -q 'ServiceName.*failsync-test' '$T/sr' && grep -q 'ServiceGID\.*$(gid6 "$G2")\$' '$T/sr'"
on ca-3 sr-get --name failsync-test >"$T/get"
check "saclient sr-get from ca-3: the same record" grep -q "service id 0x0000000000001234 guid $G2 .*name failsync-test$" "$T/get"
# (once B has read the MFTs back)
mfts_read() { [ "$(smd_field B 'j["multicast"]["mft_read_blocks"] > 0')" = True ]; }
wait_for 20 mfts_read || fail "B reads the MFTs back"
sim_run 60 dump_fts -M >"$T/mft.after" 2>/dev/null
check "the MFTs are the same (dump_fts -M before = after)" cmp -s "$T/mft.before" "$T/mft.after"
check "B read the MFTs back and wrote none ($(smd_field B 'j["multicast"]["mft_read_blocks"]') read)" \
	test "$(smd_field B 'j["multicast"]["mft_blocks"] == 0 and j["multicast"]["mft_read_blocks"] > 0')" = True
check "no ClientReregister set (counter 0, 1 takeover carried)" \
	test "$(smd_field B '(j["sync"]["rereg_ports"], j["sync"]["carried"])')" = "(0, 1)"
# (ibsim answers a PortInfo Get with ClientReregister 0 whatever was set: the
# counter of PortInfo Sets that carried the bit is what says)

# ---- a handover with sync: A comes back, holds B's state, is made the better SM ----------
# B outranks A at first (A's port GUID is the lower: at equal priority A would win at once)
"$SMCTL" --socket "$T/B.sock" priority 5 >/dev/null || fail "smctl priority 5 on B"
: >"$T/A.err"
smd A ca-0 -F "$T/A.conf" --priority 0 --sweep-interval 1
check "A, back, stands by under B" wait_for 20 smd_state_is A STANDBY
GB=$(smd_field B 'j["sm_guid"]')
heldA() { smd_field A "j['sync']['held'] and (j['sync']['held']['master'], j['sync']['held']['groups'], j['sync']['held']['services'])"; }
check "A holds B's state: 2 groups, 1 service" wait_for 15 test "$(heldA)" = "('$GB', 2, 1)"
"$SMCTL" --socket "$T/A.sock" priority 14 >/dev/null || fail "smctl priority 14 on A"
check "B hands the subnet over to A: A is MASTER" wait_for 20 smd_state_is A MASTER
check "  and B stands by" wait_for 10 smd_state_is B STANDBY
check "  both logged the handover" wait_for 5 bash -c "grep -q 'handing the subnet over' '$T/B.err' && grep -q 'handed the subnet over' '$T/A.err'"
wait_for 15 smd_up A || fail "A brings the subnet up after the handover"
check "A carried B's state at the handover" grep -q 'sync: takeover: carried generation .* 2 groups (3 members), 1 services' "$T/A.err"
check "the test group answered with the same MLID ($MLID)" test "$(group_mlid $MG)" = "$MLID"
check "its members still there after the handover" two_members
check "no ClientReregister set by A (counter 0, 1 takeover carried)" \
	test "$(smd_field A '(j["sync"]["rereg_ports"], j["sync"]["carried"])')" = "(0, 1)"
smd_kill B

# ---- without sync: C takes over from A and sets ClientReregister -----------------------
smd C ca-1 -F "$T/C.conf" --priority 0 --sweep-interval 1
check "C (no sync) stands by under A" wait_for 15 smd_state_is C STANDBY
smd_kill A KILL
check "C is MASTER" wait_for 10 smd_state_is C MASTER
wait_for 15 smd_up C || fail "C brings the subnet up"
check "C logged why: sync is off" grep -q 'sync: takeover: sync is off' "$T/C.err"
check "C set ClientReregister on every host port ($(smd_field C 'j["cas"]') CAs)" \
	test "$(smd_field C '(j["sync"]["rereg_ports"], j["sync"]["rereg_takeovers"])')" = "($(smd_field C 'j["cas"]'), 1)"
finish
