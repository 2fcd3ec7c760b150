#!/bin/bash
# Integration: SIGHUP applies every live key, and says in the log what changed.
#   - mad_window: the transaction engine's window changes (status mad.window),
#     and a reroute (every LFT block rewritten) keeps at most that many SMPs
#     outstanding;
#   - admin_group: a peer in the new group may give orders at once, and is
#     refused again once the group is taken away (as root: the peer is
#     setpriv 65534);
#   - a key that does not exist on the system (an unknown group, an engine
#     not built in) is refused with FILE:LINE, the old value kept; a
#     restart-only key (lmc) is logged, not applied;
#   - an override (smctl priority) lasts until the file changes that key;
#   - a broken file is rejected whole and the daemon goes on.
. "$(dirname "$0")/lib.sh"

SOCK="$T/ibsmd.sock"
jctl() { "$SMCTL" --socket "$SOCK" --timeout 20 --json "$@"; }
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
quiet() { "$@" >/dev/null 2>&1; }
not() { ! "$@"; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

UNPRIV=
GROUP=
if [ "$(id -u)" = 0 ] && GROUP=$(getent group 65534 | cut -d: -f1) && [ -n "$GROUP" ]; then
	UNPRIV=1
	chmod 711 "$T"
fi
conf() { # conf KEY=VALUE...: the whole file
	: >"$T/ibsmd.conf"
	[ -n "$UNPRIV" ] && echo "socket_group = $GROUP" >>"$T/ibsmd.conf"
	for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}" >>"$T/ibsmd.conf"; done
}
reloads=0
hup() { # send SIGHUP and wait for the daemon to say it reloaded
	reloads=$((reloads + 1))
	kill -HUP "$SM_PID"
	wait_for 10 bash -c "[ \$(grep -c 'configuration reloaded\|rejected; keeping the running' '$T/smd.err') -ge $reloads ]"
}

conf mad_window=32 sweep_interval=0
(cd "$T" && LD_PRELOAD="$UMAD2SIM" exec "$IBSMD" --config "$T/ibsmd.conf" \
	--state-dir "$T/state" --socket "$SOCK" >"$T/smd.out" 2>"$T/smd.err") &
SM_PID=$!
PIDS+=("$SM_PID")
check "daemon comes up" wait_for 30 bash -c "'$SMCTL' --socket '$SOCK' --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "window 32 at start" test "$(jctl status | jget 'j["mad"]["window"]')" = 32

# ---- mad_window ---------------------------------------------------------------
conf mad_window=2 sweep_interval=0
check "SIGHUP: reloaded" hup
check "the log says mad_window: 32 -> 2" grep -q "reload: mad_window: 32 -> 2" "$T/smd.err"
check "the engine's window is 2" test "$(jctl status | jget 'j["mad"]["window"]')" = 2
check "config shows mad_window 2" test "$(jctl config | jget 'j["mad_window"]')" = 2
check "reroute rewrites every LFT block" test "$(jctl reroute | jget 'j["lft_blocks"] > 0')" = True
MAXB=$(jctl status | jget 'j["mad"]["max_bulk_outstanding"]')
check "and never had more than 2 SMPs outstanding ($MAXB)" test "$MAXB" -ge 1 -a "$MAXB" -le 2
# discovery keeps 4 windows of probes in the engine, the rest in its own backlog
N0=$(jctl status | jget 'j["nodes"]')
check "a heavy sweep through a 2-SMP window finds all $N0 nodes again" \
	test "$(jctl sweep | jget 'j["nodes"]')" = "$N0" -a "$N0" -gt 1
check "and the fabric is whole" test "$(jctl status | jget 'j["subnet_up"]')" = True
MAXB=$(jctl status | jget 'j["mad"]["max_bulk_outstanding"]')
check "with at most 2 SMPs outstanding ($MAXB)" test "$MAXB" -ge 1 -a "$MAXB" -le 2
conf mad_window=64 sweep_interval=0
hup
check "window grows back to 64" test "$(jctl status | jget 'j["mad"]["window"]')" = 64
check "a reroute then uses more than 2 at once" \
	test "$(jctl reroute >/dev/null; jctl status | jget 'j["mad"]["max_bulk_outstanding"]')" -gt 2

