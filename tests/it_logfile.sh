#!/bin/bash
# Integration: the log file (OpenSM's -f, key log_file) and logrotate.
#   - with -f the log goes to the file, not stderr;
#   - renamed (as logrotate does) and SIGUSR1: the daemon opens the name
#     again and goes on in the new file; the old one stops growing;
#   - the same on SIGHUP, which also reloads the configuration;
#   - a file it cannot open stops the start, naming it;
#   - -B: the command returns at once and the daemon runs in the
#     background, logging to its file.
. "$(dirname "$0")/lib.sh"

command -v ibsim >/dev/null || { log "SKIP: ibsim not installed"; exit 77; }
sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1
LOGF="$T/ibsmd.log"
up() { "$SMCTL" --socket "$1" --json status 2>/dev/null | grep -q '"subnet_up": true'; }
lines() { wc -l <"$1"; }

check "a log file that cannot be opened stops the start" \
	bash -c "! '$IBSMD' --config /dev/null -f '$T/no/such/dir/x.log' --state-dir '$T/s0' \
		--socket '$T/s0.sock' 2>'$T/nodir.err' && grep -q 'log_file $T/no/such/dir/x.log' '$T/nodir.err'"

sm_start "$T/state" --config /dev/null -f "$LOGF"
check "the subnet comes up" wait_for 60 up "$SM_SOCK"
check "the log goes to the file" grep -q "ibsmd .* starting" "$LOGF"
check "and not to stderr" bash -c "! grep -q 'starting' '$T/smd.err'"
check "its mode is 0640" test "$(stat -c %a "$LOGF")" = 640

mv "$LOGF" "$LOGF.1"
kill -USR1 "$SM_PID"
check "after a rename, SIGUSR1 opens the name again" wait_for 20 grep -q "SIGUSR1: log file .* opened again" "$LOGF"
n1=$(lines "$LOGF.1")
"$SMCTL" --socket "$SM_SOCK" sweep >/dev/null 2>&1
check "what follows goes to the new file" wait_for 30 grep -q "sweep" "$LOGF"
check "the renamed file no longer grows" test "$(lines "$LOGF.1")" = "$n1"

mv "$LOGF" "$LOGF.2"
kill -HUP "$SM_PID"
check "SIGHUP opens it again too" wait_for 20 grep -q "SIGHUP: log file .* opened again" "$LOGF"
check "and reloads" wait_for 20 grep -q "configuration reloaded" "$LOGF"
check "the daemon runs on" kill -0 "$SM_PID"
sm_stop || fail "the daemon did not stop on SIGTERM"
check "it says it stops, in the file" grep -q "stopping" "$LOGF"

# -B: into the background; the command returns at once
(cd "$T" && LD_PRELOAD="$UMAD2SIM" timeout 20 "$IBSMD" --config /dev/null -B -f "$T/bg.log" \
	--state-dir "$T/state-bg" --socket "$T/bg.sock" >"$T/bg.out" 2>&1)
rc=$?
check "-B returns at once, status 0 ($rc)" test "$rc" = 0
check "-B: the daemon runs in the background" wait_for 60 up "$T/bg.sock"
bgpid=$(pgrep -f -- "--socket $T/bg.sock" | head -1)
if [ -n "$bgpid" ]; then
	PIDS+=("$bgpid")
	check "-B: logging to its file" grep -q "starting" "$T/bg.log"
	check "-B: in a session of its own" test "$(ps -o sid= -p "$bgpid" | tr -d ' ')" = "$bgpid"
	kill "$bgpid"
	wait_for 30 bash -c "! kill -0 $bgpid 2>/dev/null" || fail "-B: the daemon did not stop"
else
	fail "-B: no daemon found"
fi
finish
