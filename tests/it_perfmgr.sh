#!/bin/bash
# Integration: the performance manager and GET /metrics on ibsim (a k=4 fat tree).
#   - every ACTIVE port is read; the counters ibsmd read equal perfquery's
#     (PortCounters and PortCountersExtended) for switch and CA ports: error
#     counters set by ibsim's PerformanceSet exactly, traffic counters between
#     a perfquery before and one after ibsmd's reading;
#   - `Error` on a port (ibsim drops packets there and counts PortRcvErrors)
#     makes its error series rise and the port turn unhealthy: smctl counters,
#     a port_unhealthy event, ibsmd_port_unhealthy 1; healthy again once clean;
#   - GET /metrics passes promtool check metrics (when promtool is installed:
#     Debian's prometheus package, not a dependency) and tests/promcheck.py
#     (always), with ibsmd_build_info, process_start_time_seconds, per-port series;
#   - SIGHUP with perfmgr = false stops the counter sweeps.
. "$(dirname "$0")/lib.sh"

for t in ibsim perfquery curl; do
	command -v "$t" >/dev/null || { log "SKIP: $t not installed"; exit 77; }
done
PROMCHECK="$top_srcdir/tests/promcheck.py"
HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$HTTP_PORT"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1
cat >"$T/ibsmd.conf" <<EOF
perfmgr = true
perfmgr_sweep_time_s = 1
perfmgr_threshold_rcv_errors = 1
http_listen = 127.0.0.1:$HTTP_PORT
http_root = $top_srcdir/web
EOF
sm_start "$T/state" --config "$T/ibsmd.conf"

ctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 10 "$@"; }
# jq-less JSON: py EXPR reads smctl --json from stdin as j
py() { python3 -c "import json, sys; j = json.load(sys.stdin); $1"; }
cycles() { ctl --json counters | py 'print(j["cycles"])'; }
# wait_cycles N: N more counter sweeps finished
wait_cycles() {
	local want=$(($(cycles) + $1))
	wait_for 30 bash -c "[ \"\$(\"$SMCTL\" --socket \"$SM_SOCK\" --json counters | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"cycles\"])')\" -ge $want ]"
}
lid_of() { ctl --json node "$1" | py 'print(j["lid"])'; }

check "the subnet comes up" wait_for 60 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "two counter sweeps finish" wait_cycles 2
check "every ACTIVE port is read (32 on a k=4 fat tree)" \
	bash -c "[ \"\$(\"$SMCTL\" --socket \"$SM_SOCK\" --json counters | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j[\"ports\"], len(j[\"port_counters\"]), j[\"failures\"])')\" = '32 32 0' ]"

# ---- ibsmd's counters = perfquery's ---------------------------------------------
# PerformanceSet values no traffic changes, different on every port
TARGETS=("sw-L1-1 2" "sw-L2-0 1" "ca-5 1" "ca-2 1")
i=0
for t in "${TARGETS[@]}"; do
	set -- $t
	i=$((i + 1))
	for f in SymbolErrorCounter:$((10 + i)) LinkErrorRecoveryCounter:$((20 + i)) \
		LinkDownedCounter:$((30 + i)) PortRcvRemotePhysicalErrors:$((40 + i)) \
		PortRcvSwitchRelayErrors:$((50 + i)) PortXmitDiscards:$((60 + i)) \
		PortXmitConstraintErrors:$((70 + i)) PortRcvConstraintErrors:$((80 + i)) \
		LocalLinkIntegrityErrors:$((i + 1)) ExcessiveBufferOverrunErrors:$((i + 5)) \
		VL15Dropped:$((90 + i)) PortXmitWait:$((1000 + i)); do
		echo "PerformanceSet \"$1\"[$2] PortCounters.${f%%:*}=${f##*:}" >&7
	done
done
sim_sync

