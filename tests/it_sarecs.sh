#!/bin/bash
# Integration (issue 27): the SA's records of every port and the switch
# settings OpenSM makes, read back with tools we did not write, on a fat
# tree under ibsim (minhop, no QoS: ibsmd programs no VL table):
#   - saquery SL2VL / VLAR / PKTR of a CA port, a switch's port 0 and a
#     switch external port equal what smpquery sl2vl / vlarb / pkeys read
#     off that port (the tables read in the background, vl_tables in
#     `smctl status`);
#   - SwitchInfo LifeTimeValue 18 and HOQLife 16 toward CAs, 18 toward
#     switches (smpquery), PathRecord PacketLifeTime 18 + log2(switches);
#     packet_life_time and head_of_queue_lifetime changed by SIGHUP are
#     programmed by the next sweep, and PathRecords follow;
#   - osmtest -f q (SLtoVL and VLArb records of every port) passes;
#   - a SendOnlyFullMember join (JoinState 8) creates a group; a receiver
#     joins; dump_fts -M: the receiver's port set, the sender's not, every
#     packet of either reaches the receiver; the group goes with its last
#     member; ClassPortInfo advertises it.
. "$(dirname "$0")/lib.sh"

MCJ="$top_builddir/tests/mcjoin"
MFTCHECK="$top_srcdir/tests/mftcheck.py"
jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
subnet_up() { jctl status 2>/dev/null | jget 'j["subnet_up"]' 2>/dev/null | grep -qx True; }
# the background read of the VL tables is done (every node read)
vl_read() { [ "$(jctl status | jget 'j["vl_tables"]["reading"], j["vl_tables"]["nodes"]' 2>/dev/null)" = "(0, $1)" ]; }
lid_of() { jctl lids | python3 -c '
import json,sys
print(next(l["lid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]))' "$1"; }
guid_of() { jctl lids | python3 -c '
import json,sys
print(next(l["port_guid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]))' "$1"; }
smp() { (export SIM_HOST=ca-0; sim_run 20 smpquery "$@" 2>/dev/null); }
mcj() { local h=$1; shift; (export SIM_HOST=$h; sim_run 60 "$MCJ" "$@" 2>>"$T/mcjoin.err"); }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# sl2vl_same LID IN OUT [SMPQUERY-ARGS]: saquery's SL2VL record of (LID, IN, OUT) says the VLs
# smpquery sl2vl reads off that pair
sl2vl_same() {
	local lid=$1 in=$2 out=$3; shift 3
	saq ca-0 SL2VL "$lid/$in/$out" >"$T/sa.sl2vl" 2>/dev/null
	smp sl2vl "$lid" "$@" >"$T/smp.sl2vl"
	python3 - "$T/sa.sl2vl" "$T/smp.sl2vl" "$in" "$out" <<'EOF'
import re, sys
sa, smp, i, o = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
vls = re.findall(r'^\s*VL:\s*((?:\s*\d+\|){16})', sa, re.M)
want = re.search(r'ports: in\s+%s, out\s+%s:\s*\|((?:\s*\d+\|){16})' % (i, o), smp)
if len(vls) != 1 or not want:
    sys.exit('saquery %d records, smpquery row %s' % (len(vls), bool(want)))
a = [int(x) for x in vls[0].replace('|', ' ').split()]
b = [int(x) for x in want.group(1).replace('|', ' ').split()]
sys.exit(0 if a == b else 'saquery %s, smpquery %s' % (a, b))
EOF
}

# vlarb_same LID PORT [SMPQUERY-PORT]: saquery's VLArb blocks 1 (low) and 3 (high) of (LID, PORT)
# hold, in their first entries, smpquery vlarb's low and high tables of the port
vlarb_same() {
	local lid=$1 port=$2
	# one block a query: a table of 4 is 2 MADs, and ibsim has no RMPP
	for b in 1 2 3 4; do saq ca-0 VLAR "$lid/$port/$b" 2>/dev/null; done >"$T/sa.vlarb"
	smp vlarb "$lid" "${3:-$port}" >"$T/smp.vlarb"
	python3 - "$T/sa.vlarb" "$T/smp.vlarb" <<'EOF'
import re, sys
sa, smp = open(sys.argv[1]).read(), open(sys.argv[2]).read()
blocks = {}
for m in re.finditer(r'Block\.*(\d+)\s*\n\s*VL\s*:((?:\s*\d+\|){16})\s*\n\s*Weight:((?:\s*\d+\|){16})'
                     r'\s*\n\s*VL\s*:((?:\s*\d+\|){16})\s*\n\s*Weight:((?:\s*\d+\|){16})', sa):
    n = lambda s: [int(x) for x in s.replace('|', ' ').split()]
    blocks[int(m.group(1))] = list(zip(n(m.group(2)) + n(m.group(4)), n(m.group(3)) + n(m.group(5))))
tabs = re.findall(r'VL\s*:\s*\|((?:0x[0-9a-f]+\s*\|)+)\s*\nWEIGHT:\s*\|((?:0x[0-9a-f]+\s*\|)+)', smp)
if sorted(blocks) != [1, 2, 3, 4] or len(tabs) != 2:
    sys.exit('saquery blocks %s, smpquery tables %d' % (sorted(blocks), len(tabs)))
for blk, (vl, w) in zip((1, 3), tabs):
    want = list(zip([int(x, 16) for x in vl.replace('|', ' ').split()],
                    [int(x, 16) for x in w.replace('|', ' ').split()]))
    if blocks[blk][:len(want)] != want:
        sys.exit('block %d: saquery %s, smpquery %s' % (blk, blocks[blk][:len(want)], want))
EOF
}

# pkeys_same LID PORT: saquery's P_KeyTableRecord block 0 of (LID, PORT) = smpquery pkeys' first 32
pkeys_same() {
	local lid=$1 port=$2
	saq ca-0 --smkey 1 PKTR "$lid/$port/0" >"$T/sa.pktr" 2>/dev/null
	smp pkeys "$lid" "$port" >"$T/smp.pktr"
	python3 - "$T/sa.pktr" "$T/smp.pktr" "$port" <<'EOF'
import re, sys
sa, smp, port = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
ports = re.findall(r'Port\.*(\d+)', sa)
keys = re.findall(r'0x[0-9a-f]{4}', sa.split('PKey Table:')[1]) if 'PKey Table:' in sa else []
want = re.findall(r'0x[0-9a-f]{4}', ''.join(l.split(':', 1)[1] for l in smp.splitlines()
                                              if re.match(r'\s*\d+:', l)))[:32]
want += ['0x0000'] * (32 - len(want))
if ports != [str(port)] or keys[:32] != want:
    sys.exit('saquery port %s keys %s, smpquery %s' % (ports, keys[:8], want[:8]))
EOF
}

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
printf 'sa_key = 0x1\n' >"$T/ibsmd.conf"
sm_start "$T/state" -F "$T/ibsmd.conf" --sweep-interval 0 --routing minhop
check "daemon comes up (minhop, no QoS)" wait_for 60 subnet_up
NODES=$(jctl status | jget 'j["nodes"]')
check "the VL tables of every node are read in the background ($NODES nodes)" wait_for 60 vl_read "$NODES"
log "vl_tables: $(jctl status | jget 'j["vl_tables"]')"
CA0=$(lid_of ca-0)
CA7=$(lid_of ca-7)
LEAF=$(lid_of sw-L1-0) # ports 1, 2 to ca-0, ca-1; 3, 4 to the spines

# ---- SL2VL, VLArb, P_Key records = what the ports hold -----------------------------------
check "SL2VL of a CA port (0/0) = smpquery sl2vl" sl2vl_same "$CA0" 0 0
check "SL2VL of a switch's port 0, from port 1 = smpquery" sl2vl_same "$LEAF" 1 0 0
check "SL2VL of a switch external port (out 3, from 2) = smpquery" sl2vl_same "$LEAF" 2 3 3
check "SL2VL of a switch external port (out 1, in 1) = smpquery" sl2vl_same "$LEAF" 1 1 1
check "VLArb of a CA port (asked as port 1) = smpquery vlarb" vlarb_same "$CA7" 1
check "VLArb of a CA port asked as port 0 (OpenSM's rule, osmtest's query)" vlarb_same "$CA7" 0 1
check "VLArb of a switch external port = smpquery vlarb" vlarb_same "$LEAF" 4
zero_blocks() {
	for b in 1 2 3 4; do saq ca-0 VLAR "$LEAF/0/$b" 2>/dev/null; done >"$T/sa.vlarb0"
	[ "$(grep -c 'Block' "$T/sa.vlarb0")" = 4 ] && ! grep -q 'Weight:.*[1-9]' "$T/sa.vlarb0"
}
check "VLArb of a switch's port 0: four blocks of zeros (it has none)" zero_blocks
check "P_KeyTableRecord of a CA port: PortNum 1, = smpquery pkeys" pkeys_same "$CA0" 1
check "P_KeyTableRecord of a switch's port 0 = smpquery pkeys" pkeys_same "$LEAF" 0
check "P_KeyTableRecord of a switch port facing a CA = smpquery pkeys" pkeys_same "$LEAF" 1

# ---- LifeTimeValue, HOQLife, PacketLifeTime ---------------------------------------------
life() { smp switchinfo "$LEAF" | sed -n 's/^LifeTime:\.*//p'; }
hoq() { smp portinfo "$1" "$2" | sed -n 's/^HoqLife:\.*//p'; }
pkt_life() { saq ca-0 PR --slid "$CA0" --dlid "$1" | sed -n 's/^[[:space:]]*pkt_life\.*//p'; }
check "SwitchInfo LifeTimeValue 18 (packet_life_time)" test "$(life)" = 18
check "HOQLife 16 toward a CA (leaf_head_of_queue_lifetime)" test "$(hoq "$LEAF" 1)" = 16
check "HOQLife 18 toward a switch (head_of_queue_lifetime)" test "$(hoq "$LEAF" 3)" = 18
check "a CA port's HOQLife is left alone" test "$(hoq "$CA0" 1)" = 0
# ca-0 -> ca-7 crosses 3 switches: 18 + 2, selector 2 (exactly): 0x94
check "PathRecord PacketLifeTime over 3 switches: 18 + 2 (0x94)" test "$(pkt_life "$CA7")" = 0x94
printf 'sa_key = 0x1\npacket_life_time = 15\nhead_of_queue_lifetime = 19\n' >"$T/ibsmd.conf"
kill -HUP "$SM_PID"
check "reload: packet_life_time 18 -> 15 logged" wait_for 20 grep -q "reload: packet_life_time: 18 -> 15" "$T/smd.err"
jctl sweep >/dev/null
check "after a sweep: LifeTimeValue 15" wait_for 20 bash -c "[ \"\$(cd '$T' && SIM_HOST=ca-0 LD_PRELOAD='$UMAD2SIM' timeout 20 smpquery switchinfo $LEAF 2>/dev/null | sed -n 's/^LifeTime:\.*//p')\" = 15 ]"
check "HOQLife 19 toward a switch, 16 toward a CA" test "$(hoq "$LEAF" 3) $(hoq "$LEAF" 1)" = "19 16"
check "PathRecord PacketLifeTime: 15 + 2 (0x91)" test "$(pkt_life "$CA7")" = 0x91
jctl sweep >/dev/null
check "the next sweep sets nothing (the switches keep both values)" \
	test "$(jctl status | jget 'j["last_sweep_sets"]')" = 0

# ---- osmtest -f q ---------------------------------------------------------------------------
if command -v osmtest >/dev/null; then
	osmt() {
		local n=$1 rc; shift
		for try in 1 2; do
			sim_run 120 osmtest "$@" -i "$T/osmtest.dat" -l "$T/osmtest-$n.log" \
				>"$T/osmtest-$n.out" 2>&1
			rc=$?
			[ "$rc" -lt 128 ] && break
			log "osmtest $* crashed (exit $rc), try $try"
		done
		grep -q 'OSMTEST: TEST .* PASS' "$T/osmtest-$n.out"
	}
	check "osmtest -f c: the inventory" osmt c -f c
	check "osmtest -f q: VLArb and SLtoVL records of every port" osmt q -f q
else
	log "osmtest (Debian opensm) not installed: its flow is skipped"
fi

# ---- SendOnlyFullMember ----------------------------------------------------------------------
saq ca-1 -c >"$T/cpi" 2>/dev/null
log "ClassPortInfo: $(grep -i 'mask' "$T/cpi" | tr -s ' \t.' ' ' | tr '\n' ';')"
check "ClassPortInfo: IsSendOnlyFullMemberSupported (CapabilityMask2 bit 12)" \
	grep -Eqi 'mask ?2[^0-9]*0x0*1000$' "$T/cpi"
check "ClassPortInfo: IsMultiPathSupported (CapabilityMask bit 10): 0x2600" \
	grep -Eqi 'mask[^0-9]*0x2600$' "$T/cpi"
MG=ff15:0:0:0:0:0:0:2727
J2=$(mcj ca-2 join --mgid $MG --state 8)
check "a SendOnlyFullMember join (JoinState 8) creates the group" \
	test "$(field "$J2" status) $(field "$J2" join_state)" = "0x0000 8"
MLID=$(field "$J2" mlid)
J5=$(mcj ca-5 join --mgid $MG --state non --mask 0x10003)
check "a receiver joins (non member): the same MLID" test "$(field "$J5" mlid)" = "$MLID"
G2=$(guid_of ca-2)
G5=$(guid_of ca-5)
mft() {
	sim_run 60 ibnetdiscover >"$T/topo" 2>/dev/null &&
		sim_run 60 dump_fts -M >"$T/mfts" 2>/dev/null &&
		python3 "$MFTCHECK" --topo "$T/topo" --mfts "$T/mfts" --mlid "$MLID" "$@" >"$T/mftcheck.out"
}
check "dump_fts -M: ca-5 receives, ca-2 sends only (not delivered to), one tree" \
	wait_for 30 mft --receivers "$G5" --senders "$G2"
L2=$(mcj ca-2 leave --mgid $MG --state 8)
check "the send-only full member leaves: the receiver keeps the group" \
	test "$(field "$L2" status) $(mcj ca-5 get --mgid $MG | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')" = "0x0000 1"
check "  dump_fts -M: ca-5 still receives" wait_for 30 mft --receivers "$G5"
L5=$(mcj ca-5 leave --mgid $MG --state non)
check "the last member leaves" test "$(field "$L5" status)" = 0x0000
check "  the group goes: the MLID forwards nowhere" wait_for 30 mft --empty

check "SIGTERM stops the daemon cleanly" sm_stop
sim_stop
finish
