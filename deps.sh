#!/bin/sh
# Install what ibsmd needs (Debian 12); safe to run again.
#
#   ./deps.sh build   what builds and runs ibsmd
#   ./deps.sh         that, and what the tests and the quick start use: the
#                     fabric simulator and the tools ibsmd is checked against
#                     (check.sh and quickstart.sh run this)
#
# OpenSM is one of those tools.  Debian starts and enables its service on
# install (with PORTS=ALL: a second subnet manager on a host with HCAs), so
# when this script installs it, it keeps the service from starting and
# disables it; an OpenSM that was installed before is left as it was.
set -e
BUILD_PKGS="build-essential autoconf automake libtool pkg-config
libibumad-dev libibmad-dev libevent-dev libjansson-dev libsystemd-dev libinih-dev
libssl-dev libcrypt-dev"
TEST_PKGS="libcunit1-dev libseccomp-dev ibsim-utils libumad2sim0 infiniband-diags opensm ibutils python3
groff-base systemd time bc clang-format clang git curl openssl
chromium chromium-driver python3-selenium
debhelper lintian"
case "${1:-test}" in
build) PKGS=$BUILD_PKGS ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
new_opensm=""
case " $missing " in *" opensm "*) new_opensm=1 ;; esac
$SUDO apt-get update -qq
if [ -n "$new_opensm" ] && [ ! -e /usr/sbin/policy-rc.d ]; then
	# invoke-rc.d asks this before starting a service: 101 = not now
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
if [ -n "$new_opensm" ]; then
	$SUDO systemctl disable opensm.service >/dev/null 2>&1 || true
	$SUDO update-rc.d opensm disable >/dev/null 2>&1 || true
	echo "deps: opensm is installed for the tests only; its service is disabled" \
		"(systemctl enable --now opensm to run it)"
fi
