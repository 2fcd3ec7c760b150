#!/bin/bash
# Packaging: the man pages are clean and say what the programs do (options,
# keys and defaults, commands: tests/doccheck.py), the systemd unit verifies,
# the shipped config validates, every broken config line is reported as
# FILE:LINE, OpenSM's option letters mean what they mean to OpenSM.
. "$(dirname "$0")/lib.sh"

for m in ibsmd.8 smctl.8 ibsmd.conf.5; do
	out=$(groff -man -ww -z "$top_srcdir/man/$m" 2>&1)
	check "man/$m is clean under groff -man -ww -z" test -z "$out"
done

check "ibsmd --help" bash -c "'$IBSMD' --help >/dev/null"
python3 "$top_srcdir/tests/doccheck.py" "$IBSMD" "$SMCTL" "$top_srcdir" >"$T/doccheck.out" 2>&1
rc=$?
sed 's/^/  doccheck: /' "$T/doccheck.out"
check "the man pages match --help, the key table and smctl's commands" test "$rc" = 0
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

# --check-config: every error of the file and the command line, exit 2
printf 'routing_chain = ftree,foo\nrouting_engine = bogus\nadmin_group = no-such-group-ibsmd\n[x]\nlmc = 2\nlmc = 3\n' >"$T/many.conf"
"$IBSMD" -F "$T/many.conf" --check-config -p 16 >"$T/out" 2>&1
rc=$?
check "many errors: exit 2 ($rc)" test "$rc" = 2
for want in "many.conf:1: routing_chain: unknown routing engine 'foo'" \
	"many.conf:2: routing_engine: unknown routing engine 'bogus'" \
	"many.conf:3: admin_group: no group 'no-such-group-ibsmd'" \
	"many.conf:4: sections are not used" "many.conf:6: duplicate key 'lmc'" \
	"-p/--priority 16: sm_priority: 16 is out of range 0..15"; do
	check "reported: $want" grep -qF -e "$want" "$T/out"
done

# OpenSM's letters: -p priority, -F config, -c writes the configuration in effect
"$IBSMD" -F "$top_srcdir/etc/ibsmd.conf" -p 15 -R updn -l 1 -s 0 -t 300 -n 64 -D 0x0f \
	-c "$T/made.conf" >"$T/out" 2>&1
check "-c writes the configuration" test -s "$T/made.conf"
for kv in "sm_priority = 15" "routing_engine = updn" "lmc = 1" "sweep_interval = 0" \
	"mad_timeout_ms = 300" "mad_window = 64" "log_level = debug"; do
	check "OpenSM's letter set: $kv" grep -qxF "$kv" "$T/made.conf"
done
check "what -c wrote validates" "$IBSMD" -F "$T/made.conf" --check-config
check "-c without keys of the subnet writes mode 0644" test "$(stat -c %a "$T/made.conf")" = 644
"$IBSMD" -F /dev/null -k 0x1234abcd -c "$T/keyed.conf" >"$T/keyed.out" 2>&1
check "-c with an sm_key writes mode 0600 (not world-readable)" \
	test "$(stat -c %a "$T/keyed.conf")" = 600
check "the key is in the file" grep -qx "sm_key = 0x000000001234abcd" "$T/keyed.conf"
check "and printed nowhere" bash -c "! grep -qi '1234abcd' '$T/keyed.out'"
printf 'sa_key = 0x77\n' >"$T/sa.conf"
(umask 000 && "$IBSMD" -F "$T/sa.conf" -c "$T/sa-made.conf" >/dev/null 2>&1)
check "-c with an sa_key from the file: 0600 whatever the umask" \
	test "$(stat -c %a "$T/sa-made.conf")" = 600
check "-d 0 is refused, saying what is supported" \
	bash -c "'$IBSMD' -d 0 --check-config 2>&1 | grep -q 'takes -d1 and -d2'"
check "-? prints the usage" bash -c "'$IBSMD' -? | grep -q '^Usage: ibsmd'"
check "with no RDMA device the message names ib_umad" \
	bash -c "'$IBSMD' --once --state-dir '$T/nodev' 2>&1 | grep -q 'no RDMA devices found: is the ib_umad kernel module loaded'"

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
