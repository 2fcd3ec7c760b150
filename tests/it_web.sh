#!/bin/bash
# Integration: the web page in headless Chromium driven by Selenium
# (tests/webcheck.py; Debian packages chromium, chromium-driver,
# python3-selenium, installed by deps.sh), against a daemon on an ibsim k=4 fat
# tree: node count, a port row, sorting and filtering, an unhealthy port after
# ibsim's Error, a live event after Unlink, the heat map, no console errors.
# Skipped (exit 77) when the browser, its driver or Selenium is missing.
. "$(dirname "$0")/lib.sh"

command -v ibsim >/dev/null || { log "SKIP: ibsim not installed"; exit 77; }
for f in /usr/bin/chromium /usr/bin/chromedriver; do
	[ -x "$f" ] || { log "SKIP: $f not installed (deps.sh installs chromium chromium-driver)"; exit 77; }
done
/usr/bin/python3 -c 'import selenium' 2>/dev/null ||
	{ log "SKIP: python3-selenium not installed"; exit 77; }
HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1
cat >"$T/ibsmd.conf" <<EOT
perfmgr = true
perfmgr_sweep_time_s = 1
perfmgr_threshold_rcv_errors = 1
http_listen = 127.0.0.1:$HTTP_PORT
http_root = $top_srcdir/web
EOT
sm_start "$T/state" --config "$T/ibsmd.conf"
check "the subnet comes up" wait_for 60 bash -c "\"$SMCTL\" --socket \"$SM_SOCK\" --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "the page is served" wait_for 10 bash -c "curl -sf -m 2 http://127.0.0.1:$HTTP_PORT/ | grep -q '<title>ibsmd'"
# the browser gets its own HOME: chromium writes there
check "the page in headless Chromium" env HOME="$T" timeout -k 5 240 /usr/bin/python3 \
	"$top_srcdir/tests/webcheck.py" "http://127.0.0.1:$HTTP_PORT/" "$T/cons" "$T"
check "the daemon stops cleanly" sm_stop
finish
