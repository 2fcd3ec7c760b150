#!/bin/bash
# Integration: partition enforcement and the SA's partition checks on ibsim:
#   - part_enforce both (OpenSM's default): each switch port facing a CA
#     holds that CA port's P_Key table (smpquery pkeys LID PORT), only the
#     blocks that differ written; a second sweep writes none; PortInfo's
#     enforcement bits as far as the switch's SwitchInfo says it can (ibsim:
#     neither Inbound nor OutboundEnforcementCap, so none);
#   - MCMemberRecord: a host joins the IPoIB group of its partition, not
#     another tenant's (ERR_REQ_INVALID); a group created in a partition
#     admits its members, not the others; a join with a P_Key of no
#     partition: ERR_REQ_INVALID, logged, the daemon keeps answering;
#     MCMemberRecord queries list only the requester's partitions' groups;
#   - ServiceRecord: a registration with a ServiceP_Key the host does not
#     hold is refused, one it holds is taken;
#   - the refusals are counted in status and exported to Prometheus;
#   - part_enforce off (smctl config set): nothing more written to the
#     switch ports' tables;
#   - a host taken out of a partition (SIGHUP) leaves that partition's groups.
. "$(dirname "$0")/lib.sh"

MCJ="$top_builddir/tests/mcjoin"
SAC="$top_builddir/tests/saclient"
jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
js() { jctl status | python3 -c 'import json,sys; print(eval("json.load(sys.stdin)" + sys.argv[1]))' "$1"; }
up() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | grep -q '"subnet_up": true'; }
lid_of() { jctl lids | python3 -c 'import json,sys; print([l for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]][0]["lid"])' "$1"; }
# the non-zero P_Keys of LID $1 (port $2 of a switch), in index order
pkeys() { sim_run 20 smpquery pkeys "$@" 2>/dev/null | sed -n 's/^ *[0-9]*: //p' | tr ' ' '\n' | grep -v '^0x0000$' | grep . | tr '\n' ' '; }
mcj() { local h=$1; shift; (export SIM_HOST=$h; sim_run 60 "$MCJ" "$@" 2>>"$T/mcjoin.err"); }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
st() { field "$1" status; }
sq() { saq "$@"; } # saquery, 5 s timeout, asked again when unanswered (tests/lib.sh)
sweeps() { js '["sweeps"]'; }
sweep() { "$SMCTL" --socket "$SM_SOCK" --timeout 60 call sweep '{"wait": true}' >/dev/null; }
export UMAD2SIM

# ca-N's port GUID in tests/fabrics/fattree-k4.net; ca-2k hangs off sw-L1-k
# port 1, ca-2k+1 off port 2
G() { printf '0x0002c90200000%x01' $(($1 + 1)); }
cat >"$T/partitions.conf" <<P
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
Red = 0x0001, ipoib : $(G 1)=full, $(G 2)=full ;
Blue=0x0002, ipoib : $(G 3)=full, $(G 4) ;  # ca-4 limited
P
printf 'part_enforce = both\n' >"$T/ibsmd.conf"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || { fail "ibsim starts"; finish; }
sm_start "$T/state" -F "$T/ibsmd.conf" --sweep-interval 0 -P "$T/partitions.conf"
check "daemon comes up with the partitions" wait_for 30 up
declare -A L
for i in 0 1 2 3 4 5 6 7; do L[$i]=$(lid_of "ca-$i"); done
for k in 0 1 2 3; do S[$k]=$(lid_of "sw-L1-$k"); done
# the switch port facing ca-i: sw-L1-(i/2), port i%2+1
swp() { echo "${S[$(($1 / 2))]} $(($1 % 2 + 1))"; }

# ---- switch ports facing CAs: the CA's table ----------------------------------------------
for i in 0 1 2 3 4 5 6 7; do
	check "switch port facing ca-$i holds ca-$i's P_Keys ($(pkeys "${L[$i]}"))" \
		test "$(pkeys $(swp $i))" = "$(pkeys "${L[$i]}")"
done
check "... e.g. ca-1's: default limited, Red full" test "$(pkeys $(swp 1))" = "0x7fff 0x8001 "
check "... ca-4's: default limited, Blue limited" test "$(pkeys $(swp 4))" = "0x7fff 0x0002 "
check "a port between switches keeps ibsim's 0xffff" test "$(pkeys "${S[0]}" 3)" = "0xffff "
# ibsim: block 0 of 7 CAs (ca-0, the SM, keeps 0xffff) and 6 switches, and of
# the 7 switch ports facing those CAs (ca-0's switch port too keeps 0xffff)
check "the first sweep wrote 20 blocks, 7 of them on switch ports: $(js '["last_sweep_pkey_blocks"]')" \
	test "$(js '["last_sweep_pkey_blocks"]')" = 20
