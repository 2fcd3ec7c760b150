#!/bin/bash
# Integration: every routing engine on ibsim.  The daemon routes a fabric the
# engine suits, the tables are read back with dump_fts and walked by
# fabcheck.py, and ibdmchk (ibutils) checks the dumps the daemon wrote to its
# state directory for connectivity and credit loops (with path SLs and SL2VL
# where the engine uses VLs).  For dor on a torus, smpquery reads the SL2VL
# tables back from the switches.
. "$(dirname "$0")/lib.sh"
command -v ibdmchk >/dev/null || { log "SKIP: ibdmchk (Debian ibutils) is not installed"; exit 77; }

# engine_on ENGINE TOPO: bring the fabric up with ENGINE and check it
engine_on() {
	local e=$1 topo=$2 vls=${3:-1} tag="$1-$(basename "$2" .net)"
	local n cas sd="$T/state-$tag"
	n=$(grep -cE '^(Switch|Hca)[[:space:]]' "$topo")
	cas=$(grep -cE '^Hca[[:space:]]' "$topo")
	log "--- $e on $(basename "$topo"): $n nodes"
	sim_start "$topo" || { fail "$tag: ibsim starts"; return; }
	if sm_once "$sd" --routing "$e"; then pass "$tag: subnet up ($(cat "$T/sm.out"))"
	else fail "$tag: $(tail -2 "$T/sm.err")"; fi
	check "$tag: $e was used, not a fallback" grep -q "$e routing" "$T/sm.out"
	capture "$tag"
	check "$tag: dump_fts tables reach every LID from every switch" python3 "$FABCHECK" \
		--topo "$T/$tag.topo" --fts "$T/$tag.fts" --links "$T/$tag.links" --nodes "$n"
	check "$tag: daemon's dumps pass ibdmchk (paths and credit loops)" \
		ibdmchk_dir "$sd" "$cas" 1
	if [ "$e" = dor ] && [ "$vls" = 2 ]; then
		check "$tag: path-sl and sl2vl dumps written" test -s "$sd/path-sl" -a -s "$sd/sl2vl"
		# every switch port of the first switch: some output port maps an SL to VL1
		local sw
		sw=$(sed -n 's/^\[\([0-9]*\)\].*"S-.*/\1/p' "$T/$tag.topo" | head -1)
		local path
		path=$(sed -n 's/^Unicast lids .* DR path slid 0; dlid 0; \([0-9,]*\) guid.*/\1/p' \
			"$T/$tag.fts" | head -1)
		: >"$T/$tag.sl2vl"
		for p in 1 2 3 4 5 6; do
			sim_run 20 smpquery -D sl2vl "$path" "$p" 2>/dev/null >>"$T/$tag.sl2vl"
		done
		# ours map SL -> bit d of SL on a dimension-d port (ibsim's default is SL i -> VL i)
		check "$tag: a switch port maps SLs to VL = bit 0 of the SL" \
			grep -qE 'out +[0-9]+: \| 0\| 1\| 0\| 1\| 0\| 1\|' "$T/$tag.sl2vl"
		check "$tag: another maps SLs to VL = bit 1 of the SL" \
			grep -qE 'out +[0-9]+: \| 0\| 0\| 1\| 1\| 0\| 0\| 1\| 1\|' "$T/$tag.sl2vl"
		# (in == out rows are never used and keep ibsim's default)
		check "$tag: no programmed port uses a VL above 1" bash -c "! awk -F'[ ,:]+' \
			'/^ports:/ && \$3 != \$5' '$T/$tag.sl2vl' | grep -qE '\\| ([2-9]|1[0-5])\\|'"
		local portinfo
		portinfo=$(sim_run 20 smpquery -D portinfo "$path" 1 2>/dev/null)
		check "$tag: operational VLs cover VL1" bash -c "echo '$portinfo' | grep -qE 'OperVLs:\.*VL0-([1-9]|1[0-4])'"
	fi
	if [ "$e" = dor ] && [ "$vls" = 1 ]; then
		check "$tag: a mesh needs one VL: no path-sl/sl2vl dumps" test ! -e "$sd/path-sl"
	fi
	sim_stop
}

"$TOPOGEN" fattree3 -k 4 -o "$T/ft3.net" || fail "topogen fattree3"
"$TOPOGEN" fattree2 -k 6 -n 15 --parallel -o "$T/ft2p.net" || fail "topogen partial fattree2"
"$TOPOGEN" random -s 10 -p 1 --seed 5 -o "$T/random.net" || fail "topogen random"
# two rings of 5 and 6 (a ring of 4 is indistinguishable from a 2x2 mesh)
"$TOPOGEN" torus -x 5 -y 6 -p 1 -o "$T/torus.net" || fail "topogen torus"
"$TOPOGEN" mesh -x 4 -y 3 -p 1 -o "$T/mesh.net" || fail "topogen mesh"

# the default engine is ftree: on a torus it refuses, the chain goes on to
# dor, and the refusal is a warning once, not on every sweep
fallback_once() {
	local sd="$T/state-fallback"
	log "--- default engine on a torus"
	sim_start "$T/torus.net" || { fail "fallback: ibsim starts"; return; }
	sm_start "$sd" --sweep-interval 0
	check "fallback: daemon up" wait_for 20 grep -q "subnet up" "$T/smd.err"
	"$SMCTL" --socket "$SM_SOCK" --json events >"$T/fallback.events" 2>&1 &
	local ev=$!
	PIDS+=("$ev")
	wait_for 30 subscribed "$SM_SOCK" 1 || fail "fallback: smctl events subscribes"
	for _ in 1 2 3; do "$SMCTL" --socket "$SM_SOCK" sweep >/dev/null || fail "fallback: smctl sweep"; done
	check "fallback: routed with dor after ftree refused" \
		bash -c "'$SMCTL' --socket '$SM_SOCK' --json status | grep -q '\"routing_engine\": \"dor\"'"
	check "fallback: the refusal names the reason" grep -q "routing engine ftree refused: .*not a fat tree" "$T/smd.err"
	check "fallback: logged once over 4 sweeps ($(grep -c 'refused' "$T/smd.err"))" \
		test "$(grep -c 'warning: routing engine ftree refused' "$T/smd.err")" = 1
	check "fallback: routing_fallback events on the stream" \
		grep -q '"type":"routing_fallback".*"engine":"ftree"' "$T/fallback.events"
	kill "$ev" 2>/dev/null
	sm_stop || fail "fallback: daemon stops"
	sim_stop
}

fallback_once
engine_on ftree "$T/ft3.net"
engine_on ftree "$T/ft2p.net"
engine_on updn "$T/random.net"
engine_on dnup "$T/ft3.net"
engine_on dor "$T/torus.net" 2
engine_on dor "$T/mesh.net"
finish
