#!/bin/bash
# Offline routing benchmark: for each engine on 3-level k-ary fat trees (up to
# k=56: 43,904 hosts, 3,920 switches, 47,824 LIDs, the largest that fits the
# LID space), the route time ibsmd reports, the whole run's wall time and
# peak RSS (/usr/bin/time: topology parse + LID assignment + routing), and the
# routes-per-port balance.  All-to-all link load max/mean is shown when the
# JSON summary carries it (link_load_max / link_load_mean), else "-".
# OpenSM has no offline mode, so it is not run side by side here.
#
# usage: bench/routing.sh [BUILD_DIR]
#   K="16 32 48 56" ENGINES="minhop updn ftree dor" OFFLINE="ibsmd" override.
set -u
B=${1:-.}
TOPOGEN=$B/ibsmd-topogen
OFFLINE=${OFFLINE:-$B/ibsmd}
K=${K:-16 32 48 56}
ENGINES=${ENGINES:-minhop updn ftree dor}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench-routing.XXXXXX")
trap 'rm -rf "$W"' EXIT

[ -x "$TOPOGEN" ] || { echo "no $TOPOGEN: pass the build directory" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 2; }

field() { # field JSONFILE KEY
	python3 -c 'import json,sys
o=json.loads(open(sys.argv[1]).readline())
v=o.get(sys.argv[2])
print("-" if v is None else (("%.1f" % v) if isinstance(v, float) else v))' "$1" "$2" 2>/dev/null || echo "-"
}

printf '%-4s %-6s %-6s %7s %6s %8s %10s %9s %8s %9s %8s %s\n' k hosts LIDs requested used \
	route_ms wall_s peak_MB max/port mean/port unreach "link max/mean"
for k in $K; do
	topo="$W/ft3-k$k.net"
	"$TOPOGEN" fattree3 -k "$k" -o "$topo" || { echo "topogen k=$k failed" >&2; continue; }
	hosts=$(grep -c '^Hca' "$topo")
	for e in $ENGINES; do
		/usr/bin/time -f "%e %M" -o "$W/time" "$OFFLINE" --offline "$topo" --routing "$e" \
			>"$W/out.json" 2>"$W/err"
		rc=$?
		read -r wall rss <"$W/time" 2>/dev/null || { wall=-; rss=0; }
		rss=${rss//[^0-9]/}
		used=$(field "$W/out.json" engine)
		[ $rc -ne 0 ] && used="fail($rc)"
		lmax=$(field "$W/out.json" link_load_max)
		lmean=$(field "$W/out.json" link_load_mean)
		printf '%-4s %-6s %-6s %7s %6s %8s %10s %9s %8s %9s %8s %s\n' "$k" "$hosts" \
			"$(field "$W/out.json" lids)" "$e" "$used" "$(field "$W/out.json" route_ms)" \
			"$wall" "$(( ${rss:-0} / 1024 ))" "$(field "$W/out.json" max_routes_per_port)" \
			"$(field "$W/out.json" mean_routes_per_port)" \
			"$(field "$W/out.json" unreachable)" "$lmax/$lmean"
	done
done