check "status: 7 enforcement blocks" test "$(js '["partition_enforcement"]["blocks"]')" = 7
sweep
check "a second sweep writes no block" test "$(js '["last_sweep_pkey_blocks"]')" = 0
# ibsim's SwitchInfo: PartitionEnforcementCap 64, no Inbound/OutboundEnforcementCap
sim_run 20 smpquery switchinfo "${S[0]}" >"$T/si" 2>/dev/null
check "ibsim's switches: PartitionEnforcementCap 64" grep -q '^PartEnforceCap:\.*64$' "$T/si"
check "... no InboundEnforcementCap: the bit is not set" \
	bash -c "sim_run() { (cd '$T' && LD_PRELOAD='$UMAD2SIM' timeout 20 \"\$@\"); }; sim_run smpquery portinfo $(swp 1) 2>/dev/null | grep -q '^PartEnforceInb:\.*0$'"

# ---- MCMemberRecord within partitions -----------------------------------------------------
RED_BC=ff12:401b:8001::ffff:ffff
BLUE_BC=ff12:401b:8002::ffff:ffff
J=$(mcj ca-1 join --mgid $RED_BC --qkey 0xb1b --pkey 0x8001 --mask 0x10087)
check "ca-1 (Red) joins Red's IPoIB group" test "$(st "$J")" = 0x0000
J=$(mcj ca-3 join --mgid $RED_BC --qkey 0xb1b --pkey 0x8001 --mask 0x10087)
check "ca-3 (Blue) joining Red's IPoIB group: ERR_REQ_INVALID" test "$(st "$J")" = 0x0200
J=$(mcj ca-3 join --mgid $RED_BC --mask 0x10003)
check "... nor without naming the P_Key" test "$(st "$J")" = 0x0200
J=$(mcj ca-4 join --mgid $BLUE_BC --qkey 0xb1b --pkey 0x0002 --mask 0x10087)
check "ca-4 (Blue, limited) joins Blue's" test "$(st "$J")" = 0x0000
# a group ca-2 creates in Red: ca-1 may join, ca-5 (default only) may not
J=$(mcj ca-2 join --mgid ff15::7:1 --pkey 0x8001)
check "ca-2 creates a group in Red" test "$(st "$J")" = 0x0000
check "... ca-1 (Red) joins it" test "$(st "$(mcj ca-1 join --mgid ff15::7:1 --mask 0x10003)")" = 0x0000
check "... ca-5 (default only) may not" test "$(st "$(mcj ca-5 join --mgid ff15::7:1 --mask 0x10003)")" = 0x0200
check "ca-5 creating a group in Blue: ERR_REQ_INVALID" \
	test "$(st "$(mcj ca-5 join --mgid ff15::7:2 --pkey 0x8002)")" = 0x0200
# bad input: P_Key of no partition, P_Key 0
check "a join with a P_Key of no partition (0x8123): ERR_REQ_INVALID" \
	test "$(st "$(mcj ca-1 join --mgid ff15::7:3 --pkey 0x8123)")" = 0x0200
check "... and with P_Key 0: ERR_REQ_INVALID" \
	test "$(st "$(mcj ca-1 join --mgid ff15::7:4 --pkey 0x0000)")" = 0x0200
check "... logged with why" grep -q "not a member of the partition of the P_Key asked for" "$T/smd.err"
check "... and the daemon keeps answering" test "$(st "$(mcj ca-6 join --mgid ff15::7:5)")" = 0x0000
check "status: 6 joins refused for partitions" test "$(js '["sa_partition_refused"]["joins"]')" = 6
# queries: within the requester's partitions
sq ca-3 MCMR >"$T/mcmr3"
check "ca-3 (Blue) sees Blue's IPoIB group" grep -q "MGID\.*$BLUE_BC" "$T/mcmr3"
check "... not Red's" bash -c "! grep -q 'MGID\.*$RED_BC' '$T/mcmr3'"
check "... nor Red's group ff15::7:1" bash -c "! grep -q 'MGID\.*ff15::7:1$' '$T/mcmr3'"
sq ca-2 MCMR >"$T/mcmr2"
check "ca-2 (Red) sees Red's IPoIB group and ff15::7:1" \
	bash -c "grep -q 'MGID\.*$RED_BC' '$T/mcmr2' && grep -q 'MGID\.*ff15::7:1$' '$T/mcmr2'"
