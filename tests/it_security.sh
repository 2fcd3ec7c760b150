#!/bin/bash
# Integration: what an untrusted host or user may throw at the running SM.
#   - the receive path: an unsolicited PerfMgt request and stray responses
#     (SMP, SA, PerfMgt GetResp with TIDs nobody sent) are counted and
#     dropped by our dispatcher (smctl status: mad.unsolicited, mad.unmatched),
#     and the SM carries on; trap 256 (bad M_Key) is counted by the requester
#     it names (mkey.traps, mkey.offenders).  ibsim has no M_Key: that the
#     ports take and check the key is test_mkey's.
#   - the control socket: 64 idle connections from a read-only user (uid
#     65534 in the socket's group) do not lock root out (the last slots are
#     admins', a uid has at most 16), and a request dripped at 1 byte/s
#     loses its slot within the 5 s request deadline.
. "$(dirname "$0")/lib.sh"
INJECT="$top_builddir/tests/madinject"

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || fail "topogen"
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
chmod 0711 "$T" # a user other than root reaches the socket in it
sm_start "$T/state" --sweep-interval 2
check "daemon comes up" wait_for 30 grep -q "subnet up" "$T/smd.err"
SOCK=$SM_SOCK
# j EXPR: a Python expression over smctl --json status (o)
j() { "$SMCTL" --socket "$SOCK" --json status | python3 -c "import json,sys; o=json.load(sys.stdin); print($1)"; }
SMLID=$(sim_run 20 sminfo 2>/dev/null | sed -n 's/^sminfo: sm lid \([0-9]*\).*/\1/p')
SMLID=${SMLID:-1}
inject() { (export SIM_HOST=ca-3; sim_run 30 "$INJECT" --dlid "$SMLID" "$@" >>"$T/inject.out" 2>&1); }

# --- the receive path
# ibsim's own PMA answers PortCounters for the SM's node, and it hands a
# client no response to a request the client did not send: on the simulator
# only PerfMgt requests of attributes it does not serve reach us (stray
# responses are test_xact's and test_dispatch's, with the dispatch table).
U0=$(j 'o["mad"]["unsolicited"]')
check "an unsolicited PerfMgt Get is sent" inject --class 0x04 --method 0x01 --attr 0x20
check "an unsolicited PerfMgt Set is sent" inject --class 0x04 --method 0x02 --attr 0x20
check "an unsolicited PerfMgt Get of another attribute is sent" inject --class 0x04 --method 0x01 --attr 0x30
for c in 0x01 0x81 0x03 0x04; do
	check "a stray class $c GetResp is sent" inject --class $c --method 0x81 --attr 0x11
done
check "the unsolicited requests are counted ($U0 -> 3)" \
	wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"mad\"][\"unsolicited\"])') -ge $((U0 + 3)) ]"
check "the SM is still there" kill -0 "$SM_PID"
check "and answers SMInfo as master" bash -c "cd '$T' && LD_PRELOAD='$UMAD2SIM' timeout 20 sminfo 2>/dev/null | grep -q SMINFO_MASTER"

# --- trap 256: counted by the requester it names
T0=$(j 'o["mkey"]["traps"]')
check "10 trap 256s are sent" inject --class 0x01 --method 0x05 --attr 0x02 --trap 256 --count 10 --interval 5
check "they are counted ($T0 -> 10)" wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"mkey\"][\"traps\"])') -ge $((T0 + 10)) ]"
check "against one offender, bounded table ($(j 'o["mkey"]["offenders"]'))" \
	test "$(j 'sum(x["traps"] for x in o["mkey"]["offenders"])')" -ge 10
check "and logged with the requester" grep -q "trap 256 from .*: bad M_Key 0x0000000000000000 from" "$T/smd.err"
check "no M_Key set by default" test "$(j 'o["mkey"]["set"]')" = False

# --- the control socket under abuse
# hold N connections as uid 65534 (gid 0: the socket's group), idle, until killed
cat >"$T/hold.py" <<'PY'
import socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
held, refused = [], 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(0.3)
    try:
        line = s.recv(4096)  # a refusal comes at once; an accepted one says nothing
        if b"too_many_clients" in line:
            refused += 1
            s.close()
            continue
    except socket.timeout:
        pass
    held.append(s)
print(len(held), refused, flush=True)
time.sleep(600)
PY
setpriv --reuid=65534 --regid=0 --clear-groups /usr/bin/python3 "$T/hold.py" "$SOCK" 64 >"$T/hold.out" &
HOLD=$!
PIDS+=("$HOLD")
check "the read-only user's 64 connections are tried" wait_for 60 test -s "$T/hold.out"
read -r held refused <"$T/hold.out"
check "it holds 16 (the per-uid cap), $refused refused" test "$held" = 16 -a "$refused" = 48
check "root still gets in (smctl status)" bash -c "\"$SMCTL\" --socket \"$SOCK\" status >/dev/null"
check "and may give orders (smctl sweep)" bash -c "\"$SMCTL\" --socket \"$SOCK\" sweep >/dev/null"
check "status counts the refusals" test "$(j 'o["ctl"]["rejected_uid"]')" -ge 48
# three more read-only users fill what is not reserved: root still gets in
for u in 65533 65532 65531; do
	setpriv --reuid=$u --regid=0 --clear-groups /usr/bin/python3 "$T/hold.py" "$SOCK" 16 >"$T/hold.$u" &
	PIDS+=("$!")
done
check "three more users take what they can" wait_for 60 bash -c "[ -s '$T/hold.65533' -a -s '$T/hold.65532' -a -s '$T/hold.65531' ]"
taken=$(cat "$T"/hold.6553[123] | awk '{s += $1} END {print s}')
check "the non-admin slots are full (16 + $taken = 56 of 64)" test $((16 + taken)) = 56
check "root still gets in with 56 read-only connections held" bash -c "\"$SMCTL\" --socket \"$SOCK\" status >/dev/null"
check "status counts the reserved refusals" test "$(j 'o["ctl"]["rejected_reserved"]')" -ge 1
for p in "${PIDS[@]}"; do case "$p" in "$SIM_PID" | "$SM_PID") ;; *) kill "$p" 2>/dev/null ;; esac; done
wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"ctl\"][\"clients\"])') = 1 ]"

# a request dripped at 1 byte/s loses its slot at the 5 s deadline
cat >"$T/drip.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(0)
req, sent, t0, reply = b'{"cmd":"status"}\n', 0, time.time(), b""
for b in req:
    try:
        reply = s.recv(4096)
        if reply:
            break
    except BlockingIOError:
        pass
    try:
        s.send(bytes([b]))
    except OSError:
        break
    sent += 1
    time.sleep(1)
print(sent, round(time.time() - t0), reply.decode().strip())
PY
out=$(setpriv --reuid=65534 --regid=0 --clear-groups timeout 30 /usr/bin/python3 "$T/drip.py" "$SOCK")
log "drip: $out"
check "the dripped request is cut off before it is whole ($out)" bash -c "set -- $(echo "$out" | cut -d' ' -f1-2); [ \$1 -lt 17 ] && [ \$2 -le 8 ]"
check "with a timeout error" bash -c "echo '$out' | grep -q '\"code\": *\"timeout\"'"
check "counted" test "$(j 'o["ctl"]["request_timeouts"]')" -ge 1
check "and the SM is still master ($N nodes)" test "$(j 'o["nodes"]')" = "$N"
check "SIGTERM stops it cleanly" sm_stop
finish
