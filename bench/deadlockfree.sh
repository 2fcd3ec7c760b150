#!/bin/bash
# Benchmark: deadlock-free routing on irregular fabrics and tori, ibsmd's
# engines against OpenSM 3.3.23's dfsssp and nue, side by side on the same
# ibsim fabric.  Each SM brings up a fresh simulator (ibsim restarted, so
# LIDs, tables and OperationalVLs start unconfigured); the tables are then
# read back with ibnetdiscover and dump_fts, and tests/lftcheck computes the
# figures the same way for every SM: all-to-all CA-to-CA flows along the
# tables read back, the busiest switch-to-switch link, the lower bound of
# routing_link_load (any routing's busiest link carries at least that) and
# their ratio.  For ibsmd the path SLs and SL2VL tables of its dumps are
# checked for credit loops per VL too; for OpenSM, the VLs its log says it
# needed.  Not a test.
#
#   bench/deadlockfree.sh [NAME ...]        fabrics below (default: all)
#   ENGINES="dfsp updn minhop" OSM_ENGINES="dfsssp nue" override.
#
# route_ms: ibsmd's engine alone (ibsmd --offline on the same file, the
# engine's own clock); OpenSM's from its log, "Entering MASTER state" to
# "tables configured on all switches" (LIDs, routing and programming the
# switches through the simulator), so an upper bound of its routing time.
# "asked" is the engine named, "used" the one that routed (after fallbacks
# along the default chain).
set -u
ENGINES=${ENGINES:-dfsp updn minhop dor}
OSM_ENGINES=${OSM_ENGINES:-dfsssp nue}
. "$(dirname "$0")/lib.sh" dlf

# name: topogen arguments
declare -A FABRICS=(
	[rnd24]="random -s 24 -p 2 --seed 1"
	[rnd24b]="random -s 24 -e 24 -p 2 --seed 7"
	[rnd40]="random -s 40 -e 40 -p 2 --seed 2"
	[rnd64]="random -s 64 -e 64 -p 2 --seed 3"
	[rnd64e]="random -s 64 -e 48 -p 3 -E 8 --parallel --seed 4"
	[torus553]="torus -x 5 -y 5 -z 3 -p 2"
	[torus66]="torus -x 6 -y 6 -p 2"
	[mesh44]="mesh -x 4 -y 4 -p 2"
)
ORDER="rnd24 rnd24b rnd40 rnd64 rnd64e torus553 torus66 mesh44"

diag() { (cd "$W" && LD_PRELOAD=$UMAD2SIM timeout 120 "$@" 2>/dev/null); }

# readback TAG [lftcheck args]: tables from the fabric -> $W/TAG.json
readback() {
	local tag=$1
	shift
	diag ibnetdiscover >"$W/$tag.topo"
	diag dump_fts >"$W/$tag.fts"
	"$B/tests/lftcheck" --topo "$W/$tag.topo" --fts "$W/$tag.fts" "$@" >"$W/$tag.json"
}

field() { python3 -c 'import json,sys
o=json.load(open(sys.argv[1])); v=o.get(sys.argv[2])
print("-" if v is None else ("%.2f" % v if isinstance(v, float) else v))' "$1" "$2" 2>/dev/null || echo -; }

row() { # row FABRIC SM ENGINE USED VLS SECONDS JSON
	local j=$7 lp
	lp=$(field "$j" credit_loop)
	[ "$lp" = 1 ] && lp=yes || { [ "$lp" = 0 ] && lp=no; }
	[ "$2" = opensm ] && lp="$lp on VL 0 alone"
	printf '%-9s %-7s %-7s %-7s %4s %8s | %6s %6s %8s %6s | %5s %s\n' "$1" "$2" "$3" "$4" "$5" \
		"$6" "$(field "$j" link_max)" "$(field "$j" link_bound)" "$(field "$j" link_mean)" \
		"$(field "$j" link_ratio)" "$(field "$j" violations)" "$lp"
}

printf '%-9s %-7s %-7s %-7s %4s %7s | %6s %6s %8s %6s | %5s %s\n' fabric sm asked used vls \
	route_ms busiest bound mean ratio bad "credit loop (VL-aware)"
for name in ${@:-$ORDER}; do
	topo="$W/$name.net"
	# shellcheck disable=SC2086
	"$B/ibsmd-topogen" ${FABRICS[$name]} -o "$topo" || continue
	for e in $ENGINES; do
		sim_up "$topo"
		rm -rf "$W/state"
		(cd "$W" && LD_PRELOAD=$UMAD2SIM timeout 300 "$B/ibsmd" --once --config /dev/null \
			--routing "$e" --state-dir "$W/state" >"$W/sm.out" 2>"$W/sm.err")
		used=$(sed -n 's/.*LIDs, \([a-z]*\) routing, .*/\1/p' "$W/sm.out" | head -1)
		# the engine alone, offline on the same file (the sweep also programs)
		ms=$("$B/ibsmd" --offline "$topo" --config /dev/null --routing "$e" 2>/dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["route_ms"])' 2>/dev/null)
		extra=()
		[ -f "$W/state/path-sl" ] && extra=(--path-sl "$W/state/path-sl" --sl2vl "$W/state/sl2vl")
		readback "$name-$e" "${extra[@]}"
		vls=$(field "$W/$name-$e.json" vls)
		row "$name" ibsmd "$e" "${used:-fail}" "$vls" "$(printf '%.1f' "${ms:-0}")" \
			"$W/$name-$e.json"
	done
	for e in $OSM_ENGINES; do
		sim_up "$topo"
		rm -rf "$W/osm"
		mkdir -p "$W/osm"
		args=(-R "$e" -Q)
		[ "$e" = nue ] && args+=(--nue_max_num_vls 0)
		(cd "$W" && LD_PRELOAD=$UMAD2SIM OSM_CACHE_DIR=$W/osm OSM_TMP_DIR=$W/osm \
			timeout 300 opensm -o -s 0 -d2 "${args[@]}" -f "$W/osm/osm.log" \
			>"$W/osm.out" 2>&1)
		used=$(sed -n 's/.*osm_ucast_mgr_process: \([a-z0-9_-]*\) tables configured.*/\1/p' \
			"$W/osm/osm.log" | tail -1)
		vls=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$W/osm/osm.log" | tail -1)
		# from MASTER (discovery done) to the tables computed: LIDs and routing
		secs=$(python3 - "$W/osm/osm.log" <<'EOF'
import re, sys
t0 = t1 = None
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'\w+ \d+ (\d+):(\d+):(\d+) (\d+)', line)
    if not m:
        continue
    t = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) + int(m[4]) / 1e6
    if 'Entering MASTER state' in line and t0 is None:
        t0 = t
    if 'tables configured on all switches' in line and t1 is None:
        t1 = t
print('%.1f' % ((t1 - t0) * 1000) if t0 is not None and t1 is not None else '-')
EOF
)
		readback "$name-osm-$e"
		row "$name" opensm "$e" "${used:-$e}" "${vls:--}" "$secs" "$W/$name-osm-$e.json"
	done
done
echo "busiest: CA-to-CA flows on the busiest switch-to-switch link; bound: routing_link_load's"
echo "lower bound (injection per switch, bridges, shortest hops); ratio = busiest / bound."
echo "credit loop: ibsmd's tables with its path SLs and SL2VL (per VL); OpenSM's SLs are not read"
echo "back (nue and dfsssp hand them out through the SA), so its column is VL 0 alone: \"yes\" there"
echo "only means it needed its VLs.  vls: ibsmd's from its SL2VL dump, OpenSM's from its log."
