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

# make install into a scratch root twice: the second keeps an edited config
dest="$T/root"
if make -C "$top_builddir" install DESTDIR="$dest" >"$T/install1.out" 2>&1; then
	conf=$(find "$dest" -name ibsmd.conf -path '*etc*' | head -1)
	check "make install puts the config in place" test -n "$conf" -a -s "$conf"
	check "and the daemon, smctl, the man pages and the unit" bash -c "
		find '$dest' -name ibsmd -type f | grep -q sbin &&
		find '$dest' -name smctl -type f | grep -q bin &&
		find '$dest' -name ibsmd.8 | grep -q . && find '$dest' -name ibsmd.service | grep -q ."
	echo "sm_priority = 9 # edited by the admin" >>"$conf"
	make -C "$top_builddir" install DESTDIR="$dest" >"$T/install2.out" 2>&1
	check "a second make install keeps the edited config" grep -q "edited by the admin" "$conf"
	check "and puts the new example beside it" test -s "$conf.example"
	check "and says so" grep -q "kept .*ibsmd.conf" "$T/install2.out"
else
	fail "make install DESTDIR=$dest: $(tail -3 "$T/install1.out")"
fi

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
finish
