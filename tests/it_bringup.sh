#!/bin/bash
# Integration: ibsmd --once brings several simulated fabrics up, read back
# with infiniband-diags (ibnetdiscover, iblinkinfo, dump_fts), and LIDs stay
# put across an SM restart and across an ibsim restart (fabric reset).
. "$(dirname "$0")/lib.sh"

count_nodes() { grep -cE '^(Switch|Hca|Ca)[[:space:]]' "$1"; }

# bringup NAME TOPO [persist]
bringup() {
	local name=$1 topo=$2 persist=${3:-}
	local n sd="$T/state-$name"
	n=$(count_nodes "$topo")
	log "--- $name: $n nodes"
	sim_start "$topo" || { fail "$name: ibsim starts"; return; }

	# the checker must see an unconfigured fabric as broken
	capture "$name-before" || true
	check "$name: checker rejects the fabric before the SM ran" \
		not python3 "$FABCHECK" --topo "$T/$name-before.topo" --fts "$T/$name-before.fts" \
		--links "$T/$name-before.links" --nodes "$n"

	if sm_once "$sd"; then pass "$name: ibsmd --once exits 0 ($(cat "$T/sm.out"))"
	else fail "$name: ibsmd --once: $(tail -3 "$T/sm.err")"; fi
	capture "$name" || fail "$name: diags ran"
	check "$name: every node found, LIDs unique, links Active, LFTs reach every LID" \
		python3 "$FABCHECK" --topo "$T/$name.topo" --fts "$T/$name.fts" \
		--links "$T/$name.links" --nodes "$n" --lids-out "$T/$name.lids"
	check "$name: guid2lid written" test -s "$sd/guid2lid"

	if [ -n "$persist" ]; then
		sm_once "$sd" || fail "$name: second ibsmd --once"
		capture "$name-restart"
		python3 "$FABCHECK" --topo "$T/$name-restart.topo" --lids-out "$T/$name-restart.lids" >/dev/null
		check "$name: LIDs unchanged across an SM restart" \
			cmp -s "$T/$name.lids" "$T/$name-restart.lids"
		# a configured fabric needs no PortInfo/P_Key/state changes: only the LFT
		# blocks this new process cannot know the switches already hold
		check "$name: restart sets only LFT blocks ($(grep -o '[0-9]* SMPs set, [0-9]* LFT blocks' "$T/sm.err"))" \
			bash -c "grep -o '[0-9]* SMPs set, [0-9]* LFT blocks' '$T/sm.err' | awk '{exit !(\$1 == \$4)}'"

		sim_stop
		sim_start "$topo" || fail "$name: ibsim restarts"
		sm_once "$sd" -v || fail "$name: ibsmd --once after the fabric reset: $(tail -2 "$T/sm.err")"
		# at debug the log tells the bring-up: every node found, every LID decided, what was set where
		check "$name: debug log: every node discovered ($n)" \
			test "$(grep -c ' debug: discovered \(switch\|CA\) 0x' "$T/sm.err")" = "$n"
		check "$name: debug log: LIDs kept from guid2lid after the reset" \
			test "$(grep -c ': kept from guid2lid$' "$T/sm.err")" -ge "$n"
		check "$name: debug log: LFT blocks per switch" \
			grep -q 'debug: configure switch 0x[0-9a-f]* ".*": .*LFT block x[0-9]' "$T/sm.err"
		check "$name: debug log: ports activated per node" grep -q 'debug: activate ' "$T/sm.err"
		capture "$name-reset"
		check "$name: fabric correct after an ibsim restart" \
			python3 "$FABCHECK" --topo "$T/$name-reset.topo" --fts "$T/$name-reset.fts" \
			--links "$T/$name-reset.links" --nodes "$n" --lids-out "$T/$name-reset.lids"
		check "$name: LIDs unchanged across a fabric reset" \
			cmp -s "$T/$name.lids" "$T/$name-reset.lids"
	fi
	sim_stop
}

not() { ! "$@" >/dev/null 2>&1; }

"$TOPOGEN" fattree2 -k 8 -o "$T/ft2.net" || fail "topogen fattree2"
"$TOPOGEN" fattree3 -k 4 -o "$T/ft3.net" || fail "topogen fattree3"
"$TOPOGEN" dual -k 4 --parallel -o "$T/dual.net" || fail "topogen dual"
"$TOPOGEN" torus -x 4 -y 3 -p 1 -o "$T/torus.net" || fail "topogen torus"
"$TOPOGEN" random -s 12 -p 2 --seed 7 -o "$T/random.net" || fail "topogen random"

# LMC 2: every CA port gets 4 LIDs, aligned, and every one of them is routed
lmc() {
	local topo=$1 sd="$T/state-lmc" n
	n=$(count_nodes "$topo")
	log "--- LMC 2"
	sim_start "$topo" || { fail "lmc: ibsim starts"; return; }
	if sm_once "$sd" --lmc 2; then pass "lmc: subnet up ($(cat "$T/sm.out"))"
	else fail "lmc: $(tail -2 "$T/sm.err")"; fi
	capture lmc
	check "lmc: every LID of every range reachable from every switch" \
		python3 "$FABCHECK" --topo "$T/lmc.topo" --fts "$T/lmc.fts" --links "$T/lmc.links" --nodes "$n"
	check "lmc: CA ports carry lmc 2 with base LIDs aligned to 4" python3 -c '
import re, sys
ca = [(int(l), int(m)) for l, m in re.findall(r"^\[\d+\]\([0-9a-f]+\).*# lid (\d+) lmc (\d+)", open(sys.argv[1]).read(), re.M)]
sys.exit(0 if ca and all(m == 2 and l % 4 == 0 for l, m in ca) else 1)' "$T/lmc.topo"
	sim_stop
}

