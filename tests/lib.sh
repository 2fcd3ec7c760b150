# Shared helpers for ibsmd's integration tests (sourced, bash).
#
# Each test gets its own scratch directory and its own ibsim (IBSIM_SOCKNAME),
# tracks every process it starts by PID and stops them on exit; every wait is
# bounded.  Clients run in the scratch directory under umad2sim.

set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${UMAD2SIM:=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}"
IBSMD="$top_builddir/ibsmd"
SMCTL="$top_builddir/smctl"
TOPOGEN="$top_builddir/ibsmd-topogen"
FABCHECK="$top_srcdir/tests/fabcheck.py"
TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-$TEST_NAME.XXXXXX")
PIDS=()
SIM_PID=
SM_STARTS=0
FAILS=0
PASSES=0
export IBSIM_SOCKNAME="ibsmd-$TEST_NAME-$$"
# Under a sanitizer build (configure --enable-asan/--enable-ubsan) every report
# of every process goes to $T/san.PID and fails the test in finish().  A
# process preloaded with umad2sim does not have ASan's runtime first in its
# library list, hence verify_asan_link_order=0; umad2sim's own overrun in a
# libc call is suppressed by its library's name (tests/asan.supp).
export ASAN_OPTIONS="verify_asan_link_order=0:replace_intrin=0:abort_on_error=0:log_path=$T/san:suppressions=$top_srcdir/tests/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$T/san${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# ASAN=1 when the daemon is built with AddressSanitizer: its freed memory sits
# in quarantine (the RSS says nothing of the SM's memory) and malloc's count,
# the metrics' ibsmd_memory_bytes{owner="heap"}, reads 0.
ASAN=
grep -qa __asan_init "$IBSMD" 2>/dev/null && ASAN=1

