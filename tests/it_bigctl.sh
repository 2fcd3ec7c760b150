#!/bin/bash
# Integration: smctl on a fabric of more than 10,000 nodes (a 3-level fat tree
# of radix 34: 9,826 hosts, 1,445 switches).  Every listing command answers
# in full (replies of tens of MB, far over the 1 MiB a client may leave
# unread), the counts match the fabric, the filters (--type, --state, --node,
# --offset, --limit) return what they say, pages put together equal the whole
# list, and the daemon goes on answering while a client that asked for the
# ports reads nothing.
. "$(dirname "$0")/lib.sh"

K=${IBSMD_BIGCTL_K:-34}
"$TOPOGEN" fattree3 -k "$K" -o "$T/big.net" || { fail "topogen"; finish; }
HOSTS=$((K * K * K / 4))
SWITCHES=$((5 * K * K / 4))
N=$((HOSTS + SWITCHES))
# ports: every host port, every switch port (K each, all cabled in a full tree)
PORTS=$((HOSTS + SWITCHES * K))
LINKS=$(((HOSTS + SWITCHES * K) / 2))
log "fattree3 k=$K: $N nodes, $PORTS ports, $LINKS links"
sim_start "$T/big.net" -N 16384 -S 2048 -P 80000 -L 16384 || { fail "ibsim starts"; finish; }
sm_start "$T/state" --sweep-interval 0 --window 64
SOCK=$SM_SOCK
check "subnet up with $N nodes" wait_for 240 grep -q "subnet up: $N nodes" "$T/smd.err"

ctl() { "$SMCTL" --socket "$SOCK" --timeout 120 "$@"; }
count() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

# ---- every listing answers, in full -------------------------------------------
for cmd in nodes ports links lids; do
	ctl --json "$cmd" >"$T/$cmd.json" 2>"$T/$cmd.err"
	rc=$?
	check "smctl --json $cmd answers ($(wc -c <"$T/$cmd.json") bytes)" test "$rc" = 0
	ctl "$cmd" >"$T/$cmd.txt" 2>"$T/$cmd.txt.err"
	check "smctl $cmd (table) answers" test $? = 0 -a -s "$T/$cmd.txt"
done
check "nodes: $N" test "$(count <"$T/nodes.json")" = "$N"
check "ports: $PORTS" test "$(count <"$T/ports.json")" = "$PORTS"
check "links: $LINKS" test "$(count <"$T/links.json")" = "$LINKS"
check "lids: $N" test "$(count <"$T/lids.json")" = "$N"
check "the ports table has a header and a row per port" \
	test "$(wc -l <"$T/ports.txt")" = $((PORTS + 1))
for fmt in json ibnetdiscover dot; do
	ctl topology --format "$fmt" >"$T/topo.$fmt" 2>"$T/topo.$fmt.err"
	check "topology --format $fmt answers ($(wc -c <"$T/topo.$fmt") bytes)" \
		test $? = 0 -a -s "$T/topo.$fmt"
done
check "topology --format json prints JSON with every node" python3 -c "
import json, sys
t = json.load(open('$T/topo.json'))
sys.exit(0 if len(t['nodes']) == $N and len(t['links']) == $LINKS else 1)"
for cmd in status config metrics eventlog "node 1" "route 1 $N"; do
	# shellcheck disable=SC2086
	ctl $cmd >"$T/one.out" 2>"$T/one.err"
	check "smctl $cmd answers" test $? = 0 -a -s "$T/one.out"
done

# ---- filters --------------------------------------------------------------------
check "ports --type ca: $HOSTS" test "$(ctl --json ports --type ca | count)" = "$HOSTS"
check "ports --type switch --state active: $((SWITCHES * K))" \
	test "$(ctl --json ports --type switch --state active | count)" = $((SWITCHES * K))
check "ports --state down: none" test "$(ctl --json ports --state down | count)" = 0
check "nodes --type switch: $SWITCHES" test "$(ctl --json nodes --type switch | count)" = "$SWITCHES"
check "links --node 1: one (a host's)" test "$(ctl --json links --node 1 | count)" = 1
SW=$(python3 -c "
import json
print(next(n['desc'] for n in json.load(open('$T/nodes.json')) if n['type'] == 'Switch'))")
check "ports --node '$SW': $K" test "$(ctl --json ports --node "$SW" | count)" = "$K"
check "ports --limit 10: 10" test "$(ctl --json ports --limit 10 | count)" = 10
check "ports --offset $((PORTS - 3)): 3" test "$(ctl --json ports --offset $((PORTS - 3)) | count)" = 3
# pages of 5,000 put together are the whole list, in order
off=0
: >"$T/pages.json"
while :; do
	ctl --json ports --offset "$off" --limit 5000 >"$T/page.json" || break
	n=$(count <"$T/page.json")
	[ "$n" = 0 ] && break
	python3 -c 'import json,sys; [print(json.dumps(p, sort_keys=True)) for p in json.load(open(sys.argv[1]))]' \
		"$T/page.json" >>"$T/pages.json"
	off=$((off + n))
done
python3 -c 'import json,sys; [print(json.dumps(p, sort_keys=True)) for p in json.load(open(sys.argv[1]))]' \
	"$T/ports.json" >"$T/whole.json"
check "pages of 5,000 ports together equal the whole list" cmp -s "$T/pages.json" "$T/whole.json"
ctl ports --state bogus >/dev/null 2>"$T/err"
check "a bad filter is refused, saying why" test $? = 1 -a -n "$(grep 'state must be' "$T/err")"
ctl ports --node no-such-node >/dev/null 2>"$T/err"
check "an unknown node is not_found" grep -q not_found "$T/err"

# ---- a client that asks for everything and reads nothing --------------------------
cat >"$T/stall.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"ports"}\n')
print("sent", flush=True)
time.sleep(float(sys.argv[2]))
EOF
python3 "$T/stall.py" "$SOCK" 90 >"$T/stall.out" &
STALL=$!
PIDS+=("$STALL")
wait_for 30 grep -q sent "$T/stall.out" || fail "the stalled reader asks"
# (the reply is built first, on the loop: under a sanitizer on a loaded machine
# that takes a while, so the first answer may come late, the reader still sitting)
check "while it sits on its reply the daemon answers others" \
	wait_for 60 bash -c "'$SMCTL' --socket '$SOCK' --timeout 10 status >/dev/null"
check "  (the reader still sits on it)" kill -0 "$STALL"
check "and sweeps" bash -c "'$SMCTL' --socket '$SOCK' --timeout 60 sweep >/dev/null"
kill "$STALL" 2>/dev/null
wait "$STALL" 2>/dev/null
check "the daemon is still up" kill -0 "$SM_PID"
# the sweep ordered above is still running (the order is answered when taken):
# SIGTERM with thousands of SMPs out, whose answers keep coming after the
# daemon stops reading (once a crash in umad2sim's receiver, mad/madio.c)
check "SIGTERM stops it cleanly" sm_stop
finish
