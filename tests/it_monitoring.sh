#!/bin/bash
# The Grafana dashboard and Prometheus alert rules of monitoring/ (installed
# in /usr/share/ibsmd/monitoring) against a running daemon: with the
# performance manager, the state sync and the HTTP endpoint on, every metric
# a panel, a template query or an alert rule names is one GET /metrics
# exports (tests/monitorcheck.py); the rules have the promised alerts; and
# promtool accepts the rules where it is installed.
. "$(dirname "$0")/lib.sh"

for t in ibsim curl; do
	command -v "$t" >/dev/null || { log "SKIP: $t not installed"; exit 77; }
done
read -r HP SP < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
printf 'perfmgr = true\nperfmgr_sweep_time_s = 1\nsync_listen = 127.0.0.1:%s\nhttp_root = %s/web\n' \
	"$SP" "$top_srcdir" >"$T/ibsmd.conf"
sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1
sm_start "$T/state" --config "$T/ibsmd.conf" --http "127.0.0.1:$HP"
check "the subnet comes up" wait_for 60 bash -c \
	"'$SMCTL' --socket '$SM_SOCK' --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
# the per-port families come once the performance manager has swept
check "port counters are exported" wait_for 30 bash -c \
	"curl -s -m 5 http://127.0.0.1:$HP/metrics | grep -q '^ibsmd_port_xmit_bytes_total{'"
curl -s -m 10 "http://127.0.0.1:$HP/metrics" >"$T/metrics.txt"
check "the exposition is well formed" python3 "$top_srcdir/tests/promcheck.py" <"$T/metrics.txt"
python3 "$top_srcdir/tests/monitorcheck.py" "$T/metrics.txt" \
	"$top_srcdir/monitoring/ibsmd-grafana.json" "$top_srcdir/monitoring/ibsmd-alerts.yml" \
	>"$T/monitorcheck.out" 2>&1
rc=$?
sed 's/^/  monitorcheck: /' "$T/monitorcheck.out"
check "the dashboard and the rules name only metrics ibsmd exports" test "$rc" = 0
if command -v promtool >/dev/null; then
	check "promtool check rules" promtool check rules "$top_srcdir/monitoring/ibsmd-alerts.yml"
else
	log "promtool not installed: the rules' syntax is checked by monitorcheck.py only"
fi
sm_stop || fail "the daemon did not stop"
finish