# compare NODE PORT: perfquery before, an ibsmd reading taken after it, perfquery after
compare() {
	local node=$1 port=$2 lid
	lid=$(lid_of "$node") || return 1
	sim_run 20 perfquery "$lid" "$port" >"$T/pq.a" 2>/dev/null &&
		sim_run 20 perfquery -x "$lid" "$port" >"$T/pqx.a" 2>/dev/null || return 1
	wait_cycles 2 || return 1
	ctl --json counters "$node" "$port" >"$T/ibsmd.json" || return 1
	sim_run 20 perfquery "$lid" "$port" >"$T/pq.c" 2>/dev/null &&
		sim_run 20 perfquery -x "$lid" "$port" >"$T/pqx.c" 2>/dev/null || return 1
	python3 - "$T" <<'EOF'
import json, re, sys
t = sys.argv[1]
def pq(name):
    d = {}
    for line in open(f"{t}/{name}"):
        m = re.match(r"(\w+):\.*(\d+|0x[0-9a-f]+)$", line.strip())
        if m:
            d[m.group(1)] = int(m.group(2), 0)
    return d
a, c, xa, xc = pq("pq.a"), pq("pq.c"), pq("pqx.a"), pq("pqx.c")
p = json.load(open(f"{t}/ibsmd.json"))["port_counters"][0]
got = p["counters"]
exact = {"symbol_errors": "SymbolErrorCounter", "link_error_recovery": "LinkErrorRecoveryCounter",
         "link_downed": "LinkDownedCounter", "rcv_remote_phys_errors": "PortRcvRemotePhysicalErrors",
         "rcv_switch_relay_errors": "PortRcvSwitchRelayErrors", "xmit_discards": "PortXmitDiscards",
         "xmit_constraint_errors": "PortXmitConstraintErrors",
         "rcv_constraint_errors": "PortRcvConstraintErrors",
         "local_link_integrity_errors": "LocalLinkIntegrityErrors",
         "excessive_buffer_overrun_errors": "ExcessiveBufferOverrunErrors",
         "vl15_dropped": "VL15Dropped", "xmit_wait": "PortXmitWait", "rcv_errors": "PortRcvErrors"}
between = {"xmit_data": "PortXmitData", "rcv_data": "PortRcvData", "xmit_pkts": "PortXmitPkts",
           "rcv_pkts": "PortRcvPkts", "unicast_xmit_pkts": "PortUnicastXmitPkts",
           "unicast_rcv_pkts": "PortUnicastRcvPkts", "multicast_xmit_pkts": "PortMulticastXmitPkts",
           "multicast_rcv_pkts": "PortMulticastRcvPkts"}
bad = []
for ours, theirs in exact.items():
    if not (a[theirs] == got[ours] == c[theirs]):
        bad.append(f"{ours}: perfquery {a[theirs]}/{c[theirs]}, ibsmd {got[ours]}")
if not p["extended"]:
    bad.append("PortCountersExtended was not read")
for ours, theirs in between.items():
    if not (xa[theirs] <= got[ours] <= xc[theirs]):
        bad.append(f"{ours}: perfquery -x {xa[theirs]}..{xc[theirs]}, ibsmd {got[ours]}")
for line in bad:
    print("  " + line)
print(f"  {p['node_desc']}[{p['port']}]: {len(exact)} counters equal, {len(between)} between; "
      f"SymbolErrorCounter {got['symbol_errors']}, PortXmitData {xa['PortXmitData']} <= "
      f"{got['xmit_data']} <= {xc['PortXmitData']}")
sys.exit(1 if bad else 0)
EOF
}
for t in "${TARGETS[@]}"; do
	set -- $t
	check "$1[$2]: ibsmd's counters are perfquery's (PortCounters and PortCountersExtended)" compare "$1" "$2"
done
check "smctl counters NODE PORT prints them" bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" counters ca-5 1 | grep -qE '^counters.symbol_errors: +13$'"
check "smctl counters lists every port" bash -c "[ \$(\"$SMCTL\" --socket \"$SM_SOCK\" counters | grep -c ACTIVE) -eq 32 ]"
check "smctl counters NODE 9 (no such port) fails" bash -c "! \"$SMCTL\" --socket \"$SM_SOCK\" counters ca-5 9 2>/dev/null"

# ---- Error: errors rise, the port turns unhealthy ---------------------------------
bad_port_state() { ctl --json counters sw-L1-2 1 | py 'p = j["port_counters"][0]; print(p["healthy"], p["counters"]["rcv_errors"] > 0, ",".join(p["reasons"]))'; }
check "sw-L1-2[1] is healthy before" bash -c "[ \"\$(\"$SMCTL\" --socket \"$SM_SOCK\" --json counters sw-L1-2 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"port_counters\"][0][\"healthy\"])')\" = True ]"
SEQ=$(ctl --json eventlog | py 'print(j["seq"])')
sim_cmd 'Error "sw-L1-2"[1] 60'
# traffic through that port: the counter queries of ca-4
check "Error: the port turns unhealthy (rcv_errors)" \
	wait_for 30 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json counters sw-L1-2 1 | python3 -c 'import json,sys; p=json.load(sys.stdin)[\"port_counters\"][0]; sys.exit(0 if not p[\"healthy\"] and \"rcv_errors\" in p[\"reasons\"] else 1)'"