# takeover: LIDs OpenSM gave the ports are kept by ibsmd with an empty state dir
takeover() {
	local topo=$1 sd="$T/state-takeover" osm="$T/osm"
	log "--- takeover from OpenSM"
	sim_start "$topo" || { fail "takeover: ibsim starts"; return; }
	mkdir -p "$osm"
	if OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm sim_run 120 opensm -o -s 0 -f "$osm/osm.log" \
		>"$T/osm.out" 2>&1; then pass "takeover: opensm -o configured the fabric"
	else fail "takeover: opensm -o: $(tail -2 "$T/osm.out")"; fi
	capture osm
	python3 "$FABCHECK" --topo "$T/osm.topo" --lids-out "$T/osm.lids" >/dev/null
	if sm_once "$sd"; then pass "takeover: ibsmd --once over OpenSM's fabric"
	else fail "takeover: $(tail -2 "$T/sm.err")"; fi
	capture takeover
	check "takeover: fabric correct" python3 "$FABCHECK" --topo "$T/takeover.topo" \
		--fts "$T/takeover.fts" --links "$T/takeover.links" --lids-out "$T/takeover.lids"
	check "takeover: every LID OpenSM assigned is kept" cmp -s "$T/osm.lids" "$T/takeover.lids"
	sim_stop
}

# rollback: OpenSM started on ibsmd's guid2lid keeps every LID ibsmd gave.  The
# LIDs are first permuted (so OpenSM's own choice would differ), then ibsmd
# brings a fresh fabric up with them, then OpenSM a fresh one from ibsmd's file.
rollback() {
	local topo=$1 sd="$T/state-rollback" osm="$T/osm-rollback"
	log "--- rollback to OpenSM on ibsmd's guid2lid"
	mkdir -p "$sd" "$osm"
	sim_start "$topo" || { fail "rollback: ibsim starts"; return; }
	sm_once "$T/state-rollback0" || fail "rollback: first ibsmd run"
	capture rb-first
	python3 "$FABCHECK" --topo "$T/rb-first.topo" --lids-out "$T/rb-first.lids" >/dev/null
	sim_stop
	# the same ports, LIDs reversed
	python3 - "$T/state-rollback0/guid2lid" "$sd/guid2lid" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
lids = [r[1] for r in rows][::-1]
with open(sys.argv[2], "w") as f:
    for r, lid in zip(rows, lids):
        f.write("%s %s %s\n" % (r[0], lid, lid))
PY
	sim_start "$topo" || { fail "rollback: ibsim restarts"; return; }
	sm_once "$sd" || fail "rollback: ibsmd with the permuted LIDs"
	capture rb-ibsmd
	python3 "$FABCHECK" --topo "$T/rb-ibsmd.topo" --lids-out "$T/rb-ibsmd.lids" >/dev/null
	check "rollback: ibsmd used the permuted LIDs" not cmp -s "$T/rb-first.lids" "$T/rb-ibsmd.lids"
	check "rollback: ibsmd's file has no comment and blank lines between entries" \
		python3 -c 'import sys; t = open(sys.argv[1]).read(); sys.exit("#" in t or "\n\n" not in t)' "$sd/guid2lid"
	sim_stop
	sim_start "$topo" || { fail "rollback: ibsim for OpenSM"; return; }
	cp "$sd/guid2lid" "$osm/guid2lid"
	if OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm sim_run 120 opensm -o -s 0 -f "$osm/osm.log" \
		>"$T/osm-rb.out" 2>&1; then pass "rollback: opensm -o on ibsmd's file"
	else fail "rollback: opensm -o: $(tail -2 "$T/osm-rb.out")"; fi
	capture rb-osm
	python3 "$FABCHECK" --topo "$T/rb-osm.topo" --lids-out "$T/rb-osm.lids" >/dev/null
	check "rollback: OpenSM kept every LID of ibsmd's file" cmp -s "$T/rb-ibsmd.lids" "$T/rb-osm.lids"
	check "rollback: OpenSM read it without complaint" not grep -q "ERR 610B" "$osm/osm.log"
	sim_stop
}

# dual-ported CAs on parallel inter-switch links, SM on a switch (ibsim's example)
EXAMPLE=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca2port
[ -r "$EXAMPLE" ] && bringup example "$EXAMPLE" persist
bringup ft2 "$T/ft2.net"
bringup ft3 "$T/ft3.net" persist
bringup dual "$T/dual.net" persist
bringup torus "$T/torus.net"
bringup random "$T/random.net"
takeover "$T/ft2.net"
rollback "$T/ft2.net"
lmc "$T/dual.net"
finish
