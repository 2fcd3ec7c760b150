#!/bin/bash
# Benchmark: takeover after kill -9 of the master, an ibsmd pair next to an
# OpenSM pair on the same ibsim fabric (a fresh ibsim for every run), the
# standby on another HCA.  For each run: how long until the standby is
# master, how long until its subnet is up again, and what the takeover
# changed (LIDs, LFT entries read back with dump_fts) or wrote (ibsmd's SMPs
# and LFT blocks).  Medians over the runs.  Not a test.
#
#   bench/failover.sh [-k K] [-n RUNS] [--osm-default]
#
# ibsmd pair: default configuration (sminfo_poll_interval_ms 400 x 3), once with
# lft_readback = 1 (the default) and once with 0 (every LFT block written).
# OpenSM pair: opensm -p 14 master, opensm -p 0 standby polling 500 ms x 1
# (sminfo_polling_timeout 500, polling_retry_number 1); --osm-default adds one
# run with OpenSM's default polling (10 s x 4).
set -u
K=8
RUNS=5
OSM_DEFAULT=0
while [ $# -gt 0 ]; do
	case $1 in
	-k) K=$2; shift 2 ;;
	-n) RUNS=$2; shift 2 ;;
	--osm-default) OSM_DEFAULT=1; shift ;;
	*) echo "usage: $0 [-k K] [-n RUNS] [--osm-default]"; exit 2 ;;
	esac
