#!/bin/bash
# Integration: a living fat tree.  On a 3-level k=8 tree (128 hosts, 80
# switches) under ibsim with the daemon running: an inter-switch link lost,
# then a whole spine switch, then both back.  After each change ftree still
# routes (no fallback), every host reaches every host and no route crosses a
# dead link (ibnetdiscover + dump_fts + iblinkinfo through fabcheck), the
# re-route kept what was intact (status last_route_keep) and wrote a part of
# the blocks a full programming writes; what came back is repaired at once
# (every route kept) and re-balanced onto by the engine in the background.
# Then the spine cut and brought back port by port: incremental sweeps only.
. "$(dirname "$0")/lib.sh"

"$TOPOGEN" fattree3 -k 8 -o "$T/ft.net" || fail "topogen"
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
sim_start "$T/ft.net" -N 256 || { fail "ibsim starts"; finish; }
export SIM_HOST=ca-0
sm_start "$T/state" --sweep-interval 5
js() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print(eval(sys.argv[1], {}, o))" "$1" 2>/dev/null; }
up_with() { [ "$(js "nodes if subnet_up and last_sweep_status == 'ok' else 0")" = "$1" ]; }
check "daemon brings $N nodes up" wait_for 60 up_with "$N"
FULL=$(js last_sweep_lft_blocks)
LINKS0=$(js links)
check "the first sweep wrote every LFT block ($FULL)" test "${FULL:-0}" -gt 100
fabric_ok() { # fabric_ok TAG NODES
	capture "$1" || return 1
	python3 "$FABCHECK" --topo "$T/$1.topo" --fts "$T/$1.fts" --links "$T/$1.links" --nodes "$2"
}
after() { # after DESCRIPTION NODES: the checks of one change
	local what=$1 nodes=$2 s0=$3
	check "$what: swept" wait_for 30 bash -c "[ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"sweeps\"])') -gt $s0 ]"
	check "$what: subnet up with $nodes nodes" wait_for 30 up_with "$nodes"
	check "$what: ftree still routes ($(js routing_engine))" test "$(js routing_engine)" = ftree
	check "$what: every host reaches every host, no dead link crossed" fabric_ok "$(echo "$what" | tr -c 'a-z0-9\n' _)" "$nodes"
}

# an inter-switch link: a leaf's uplink
S0=$(js sweeps)
L0=$(wc -l <"$T/smd.err")
sim_cmd 'Unlink "sw-L1-0"[5]'
after "leaf uplink lost" "$N" "$S0"
# the sweep that handled it (a later one may follow: its status would be read instead):
# routed incrementally, only the broken entries moved (of switches x LIDs entries)
REP=$(tail -n +"$((L0 + 1))" "$T/smd.err" | grep -m1 "re-routed incrementally" |
	sed -n 's/.* \([0-9]*\) forwarding entries moved.*/\1/p')
ENTRIES=$(( $(grep -c '^Switch' "$T/ft.net") * N ))
check "leaf uplink lost: routed incrementally, ${REP:-?} of $ENTRIES forwarding entries moved" \
	test -n "$REP" -a "${REP:-0}" -gt 0 -a "$((${REP:-0} * 20))" -lt "$ENTRIES"
B=$(tail -n +"$((L0 + 1))" "$T/smd.err" | grep -m1 "subnet up:" | sed -n 's/.* \([0-9]*\) LFT blocks.*/\1/p')
check "leaf uplink lost: $B LFT blocks written, a part of a full programming's $FULL" \
	test "$B" -gt 0 -a $((B * 100)) -lt $((FULL * 40))
check "leaf uplink lost: the log names both ends" \
	grep -qE 'link down: switch "sw-L1-0" 0x[0-9a-f]+ port 5 -- switch "sw-L2-[0-9]+" 0x[0-9a-f]+ port [0-9]+|link down: switch "sw-L2-[0-9]+" 0x[0-9a-f]+ port [0-9]+ -- switch "sw-L1-0" 0x[0-9a-f]+ port 5' "$T/smd.err"
check "leaf uplink lost: the status says it was repaired" \
	test "$(js "last_route_repair['repaired']")" = True
check "leaf uplink lost: an incremental sweep, the rest of the fabric not rediscovered" \
	grep -q "subnet up: .*(incremental: [0-9]* switch" "$T/smd.err"

# a host link: the host is gone, no switch routes to its LID; back with the same LID
lid_of() { "$SMCTL" --socket "$SM_SOCK" --json node "$1" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['lid'])" 2>/dev/null; }
L5=$(lid_of ca-5)
check "ca-5 has a LID ($L5)" test -n "$L5"
S0=$(js sweeps)
sim_cmd 'Unlink "ca-5"[1]'
after "host link lost" $((N - 1)) "$S0"
check "host link lost: no switch forwards to LID $L5 any more" \
	bash -c "! grep -qE '^0x$(printf %04x "$L5") [0-9]+ ' '$T/host_link_lost.fts'"
check "host link lost: by an incremental sweep" \
	grep -qE "subnet up: $((N - 1)) nodes .*\(incremental: [0-9]+ switch" "$T/smd.err"
