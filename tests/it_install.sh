#!/bin/bash
# Packaging: the man pages are clean, the systemd unit verifies, the shipped
# config validates, and a broken config line is reported as FILE:LINE.
. "$(dirname "$0")/lib.sh"

for m in ibsmd.8 smctl.8 ibsmd.conf.5; do
	out=$(groff -man -ww -z "$top_srcdir/man/$m" 2>&1)
	check "man/$m is clean under groff -man -ww -z" test -z "$out"
done

check "ibsmd --help" bash -c "'$IBSMD' --help >/dev/null"
check "ibsmd --version prints the version" bash -c "'$IBSMD' --version | grep -q '^ibsmd [0-9]'"
check "smctl --help" bash -c "'$SMCTL' --help >/dev/null"
check "shipped etc/ibsmd.conf validates" "$IBSMD" --config "$top_srcdir/etc/ibsmd.conf" --check-config

printf 'sweep_interval = 5\nlmc = 2\nmad_window = lots\n' >"$T/bad.conf"
"$IBSMD" --config "$T/bad.conf" --check-config >"$T/out" 2>&1
rc=$?
check "a bad value: non-zero exit ($rc)" test "$rc" -ne 0
check "a bad value: FILE:LINE in the message ($(head -1 "$T/out"))" grep -q "bad.conf:3:" "$T/out"
printf 'sweep_interval = 5\nno_such_key = 1\n' >"$T/unknown.conf"
"$IBSMD" --config "$T/unknown.conf" --check-config >"$T/out" 2>&1
check "an unknown key is reported with its line" grep -q "unknown.conf:2:" "$T/out"
check "a missing config file given with --config is an error" \
	bash -c "! '$IBSMD' --config '$T/nope.conf' --check-config 2>/dev/null"
check "a bad command-line value is refused" bash -c "! '$IBSMD' --lmc 9 --check-config 2>/dev/null"
check "an unknown routing engine is refused" bash -c "! '$IBSMD' --routing nosuch --check-config 2>/dev/null"

# the unit, with paths pointing at this build
unit="$top_builddir/systemd/ibsmd.service"
check "the unit is generated" test -s "$unit"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/unit"
	sed -e "s|^ExecStartPre=[^ ]*|ExecStartPre=$IBSMD|" -e "s|^ExecStart=[^ ]*|ExecStart=$IBSMD|" \
		"$unit" >"$T/unit/ibsmd.service"
	out=$(cd "$T/unit" && systemd-analyze verify --man=no ./ibsmd.service 2>&1)
	check "systemd-analyze verify passes${out:+: $out}" test -z "$out"
	check "unit is Type=notify with a watchdog" bash -c "grep -q '^Type=notify' '$unit' && grep -q '^WatchdogSec=' '$unit'"
else
	log "systemd-analyze not installed: unit not verified"
fi
# make install puts the web page where the daemon looks for it by default (http_root)
if make -C "$top_builddir" install DESTDIR="$T/root" >"$T/install.out" 2>&1; then
	web=$(find "$T/root" -path '*/ibsmd/web' -type d | head -1)
	check "make install installs the web page (index.html, app.js, style.css)" \
		bash -c "[ -n '$web' ] && test -s '$web/index.html' -a -s '$web/app.js' -a -s '$web/style.css'"
	check "the daemon's default http_root is where they went (${web#$T/root})" \
		grep -qa -- "${web#$T/root}" "$IBSMD"
else
	fail "make install DESTDIR=...: $(tail -3 "$T/install.out")"
fi
finish
