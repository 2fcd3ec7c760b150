#!/bin/bash
# Integration: the real daemon under the shipped unit's own restrictions runs
# every feature that opens a socket: the HTTP endpoint (--http: /metrics) and
# the failover state sync (sync_listen).  Where systemd runs (systemd-run)
# would be the natural way; a test machine or container has none, so
# tests/unitjail reads the unit's RestrictAddressFamilies= and applies it as
# systemd does (seccomp on socket(2), NoNewPrivileges).
#   - with the families of the unit before issue 25 (AF_UNIX AF_NETLINK) the
#     daemon cannot start: "Address family not supported" (the harness bites);
#   - with the unit as built (systemd/ibsmd.service) the subnet comes up,
#     /metrics answers and the sync endpoint serves its document; the daemon
#     runs with a seccomp filter and no_new_privs;
#   - the drop-in docs/deploying.md gives (a reset, then AF_UNIX AF_NETLINK)
#     takes the Internet families away again.
. "$(dirname "$0")/lib.sh"

JAIL="$top_builddir/tests/unitjail"
UNIT="$top_builddir/systemd/ibsmd.service"
[ -x "$JAIL" ] || { log "SKIP: tests/unitjail not built (libseccomp-dev missing)"; exit 77; }
for t in ibsim curl; do
	command -v "$t" >/dev/null || { log "SKIP: $t not installed"; exit 77; }
done
[ -s "$UNIT" ] || make -C "$top_builddir" systemd/ibsmd.service >/dev/null
check "the unit allows the Internet families" \
	grep -qE '^RestrictAddressFamilies=.*AF_INET( |$).*AF_INET6' "$UNIT"

read -r HP SP < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
KEY=0x00000000000000ab
printf 'sm_key = %s\nsync_listen = 127.0.0.1:%s\nhttp_root = %s/web\n' "$KEY" "$SP" \
	"$top_srcdir" >"$T/ibsmd.conf"
sed 's/^RestrictAddressFamilies=.*/RestrictAddressFamilies=AF_UNIX AF_NETLINK/' "$UNIT" \
	>"$T/old.service"

# the drop-in of docs/deploying.md (an empty assignment, then the list) takes them away again
{ cat "$UNIT"; printf '[Service]\nRestrictAddressFamilies=\nRestrictAddressFamilies=AF_UNIX AF_NETLINK\n'; } \
	>"$T/dropin.service"
inet() { "$JAIL" "$1" -- python3 -c 'import socket; socket.socket(socket.AF_INET6).close(); socket.socket().close()' 2>/dev/null; }
check "unitjail: the unit allows an Internet socket" inet "$UNIT"
noinet() { ! inet "$1"; }
check "unitjail: the drop-in denies it" noinet "$T/dropin.service"
check "unitjail: the old unit's families deny it" noinet "$T/old.service"

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1

# jailed UNITFILE NAME: the daemon under UNITFILE's families, as NAME ($T/NAME.*)
jailed() {
	(cd "$T" && exec "$JAIL" "$1" -- env LD_PRELOAD="$UMAD2SIM" "$IBSMD" --config "$T/ibsmd.conf" \
		--state-dir "$T/sd-$2" --socket "$T/$2.sock" --http "127.0.0.1:$HP" \
		>"$T/$2.out" 2>"$T/$2.err") &
	JPID=$!
	PIDS+=("$JPID")
}
sync_code() { python3 - "http://127.0.0.1:$SP/ibsmd/sync/v1" "$KEY" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={"X-Ibsmd-SM-Key": sys.argv[2]}), timeout=3)
    print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception as e:
    print("error", e)
PY
}
sync_ok() { [ "$(sync_code)" = 200 ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# the unit before: AF_UNIX AF_NETLINK only
jailed "$T/old.service" old
if wait_for 60 gone "$JPID"; then
	wait "$JPID"
	rc=$?
	check "under the old unit's families the daemon exits ($rc)" test "$rc" -ne 0
	check "saying why ($(grep -m1 -i "address family" "$T/old.err"))" grep -qi "address family not supported" "$T/old.err"
else
	fail "under the old unit's families the daemon kept running"
	kill "$JPID"
fi

# the unit as built
jailed "$UNIT" new
check "under the unit the subnet comes up" wait_for 90 bash -c \
	"'$SMCTL' --socket '$T/new.sock' --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "the daemon runs under a seccomp filter" grep -qE '^Seccomp:[[:space:]]+2' "/proc/$JPID/status"
check "with no_new_privs" grep -qE '^NoNewPrivs:[[:space:]]+1' "/proc/$JPID/status"
check "GET /metrics answers" bash -c "curl -s -m 5 http://127.0.0.1:$HP/metrics | grep -q '^ibsmd_'"
check "the sync endpoint serves the master's document" wait_for 20 sync_ok
check "the log holds no address-family error" bash -c "! grep -qi 'address family' '$T/new.err'"
kill "$JPID"
wait_for 30 gone "$JPID" || fail "the daemon did not stop"
finish