check "... not Blue's" bash -c "! grep -q 'MGID\.*$BLUE_BC' '$T/mcmr2'"

# ---- ServiceRecord: ServiceP_Key must be the host's ----------------------------------------
svc() { local h=$1; shift; (export SIM_HOST=$h; sim_run 30 "$SAC" "$@" 2>/dev/null) | sed -n 's/^status //p'; }
check "ca-1 registers a service in Red" test "$(svc ca-1 sr-set --id 0x10 --pkey 0x8001)" = 0x0000
check "ca-3 registering a service in Red: ERR_REQ_INVALID" \
	test "$(svc ca-3 sr-set --id 0x11 --pkey 0x8001)" = 0x0200
# services with ID 0x10 that host $1 is shown (asked again when the answer is lost on a loaded machine)
srget() {
	local out i
	for i in 1 2 3; do
		out=$( (export SIM_HOST=$1; sim_run 30 "$SAC" sr-get 2>/dev/null))
		grep -q '^status 0x' <<<"$out" && break
	done
	grep -c '^service id 0x0000000000000010 ' <<<"$out"
}
check "ca-2 (Red) sees Red's service" test "$(srget ca-2)" = 1
check "ca-3 (Blue) does not" test "$(srget ca-3)" = 0
check "status: 1 service refused" test "$(js '["sa_partition_refused"]["services"]')" = 1

# ---- Prometheus ---------------------------------------------------------------------------
"$SMCTL" --socket "$SM_SOCK" metrics >"$T/metrics" 2>/dev/null
check "metrics: joins refused for partitions" \
	grep -q '^ibsmd_sa_partition_refused_total{what="join"} 6$' "$T/metrics"
check "metrics: switch-port enforcement blocks" \
	grep -q '^ibsmd_partition_enforcement_blocks_total 7$' "$T/metrics"
check "metrics: services refused for partitions" \
	grep -q '^ibsmd_sa_partition_refused_total{what="service"} 1$' "$T/metrics"
check "metrics: the exposition is well formed, the security series there (promcheck.py)" \
	python3 "$top_srcdir/tests/promcheck.py" --require ibsmd_mkey_refused_total ibsmd_mkey_traps_total \
	ibsmd_mad_unsolicited_total ibsmd_sa_partition_refused_total \
	ibsmd_partition_enforcement_blocks_total <"$T/metrics"

# ---- part_enforce off: nothing written to the switch ports any more ------------------------
sed -i "s/$(G 2)=full ;/$(G 2)=full, $(G 5)=full ;/" "$T/partitions.conf"
printf 'part_enforce = off\n' >"$T/ibsmd.conf"
UPS=$(grep -c 'subnet up' "$T/smd.err")
kill -HUP "$SM_PID"
check "SIGHUP: reloaded" wait_for 20 grep -q 'configuration reloaded' "$T/smd.err"
check "... a sweep ran" wait_for 20 bash -c "[ \$(grep -c 'subnet up' '$T/smd.err') -gt $UPS ]"
wait_for 20 up
check "... one P_Key block written (ca-5's block 0)" test "$(js '["last_sweep_pkey_blocks"]')" = 1
check "status: part_enforce off" test "$(js '["partition_enforcement"]["mode"]')" = off
check "ca-5 is now in Red" test "$(pkeys "${L[5]}")" = "0x7fff 0x8001 "
check "... its switch port keeps the old table (enforcement off)" test "$(pkeys $(swp 5))" = "0x7fff "

# ---- a host taken out of a partition leaves its groups ----------------------------------------
M0=$(js '["multicast"]["members"]')
sed -i "s/$(G 1)=full, //" "$T/partitions.conf"
UPS=$(grep -c 'subnet up' "$T/smd.err")
kill -HUP "$SM_PID"
check "SIGHUP without ca-1 in Red: a sweep ran" wait_for 30 bash -c "[ \$(grep -c 'subnet up' '$T/smd.err') -gt $UPS ]"
wait_for 20 up
check "ca-1's table lost Red" test "$(pkeys "${L[1]}")" = "0x7fff "
check "its two Red memberships (the IPoIB group, ff15::7:1) are dropped ($M0 -> $(js '["multicast"]["members"]'))" \
	wait_for 10 bash -c "[ \"\$('$SMCTL' --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"multicast\"][\"members\"])')\" = $((M0 - 2)) ]"
check "... and said so" grep -q "2 memberships dropped: their ports left the fabric or the group's partition" "$T/smd.err"
check "the daemon stops cleanly" sm_stop
finish