log "sw-L1-2[1]: $(bad_port_state)"
check "a port_unhealthy event names it" bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json eventlog $SEQ | python3 -c '
import json, sys
ev = [e for e in json.load(sys.stdin)[\"events\"] if e[\"type\"] == \"port_unhealthy\"]
sys.exit(0 if any(e[\"desc\"] == \"sw-L1-2\" and e[\"port\"] == 1 and \"rcv_errors\" in e[\"reasons\"] for e in ev) else 1)'"
curl -s -m 10 "$URL/metrics" >"$T/metrics.txt"
check "GET /metrics: ibsmd_port_unhealthy is 1 for it" \
	grep -qE '^ibsmd_port_unhealthy\{node_guid="0x0002c90100000300",node_desc="sw-L1-2",port="1"\} 1$' "$T/metrics.txt"
check "GET /metrics: its rcv_errors series rose" \
	bash -c "grep -E '^ibsmd_port_errors_total\{node_guid=\"0x0002c90100000300\",node_desc=\"sw-L1-2\",port=\"1\",counter=\"rcv_errors\"\} [1-9]' \"$T/metrics.txt\" >/dev/null"
check "GET /metrics: ibsmd_perfmgr_unhealthy_ports counts it" \
	grep -qE '^ibsmd_perfmgr_unhealthy_ports [1-9]' "$T/metrics.txt"
sim_cmd 'Error "sw-L1-2"[1] 0'
check "clean again: healthy after three clean counter sweeps, a port_healthy event" \
	wait_for 30 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json eventlog $SEQ | python3 -c '
import json, sys
ev = json.load(sys.stdin)[\"events\"]
sys.exit(0 if any(e[\"type\"] == \"port_healthy\" and e[\"desc\"] == \"sw-L1-2\" and e[\"port\"] == 1 for e in ev) else 1)'"

# ---- the exposition format ------------------------------------------------------
curl -s -m 10 "$URL/metrics" >"$T/metrics.txt"
check "GET /metrics: the SM's own series and per-port series (promcheck.py)" \
	python3 "$PROMCHECK" --require ibsmd_build_info process_start_time_seconds ibsmd_port_xmit_bytes_total \
	ibsmd_port_rcv_packets_total ibsmd_port_errors_total ibsmd_port_state ibsmd_port_width_lanes \
	ibsmd_port_lane_speed_gbps ibsmd_sweeps_total ibsmd_memory_bytes process_resident_memory_bytes \
	ibsmd_ports_quarantined ibsmd_port_error_traps_total <"$T/metrics.txt"
check "GET /metrics: the memory by owner, the routes' share nonzero" \
	bash -c "grep -q '^ibsmd_memory_bytes{owner=\"snapshot_routes\"} [1-9]' \"$T/metrics.txt\""
check "GET /metrics: a series per port and counter" \
	bash -c "[ \$(grep -c '^ibsmd_port_xmit_bytes_total{' \"$T/metrics.txt\") -eq 32 ]"
check "smctl metrics is the same text" bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" metrics | grep -q '^ibsmd_build_info{version=\"'"
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts GET /metrics" bash -c "promtool check metrics <\"$T/metrics.txt\""
else
	log "promtool not installed (Debian package prometheus): its check is skipped, promcheck.py ran"
fi

# ---- one command list: the server's table, smctl's and the completion's ------
ctl --json call help >"$T/help.json"
cat >"$T/cmds.py" <<'EOF'
import json, re, subprocess, sys
served = {c["name"] for c in json.load(open(sys.argv[1]))}
text = open(sys.argv[2]).read()
offered = set(re.search(r'_smctl_commands="([^"]*)"', text, re.S).group(1).split()) - {"call", "help"}
usage = subprocess.run([sys.argv[3], "--help"], capture_output=True, text=True).stdout
listed = {m.group(1) for m in re.finditer(r"^  ([a-z]+)\b", usage, re.M)} - {"call"}
print("  served:", " ".join(sorted(served)))
bad = False
if offered != served:
    print("  the completion differs:", sorted(offered ^ served))
    bad = True
if listed != served:
    print("  smctl --help differs:", sorted(listed ^ served))
    bad = True
sys.exit(1 if bad else 0)
EOF
check "one command list: the server's, smctl's and the bash completion's" \
	python3 "$T/cmds.py" "$T/help.json" "$top_srcdir/ui/completions/smctl" "$SMCTL"

# ---- turned off live -------------------------------------------------------------
reloads=$(grep -c 'configuration reloaded' "$T/smd.err")
sed -i 's/^perfmgr = true/perfmgr = false/' "$T/ibsmd.conf"
kill -HUP "$SM_PID"
check "SIGHUP: reloaded" wait_for 20 bash -c "[ \$(grep -c 'configuration reloaded' '$T/smd.err') -gt $reloads ]"
idle() { [ "$(ctl --json counters | py 'print(j["running"])')" = False ]; }
wait_for 30 idle || fail "the counter sweep under way ends"
c1=$(cycles)
sleep 2.5 # deliberately: with perfmgr on (1 s sweeps) two more would have come
check "SIGHUP perfmgr = false: no more counter sweeps" test "$(cycles)" = "$c1"
check "the daemon stops cleanly" sm_stop
finish
