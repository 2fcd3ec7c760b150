#!/bin/bash
# Integration: partitions on ibsim (OpenSM's partitions.conf, -P FILE):
#   - --check-config takes a good file and reports a bad one as FILE:LINE;
#   - the P_Key tables read back with smpquery pkeys are the file's
#     membership (full members with bit 15; the SM's port full in the
#     default), only the blocks that differ written;
#   - saquery PR: two hosts in a shared partition get a path, two hosts in
#     different ones (both limited in the default) none;
#   - saquery MCMR: an IPoIB broadcast group per partition flagged ipoib;
#   - SIGHUP with a broken file: logged with FILE:LINE, the running
#     partitions kept; SIGHUP with a changed file: the changed blocks only.
. "$(dirname "$0")/lib.sh"

jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
js() { jctl status | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
up() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | grep -q '"subnet_up": true'; }
lid_of() { jctl lids | python3 -c 'import json,sys; print([l for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]][0]["lid"])' "$1"; }
# the non-zero P_Keys of a LID, in index order
pkeys() { sim_run 20 smpquery pkeys "$1" 2>/dev/null | sed -n 's/^ *[0-9]*: //p' | tr ' ' '\n' | grep -v '^0x0000$' | grep . | tr '\n' ' '; }
# PathRecords from host $1 to LID $2 (asked from host $1)
prs() { (export SIM_HOST=$1; sim_run 20 saquery PR --slid "$(lid_of "$1")" --dlid "$2" 2>/dev/null) | grep -c "PathRecord dump"; }
pr_pkey() { (export SIM_HOST=$1; sim_run 20 saquery PR --slid "$(lid_of "$1")" --dlid "$2" 2>/dev/null) | sed -n 's/^[[:space:]]*pkey\.*//p'; }
hups=0
hup() {
	hups=$((hups + 1))
	kill -HUP "$SM_PID"
	wait_for 10 bash -c "[ \$(grep -c 'configuration reloaded\|rejected; keeping the running' '$T/smd.err') -ge $hups ]"
}
export UMAD2SIM

# ca-N's port GUID in tests/fabrics/fattree-k4.net
G() { printf '0x0002c90200000%x01' $(($1 + 1)); }
cat >"$T/partitions.conf" <<P
# two tenants; the default partition limited for all but the SM
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
Red = 0x0001, ipoib : $(G 1)=full,
	$(G 2)=full ;
Blue=0x0002,ipoib,mtu=4 : $(G 3)=full, $(G 4) ;  # ca-4 limited
P
check "--check-config takes the partitions file" \
	"$IBSMD" --check-config -F /dev/null -P "$T/partitions.conf"
printf 'Red=0x0001 : %s=full;\nBad=0x12345 : ALL;\nX=0x3 : 0xnothex;\nRed=0x0001 : %s;\n' \
	"$(G 1)" "$(G 1)" >"$T/bad.conf"
"$IBSMD" --check-config -F /dev/null -P "$T/bad.conf" >"$T/check.out" 2>&1
check "--check-config: a bad P_Key at FILE:2" grep -q "$T/bad.conf:2: bad P_Key '0x12345'" "$T/check.out"
check "--check-config: bad GUID syntax at FILE:3" grep -q "$T/bad.conf:3: unknown port GUID syntax '0xnothex'" "$T/check.out"
check "--check-config: a duplicate member at FILE:4" grep -q "$T/bad.conf:4: duplicate member $(G 1)" "$T/check.out"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || { fail "ibsim starts"; finish; }
sm_start "$T/state" --sweep-interval 0 -P "$T/partitions.conf"
check "daemon comes up with the partitions" wait_for 30 up
check "status: 3 partitions" test "$(js partitions)" = 3
FIRST_BLOCKS=$(js last_sweep_pkey_blocks)
# ibsim's ports start with 0xFFFF at index 0 and a PartitionCap of 64 (2
# blocks): block 0 of 7 CAs and 6 switches differs, block 1 of none; and
# (part_enforce both, the default) block 0 of the 7 switch ports facing those CAs
check "the first sweep writes only the blocks that differ (20 of 44): $FIRST_BLOCKS" test "$FIRST_BLOCKS" = 20
declare -A L
for i in 0 1 2 3 4 5; do L[$i]=$(lid_of "ca-$i"); done
check "ca-0 (the SM): 0xffff" test "$(pkeys "${L[0]}")" = "0xffff "
check "ca-1: default limited, Red full" test "$(pkeys "${L[1]}")" = "0x7fff 0x8001 "
check "ca-2: default limited, Red full" test "$(pkeys "${L[2]}")" = "0x7fff 0x8001 "
check "ca-3: default limited, Blue full" test "$(pkeys "${L[3]}")" = "0x7fff 0x8002 "
check "ca-4: default limited, Blue limited" test "$(pkeys "${L[4]}")" = "0x7fff 0x0002 "
check "ca-5: default limited only" test "$(pkeys "${L[5]}")" = "0x7fff "
check "a switch: default limited" test "$(pkeys "$(lid_of sw-L1-0)")" = "0x7fff "

