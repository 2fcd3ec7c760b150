#!/bin/bash
# Benchmark: bring-up at scale, ibsmd --once vs opensm -o -d2 on the same
# ibsim fabric in one run (ibsim restarted before each SM, so both start from
# an unconfigured fabric), for 3-level fat trees of radix K.  Reports, for
# each SM: wall, user and system CPU, peak RSS (/usr/bin/time), the
# simulator's CPU while that SM ran (/proc/PID/stat), and SMPs sent (ibsmd:
# its own debug counter; OpenSM does not count them).  Not a test; timings
# are noisy on a shared machine: compare the ratios.
#
#   bench/scale.sh [-l] [-O] [K ...]
#     K ...  radixes (default 16 24 32)
#     -l     also 40 48 56 (ibsmd only: OpenSM takes a quarter of an hour at 56)
#     -O     run OpenSM at every size, the large ones too
#     -n     no OpenSM at all
set -u

large=false osm_all=false osm=true
while getopts lOn o; do
	case $o in
	l) large=true ;;
	O) osm_all=true ;;
	n) osm=false ;;
	*) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ks=${*:-16 24 32}
. "$(dirname "$0")/lib.sh" scale
$large && ks="$ks 40 48 56"

# the simulator's user + system CPU so far, in seconds
sim_cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$SIM/stat"; }

# run NAME cmd...: prints "wall user sys kb rc sim_cpu"
run() {
	local out="$W/$1.time"; shift
	local rc=0 s0 s1
	s0=$(sim_cpu)
	(cd "$W" && LD_PRELOAD=$UMAD2SIM /usr/bin/time -o "$out" -f "%e %U %S %M" timeout 3600 "$@" \
		>"$W/last.out" 2>&1) || rc=$?
	s1=$(sim_cpu)
	echo "$(tail -1 "$out") $rc $(echo "$s1 - $s0" | bc)"
}

echo "# $(date -u +%Y-%m-%d) $(uname -m), $(nproc) cores; bench/scale.sh $*"
printf "%-7s %6s %6s | %-6s %8s %7s %7s %8s %8s %9s\n" fabric nodes lids sm "wall s" "user s" \
	"sys s" "sim cpu" "peak MB" SMPs
for k in $ks; do
	topo="$W/ft3-k$k.net"
	"$B/ibsmd-topogen" fattree3 -k "$k" -o "$topo"
	nodes=$(grep -cE '^(Switch|Hca)' "$topo")
	sim_up "$topo"
	rm -rf "$W/state"
	read -r iw iu is ikb irc isim <<<"$(run ibsmd "$B/ibsmd" --once --config /dev/null \
		--routing minhop --state-dir "$W/state" -v)"
	lids=$(sed -n 's/.*subnet up: .* \([0-9]*\) LIDs.*/\1/p' "$W/last.out" | head -1)
	smps=$(sed -n 's/.*debug: mad: \([0-9]*\) sent.*/\1/p' "$W/last.out" | tail -1)
	grep 'debug: memory:' "$W/last.out" | tail -1 | sed 's/.*debug: /#   ibsmd /' >"$W/mem"
	if [ "$irc" != 0 ]; then
		echo "ibsmd failed on k=$k:"; grep -v debug "$W/last.out" | tail -3; continue
	fi
	printf "%-7s %6s %6s | %-6s %8s %7s %7s %8s %8.1f %9s\n" "k=$k" "$nodes" "$lids" ibsmd \
		"$iw" "$iu" "$is" "$isim" "$(echo "$ikb/1024" | bc -l)" "${smps:--}"
	if $osm && { [ "$k" -le 32 ] || $osm_all; }; then
		sim_up "$topo"
		mkdir -p "$W/osm"; rm -f "$W/osm/"*
		read -r ow ou os okb orc osim <<<"$(OSM_CACHE_DIR=$W/osm OSM_TMP_DIR=$W/osm \
			run opensm opensm -o -d2 -s 0 -f "$W/osm/osm.log")"
		if [ "$orc" != 0 ]; then
			echo "opensm failed on k=$k"; tail -3 "$W/last.out"
		else
			printf "%-7s %6s %6s | %-6s %8s %7s %7s %8s %8.1f %9s\n" "" "" "" opensm \
				"$ow" "$ou" "$os" "$osim" "$(echo "$okb/1024" | bc -l)" -
			printf "%-7s %6s %6s | %-6s %8.2f %7s %7s %8s %8.2f\n" "" "" "" "ratio" \
				"$(echo "$iw/$ow" | bc -l)" "" "" "" "$(echo "$ikb/$okb" | bc -l)"
		fi
	fi
	cat "$W/mem"
done
echo "# sim cpu: the simulator's CPU while that SM ran; ratio: ibsmd / OpenSM (lower is better)"