log() { echo "[$TEST_NAME] $*"; }

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	exec 7>&- 2>/dev/null
	if [ "$FAILS" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$T"; else log "scratch kept in $T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { PASSES=$((PASSES + 1)); log "ok: $*"; }
fail() { FAILS=$((FAILS + 1)); log "FAIL: $*"; }
check() { # check "description" command...
	local d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
# san_check: a sanitizer report from any process this test ran fails it
san_check() {
	local f
	for f in "$T"/san.*; do
		[ -e "$f" ] || continue
		fail "sanitizer report $(basename "$f"):"
		head -40 "$f"
	done
}
finish() {
	san_check
	log "$PASSES passed, $FAILS failed"
	[ "$FAILS" -eq 0 ]
	exit $?
}

# wait_for SECONDS command...: poll until the command succeeds
# The bounds the tests write are what a quiet machine needs; a busy one (CI, two busy
# loops beside check.sh) makes conditions come later, never not at all: every bound is
# WAIT_SCALE times what is written (default 3).  Only a failing wait pays for it.
wait_for() {
	local limit=$1; shift
	local end=$((SECONDS + limit * ${WAIT_SCALE:-3}))
	while [ $SECONDS -lt $end ]; do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# sim_start TOPOFILE [ibsim options]: start ibsim on a topology
sim_start() {
	local topo=$1; shift
	rm -f "$T/cons"
	mkfifo "$T/cons"
	# the console fifo stays open for writing in fd 7: ibsim never sees EOF
	exec 7<>"$T/cons"
	(cd "$T" && exec ibsim -s "$@" "$topo" <"$T/cons" >"$T/ibsim.log" 2>&1) &
	SIM_PID=$!
	PIDS+=("$SIM_PID")
	if ! wait_for 120 grep -q "simulator ready" "$T/ibsim.log"; then
		log "ibsim did not start:"; tail -5 "$T/ibsim.log"
		return 1
	fi
}

# sim_sync: wait (bounded) until ibsim has taken every console command written
# so far.  It takes them one line at a time, in order, and echoes a comment
# line to its log when the comment's turn comes: a unique one is the mark.
sim_sync() {
	local mark="# sim_sync $BASHPID.$RANDOM$RANDOM ."
	echo "$mark" >&7
	wait_for 60 grep -qF "$mark" "$T/ibsim.log" && return 0
	log "ibsim did not take its console commands within 60 s" >&2
	return 1
}

# sim_cmd COMMAND: a console command, taken by ibsim when this returns
sim_cmd() { echo "$*" >&7; sim_sync; }

sim_stop() {
	[ -n "$SIM_PID" ] || return 0
	kill "$SIM_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$SIM_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$SIM_PID" 2>/dev/null
	wait "$SIM_PID" 2>/dev/null
	exec 7>&-
	SIM_PID=
}

# sim_run TIMEOUT command...: run a libibumad program on the simulated fabric
sim_run() {
	local to=$1; shift
	(cd "$T" && LD_PRELOAD="$UMAD2SIM" timeout -k 5 "$to" "$@")
}

# saq HOST saquery-args...: saquery from HOST ("": the simulator's default, or the
# caller's SIM_HOST) with a 5 s timeout, asked again
# (3 times at most) when no answer came, as a real client does: saquery itself
# never retries, and on a loaded machine an SA answer may come late (ibsim
# drops nothing unless told).  Each retry is logged (to stderr: the test may
# capture stdout) with saquery's error; the status is saquery's last one.
saq() {
	local h=$1 try rc=0
	shift
	for try in 1 2 3; do
		(if [ -n "$h" ]; then export SIM_HOST=$h; fi
			sim_run 30 saquery -t 5000 "$@" 2>"$T/saq.err")
		rc=$?
		# 110: ETIMEDOUT, no answer; 124: timeout(1) ended it; 139: saquery itself
		# died of SIGSEGV in umad2sim (a MAD of a multi-MAD answer arriving after it
		# closed its agent: umad2sim's receiver does not check; the client's crash)
		[ "$rc" = 110 ] || [ "$rc" = 124 ] || [ "$rc" = 139 ] || return "$rc"
		log "saquery $* from ${h:-the default host}: no answer (try $try of 3, status $rc): $(grep -m1 -i 'fail' "$T/saq.err")" >&2
	done
	return "$rc"
}

# sm_once STATE_DIR [args]: one sweep, output in $T/sm.out / $T/sm.err
sm_once() {
	local sd=$1 rc=0; shift
	sim_run 120 "$IBSMD" --once --state-dir "$sd" "$@" >"$T/sm.out" 2>"$T/sm.err" || rc=$?
	# a failure names the exit status (124: the bound ran out) in the log after the rest
	[ "$rc" = 0 ] || echo "ibsmd --once exited $rc" >>"$T/sm.err"
	return "$rc"
}

# sm_start STATE_DIR [args]: the daemon in the background; SM_PID
sm_start() {
	local sd=$1; shift
	# a socket of its own (an explicit --socket in "$@" comes later and wins)
	SM_STARTS=$((SM_STARTS + 1))
	SM_SOCK="$T/ibsmd-$SM_STARTS.sock"
	# emptied here, not by the child's redirection: a wait on the log must not see the last daemon's
	: >"$T/smd.out"
	: >"$T/smd.err"
	(cd "$T" && LD_PRELOAD="$UMAD2SIM" exec "$IBSMD" --state-dir "$sd" \
		--socket "$SM_SOCK" "$@" \
		>"$T/smd.out" 2>"$T/smd.err") &
	SM_PID=$!
	PIDS+=("$SM_PID")
}

sm_stop() {
	kill "$SM_PID" 2>/dev/null
	local rc=0
	# 30 s: a sanitizer build scans its whole heap for leaks at exit, slowly on a loaded machine
	for _ in $(seq 300); do kill -0 "$SM_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$SM_PID" 2>/dev/null; then kill -9 "$SM_PID"; rc=1; fi
	wait "$SM_PID" 2>/dev/null || rc=$?
	return $rc
}

# Several daemons at once, by name (failover pairs): smd NAME HOST [args]
# starts an ibsmd attached to HOST with its own state dir ($T/sd-NAME),
# socket ($T/NAME.sock) and logs ($T/NAME.out, .err); its PID in
# SMD_PID[NAME] and PIDS.  smd_kill NAME [SIGNAL] stops it (bounded);
# smd_status NAME its `smctl --json status`; smd_field NAME EXPR a Python
# expression over that status j; smd_state_is NAME STATE; smd_up NAME: its
# subnet is up.
declare -A SMD_PID
smd() {
	local name=$1 host=$2
	shift 2
	(cd "$T" && SIM_HOST=$host LD_PRELOAD="$UMAD2SIM" exec "$IBSMD" --state-dir "$T/sd-$name" \
		--socket "$T/$name.sock" "$@" >>"$T/$name.out" 2>>"$T/$name.err") &
	SMD_PID[$name]=$!
	PIDS+=($!)
}
smd_kill() {
	local p=${SMD_PID[$1]}
	kill "-${2:-TERM}" "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}
smd_status() { "$SMCTL" --socket "$T/$1.sock" --timeout 3 --json status 2>/dev/null; }
smd_field() { smd_status "$1" | python3 -c "import json,sys; j=json.load(sys.stdin); print($2)" 2>/dev/null; }
smd_state_is() { [ "$(smd_field "$1" 'j["state"]')" = "$2" ]; }
smd_up() { [ "$(smd_field "$1" 'j["subnet_up"]')" = True ]; }

# subscribed SOCKET N: at least N clients stream that daemon's events (smctl
# events): wait_for it before the events it must see can happen
subscribed() {
	local n
	n=$("$SMCTL" --socket "$1" --json status 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ctl"]["subscribers"])' 2>/dev/null)
	[ "${n:-0}" -ge "$2" ]
}

# diag captures: ibnetdiscover and dump_fts output into files
capture() {
	local tag=$1
	sim_run 60 ibnetdiscover >"$T/$tag.topo" 2>"$T/$tag.topo.err" || return 1
	sim_run 60 dump_fts >"$T/$tag.fts" 2>"$T/$tag.fts.err" || return 1
	sim_run 60 iblinkinfo >"$T/$tag.links" 2>"$T/$tag.links.err" || return 1
}

# ibdmchk_dir DIR CAS LOOPFREE: the dumps in DIR give every CA-to-CA path and (when
# LOOPFREE=1) no credit loop.  ibdmchk 1.5.7 segfaults in CrdLoopCleanup after
# its report, so its exit status is not used; its report is.
ibdmchk_dir() {
	local d=$1 cas=$2 loopfree=$3 extra=()
	[ -f "$d/path-sl" ] && extra+=(-c "$d/path-sl")
	[ -f "$d/sl2vl" ] && extra+=(-d "$d/sl2vl")
	(cd "$d" && timeout 120 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs \
		"${extra[@]}" >ibdmchk.out 2>&1) 2>/dev/null
	if ! grep -q "Scanned:$((cas * (cas - 1))) CA to CA paths" "$d/ibdmchk.out"; then
		log "$d: ibdmchk did not scan $((cas * (cas - 1))) paths:"; tail -3 "$d/ibdmchk.out"
		return 1
	fi
	if grep -q -- "-W- Wrong syntax" "$d/ibdmchk.out"; then
		log "$d: ibdmchk cannot parse a dump:"; grep -m3 -- "-W-" "$d/ibdmchk.out"
		return 1
	fi
	if [ "$loopfree" = 1 ]; then
		grep -q -- "-E-" "$d/ibdmchk.out" && { grep -m3 -- "-E-" "$d/ibdmchk.out"; return 1; }
		grep -q "no credit loops found" "$d/ibdmchk.out" || return 1
	else
		# connectivity only (minhop on a torus or random graph may have credit loops)
		grep -qE -- "-E- (Fail to find a path|Dead end|Aborting)" "$d/ibdmchk.out" &&
			{ grep -m3 -- "-E-" "$d/ibdmchk.out"; return 1; }
	fi
	return 0
}