# ---- admin_group ----------------------------------------------------------------
if [ -n "$UNPRIV" ]; then
	AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" sweep >/dev/null 2>"$T/err"
	check "before: a peer of group $GROUP may not sweep" test $? = 1 -a -n "$(grep permission_denied "$T/err")"
	conf mad_window=64 sweep_interval=0 admin_group="$GROUP"
	check "SIGHUP with admin_group = $GROUP" hup
	check "the log says admin_group changed" grep -q "reload: admin_group:  -> $GROUP" "$T/smd.err"
	check "after: the peer may sweep" quiet "${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" sweep
	check "config shows admin_group $GROUP" test "$(jctl config | jget 'j["admin_group"]')" = "$GROUP"

	conf mad_window=64 sweep_interval=0 admin_group=nosuchgroup-ibsmd
	hup
	check "an unknown group is refused with FILE:LINE" grep -q "reload: $T/ibsmd.conf:[0-9]*: admin_group: no group 'nosuchgroup-ibsmd' on this host" "$T/smd.err"
	check "and the old group stays" test "$(jctl config | jget 'j["admin_group"]')" = "$GROUP"
	check "so the peer may still sweep" quiet "${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" sweep

	conf mad_window=64 sweep_interval=0
	hup
	"${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" sweep >/dev/null 2>"$T/err"
	check "group taken away: refused again" test $? = 1 -a -n "$(grep permission_denied "$T/err")"
else
	log "not root: skipping the admin_group checks (they need a second user)"
fi

# ---- runtime overrides: one lasts until the file changes its key ------------------
check "smctl priority 7" quiet "$SMCTL" --socket "$SOCK" priority 7
conf mad_window=64 sweep_interval=0
check "SIGHUP, the file silent on sm_priority" hup
check "the override stays: priority 7" test "$(jctl config | jget 'j["sm_priority"]')" = 7
check "and the log says why" grep -q "reload: sm_priority stays 7, set at run time (the file says 0" "$T/smd.err"
conf mad_window=64 sweep_interval=0 sm_priority=3
hup
check "the file changes sm_priority: it wins (3)" test "$(jctl config | jget 'j["sm_priority"]')" = 3
check "logged 7 -> 3" grep -q "reload: sm_priority: 7 -> 3" "$T/smd.err"
conf mad_window=64 sweep_interval=0 routing_chain=ftree,nosuch
hup
check "an unknown engine in routing_chain is refused with FILE:LINE" \
	grep -q "reload: $T/ibsmd.conf:[0-9]*: routing_chain: unknown routing engine 'nosuch'" "$T/smd.err"
check "and the running chain stays" test "$(jctl config | jget 'j["routing_chain"]')" = ftree,dor,dfsp,updn,minhop

# ---- restart-only keys, broken files ----------------------------------------------
conf mad_window=64 sweep_interval=0 sm_priority=3 lmc=2
hup
check "lmc is restart-only: logged" grep -q "reload: lmc changed (0 -> 2) but takes effect only on restart" "$T/smd.err"
check "and not applied" test "$(jctl config | jget 'j["lmc"]')" = 0
printf 'mad_window = lots\n' >"$T/ibsmd.conf"
kill -HUP "$SM_PID"
check "a broken file is rejected with FILE:LINE" wait_for 10 grep -q "reload: $T/ibsmd.conf:1: mad_window" "$T/smd.err"
check "and the running configuration stays" test "$(jctl status | jget 'j["mad"]["window"]')" = 64
check "the daemon still answers" quiet jctl status
check "SIGTERM stops it cleanly" sm_stop
finish