S0=$(js sweeps)
sim_cmd 'ReLink "ca-5"[1]'
after "host link back" "$N" "$S0"
check "host link back: ca-5 has its LID again ($(lid_of ca-5))" test "$(lid_of ca-5)" = "$L5"
check "host link back: switches forward to LID $L5 again" \
	grep -qE "^0x$(printf %04x "$L5") [0-9]+ " "$T/host_link_back.fts"

# a whole spine switch
S0=$(js sweeps)
L1=$(wc -l <"$T/smd.err")
PORTS=$(sed -n '/^Switch.*"sw-L3-0"/,/^$/p' "$T/ft.net" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
for p in $PORTS; do echo "Unlink \"sw-L3-0\"[$p]" >&7; done
sim_sync
after "spine lost" $((N - 1)) "$S0"
# routed incrementally (or, when the sweep was heavy, kept where intact)
check "spine lost: routes repaired or kept where intact" bash -c "tail -n +$((L1 + 1)) '$T/smd.err' |
	sed -n -e 's/.*re-route kept what is intact: \([0-9]*\) of [0-9]* forwarding entries moved (the engine alone: \([0-9]*\)).*/\1 \2/p' \
	-e 's/.*re-routed incrementally: .* \([0-9]*\) forwarding entries moved.*/\1 $ENTRIES/p' |
	awk '\$1 * 5 < \$2 { ok = 1 } END { exit !ok }'"

# both back, the leaf's uplink first, swept on its own: nothing broke, every
# route is kept at once (repaired) and the engine's routes follow, run in the
# background (or, with the engine on the critical path, taken whole): the
# link is used again
S0=$(js sweeps)
L2=$(wc -l <"$T/smd.err")
sim_cmd 'ReLink "sw-L1-0"[5]'
check "leaf uplink back: swept" wait_for 30 bash -c "[ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"sweeps\"])') -gt $S0 ]"
check "links back: re-balanced onto them" wait_for 20 grep -qE "nothing broke: re-balanced onto what came back|re-balanced in the background" "$T/smd.err"
check "leaf uplink back: repaired at once, the engine off the critical path" \
	bash -c "tail -n +$((L2 + 1)) '$T/smd.err' | grep -m1 'subnet up:' | grep -q 'routing (repaired)'"
S0=$(js sweeps)
for p in $PORTS; do echo "ReLink \"sw-L3-0\"[$p]" >&7; done
sim_sync
after "links back" "$N" "$S0"
check "links back: the spine is discovered again by an incremental sweep" \
	grep -qE "subnet up: $N nodes .*\(incremental: [0-9]+ switch" "$T/smd.err"
check "links back: the engine's balance follows in the background" \
	wait_for 30 bash -c "[ \"\$(\"$SMCTL\" --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"last_route_rebalance\"]; print(r[\"taken\"] > 0 and not r[\"due\"] and not r[\"running\"])')\" = True ]"
check "re-balanced: every host reaches every host, no dead link crossed" fabric_ok rebalanced "$N"
# the same fabric as at the start: the balance of a fresh routing
FIRST=$(grep -m1 "routed with ftree" "$T/smd.err" | sed -n 's/.*\(max [0-9]* \/ mean [0-9.]*\).*/\1/p')
LAST=$(grep "re-balanced in the background:" "$T/smd.err" | tail -1 | sed -n 's/.*\(max [0-9]* \/ mean [0-9.]*\).*/\1/p')
check "re-balanced: the balance of a fresh routing ($LAST routes per port; first: $FIRST)" \
	test -n "$FIRST" -a "$FIRST" = "$LAST"

# the spine cut port by port (a switch rebooting, a line card failing): the
# reports fold into incremental sweeps; Sets that fail on the dying switch
# make it asked again (found gone), never a heavy sweep
heavy_since() { # heavy_since LINE: "subnet up" lines after LINE neither incremental nor re-balance
	tail -n +$(($1 + 1)) "$T/smd.err" | grep "subnet up:" | grep -v "(incremental" | grep -vc "(re-balanced"
}
S0=$(js sweeps)
L3=$(wc -l <"$T/smd.err")
for p in $PORTS; do echo "Unlink \"sw-L3-0\"[$p]" >&7; sleep 0.015; done
sim_sync
after "spine cut port by port" $((N - 1)) "$S0"
check "spine cut port by port: no heavy sweep ($(heavy_since "$L3"))" test "$(heavy_since "$L3")" = 0
S0=$(js sweeps)
L4=$(wc -l <"$T/smd.err")
for p in $PORTS; do echo "ReLink \"sw-L3-0\"[$p]" >&7; sleep 0.015; done
sim_sync
links_are() { [ "$(js "links if subnet_up and last_sweep_status == 'ok' else 0")" = "$1" ]; }
check "spine back port by port: all $LINKS0 links active again" wait_for 60 links_are "$LINKS0"
after "spine back port by port" "$N" "$S0"
check "spine back port by port: no heavy sweep ($(heavy_since "$L4"))" test "$(heavy_since "$L4")" = 0
check "the daemon is still answering" bash -c "'$SMCTL' --socket '$SM_SOCK' status >/dev/null"
check "SIGTERM stops it cleanly" sm_stop
finish
