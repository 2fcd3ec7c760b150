#!/bin/sh
# Install what ibsmd needs to build, run and test (Debian 12).  Sourced or run
# by quickstart.sh and check.sh; safe to run again.
set -e
PKGS="build-essential autoconf automake libtool pkg-config
libibumad-dev libibmad-dev libevent-dev libjansson-dev libsystemd-dev libcunit1-dev libinih-dev
ibsim-utils libumad2sim0 infiniband-diags opensm ibutils python3 groff-base systemd time bc
clang-format git
chromium chromium-driver python3-selenium"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
