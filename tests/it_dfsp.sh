#!/bin/bash
# Integration: dfsp on ibsim.  With no configuration the default chain gives
# an irregular fabric (parallel links, switches without hosts) to dfsp, after
# ftree and dor refuse it, each refusal logged with its reason; the tables are
# read back with dump_fts and walked by fabcheck.py; the SL2VL tables the
# daemon programmed are read back from every switch-to-switch port with
# `smpquery sl2vl` and, with the path SLs the daemon dumped, checked for
# credit loops per VL by tests/lftcheck (which also finds the loop on VL 0
# alone, so the VLs were needed) and by ibdmchk on the daemon's dumps; the
# SL of a PathRecord is the one the paths were laid on.  The same fabric with
# max_vls 1 falls back to updn, with the reason.  A fat tree still gets ftree
# and a mesh dor by default.
. "$(dirname "$0")/lib.sh"
command -v ibdmchk >/dev/null || { log "SKIP: ibdmchk (Debian ibutils) is not installed"; exit 77; }
LFTCHECK="$top_builddir/tests/lftcheck"
[ -x "$LFTCHECK" ] || { fail "tests/lftcheck is not built"; finish; }
jfield() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

"$TOPOGEN" random -s 14 -e 12 -p 1 -E 3 --parallel --seed 2 -o "$T/rnd.net" || fail "topogen random"
"$TOPOGEN" fattree2 -k 4 -o "$T/ft2.net" || fail "topogen fattree2"
"$TOPOGEN" mesh -x 3 -y 3 -p 1 -o "$T/mesh.net" || fail "topogen mesh"
n=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/rnd.net")
cas=$(grep -cE '^Hca[[:space:]]' "$T/rnd.net")
sd="$T/state-rnd"

log "--- the default chain on an irregular fabric ($n nodes)"
sim_start "$T/rnd.net" || { fail "ibsim starts"; finish; }
# the daemon, not --once: the SA answers PathRecords below
sm_start "$sd" --config /dev/null --sweep-interval 0
check "subnet up" wait_for 30 grep -q "subnet up" "$T/smd.err"
check "default chain: dfsp routed it" grep -q "dfsp routing" "$T/smd.err"
check "ftree's refusal logged with its reason" grep -q "routing engine ftree refused: .*not a fat tree" "$T/smd.err"
check "dor's refusal logged with its reason" grep -q "routing engine dor refused: .*not a mesh or torus" "$T/smd.err"
# (smctl sweep returns once the sweep it asked for is published)
"$SMCTL" --socket "$SM_SOCK" sweep >/dev/null || fail "smctl sweep"
check "each refusal once over two sweeps ($(grep -c refused "$T/smd.err"))" \
	test "$(grep -c 'warning: routing engine .* refused' "$T/smd.err")" = 2
check "smctl status: routing_engine dfsp" \
	bash -c "'$SMCTL' --socket '$SM_SOCK' --json status | grep -q '\"routing_engine\": \"dfsp\"'"
capture rnd || fail "ibnetdiscover/dump_fts"
check "dump_fts tables reach every LID from every switch" python3 "$FABCHECK" \
	--topo "$T/rnd.topo" --fts "$T/rnd.fts" --links "$T/rnd.links" --nodes "$n"
check "path-sl and sl2vl dumps written" test -s "$sd/path-sl" -a -s "$sd/sl2vl"

# every switch-to-switch output port's SL2VL, read back from the switches
python3 - "$T/rnd.topo" >"$T/rnd.ports" <<'EOF'
import re, sys
lid = None
for line in open(sys.argv[1]):
    if line.startswith('Switch'):
        m = re.search(r'lid (\d+)', line)
        lid = m and m.group(1)
    elif not line.strip():
        lid = None
    elif lid and line.startswith('[') and re.search(r'"S-[0-9a-f]+"\[', line):
        print(lid, re.match(r'\[(\d+)\]', line).group(1))
EOF
: >"$T/rnd.smp"
nports=0
while read -r lid port; do
	sim_run 20 smpquery sl2vl "$lid" "$port" >>"$T/rnd.smp" 2>>"$T/rnd.smp.err" && nports=$((nports + 1))
done <"$T/rnd.ports"
check "smpquery sl2vl read $nports switch-to-switch ports" \
	test "$nports" -gt 20 -a "$nports" = "$(wc -l <"$T/rnd.ports")"
