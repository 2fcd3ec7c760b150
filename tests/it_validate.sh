#!/bin/bash
# Integration: fabric validation and the scheduler export (issue 24) on
# ibsim.  The plan is a k=8 fat tree at 4x HDR (ibsmd-topogen); the fabric
# ibsim runs is the same but for ca-5's link (1x HDR) and one leaf uplink
# (sw-L1-1 port 6 to sw-L2-1, 4x EDR), with validate_degraded_speed = isolate:
#   - at start-up exactly two findings: degraded_width (ca-5) and
#     degraded_speed (the uplink), the latter isolated: sw-L1-1 port 6 is
#     disabled and no LFT entry of sw-L1-1 points at it (dump_fts);
#   - Unlink "sw-L1-0"[7]: a missing_link event within a sweep, naming both
#     ends of the uplink; ReLink: the finding clears (an event);
#   - ibsim's Guid command gives ca-7 ca-6's GUID: duplicate_guid, both
#     places named (the two leaf ports);
#   - topology --format slurm of the k=8 tree, parsed back (hostlists
#     expanded) and compared with the net file: every host under its leaf,
#     every spine over every leaf (but the isolated uplink); yaml, json too;
#   - SIGHUP with validate_degraded_speed = warn: the port is released;
#   - metrics and status show it; GET-equivalent `validate` names the plan;
#   - a second fabric whose net file swaps two uplinks of sw-L1-0: two
#     miswired findings, each naming both ends and where they belong.
. "$(dirname "$0")/lib.sh"

jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
js() { jctl status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print(eval(sys.argv[1], {}, o))" "$1" 2>/dev/null; }
up_with() { [ "$(js "nodes if subnet_up and last_sweep_status == 'ok' else 0")" = "$1" ]; }
# vcount EXPR: evaluate EXPR over the findings of `smctl validate` (f: the list)
vq() { jctl validate 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); f=o['findings']; print(eval(sys.argv[1]))" "$1" 2>/dev/null; }

"$TOPOGEN" fattree2 -k 8 --speeds '*=4xHDR' -o "$T/plan.net" || fail "topogen plan"
"$TOPOGEN" fattree2 -k 8 --speeds '*=4xHDR,ca-5=1xHDR' -o "$T/ft.net" || fail "topogen fabric"
# one uplink of sw-L1-1 (its port 6, to sw-L2-1 port 2) at EDR, on both lines
python3 - "$T/ft.net" <<'EOF' || fail "edit the net file"
import re, sys
p = sys.argv[1]
rec, out = None, []
for line in open(p):
    m = re.match(r'^Switch\s+\d+\s+"([^"]+)"', line)
    if m:
        rec = m.group(1)
    if (rec == 'sw-L1-1' and re.match(r'^\[6\]\s+"sw-L2-1"\[2\]', line)) or \
       (rec == 'sw-L2-1' and re.match(r'^\[2\]\s+"sw-L1-1"\[6\]', line)):
        line = line.replace('4xHDR', '4xEDR')
    out.append(line)
open(p, 'w').write(''.join(out))
EOF
check "the net file has the EDR uplink" test "$(grep -c 4xEDR "$T/ft.net")" = 2
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
export SIM_HOST=ca-0
conf() { # conf SPEED_POLICY
	printf 'expected_topology_file = %s\nvalidate_degraded_speed = %s\nsweep_holddown_ms = 200\nflap_threshold = 0\n' \
		"$T/plan.net" "$1" >"$T/ibsmd.conf"
}
conf isolate
sm_start "$T/state" -F "$T/ibsmd.conf" --sweep-interval 2
# the isolated uplink leaves every node reachable
check "daemon brings $N nodes up" wait_for 60 up_with "$N"
"$SMCTL" --socket "$SM_SOCK" events >"$T/events.log" 2>&1 &
PIDS+=("$!")
wait_for 30 subscribed "$SM_SOCK" 1 || fail "smctl events subscribes"
check "the plan is held ($(js validation))" test "$(js "validation['plan_nodes']")" = "$N"
check "the log says the plan loaded" grep -q "cabling plan $T/plan.net: $N nodes" "$T/smd.err"

# ---- degraded links; the isolated uplink --------------------------------------------
kinds() { vq "sorted(x['kind'] + ('/isolated' if x['isolated'] else '') for x in f)"; }
check "two findings: degraded_width, degraded_speed isolated ($(kinds))" \
	wait_for 30 bash -c "[ \"\$($(declare -f jctl vq kinds); SMCTL='$SMCTL' SM_SOCK='$SM_SOCK' kinds)\" = \"['degraded_speed/isolated', 'degraded_width']\" ]"
check "degraded_width names ca-5, 1x against the plan's 4x" test \
	"$(vq "[(sorted([x['node']['desc'], x['peer']['desc']]), x['width'], x['want_width'], x['against']) for x in f if x['kind'] == 'degraded_width']")" \
	= "[(['ca-5', 'sw-L1-1'], '1x', '4x', 'plan')]"
check "degraded_speed: sw-L1-1 port 6 to sw-L2-1, EDR against HDR, isolated at port 6" test \
	"$(vq "[(sorted([(x['node']['desc'], x['node']['port']), (x['peer']['desc'], x['peer']['port'])]), x['speed'], x['want_speed'], x['isolated_port']['port']) for x in f if x['kind'] == 'degraded_speed']")" \
	= "[([('sw-L1-1', 6), ('sw-L2-1', 2)], 'EDR', 'HDR', 6)]"
check "the isolation is logged" grep -q "isolated: port 0x.*/6 disabled (validate_degraded_speed = isolate)" "$T/smd.err"
check "status: 1 isolated, 2 findings" test "$(js "(validation['isolated'], validation['findings'])")" = "(1, 2)"
check "a validation event: isolated (eventlog)" test "$(jctl eventlog | python3 -c "import json,sys; print([(e['state'], e['kind'], e['isolated_port']['port']) for e in json.load(sys.stdin)['events'] if e['type'] == 'validation' and e['state'] == 'isolated'])")" = "[('isolated', 'degraded_speed', 6)]"
capture iso || fail "dump_fts"
check "no LFT entry of sw-L1-1 leaves by the isolated port 6 (dump_fts)" python3 - "$T/iso.fts" <<'EOF'
import re, sys
sw, bad, seen = None, 0, 0
for line in open(sys.argv[1]):
    m = re.search(r"guid 0x[0-9a-f]+ \((.*)\):", line)
    if m:
        sw = m.group(1)
        continue
    m = re.match(r"^0x[0-9a-f]+ (\d+) ", line)
    if m and sw == 'sw-L1-1':
        seen += 1
        bad += int(m.group(1)) == 6
sys.exit(0 if seen and not bad else 1)
EOF

# ---- a cable pulled and put back ------------------------------------------------------
sim_cmd 'Unlink "sw-L1-0"[7]'
check "Unlink an uplink of sw-L1-0: a missing_link event" wait_for 20 grep -q "type=validation state=new kind=missing_link" "$T/events.log"
check "missing_link names sw-L1-0 port 7 and sw-L2-2 port 1" test \
	"$(vq "sorted(sorted([(x['node']['desc'], x['node']['port']), (x['want']['desc'], x['want']['port'])]) for x in f if x['kind'] == 'missing_link')")" \
	= "[[('sw-L1-0', 7), ('sw-L2-2', 1)]]"
check "metrics: ibsmd_validation_findings{kind=\"missing_link\"} 1" bash -c \
	"'$SMCTL' --socket '$SM_SOCK' metrics | grep -qx 'ibsmd_validation_findings{kind=\"missing_link\"} 1'"
sim_cmd 'ReLink "sw-L1-0"[7]'
check "ReLink: the finding clears (event)" wait_for 30 grep -q "type=validation state=cleared kind=missing_link" "$T/events.log"
check "and it is gone from the list" wait_for 10 bash -c "[ \"\$($(declare -f jctl vq); SMCTL='$SMCTL' SM_SOCK='$SM_SOCK' vq \"len([x for x in f if x['kind'] == 'missing_link'])\")\" = 0 ]"

# ---- Slurm ------------------------------------------------------------------------------
jctl topology --format slurm | python3 -c 'import json,sys; print(json.load(sys.stdin), end="")' >"$T/topology.conf"
check "topology.conf of the k=8 tree parses back to the fabric" python3 - "$T/topology.conf" "$T/plan.net" <<'EOF'
import re, sys
def expand(s):
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', s):
        m = re.match(r'^(.*)\[(.*)\]$', part)
        if not m:
            out.append(part)
            continue
        for r in m.group(2).split(','):
            a, _, b = r.partition('-')
            b = b or a
            w = len(a) if a.startswith('0') else 0
            out += ['%s%0*d' % (m.group(1), w, i) for i in range(int(a), int(b) + 1)]
    return out
leaf_of, spines = {}, {}
for line in open(sys.argv[1]):
    if line.startswith('#'):
        continue
    m = re.match(r'^SwitchName=(\S+) (Nodes|Switches)=(\S+)$', line.strip())
    assert m, line
    for x in expand(m.group(3)):
        if m.group(2) == 'Nodes':
            assert x not in leaf_of, x
            leaf_of[x] = m.group(1)
        else:
            spines.setdefault(m.group(1), set()).add(x)
want_leaf, want_up, rec = {}, {}, None
for line in open(sys.argv[2]):
    m = re.match(r'^(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
    if m:
        rec = m.group(2)
        continue
    m = re.match(r'^\[\d+\]\s+"([^"]+)"', line)
    if m and rec.startswith('ca-'):
        want_leaf[rec] = m.group(1)
    elif m and rec.startswith('sw-L2') and m.group(1).startswith('sw-L1'):
        want_up.setdefault(rec, set()).add(m.group(1))
# the isolated uplink is no link of the fabric
want_up['sw-L2-1'].discard('sw-L1-1')
ok = leaf_of == want_leaf and spines == want_up and len(leaf_of) == 32 and len(spines) == 4
if not ok:
    print(leaf_of, want_leaf, spines, want_up)
sys.exit(0 if ok else 1)
EOF
check "the SwitchName line of sw-L1-0" grep -qx "SwitchName=sw-L1-0 Nodes=ca-\[0-3\]" "$T/topology.conf"
jctl topology --format slurm-yaml | python3 -c 'import json,sys; print(json.load(sys.stdin), end="")' >"$T/topology.yaml"
check "topology.yaml: the tree and a block per leaf" bash -c \
	"grep -q '^- topology: ibsmd-tree' '$T/topology.yaml' && [ \$(grep -c '      - block: ' '$T/topology.yaml') = 8 ]"
check "topology json: ca-9's leaf and sw-L1-0's spines" test \
	"$(jctl topology | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["hosts"]["ca-9"]["leaf"], sorted(o["leaves"]["sw-L1-0"]))')" \
	= "sw-L1-2 ['sw-L2-0', 'sw-L2-1', 'sw-L2-2', 'sw-L2-3']"

# ---- a duplicate GUID ------------------------------------------------------------------
G6=$(jctl node ca-6 | python3 -c "import json,sys; print(json.load(sys.stdin)['guid'])")
sim_cmd "Guid \"ca-7\" $G6"
"$SMCTL" --socket "$SM_SOCK" sweep >/dev/null 2>&1
check "Guid ca-7 = ca-6's: duplicate_guid" wait_for 30 bash -c "[ \"\$($(declare -f jctl vq); SMCTL='$SMCTL' SM_SOCK='$SM_SOCK' vq \"len([x for x in f if x['kind'] == 'duplicate_guid'])\")\" = 1 ]"
check "both places named: sw-L1-1 ports 3 and 4" test \
	"$(vq "[(x['node']['guid'], sorted([(x['peer']['desc'], x['peer']['port']), (x['other']['desc'], x['other']['port'])])) for x in f if x['kind'] == 'duplicate_guid']")" \
	= "[('$G6', [('sw-L1-1', 3), ('sw-L1-1', 4)])]"
check "a duplicate_guid event" wait_for 10 grep -q "type=validation state=new kind=duplicate_guid" "$T/events.log"

# ---- policy back to warn: released -------------------------------------------------------
conf warn
kill -HUP "$SM_PID"
check "SIGHUP, warn: the isolated port is released (event)" wait_for 30 grep -q "type=validation state=released kind=degraded_speed" "$T/events.log"
check "status: none isolated" wait_for 10 bash -c "[ \"\$($(declare -f jctl js); SMCTL='$SMCTL' SM_SOCK='$SM_SOCK' js \"validation['isolated']\")\" = 0 ]"
check "metrics name the pass" bash -c "'$SMCTL' --socket '$SM_SOCK' metrics | grep -q '^ibsmd_validation_runs_total [1-9]'"
check "SIGTERM stops the daemon cleanly" sm_stop
sim_stop

# ---- two swapped uplinks ------------------------------------------------------------------
python3 - "$T/plan.net" "$T/swap.net" <<'EOF' || fail "swap two uplinks"
import re, sys
rec, out = None, []
for line in open(sys.argv[1]):
    m = re.match(r'^Switch\s+\d+\s+"([^"]+)"', line)
    if m:
        rec = m.group(1)
    if rec == 'sw-L1-0':
        line = re.sub(r'^\[5\](\s+)"sw-L2-0"\[1\]', r'[5]\1"sw-L2-1"[1]', line) if line.startswith('[5]') else \
            re.sub(r'^\[6\](\s+)"sw-L2-1"\[1\]', r'[6]\1"sw-L2-0"[1]', line)
    elif rec == 'sw-L2-0':
        line = re.sub(r'^\[1\](\s+)"sw-L1-0"\[5\]', r'[1]\1"sw-L1-0"[6]', line)
    elif rec == 'sw-L2-1':
        line = re.sub(r'^\[1\](\s+)"sw-L1-0"\[6\]', r'[1]\1"sw-L1-0"[5]', line)
    out.append(line)
open(sys.argv[2], 'w').write(''.join(out))
EOF
check "the swapped net file differs in 4 lines" test "$(diff "$T/plan.net" "$T/swap.net" | grep -c '^<')" = 4
sim_start "$T/swap.net" || { fail "ibsim starts"; finish; }
conf warn
sm_start "$T/state2" -F "$T/ibsmd.conf" --sweep-interval 2
check "daemon brings $N nodes up" wait_for 60 up_with "$N"
check "two miswired findings, nothing else" wait_for 20 bash -c "[ \"\$($(declare -f jctl vq); SMCTL='$SMCTL' SM_SOCK='$SM_SOCK' vq \"sorted(x['kind'] for x in f)\")\" = \"['miswired', 'miswired']\" ]"
e() { echo "(x['$1']['desc'], x['$1']['port'])"; }
check "each names where both ends are and where they belong" test \
	"$(vq "sorted(sorted([($(e node), $(e want)), ($(e peer), $(e other))]) for x in f)")" \
	= "[[(('sw-L1-0', 5), ('sw-L2-0', 1)), (('sw-L2-1', 1), ('sw-L1-0', 6))], [(('sw-L1-0', 6), ('sw-L2-1', 1)), (('sw-L2-0', 1), ('sw-L1-0', 5))]]"
check "the log says miswired" grep -q 'validation: error: miswired: switch "sw-L[12]-[01]" .* is cabled to switch' "$T/smd.err"
check "SIGTERM stops the daemon cleanly" sm_stop
sim_stop
finish
