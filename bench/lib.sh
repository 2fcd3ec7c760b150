# Sourced by the benchmarks of bench/ (`. bench/lib.sh NAME` after the
# script's own options): the build directory B (BUILD, default build),
# UMAD2SIM, a scratch directory W (/tmp/ibsmd-bench-NAME.XXXXXX, removed at
# exit unless KEEP=1), sim_up to start an ibsim of the benchmark's own (a
# socket name per simulator, its console on fd 7), wait_until, and the
# cleanup at exit of the simulator and every PID in PIDS.  Benchmarks print
# numbers; they are not tests.
cd "$(dirname "$0")/.." || exit 1
B=$(cd "${BUILD:-build}" && pwd) || exit 1
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
BENCH_NAME=$1
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench-$BENCH_NAME.XXXXXX") || exit 1
SIM=
SIMS=0
PIDS=()

bench_cleanup() {
	local p
	for p in "${PIDS[@]}" $SIM; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}" $SIM; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	exec 7>&- 2>/dev/null
	if [ -n "${KEEP:-}" ]; then echo "scratch kept in $W" >&2; else rm -rf "$W"; fi
}
trap bench_cleanup EXIT

# sim_up TOPO: a fresh ibsim on TOPO (the one before stopped), under a socket
# name of its own so that no client reaches the simulator before; limits
# large enough for the largest subnet (ibsim parses 48k nodes in a minute;
# it may take 10 on a loaded machine).
sim_up() {
	[ -n "$SIM" ] && { kill "$SIM" 2>/dev/null; wait "$SIM" 2>/dev/null; }
	SIMS=$((SIMS + 1))
	export IBSIM_SOCKNAME="ibsmd-bench-$BENCH_NAME-$$-$SIMS"
	rm -f "$W/cons" "$W/ibsim.log"
	mkfifo "$W/cons"
	exec 7<>"$W/cons"
	(cd "$W" && exec ibsim -s -N 60000 -S 8000 -P 400000 -L 49152 "$1" <"$W/cons" \
		>"$W/ibsim.log" 2>&1) &
	SIM=$!
	for _ in $(seq 6000); do grep -qs "simulator ready" "$W/ibsim.log" && return 0; sleep 0.1; done
	echo "ibsim did not start on $1" >&2
	exit 1
}

# wait_until SECONDS COMMAND...: 0 as soon as COMMAND succeeds, 1 after SECONDS
wait_until() {
	local end=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt $end ]; do "$@" && return 0; sleep 0.05; done
	return 1
}
