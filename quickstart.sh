#!/bin/bash
# Quick start: install dependencies, build, start a simulated fabric (ibsim,
# a small 2-level fat tree), run ibsmd on it, show what came up, then stop
# everything this script started.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
FABRIC=${1:-$ROOT/tests/fabrics/fattree-k4.net}

./deps.sh test
if [ -f config.status ]; then # configured in place: it blocks builds in build/
	echo "quickstart: the source tree was configured in place; cleaning it (make distclean)"
	make distclean >/dev/null 2>&1 || rm -f config.status Makefile
fi
[ -x configure ] || autoreconf -fi
mkdir -p build
(cd build && { [ -f Makefile ] || ../configure; } && make -j"$(nproc)")

W=$(mktemp -d /tmp/ibsmd-quickstart.XXXXXX)
export IBSIM_SOCKNAME="ibsmd-quickstart-$$"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	exec 7>&- 2>/dev/null || true
	echo "quickstart: stopped ibsim and ibsmd; logs are in $W"
}
trap cleanup EXIT

echo "quickstart: starting ibsim on $FABRIC"
mkfifo "$W/console"
exec 7<>"$W/console"      # keeps ibsim's console open
(cd "$W" && exec ibsim -s "$FABRIC" <"$W/console" >"$W/ibsim.log" 2>&1) &
PIDS+=($!)
for _ in $(seq 100); do grep -q "simulator ready" "$W/ibsim.log" && break; sleep 0.1; done

echo "quickstart: starting ibsmd (control socket $W/ibsmd.sock)"
(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$ROOT/build/ibsmd" --state-dir "$W/state" \
	--socket "$W/ibsmd.sock" --config /dev/null >"$W/ibsmd.log" 2>&1) &
PIDS+=($!)
SMCTL="$ROOT/build/smctl --socket $W/ibsmd.sock"
for _ in $(seq 100); do
	$SMCTL --json status 2>/dev/null | grep -q '"subnet_up": *true' && break
	sleep 0.1
done
echo
echo "quickstart: ibsmd log:"; sed 's/^/  /' "$W/ibsmd.log"
echo
echo "\$ iblinkinfo    (infiniband-diags, reading the fabric back)"
(cd "$W" && LD_PRELOAD=$UMAD2SIM timeout 30 iblinkinfo 2>/dev/null) || true
echo
# a PathRecord from the SM's host to the host with the highest LID
LAST=$($SMCTL --json lids 2>/dev/null | python3 -c 'import json,sys; print(max(l["lid"] for l in json.load(sys.stdin) if l["port"]))' 2>/dev/null || echo 2)
echo "\$ saquery --src-to-dst 1:$LAST    (the SA answering a PathRecord query)"
(cd "$W" && LD_PRELOAD=$UMAD2SIM timeout 30 saquery --src-to-dst "1:$LAST" 2>/dev/null) || true
echo
echo "\$ smctl status"; $SMCTL status || true
echo
echo "\$ smctl nodes"; $SMCTL nodes || true
