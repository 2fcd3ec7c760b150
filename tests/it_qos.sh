#!/bin/bash
# Integration: the QoS policy on ibsim (OpenSM's qos_ keys and the qos-ulps
# section of its qos-policy.conf):
#   - --check-config takes a good configuration and reports bad qos_ values
#     and a bad policy file as FILE:LINE;
#   - the SL2VL and VLArb tables read back with smpquery are the policy's
#     per port class (CA ports, switch external ports), a VL above the
#     port's operational VLs wrapped, OperationalVLs capped by max_vls;
#     a second sweep writes none of them;
#   - saquery PR answers the policy's SL per ServiceID, P_Key, target GUID,
#     the partition's sl= and the default, and no path for another SL;
#   - SIGHUP with a broken qos_ line or a broken policy file: FILE:LINE in
#     the log, the running policy kept; with a changed class: only that
#     class's tables written;
#   - dor on a torus with QoS on: the engine's dateline VLs win for its SLs
#     (read back), the conflict is logged once and shown in smctl status,
#     PathRecords carry the engine's SLs.
. "$(dirname "$0")/lib.sh"

jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
js() { jctl status | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
jq_qos() { jctl status | python3 -c 'import json,sys; print(json.load(sys.stdin)["qos"][sys.argv[1]])' "$1"; }
up() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | grep -q '"subnet_up": true'; }
lid_of() { jctl lids | python3 -c 'import json,sys; print([l for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]][0]["lid"])' "$1"; }
# the 16 VLs of one SL2VL row: "CA_LID" or "SWITCH_LID IN OUT"
sl2vl() {
	local re='[0-9]*' out=
	if [ $# -eq 3 ]; then re=$2; out=$3; fi
	sim_run 20 smpquery sl2vl "$1" $out 2>/dev/null | sed -n "s/^ports: in *$re, out *[0-9]*: |//p" | tr -d ' ' | tr '|' ' ' | sed 's/ $//'
}
# "VL:weight ..." of the low (which=low) or high table of LID PORT, zero weights left out
vlarb() {
	sim_run 20 smpquery vlarb "$2" "$3" 2>/dev/null | python3 -c '
import sys
want, rows, cur = sys.argv[1], {}, None
for l in sys.stdin:
    if l.startswith("# Low"): cur = "low"
    elif l.startswith("# High"): cur = "high"
    elif cur and l.startswith("VL "): rows[cur + "vl"] = [int(x, 16) for x in l.split(":", 1)[1].strip(" |\n").split("|")]
    elif cur and l.startswith("WEIGHT"): rows[cur + "w"] = [int(x, 16) for x in l.split(":", 1)[1].strip(" |\n").split("|")]
print(" ".join("%d:%d" % (v, w) for v, w in zip(rows[want + "vl"], rows[want + "w"]) if w))' "$1"
}
opervls() { sim_run 20 smpquery portinfo "$1" "$2" 2>/dev/null | sed -n 's/^OperVLs:\.*//p'; }
# the SL of the PathRecord from host $1 to LID $2 with saquery options $3...; "none" without one
pr_sl() {
	local h=$1 d=$2 out
	shift 2
	out=$( (export SIM_HOST=$h; sim_run 20 saquery PR --slid "$(lid_of "$h")" --dlid "$d" "$@" 2>/dev/null) )
	if ! grep -q "PathRecord dump" <<<"$out"; then echo none; return; fi
	printf '%d\n' "$(sed -n 's/^[[:space:]]*sl\.\.\.*//p' <<<"$out" | head -1)"
}
hups=0
hup() {
	hups=$((hups + 1))
	kill -HUP "$SM_PID"
	wait_for 10 bash -c "[ \$(grep -c 'configuration reloaded\|rejected; keeping the running configuration' '$T/smd.err') -ge $hups ]"
}
sweeps_past() { [ "$(js sweeps)" -gt "$1" ] && up; }
export UMAD2SIM

# ca-N's port GUID in tests/fabrics/fattree-k4.net
G() { printf '0x0002c90200000%x01' $(($1 + 1)); }
cat >"$T/partitions.conf" <<P
Default=0x7fff : ALL=full ;
Red=0x0001 : $(G 1)=full, $(G 2)=full ;
Blue=0x0002, sl=6 : $(G 3)=full, $(G 4)=full ;
P
cat >"$T/qos-policy.conf" <<Q
# OpenSM's simplified policy
qos-ulps
	default                          : 1
	any, service-id 0x1000           : 5   # first match wins
	sdp                              : 4
	any, pkey 0x0001                 : 3
	srp, target-port-guid $(G 2)     : 7
end-qos-ulps
Q
cat >"$T/ibsmd.conf" <<C
partition_config_file = $T/partitions.conf
qos = true
qos_policy_file = $T/qos-policy.conf
qos_max_vls = 4
qos_vlarb_low = 0:8,1:16,2:32,3:64
qos_vlarb_high = 0:1
qos_swe_vlarb_high = 2:200,3:100
qos_sl2vl = 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3
qos_swe_sl2vl = 3,2,1,0,7,6,5,4,0,0,0,0,1,1,1,15
qos_ca_sl2vl = 1,0,3,2
C
check "--check-config takes the QoS configuration" "$IBSMD" --check-config -F "$T/ibsmd.conf"
printf 'qos = true\nqos_sl2vl = 0,1,99\nqos_ca_vlarb_low = 0:1,1:x\nqos_swe_max_vls = 16\nqos_rtr_vlarb_high = 0:4,15:1\n' >"$T/bad.conf"
"$IBSMD" --check-config -F "$T/bad.conf" >"$T/check.out" 2>&1
check "--check-config: a bad VL in qos_sl2vl at FILE:2" grep -q "$T/bad.conf:2: qos_sl2vl: SL 2: VL must be 0..15" "$T/check.out"
check "--check-config: a bad weight at FILE:3" grep -q "$T/bad.conf:3: qos_ca_vlarb_low: entry 2: weight must be 0..255" "$T/check.out"
check "--check-config: max_vls out of range at FILE:4" grep -q "$T/bad.conf:4: qos_swe_max_vls: 16 is out of range 0..15" "$T/check.out"
check "--check-config: VL 15 in a VLArb table at FILE:5" grep -q "$T/bad.conf:5: qos_rtr_vlarb_high: entry 2: VL must be 0..14" "$T/check.out"
printf 'qos-ulps\n  default : 1\n  any, service-id 0x10-0x1 : 2\n  ipoib, pkey 0x8001 : 16\n  nfs : 1\n  default : 2\nend-qos-ulps\nqos-levels\nend-qos-levels\n' >"$T/badpolicy.conf"
sed "s|$T/qos-policy.conf|$T/badpolicy.conf|" "$T/ibsmd.conf" >"$T/badp.conf"
"$IBSMD" --check-config -F "$T/badp.conf" >"$T/checkp.out" 2>&1
check "--check-config: a reversed range at POLICY:3" grep -q "$T/badpolicy.conf:3: range 0x10-0x1: low end above high end" "$T/checkp.out"
check "--check-config: an SL above 15 at POLICY:4" grep -q "$T/badpolicy.conf:4: SL must be 0..15" "$T/checkp.out"
check "--check-config: an unknown ULP at POLICY:5" grep -q "$T/badpolicy.conf:5: unknown ULP 'nfs'" "$T/checkp.out"
check "--check-config: a second default at POLICY:6" grep -q "$T/badpolicy.conf:6: a second 'default'" "$T/checkp.out"
check "--check-config: the full policy's sections named at POLICY:8" grep -q "$T/badpolicy.conf:8: section 'qos-levels' is OpenSM's full QoS policy" "$T/checkp.out"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || { fail "ibsim starts"; finish; }
sm_start "$T/state" --sweep-interval 0 -F "$T/ibsmd.conf"
check "daemon comes up with QoS" wait_for 30 up
check "status: QoS on, 4 rules and a default" test "$(jq_qos enabled) $(jq_qos ulp_rules) $(jq_qos ulp_default)" = "True 4 True"
declare -A L
for i in 0 1 2 3 4 5; do L[$i]=$(lid_of "ca-$i"); done
SW=$(lid_of sw-L1-0)
# ibsim's ports have VLCap VL0-7; qos_max_vls 4 caps them at VL0-3
check "ca-1 port 1: OperationalVLs VL0-3 (qos_max_vls 4)" test "$(opervls "${L[1]}" 1)" = VL0-3
check "sw-L1-0 port 3: OperationalVLs VL0-3" test "$(opervls "$SW" 3)" = VL0-3
check "ca-1: SL2VL is qos_ca_sl2vl (the SLs it leaves out VL 0)" \
	test "$(sl2vl "${L[1]}")" = "1 0 3 2 0 0 0 0 0 0 0 0 0 0 0 0"
# VLs 4..7 wrap to 0..3 on a port of 4 data VLs (OpenSM's rule); 15 stays (drop)
check "sw-L1-0 in 1 out 3: qos_swe_sl2vl, VLs wrapped at 4" \
	test "$(sl2vl "$SW" 1 3)" = "3 2 1 0 3 2 1 0 0 0 0 0 1 1 1 15"
check "sw-L1-0 in 0 out 2: the same row for port 0 in" \
	test "$(sl2vl "$SW" 0 2)" = "3 2 1 0 3 2 1 0 0 0 0 0 1 1 1 15"
check "ca-1: VLArb low is qos_vlarb_low" test "$(vlarb low "${L[1]}" 1)" = "0:8 1:16 2:32 3:64"
check "ca-1: VLArb high is qos_vlarb_high" test "$(vlarb high "${L[1]}" 1)" = "0:1"
check "sw-L1-0 port 3: VLArb high is qos_swe_vlarb_high" test "$(vlarb high "$SW" 3)" = "2:200 3:100"
check "sw-L1-0 port 3: VLArb low is qos_vlarb_low" test "$(vlarb low "$SW" 3)" = "0:8 1:16 2:32 3:64"
sim_run 20 saquery SL2VL "${L[1]}" >"$T/sa_sl2vl.out" 2>&1
check "saquery SL2VL: the SA answers what was programmed" grep -q "VL: 1| 0| 3| 2| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|" "$T/sa_sl2vl.out"
# every block 3 (high priority) record of the switch's ports: qos_swe_vlarb_high.  One
# query a port and block: since issue 27 the SA answers all four blocks of every port
# (port 0 too), and ibsim hands a client the first MAD of a table only (2 records)
for p in 1 2 3 4; do sim_run 20 saquery VLAR "$SW/$p/3"; sim_run 20 saquery VLAR "$SW/$p/1"; done \
	>"$T/sa_vlarb.out" 2>&1
N3=$(grep -c "Block\.*3$" "$T/sa_vlarb.out")
W3=$(grep -A2 "Block\.*3$" "$T/sa_vlarb.out" | grep -c "Weight:200|100| 0|")
check "saquery VLAR: the switch's $N3 high-priority blocks are qos_swe_vlarb_high ($W3)" \
	test "$N3" -gt 0 -a "$N3" = "$W3"
check "saquery VLAR: its low blocks qos_vlarb_low cut at LowCap 8" \
	grep -A2 "Block\.*1$" "$T/sa_vlarb.out" | grep -q "Weight: 8|16|32|64| 0|"
FIRST=$(jq_qos last_sweep_sl2vl_blocks)
check "the first sweep wrote SL2VL blocks: $FIRST" test "$FIRST" -gt 0
SWEEPS=$(js sweeps)
jctl sweep >/dev/null
check "a second sweep ran" wait_for 30 sweeps_past "$SWEEPS"
check "... and wrote no SL2VL block" test "$(jq_qos last_sweep_sl2vl_blocks)" = 0
check "... and no VLArb block" test "$(jq_qos last_sweep_vlarb_blocks)" = 0
check "... and no Set at all" test "$(js last_sweep_sets)" = 0

# PathRecord SLs
check "PR ca-5 -> ca-0: the default, SL 1" test "$(pr_sl ca-5 "${L[0]}")" = 1
check "PR ca-5 -> ca-0 ServiceID 0x1000: SL 5" test "$(pr_sl ca-5 "${L[0]}" --service_id 0x1000)" = 5
check "PR ca-5 -> ca-0 ServiceID 0x10123 (SDP port 0x123): SL 4" test "$(pr_sl ca-5 "${L[0]}" --service_id 0x10123)" = 4
check "PR ca-1 -> ca-2 P_Key 0x8001 (Red): SL 3, before the target GUID rule" \
	test "$(pr_sl ca-1 "${L[2]}" --pkey 0x8001)" = 3
check "PR ca-1 -> ca-2 (the default P_Key): the target GUID rule, SL 7" test "$(pr_sl ca-1 "${L[2]}")" = 7
check "PR ca-3 -> ca-4 P_Key 0x8002 (Blue, sl=6): the partition's SL 6" \
	test "$(pr_sl ca-3 "${L[4]}" --pkey 0x8002)" = 6
check "PR ca-5 -> ca-0 asking SL 1: one path" test "$(pr_sl ca-5 "${L[0]}" --sl 1)" = 1
check "PR ca-5 -> ca-0 asking SL 2 (not the policy's): none" test "$(pr_sl ca-5 "${L[0]}" --sl 2)" = none

# a broken qos_ line: FILE:LINE, the running configuration kept
cp "$T/ibsmd.conf" "$T/good.conf"
printf 'qos_rtr_sl2vl = 1,0,3,2,17\n' >>"$T/ibsmd.conf"
check "SIGHUP with a broken qos_ line: reloaded" hup
check "... the log names FILE:LINE" grep -q "reload: $T/ibsmd.conf:11: qos_rtr_sl2vl: SL 4: VL must be 0..15" "$T/smd.err"
check "... the daemon runs" kill -0 "$SM_PID"
check "... ca-1's SL2VL unchanged" test "$(sl2vl "${L[1]}")" = "1 0 3 2 0 0 0 0 0 0 0 0 0 0 0 0"
# a broken policy file: FILE:LINE, the running policy kept
cp "$T/good.conf" "$T/ibsmd.conf"
cp "$T/qos-policy.conf" "$T/good-policy.conf"
sed -i 's/sdp *: 4/sdp : 44/' "$T/qos-policy.conf"
SWEEPS=$(js sweeps)
check "SIGHUP with a broken policy file: reloaded" hup
check "... the log names FILE:LINE" grep -q "reload: $T/qos-policy.conf:5: SL must be 0..15" "$T/smd.err"
check "... and keeps the running QoS policy" grep -q "keeping the running QoS policy" "$T/smd.err"
wait_for 30 sweeps_past "$SWEEPS"
check "... PR ServiceID 0x10123 still SL 4" test "$(pr_sl ca-5 "${L[0]}" --service_id 0x10123)" = 4
# a changed class: the CA ports' tables only
cp "$T/good-policy.conf" "$T/qos-policy.conf"
sed -i 's/^qos_ca_sl2vl = .*/qos_ca_sl2vl = 2,2,2,2/' "$T/ibsmd.conf"
SWEEPS=$(js sweeps)
check "SIGHUP with a changed qos_ca_sl2vl: reloaded" hup
check "... a sweep ran" wait_for 30 sweeps_past "$SWEEPS"
jctl status >"$T/status-changed.json"
check "... one SL2VL block per linked CA port (8)" test "$(jq_qos last_sweep_sl2vl_blocks)" = 8
check "... no VLArb block" test "$(jq_qos last_sweep_vlarb_blocks)" = 0
check "... ca-1: the new row" test "$(sl2vl "${L[1]}")" = "2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 0"
check "... sw-L1-0's rows unchanged" test "$(sl2vl "$SW" 1 3)" = "3 2 1 0 3 2 1 0 0 0 0 0 1 1 1 15"
check "the daemon stops cleanly" sm_stop
sim_stop

# dor on a torus: its dateline VLs win for its SLs
"$TOPOGEN" torus -x 3 -y 3 -p 1 -o "$T/torus.net" || fail "topogen torus"
printf 'qos = true\nrouting_engine = dor\n' >"$T/dor.conf"
sim_start "$T/torus.net" || { fail "ibsim starts on the torus"; finish; }
sm_start "$T/state-dor" --sweep-interval 0 -F "$T/dor.conf"
check "dor: daemon comes up" wait_for 60 up
check "dor: routed with dor" test "$(js routing_engine)" = dor
CONF=$(jq_qos engine_conflict_sls)
check "dor: status names the SLs where the engine won: $CONF" test -n "$CONF" -a "$CONF" != "[]"
check "dor: the conflict is logged" grep -q "QoS: the routing engine needs its own VLs for SL" "$T/smd.err"
SWEEPS=$(js sweeps)
jctl sweep >/dev/null
wait_for 30 sweeps_past "$SWEEPS"
check "dor: ... once, not every sweep" test "$(grep -c 'QoS: the routing engine needs its own VLs' "$T/smd.err")" = 1
# a switch port in a ring: SLs 0..3 are the engine's (VL 0/1), 4.. the policy's default (identity, 7 at 15)
S0=$(lid_of sw-0-0)
ROWS=$(for o in 1 2 3 4 5; do sl2vl "$S0" 0 "$o"; echo ","; done | tr -d '\n')
check "dor: sw-0-0: SLs 0-3 on the engine's VLs (0/1, a 1 on some port), 4.. the policy's: $ROWS" \
	python3 -c '
import sys
rows = [[int(x) for x in r.split()] for r in sys.argv[1].split(",") if r.strip()]
ok = len(rows) >= 4 and all(all(v in (0, 1) for v in r[:4]) and r[4:8] == [4, 5, 6, 7] and r[15] == 7 for r in rows)
sys.exit(not (ok and any(1 in r[:4] for r in rows)))' "$ROWS"
N=$(jctl lids | python3 -c 'import json,sys; print(" ".join(str(l["lid"]) for l in json.load(sys.stdin) if l["desc"].startswith("ca-")))')
SLS=$(for d in $N; do pr_sl "$(jctl lids | python3 -c 'import json,sys; print([l["desc"] for l in json.load(sys.stdin) if l["desc"].startswith("ca-")][0])')" "$d"; done | sort -u | tr '\n' ' ')
check "dor: PathRecords carry the engine's SLs (0..3), not the policy's: $SLS" \
	python3 -c 'import sys; s=sys.argv[1].split(); sys.exit(not s or not all(x in "0123" for x in s))' "$SLS"
check "dor: the daemon stops cleanly" sm_stop
finish