done
. "$(dirname "$0")/lib.sh" failover
tool() { (cd "$W" && SIM_HOST=ca-5 LD_PRELOAD=$UMAD2SIM timeout 60 "$@" 2>/dev/null); }
# snap TAG: LIDs (port GUID -> LID) and LFTs as the diags read them
snap() {
	tool ibnetdiscover >"$W/$1.topo"
	python3 tests/fabcheck.py --topo "$W/$1.topo" --lids-out "$W/$1.lids" >/dev/null
	tool dump_fts >"$W/$1.fts"
}
# changed A B: "LIDs LFT-entries" that differ between two snaps
changed() {
	python3 - "$W/$1" "$W/$2" <<'EOF'
import re, sys
def lids(p): return dict(l.split() for l in open(p + ".lids") if l.strip())
def fts(p):
    t, sw = {}, None
    for l in open(p + ".fts"):
        m = re.search(r"guid (0x[0-9a-f]+)", l)
        if m: sw = m.group(1); continue
        m = re.match(r"^0x([0-9a-f]+)\s+(\d+)\s", l)
        if m and sw: t[(sw, int(m.group(1), 16))] = m.group(2)
    return t
a, b = lids(sys.argv[1]), lids(sys.argv[2])
fa, fb = fts(sys.argv[1]), fts(sys.argv[2])
print(sum(1 for g in a if b.get(g) != a[g]), sum(1 for k in set(fa) | set(fb) if fa.get(k) != fb.get(k)))
EOF
}
st() { "$B/smctl" --socket "$W/$1.sock" --timeout 3 --json status 2>/dev/null; }
field() { st "$1" | python3 -c "import json,sys; j=json.load(sys.stdin); print($2)" 2>/dev/null; }
is_state() { [ "$(field "$1" 'j["state"]')" = "$2" ]; }
is_up() { [ "$(field "$1" 'j["subnet_up"] and j["state"] == "MASTER"')" = True ]; }
smd() { # smd NAME HOST CONF ARGS...
	local n=$1 h=$2 c=$3
	shift 3
	(cd "$W" && SIM_HOST=$h LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" --config "$c" \
		--state-dir "$W/sd-$n" --socket "$W/$n.sock" "$@" >"$W/$n.out" 2>"$W/$n.err") &
	echo $!
}

# ibsmd_run READBACK: "master_s up_s lids lft sets lft_blocks lft_reads"
ibsmd_run() {
	local a b ev t0
	printf 'lft_readback = %s\n' "$1" >"$W/ibsmd.conf"
	rm -rf "$W"/sd-*
	a=$(smd A ca-0 "$W/ibsmd.conf" --priority 14)
	PIDS+=("$a")
	wait_until 60 is_up A || { echo "A not up"; return 1; }
	b=$(smd B ca-1 "$W/ibsmd.conf" --priority 0)
	PIDS+=("$b")
	wait_until 30 is_state B STANDBY || { echo "B not standby"; return 1; }
	snap before
	"$B/smctl" --socket "$W/B.sock" --json events >"$W/B.events" 2>/dev/null &
	ev=$!
	sleep 0.3
	t0=$(date +%s.%N)
	kill -9 "$a"
	wait_until 30 is_up B || { echo "B not up"; return 1; }
	sleep 0.2
	kill "$ev" 2>/dev/null
	snap after
	python3 - "$W/B.events" "$t0" "$(field B 'j["state_since"]')" <<'EOF'
import json, sys
t0, since = float(sys.argv[2]), float(sys.argv[3])
up = [e["unix_time"] for e in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{"))
      if e.get("type") == "subnet_up"]
print("%.3f %.3f" % (since - t0, (up[0] if up else float("nan")) - t0), end=" ")
EOF
	echo "$(changed before after) $(field B '"%d %d %d" % (j["last_sweep_sets"], j["last_sweep_lft_blocks"], j["last_sweep_lft_reads"])')"
	kill "$b" 2>/dev/null
	wait "$a" "$b" "$ev" 2>/dev/null
}

# osm_run CONF: "master_s up_s lids lft"
osm_run() {
	local a b t0
	rm -rf "$W/osm1" "$W/osm2"
	mkdir -p "$W/osm1" "$W/osm2"
	(cd "$W" && SIM_HOST=ca-0 OSM_CACHE_DIR="$W/osm1" OSM_TMP_DIR="$W/osm1" LD_PRELOAD=$UMAD2SIM \
		exec opensm -F "$W/osm-master.conf" -p 14 -f "$W/osm1/osm.log" >/dev/null 2>&1) &
	a=$!
	PIDS+=("$a")
	wait_until 60 grep -qs "SUBNET UP" "$W/osm1/osm.log" || { echo "OpenSM master not up"; return 1; }
	(cd "$W" && SIM_HOST=ca-1 OSM_CACHE_DIR="$W/osm2" OSM_TMP_DIR="$W/osm2" LD_PRELOAD=$UMAD2SIM \
		exec opensm -F "$1" -p 0 -f "$W/osm2/osm.log" >/dev/null 2>&1) &
	b=$!
	PIDS+=("$b")
	wait_until 60 grep -qs "Entering STANDBY state" "$W/osm2/osm.log" || { echo "no OpenSM standby"; return 1; }
	sleep 1
	snap before
	t0=$(date +%s.%N)
	kill -9 "$a"
	wait_until 200 grep -qs "SUBNET UP" "$W/osm2/osm.log" || { echo "OpenSM standby not up"; return 1; }
	snap after
	# OpenSM's log: "Mon DD HH:MM:SS usec [thread] 0x.. -> text"
	python3 - "$W/osm2/osm.log" "$t0" <<'EOF'
import datetime, sys
t0 = float(sys.argv[2])
year = datetime.datetime.now().year
def when(l):
    f = l.split()
    d = datetime.datetime.strptime("%d %s %s %s" % (year, f[0], f[1], f[2]), "%Y %b %d %H:%M:%S")
    return d.timestamp() + int(f[3]) / 1e6
lines = open(sys.argv[1]).read().splitlines()
m = [when(l) for l in lines if "Entering MASTER state" in l]
u = [when(l) for l in lines if "SUBNET UP" in l]
print("%.3f %.3f" % (m[-1] - t0, u[-1] - t0), end=" ")
EOF
	echo "$(changed before after) - - -"
	kill "$b" 2>/dev/null
	wait "$a" "$b" 2>/dev/null
}

sub() { python3 -c "import sys; print('%.3f' % (float(sys.argv[1]) - float(sys.argv[2])))" "$1" "$2" 2>/dev/null || echo -; }
median() { python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[1:] if x not in ('-','nan')]; print('%.2f' % statistics.median(v) if v else '-')" "$@"; }

topo="$W/ft3-k$K.net"
"$B/ibsmd-topogen" fattree3 -k "$K" -o "$topo"
nodes=$(grep -cE '^(Switch|Hca)' "$topo")
# OpenSM buffers its log unless told to flush: the times come from its log lines
printf 'force_log_flush TRUE\n' >"$W/osm-master.conf"
printf 'force_log_flush TRUE\nsminfo_polling_timeout 500\npolling_retry_number 1\n' >"$W/osm-tuned.conf"
printf 'force_log_flush TRUE\n' >"$W/osm-default.conf"
echo "fabric ft3-k$K: $nodes nodes; $RUNS runs each (KEEP=1 keeps the scratch directory)"
printf "%-30s %4s %9s %9s %8s %6s %7s %6s %6s %6s\n" pair run master_s up_s sweep_s lids lft_ent sets lft_wr lft_rd
declare -A M U S R
for pair in "ibsmd (lft_readback 1)" "ibsmd (lft_readback 0)" "OpenSM (500 ms x 1)"; do
	M[$pair]=""
	U[$pair]=""
	S[$pair]=""
	for r in $(seq "$RUNS"); do
		sim_up "$topo"
		case $pair in
		*"readback 1"*) out=$(ibsmd_run 1) ;;
		*"readback 0"*) out=$(ibsmd_run 0) ;;
		*) out=$(osm_run "$W/osm-tuned.conf") ;;
		esac
		read -r ms us lids lft sets lb lr <<<"$out"
		printf "%-30s %4s %9s %9s %8s %6s %7s %6s %6s %6s\n" "$pair" "$r" "$ms" "$us" \
			"$(sub "$us" "$ms")" "$lids" "$lft" "$sets" "$lb" "$lr"
		S[$pair]+=" $(sub "$us" "$ms")"
		M[$pair]+=" $ms"
		U[$pair]+=" $us"
		R[$pair]="$lids $lft $sets $lb $lr"
	done