check "PR ca-1 -> ca-2 (both Red): one path" test "$(prs ca-1 "${L[2]}")" = 1
check "... with Red's P_Key" test "$(pr_pkey ca-1 "${L[2]}")" = 0x8001
check "PR ca-3 -> ca-4 (Blue, one full): one path" test "$(prs ca-3 "${L[4]}")" = 1
check "PR ca-1 -> ca-3 (Red / Blue): none" test "$(prs ca-1 "${L[3]}")" = 0
check "PR ca-4 -> ca-5 (both limited in the default): none" test "$(prs ca-4 "${L[5]}")" = 0
check "PR ca-5 -> ca-0 (the SM, full in the default): one path" test "$(prs ca-5 "${L[0]}")" = 1
# MCMemberRecords within the requester's partitions; the SA key sees all
mcmr() { (export SIM_HOST=$1; shift; sim_run 20 saquery "$@" MCMR 2>/dev/null); }
mcmr ca-0 >"$T/mcmr.out"
check "MCMR: the default IPoIB group" grep -q "MGID\.*ff12:401b:ffff::ffff:ffff" "$T/mcmr.out"
check "MCMR from ca-0 (default only): not Red's group" bash -c "! grep -q 'MGID\.*ff12:401b:8001::' '$T/mcmr.out'"
mcmr ca-1 >"$T/mcmr.out"
check "MCMR from ca-1: Red's IPoIB group" grep -q "MGID\.*ff12:401b:8001::ffff:ffff" "$T/mcmr.out"
check "... not Blue's" bash -c "! grep -q 'MGID\.*ff12:401b:8002::' '$T/mcmr.out'"
mcmr ca-4 >"$T/mcmr.out"
check "MCMR from ca-4 (Blue, limited): Blue's IPoIB group" grep -q "MGID\.*ff12:401b:8002::ffff:ffff" "$T/mcmr.out"
mcmr ca-0 --smkey 1 >"$T/mcmr.out"
# a trusted GetTable lists members; the three groups have none (issue 27: it listed each
# with a phantom member of PortGID ::, OpenSM lists none; untrusted, the groups are listed)
check "MCMR with the SA key (OpenSM's default, 1): no phantom member of the empty groups" \
	test "$(grep -c 'MGID\.*ff12:401b:' "$T/mcmr.out")" = 0

# a broken file: logged with FILE:LINE, the running partitions kept
cp "$T/partitions.conf" "$T/good.conf"
printf 'Green=0x0003 : 0x12zz;\n' >>"$T/partitions.conf"
check "SIGHUP with a broken file: reloaded" hup
check "... the log names FILE:LINE" grep -q "reload: $T/partitions.conf:6: unknown port GUID syntax '0x12zz'" "$T/smd.err"
check "... and keeps the running partitions" grep -q "keeping the running partitions" "$T/smd.err"
wait_for 20 bash -c "[ \$(grep -c 'subnet up' '$T/smd.err') -ge 2 ] || [ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status | grep -o '\"sweeps\": [0-9]*' | grep -o '[0-9]*$') -ge 2 ]"
check "... no P_Key block written" test "$(js last_sweep_pkey_blocks)" = 0
check "... ca-1 still Red" test "$(pkeys "${L[1]}")" = "0x7fff 0x8001 "
check "... PR ca-1 -> ca-2 still one path" test "$(prs ca-1 "${L[2]}")" = 1

# a changed file: ca-3 moves to Red; only its block 0 changes
sed -e "s/$(G 3)=full, //" -e "s/$(G 2)=full ;/$(G 2)=full, $(G 3)=full ;/" "$T/good.conf" >"$T/partitions.conf"
SWEEPS=$(js sweeps)
check "SIGHUP with a changed file: reloaded" hup
check "... a sweep ran" wait_for 20 bash -c "[ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"sweeps\"])') -gt $SWEEPS ]"
wait_for 10 up
check "... two P_Key blocks written (block 0 of ca-3 and of its switch port)" test "$(js last_sweep_pkey_blocks)" = 2
check "... ca-3: default limited, Red full" test "$(pkeys "${L[3]}")" = "0x7fff 0x8001 "
check "... PR ca-1 -> ca-3 now one path" test "$(prs ca-1 "${L[3]}")" = 1
check "... PR ca-3 -> ca-4 now none" test "$(prs ca-3 "${L[4]}")" = 0
check "the daemon stops cleanly" sm_stop
finish
