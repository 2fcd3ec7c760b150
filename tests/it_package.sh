#!/bin/bash
# The Debian package: `dpkg-buildpackage -us -uc -b` in a clean copy of the
# tree builds ibsmd_*.deb; lintian finds no error in it; it holds what it
# promises (binaries, man pages, the unit, the config as a conffile, bash
# completion, the web page, the dashboard and alert rules, the logrotate
# snippet); installed with dpkg -i, `ibsmd --version` and `ibsmd
# --check-config` (the shipped /etc/ibsmd.conf) pass, the unit is not enabled
# and the postinst says what to do (naming an enabled OpenSM); purged, the
# machine is as it was.  Needs root, dpkg-buildpackage and debhelper; skipped
# where ibsmd is installed as a package already (not ours to replace), and in
# a sanitizer build (the package is built once, by the plain build's check).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { log "SKIP: needs root (dpkg -i)"; exit 77; }
for t in dpkg-buildpackage dh git; do
	command -v "$t" >/dev/null || { log "SKIP: $t not installed (./deps.sh)"; exit 77; }
done
if grep -qa -e __asan_init -e __ubsan_handle "$IBSMD" 2>/dev/null; then
	log "SKIP: a sanitizer build; the package is built by the plain build's check"
	exit 77
fi
if dpkg-query -W -f='${Status}' ibsmd 2>/dev/null | grep -q "installed"; then
	log "SKIP: a package ibsmd is installed on this machine already"
	exit 77
fi

# what the machine has before, to give it back
saved_conf=
if [ -e /etc/ibsmd.conf ]; then
	cp -p /etc/ibsmd.conf "$T/etc-ibsmd.conf.saved"
	saved_conf=1
fi
installed=
purge() {
	[ -n "$installed" ] || return 0
	DEBIAN_FRONTEND=noninteractive dpkg --purge ibsmd >"$T/purge.out" 2>&1
	installed=
	if [ -n "$saved_conf" ] && [ ! -e /etc/ibsmd.conf ]; then
		cp -p "$T/etc-ibsmd.conf.saved" /etc/ibsmd.conf
	fi
}
trap 'purge; cleanup' EXIT

# a clean copy: the files git knows (and new ones not ignored), nothing built
src="$T/src/ibsmd"
mkdir -p "$src"
(cd "$top_srcdir" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
	tar -xf - -C "$src"
check "the clean copy has debian/" test -x "$src/debian/rules"
start=$SECONDS
(cd "$src" && timeout 900 dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
deb=$(ls "$T"/src/ibsmd_*_*.deb 2>/dev/null | head -1)
check "dpkg-buildpackage -us -uc -b: exit 0 ($rc, $((SECONDS - start)) s)" test "$rc" = 0
[ "$rc" = 0 ] || tail -30 "$T/build.log"
if [ -z "$deb" ]; then
	fail "no ibsmd_*.deb built"
	finish
fi
pass "built $(basename "$deb")"

if command -v lintian >/dev/null; then
	lintian "$deb" >"$T/lintian.out" 2>&1
	sed 's/^/  lintian: /' "$T/lintian.out" | grep -v 'root privileges' | head -40
	check "lintian: no error" bash -c "! grep -q '^E: ' '$T/lintian.out'"
else
	log "lintian not installed: not run"
fi

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$T/contents"
for f in /usr/sbin/ibsmd /usr/bin/smctl /usr/share/man/man8/ibsmd.8.gz \
	/usr/share/man/man8/smctl.8.gz /usr/share/man/man5/ibsmd.conf.5.gz \
	/lib/systemd/system/ibsmd.service /etc/ibsmd.conf /etc/logrotate.d/ibsmd \
	/usr/share/bash-completion/completions/smctl /usr/share/ibsmd/web/index.html \
	/usr/share/ibsmd/monitoring/ibsmd-grafana.json /usr/share/ibsmd/monitoring/ibsmd-alerts.yml \
	/usr/share/doc/ibsmd/migrating-from-opensm.md.gz; do
	check "the package holds $f" grep -qxF "$f" "$T/contents"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles >"$T/conffiles" 2>/dev/null
check "/etc/ibsmd.conf is a conffile" grep -qx /etc/ibsmd.conf "$T/conffiles"
check "so is the logrotate snippet" grep -qx /etc/logrotate.d/ibsmd "$T/conffiles"

installed=1
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold "$deb" >"$T/install.out" 2>&1
rc=$?
sed 's/^/  dpkg -i: /' "$T/install.out" | grep -i 'ibsmd:' | head -10
check "dpkg -i: exit 0 ($rc)" test "$rc" = 0
check "installed: /usr/sbin/ibsmd --version" bash -c "/usr/sbin/ibsmd --version | grep -q '^ibsmd [0-9]'"
/usr/sbin/ibsmd --check-config >"$T/check.out" 2>&1
rc=$?
check "installed: /usr/sbin/ibsmd --check-config: exit 0 ($rc)" test "$rc" = 0
check "it read the shipped /etc/ibsmd.conf ($(head -1 "$T/check.out"))" \
	grep -qx "/etc/ibsmd.conf: configuration OK" "$T/check.out"
check "installed: smctl --help" bash -c "/usr/bin/smctl --help >/dev/null"
check "installed: man ibsmd.conf renders" bash -c "zcat /usr/share/man/man5/ibsmd.conf.5.gz | groff -man -Tutf8 -ww -z"
check "the unit is not enabled" bash -c "! ls /etc/systemd/system/*.wants/ibsmd.service >/dev/null 2>&1"
if ls /etc/systemd/system/*.wants/opensm.service >/dev/null 2>&1 || pidof opensm >/dev/null; then
	check "the postinst names the enabled OpenSM" grep -q "OpenSM is enabled or running" "$T/install.out"
else
	check "the postinst says how to enable ibsmd" grep -q "systemctl enable --now ibsmd" "$T/install.out"
fi
if command -v systemd-analyze >/dev/null; then
	out=$(systemd-analyze verify --man=no /lib/systemd/system/ibsmd.service 2>&1)
	check "the installed unit verifies${out:+: $out}" test -z "$out"
fi

purge
check "purged: no package left" bash -c "! dpkg-query -W -f='\${Status}' ibsmd 2>/dev/null | grep -q installed"
check "purged: no /usr/sbin/ibsmd, no unit" test ! -e /usr/sbin/ibsmd -a ! -e /lib/systemd/system/ibsmd.service
if [ -n "$saved_conf" ]; then
	check "the machine's /etc/ibsmd.conf is as it was" cmp -s /etc/ibsmd.conf "$T/etc-ibsmd.conf.saved"
else
	check "purged: no /etc/ibsmd.conf left" test ! -e /etc/ibsmd.conf
fi
finish