done
if [ "$OSM_DEFAULT" = 1 ]; then
	pair="OpenSM (default 10 s x 4)"
	sim_up "$topo"
	out=$(osm_run "$W/osm-default.conf")
	read -r ms us lids lft sets lb lr <<<"$out"
	printf "%-30s %4s %9s %9s %8s %6s %7s %6s %6s %6s\n" "$pair" 1 "$ms" "$us" "$(sub "$us" "$ms")" \
		"$lids" "$lft" - - -
	S[$pair]=" $(sub "$us" "$ms")"
	M[$pair]=" $ms"
	U[$pair]=" $us"
	R[$pair]="$lids $lft - - -"
fi
echo
echo "medians (seconds from kill -9 of the master):"
printf "%-30s %9s %9s %8s %6s %7s %6s %6s %6s\n" pair master_s up_s sweep_s lids lft_ent sets lft_wr lft_rd
for pair in "ibsmd (lft_readback 1)" "ibsmd (lft_readback 0)" "OpenSM (500 ms x 1)" \
	"OpenSM (default 10 s x 4)"; do
	[ -n "${M[$pair]:-}" ] || continue
	read -r lids lft sets lb lr <<<"${R[$pair]}"
	printf "%-30s %9s %9s %8s %6s %7s %6s %6s %6s\n" "$pair" "$(median ${M[$pair]})" \
		"$(median ${U[$pair]})" "$(median ${S[$pair]})" "$lids" "$lft" "$sets" "$lb" "$lr"
done
echo "master_s: the standby is master; up_s: its subnet is up again; sweep_s: the difference"
echo "lids, lft_ent: LIDs and LFT entries that differ before/after (last run)"
echo "sets, lft_wr, lft_rd: SMPs the takeover sweep set, LFT blocks written and read back (ibsmd)"