check "a switch port maps SL 1 to VL 1 (ibsim's own would too: see below)" \
	grep -qE 'out +[0-9]+: \| 0\| 1\|' "$T/rnd.smp"
check "SLs past the layers map to VL 0 (ibsim's default maps SL 15 to VL 15)" \
	bash -c "! grep -E '^ports: in +[0-9]+, out +[0-9]+:' '$T/rnd.smp' | grep -qE '\\| *15\\|? *\$'"
"$LFTCHECK" --topo "$T/rnd.topo" --fts "$T/rnd.fts" --path-sl "$sd/path-sl" \
	--smp-sl2vl "$T/rnd.smp" >"$T/rnd.check" 2>&1
check "lftcheck: tables sound, no credit loop per VL with the SL2VL read back ($(cat "$T/rnd.check"))" \
	test "$(jfield "$T/rnd.check" violations):$(jfield "$T/rnd.check" credit_loop)" = 0:0
check "lftcheck: the path SLs use more than one VL" test "$(jfield "$T/rnd.check" vls)" -gt 1
check "lftcheck: read-back rows agree with each other" test "$(jfield "$T/rnd.check" sl2vl_conflicts)" = 0
"$LFTCHECK" --topo "$T/rnd.topo" --fts "$T/rnd.fts" >"$T/rnd.novl" 2>&1
check "lftcheck: the same tables on VL 0 alone have a credit loop" \
	test "$(jfield "$T/rnd.novl" credit_loop)" = 1
"$LFTCHECK" --topo "$T/rnd.topo" --fts "$T/rnd.fts" --path-sl "$sd/path-sl" \
	--sl2vl "$sd/sl2vl" >"$T/rnd.dump" 2>&1
check "lftcheck on the daemon's sl2vl dump: no credit loop, the same VLs" \
	test "$(jfield "$T/rnd.dump" credit_loop):$(jfield "$T/rnd.dump" vls)" = "0:$(jfield "$T/rnd.check" vls)"
check "ibdmchk: the daemon's dumps give every CA-to-CA path, no credit loop" \
	ibdmchk_dir "$sd" "$cas" 1

# a CA-to-CA PathRecord's SL is the path SL of the dump (source GUID, destination LID)
read -r slid dlid psl < <(python3 - "$T/rnd.topo" "$sd/path-sl" <<'EOF'
import re, sys
lids, guid = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'caguid=0x([0-9a-f]+)', line)
    if m:
        guid = int(m.group(1), 16)
    m = re.match(r'\[1\].*# lid (\d+) ', line)
    if m and guid is not None:
        lids[guid] = m.group(1)
        guid = None
for line in open(sys.argv[2]):
    g, dlid, sl = line.split()
    if int(sl) > 0 and int(g, 16) in lids and dlid in lids.values() and lids[int(g, 16)] != dlid:
        print(lids[int(g, 16)], dlid, sl)
        break
EOF
)
if [ -n "${slid:-}" ]; then
	sim_run 20 saquery -p --slid "$slid" --dlid "$dlid" >"$T/pr.out" 2>&1
	check "PathRecord $slid -> $dlid carries the path SL $psl" \
		grep -qE "^[[:space:]]*sl\.*0x0*$(printf %x "$psl")\$" "$T/pr.out"
else
	fail "no CA-to-CA path with an SL above 0 in the path-sl dump"
fi

sm_stop || fail "daemon stops"

log "--- max_vls 1: dfsp refuses with the numbers, updn routes"
printf 'max_vls = 1\n' >"$T/onevl.conf"
sm_once "$T/state-onevl" -F "$T/onevl.conf" || fail "max_vls 1: subnet up"
check "max_vls 1: updn routed it" grep -q "updn routing" "$T/sm.out"
check "max_vls 1: dfsp's refusal names the VLs" \
	grep -q "routing engine dfsp refused: .*need [0-9]* VLs.*allows 1" "$T/sm.err"
check "max_vls 1: no path-sl dump (one VL)" test ! -e "$T/state-onevl/path-sl"
sim_stop

for fab in ft2:ftree mesh:dor; do
	log "--- the default chain on $fab"
	sim_start "$T/${fab%%:*}.net" || { fail "ibsim starts"; continue; }
	sm_once "$T/state-${fab%%:*}" --config /dev/null || fail "${fab%%:*}: subnet up"
	check "default chain: ${fab#*:} routed ${fab%%:*}" grep -q "${fab#*:} routing" "$T/sm.out"
	sim_stop
done
finish
