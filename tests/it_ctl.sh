#!/bin/bash
# Integration: the control socket and smctl against a running ibsmd on ibsim.
#   - status / nodes / route (checked against ibtracert) / topology (checked
#     against ibnetdiscover) / metrics / config;
#   - sweep, reroute, priority, loglevel; an unprivileged peer may read but
#     not change anything;
#   - smctl events reports a link going down and coming back (ibsim Unlink);
#   - bad input: garbage, truncated JSON, unknown commands, wrong argument
#     types, a 4 MiB request, 50 clients at once, a client that never reads;
#   - sd_notify: READY=1 and WATCHDOG=1 reach a NOTIFY_SOCKET listener.
. "$(dirname "$0")/lib.sh"

SOCK="$T/ibsmd.sock"
ctl() { "$SMCTL" --socket "$SOCK" --timeout 20 "$@"; }
jctl() { "$SMCTL" --socket "$SOCK" --timeout 20 --json "$@"; }
# jget EXPR: evaluate a Python expression over the JSON on stdin (as j)
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
not() { ! "$@"; }
quiet() { "$@" >/dev/null; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
N=$(grep -cE '^(Switch|Hca|Ca)[[:space:]]' "$T/ft.net")
log "fabric: $N nodes"
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

# ---- a NOTIFY_SOCKET listener ---------------------------------------------
cat >"$T/notify.py" <<'EOF'
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a") as f:
    while True:
        d = s.recv(4096)
        f.write(d.decode(errors="replace").replace("\n", "\n") + "\n")
        f.flush()
EOF
python3 "$T/notify.py" "$T/notify.sock" "$T/notify.log" &
PIDS+=($!)
wait_for 10 test -S "$T/notify.sock" || fail "notify listener starts"

# ---- the daemon -------------------------------------------------------------
# Readers: the socket's group.  As root the socket goes to gid 65534's group so
# an unprivileged peer (setpriv 65534) can connect; admin stays root-only.
UNPRIV=
if [ "$(id -u)" = 0 ] && NOGROUP=$(getent group 65534 | cut -d: -f1) && [ -n "$NOGROUP" ]; then
	UNPRIV=1
	chmod 711 "$T"
	printf 'socket_group = %s\n' "$NOGROUP" >"$T/ibsmd.conf"
else
	# not root: let our own group be admin so the admin commands can be tested
	printf 'admin_group = %s\n' "$(id -gn)" >"$T/ibsmd.conf"
fi
(
	cd "$T" || exit 1
	export NOTIFY_SOCKET="$T/notify.sock" WATCHDOG_USEC=2000000 WATCHDOG_PID=$BASHPID
	LD_PRELOAD="$UMAD2SIM" exec "$IBSMD" --config "$T/ibsmd.conf" --state-dir "$T/state" \
		--socket "$SOCK" --sweep-interval 2 >"$T/smd.out" 2>"$T/smd.err"
) &
SM_PID=$!
PIDS+=("$SM_PID")

subnet_up() { jctl status 2>/dev/null | jget 2>/dev/null 'j["subnet_up"] and j["state"] == "MASTER"' | grep -qx True; }
if ! wait_for 30 subnet_up; then
	fail "ibsmd brings the subnet up: $(tail -3 "$T/smd.err")"
	finish
fi
# the routing dumps are written by a child: it is reaped when it exits, no zombie waits
check "routing dumps written" wait_for 20 test -s "$T/state/lfts.out"
zombies() { ps --ppid "$SM_PID" -o stat= 2>/dev/null | grep -c '^Z'; }
check "no zombie child once the dump writer is done" wait_for 10 test "$(zombies)" = 0
jctl status >"$T/status.json"
check "status: MASTER, subnet up" test "$(jget 'j["state"], j["subnet_up"]' <"$T/status.json")" = "('MASTER', True)"
check "status: $N nodes" test "$(jget 'j["nodes"]' <"$T/status.json")" = "$N"
check "status: switches + cas = nodes" \
	test "$(jget 'j["switches"] + j["cas"]' <"$T/status.json")" = "$N"
check "status: MAD counters" test "$(jget 'j["mad"]["sent"] > 0 and j["mad"]["received"] > 0' <"$T/status.json")" = True
check "status: human output" sh -c "\"$SMCTL\" --socket \"$SOCK\" status | grep -q '^state: *MASTER'"
check "nodes: $N entries" test "$(jctl nodes | jget 'len(j)')" = "$N"
check "ports/links/lids answer" sh -c "\"$SMCTL\" --socket \"$SOCK\" ports >/dev/null &&
	\"$SMCTL\" --socket \"$SOCK\" links >/dev/null && \"$SMCTL\" --socket \"$SOCK\" lids >/dev/null"
check "links: 16 in a k=4 two-level fat tree" test "$(jctl links | jget 'len(j)')" = 16
node_ids_agree() {
	local guid lid
	read -r guid lid <<<"$(jctl node ca-0 | jget 'j["guid"] + " " + str(j["lid"])')"
	[ "$(jctl node "$guid" | jget 'j["desc"]')" = ca-0 ] &&
		[ "$(jctl node "$lid" | jget 'j["desc"]')" = ca-0 ] &&
		[ "$(jctl node "$lid" | jget 'len(j["ports"])')" = 1 ]
}
check "node ca-0 by name, by GUID and by LID agree" node_ids_agree
ctl node 0xdeadbeef00000000 >/dev/null 2>"$T/err"
check "node: unknown GUID -> exit 1, not_found" test $? = 1 -a -n "$(grep not_found "$T/err")"

# ---- route vs ibtracert -----------------------------------------------------
# from the SM's own CA to the CA farthest away (most directed-route hops)
read -r SRC DST <<<"$(jctl nodes | jget '" ".join(str(x) for x in (lambda cas: (cas[0]["lid"], max(cas, key=lambda n: len(n["dr_path"]))["lid"]))([n for n in j if n["type"] != "Switch"]))')"
log "route $SRC -> $DST"
jctl route "$SRC" "$DST" >"$T/route.json"
sim_run 30 ibtracert "$SRC" "$DST" >"$T/tracert.out" 2>"$T/tracert.err"
cat >"$T/cmp_route.py" <<'EOF'
import json, re, sys
route = json.load(open(sys.argv[1]))
trace = open(sys.argv[2]).read()
# "[out] -> switch port {0xGUID}[in] lid ..." per switch on the path
sw = [(int(g, 16), int(i)) for g, i in re.findall(r"-> switch port \{0x([0-9a-f]+)\}\[(\d+)\]", trace)]
outs = [int(o) for o in re.findall(r"^\[(\d+)\] ->", trace, re.M)]
mine = [(int(h["guid"], 16), h["in_port"]) for h in route["hops"]]
mine_out = [h["out_port"] for h in route["hops"]]
ok = route["complete"] and sw and sw == mine and outs[1:] == mine_out[:len(outs) - 1]
if not ok:
    print("smctl:", mine, mine_out, "ibtracert:", sw, outs)
sys.exit(0 if ok else 1)
EOF
check "route $SRC -> $DST: same switches, ports and hop count as ibtracert" \
	python3 "$T/cmp_route.py" "$T/route.json" "$T/tracert.out"
route_by_name() {
	local a b
	a=$(jctl route "$SRC" "$DST" | jget 'j["hops"]')
	b=$(jctl route "$(jctl node "$SRC" | jget 'j["desc"]')" "$(jctl node "$DST" | jget 'j["guid"]')" | jget 'j["hops"]')
	[ -n "$a" ] && [ "$a" = "$b" ]
}
check "route by description and GUID equals route by LID" route_by_name
ctl route "$SRC" 0x0002c90299999999 >/dev/null 2>&1
check "route to an unknown GUID exits 1" test $? = 1

# ---- admin commands ----------------------------------------------------------
S0=$(jctl status | jget 'j["sweeps"]')
jctl sweep >"$T/sweep.json"
check "sweep returns when the sweep is done, subnet up" \
	test "$(jget 'j["status"], j["subnet_up"]' <"$T/sweep.json")" = "('ok', True)"
S1=$(jctl status | jget 'j["sweeps"]')
check "sweeps increases ($S0 -> $S1)" test "$S1" -gt "$S0"
check "reroute rewrites the LFTs (lft_blocks > 0)" \
	test "$(jctl reroute | jget 'j["lft_blocks"] > 0')" = True
check "sweep wait=false queues" sh -c '"$0" --socket "$1" --json call sweep "{\"wait\":false}" | grep -q queued' "$SMCTL" "$SOCK"
check "priority 5" quiet ctl priority 5
check "status shows priority 5" test "$(jctl status | jget 'j["priority"]')" = 5
ctl priority 99 >/dev/null 2>"$T/err"
check "priority 99 -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
ctl call priority '{"priority":"high"}' >/dev/null 2>"$T/err"
check "priority \"high\" (wrong type) -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
check "loglevel sweep debug" quiet ctl loglevel sweep debug
check "loglevel all info" quiet ctl loglevel all info
ctl loglevel bogus debug >/dev/null 2>"$T/err"
check "loglevel bogus -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
check "config shows the socket path" test "$(jctl config | jget 'j["socket_path"]')" = "$SOCK"

if [ -n "$UNPRIV" ]; then
	AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	check "unprivileged peer may read status" quiet "${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" status
	for c in "sweep" "reroute" "priority 3" "loglevel all debug"; do
		# shellcheck disable=SC2086
		"${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" $c >/dev/null 2>"$T/err"
		check "unprivileged '$c' -> exit 1, permission_denied" \
			test $? = 1 -a -n "$(grep permission_denied "$T/err")"
	done
	check "priority unchanged by the refused peer" test "$(jctl status | jget 'j["priority"]')" = 5
else
	log "not root: skipping the unprivileged-peer checks"
fi

# ---- metrics, topology ------------------------------------------------------
ctl metrics >"$T/metrics.txt"
check "metrics: ibsmd_sweeps_total with HELP and TYPE" sh -c "
	grep -q '^ibsmd_sweeps_total [0-9]' '$T/metrics.txt' &&
	grep -q '^# TYPE ibsmd_sweeps_total counter' '$T/metrics.txt' &&
	grep -q '^# HELP ibsmd_sweeps_total ' '$T/metrics.txt'"
check "metrics: node counts by type" sh -c "
	grep -q '^ibsmd_nodes{type=\"switch\"} 6' '$T/metrics.txt' &&
	grep -q '^ibsmd_nodes{type=\"ca\"} 8' '$T/metrics.txt'"
check "metrics: every sample line is NAME[{labels}] NUMBER" \
	not grep -vE '^(# (HELP|TYPE) .*|[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+)$' "$T/metrics.txt"

ctl topology --format ibnetdiscover >"$T/ours.topo"
sim_run 30 ibnetdiscover >"$T/real.topo" 2>/dev/null
norm() { grep -v 'generated on' "$1" | grep -v '^$' | sort; }
check "topology --format ibnetdiscover lists all $N nodes" \
	test "$(grep -cE '^(Switch|Ca)[[:space:]]' "$T/ours.topo")" = "$N"
check "topology --format ibnetdiscover matches ibnetdiscover line for line" \
	cmp -s <(norm "$T/ours.topo") <(norm "$T/real.topo")
check "topology --format dot is a graph" sh -c "\"$SMCTL\" --socket \"$SOCK\" topology --format dot | head -1 | grep -q '^graph '"
check "topology (json) has $N nodes" test "$(jctl topology | jget 'len(j["nodes"])')" = "$N"
ctl topology --format xml >/dev/null 2>"$T/err"
check "topology --format xml -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"

# ---- events -------------------------------------------------------------------
# stdbuf: smctl's stdout is a file here; keep it line-buffered
stdbuf -oL "$SMCTL" --socket "$SOCK" --json events >"$T/events.log" 2>"$T/events.err" &
EV_PID=$!
PIDS+=("$EV_PID")
subscribed() { ctl metrics | grep -q '^ibsmd_ctl_subscribers [1-9]'; }
check "events client subscribed" wait_for 10 subscribed
sim_cmd 'Unlink "ca-3"[1]'
ev_has() { grep -q "\"type\":\"$1\".*\"$2\"" "$T/events.log"; }
check "events: link_down for ca-3 after Unlink" wait_for 20 ev_has link_down ca-3
check "events: node_removed ca-3" ev_has node_removed ca-3
check "events: port_down on the switch side" grep -q '"type":"port_down"' "$T/events.log"
check "events: sweep_start with its reason (a trap or the light sweep)" \
	grep -qE '"type":"sweep_start".*"reason":"(trap|light sweep)' "$T/events.log"
check "status: $((N - 1)) nodes without ca-3" \
	wait_for 10 sh -c "\"$SMCTL\" --socket \"$SOCK\" --json status | grep -q '\"nodes\": $((N - 1)),'"
sim_cmd 'ReLink "ca-3"[1]'
check "events: node_added ca-3 after ReLink" wait_for 20 ev_has node_added ca-3
check "events: link_up for ca-3" ev_has link_up ca-3
check "log: the link's loss in one line naming both ends" \
	grep -qE 'link down: switch "[^"]+" 0x[0-9a-f]{16} port [0-9]+ -- CA "ca-3[^"]*" 0x[0-9a-f]{16} port 1$|link down: CA "ca-3[^"]*" 0x[0-9a-f]{16} port 1 -- switch "[^"]+" 0x[0-9a-f]{16} port [0-9]+$' "$T/smd.err"
check "log: the node's loss and return" \
	bash -c "grep -q 'node gone: CA \"ca-3' '$T/smd.err' && grep -q 'node new: CA \"ca-3' '$T/smd.err'"
check "log: the link's return" grep -qE 'link up: .*ca-3' "$T/smd.err"
check "events: every event has time and generation" python3 -c '
import json, re, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"type\"")]
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
sys.exit(0 if evs and all(iso.match(e["time"]) and isinstance(e["unix_time"], float)
                          and e["generation"] > 0 for e in evs) else 1)' "$T/events.log"
check "subnet up again with $N nodes" wait_for 20 sh -c \
	"\"$SMCTL\" --socket \"$SOCK\" --json status | grep -q '\"nodes\": $N,' && \"$SMCTL\" --socket \"$SOCK\" --json status | grep -q '\"subnet_up\": true'"

# ---- bad input ----------------------------------------------------------------
cat >"$T/bad.py" <<'EOF'
import json, socket, sys, time
path = sys.argv[1]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s

def readline(s, buf=b""):
    while b"\n" not in buf:
        d = s.recv(65536)
        if not d:
            return None, buf
        buf += d
    line, rest = buf.split(b"\n", 1)
    return json.loads(line), rest

def ask(s, raw):
    s.sendall(raw)
    r, _ = readline(s)
    return r

def report(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)

def code(r):
    return r and not r["ok"] and r["error"]["code"]

def status_ok():
    s = conn()
    r = ask(s, b'{"cmd":"status"}\n')
    s.close()
    return bool(r and r["ok"] and r["result"]["state"] == "MASTER")

s = conn()
for raw, want, what in [
        (b"hello\n", "bad_json", "garbage"),
        (b'{"cmd":"sta\n', "bad_json", "truncated JSON"),
        (b'\xff\xfe{"cmd":"status"}\n', "bad_json", "invalid UTF-8"),
        (b'[1,2,3]\n', "bad_request", "not an object"),
        (b'{"cmd":42}\n', "bad_request", "cmd not a string"),
        (b'{"cmd":"status","bogus":1}\n', "bad_request", "unknown member"),
        (b'{"cmd":"frobnicate"}\n', "unknown_command", "unknown command"),
        (b'{"cmd":"priority","args":{"priority":"high"}}\n', "bad_argument", "priority as a string"),
        (b'{"cmd":"priority","args":{"priority":1.5}}\n', "bad_argument", "priority as a real"),
        (b'{"cmd":"priority"}\n', "bad_argument", "priority missing"),
        (b'{"cmd":"node","args":{"id":[1]}}\n', "bad_argument", "node id as an array"),
        (b'{"cmd":"route","args":{"src":true,"dst":1}}\n', "bad_argument", "route src as a bool"),
        (b'{"cmd":"route","args":{"src":1}}\n', "bad_argument", "route without dst"),
        (b'{"cmd":"route","args":{"src":1,"dst":49152}}\n', "bad_argument", "route to a multicast LID"),
        (b'{"cmd":"status","args":{"x":1}}\n', "bad_argument", "unknown argument"),
        (b'{"cmd":"topology","args":{"format":7}}\n', "bad_argument", "topology format as a number"),
        (b'{"cmd":"loglevel","args":{"category":"sweep","level":"loud"}}\n', "bad_argument", "unknown level"),
        (b'{"cmd":"node","args":{"id":"no-such-node"}}\n', "not_found", "unknown node"),
]:
    r = ask(s, raw)
    report(code(r) == want, "%s -> %s (got %s)" % (what, want, code(r)))
r = ask(s, b'{"cmd":"status","id":[7]}\n')
report(r and r["ok"] and r["id"] == [7], "the same connection still answers, id echoed")
# pipelining: three requests in one write, three replies in order
s.sendall(b'{"cmd":"status","id":1}\n{"cmd":"nope","id":2}\n{"cmd":"lids","id":3}\n')
buf, ids = b"", []
for _ in range(3):
    r, buf = readline(s, buf)
    ids.append(r and r.get("id"))
report(ids == [1, 2, 3], "pipelined requests answered in order (%s)" % ids)
s.close()

# two sweeps pipelined: the second is answered by the very next sweep
s = conn()
s.sendall(b'{"cmd":"sweep","id":1}\n{"cmd":"sweep","id":2}\n')
buf, got = b"", []
for _ in range(2):
    r, buf = readline(s, buf)
    got.append(r)
s.close()
ok = all(r and r["ok"] for r in got) and [r["id"] for r in got] == [1, 2]
report(ok and got[1]["result"]["sweeps"] == got[0]["result"]["sweeps"] + 1,
       "pipelined sweeps: each answered after its own sweep (%s)" %
       [r and r.get("result", {}).get("sweeps") for r in got])

# a 4 MiB request: request_too_large (or the connection closed), then still serving
s = conn()
big = b'{"cmd":"status","args":{"x":"' + b"A" * (4 << 20) + b'"}}\n'
got = None
try:
    s.sendall(big)
except OSError:
    pass
try:
    got, _ = readline(s)
except OSError:
    pass
s.close()
report(got is None or code(got) == "request_too_large",
       "4 MiB request -> request_too_large or closed (got %s)" % code(got))
report(status_ok(), "still answering after the 4 MiB request")

# 50 clients at once, each with a request in flight
socks = [conn() for _ in range(50)]
for i, c in enumerate(socks):
    c.sendall(b'{"cmd":"nodes","id":%d}\n' % i)
ok = 0
for i, c in enumerate(socks):
    r, _ = readline(c)
    ok += bool(r and r["ok"] and r["id"] == i)
for c in socks:
    c.close()
report(ok == 50, "50 concurrent clients all answered (%d)" % ok)

# a client that floods requests and never reads: the others are still served
slow = conn()
slow.setblocking(False)
req = b'{"cmd":"topology","args":{"format":"ibnetdiscover"}}\n' * 64
sent, t0 = 0, time.time()
while time.time() - t0 < 5 and sent < (16 << 20):
    try:
        sent += slow.send(req)
    except BlockingIOError:
        time.sleep(0.05)
    except OSError:
        break   # dropped by the daemon
t0 = time.time()
report(status_ok(), "another client is answered while one never reads (%d bytes sent)" % sent)
report(time.time() - t0 < 5, "... promptly")
slow.close()
# a client that connects and never sends nor reads does not block anyone
idle = conn()
report(status_ok(), "an idle connected client blocks no one")
idle.close()
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then pass "bad input: $what"; else fail "bad input: $verdict $what"; fi
done < <(timeout -k 5 60 python3 "$T/bad.py" "$SOCK" 2>&1)
check "metrics: a slow client was dropped" sh -c "\"$SMCTL\" --socket \"$SOCK\" metrics | grep -q '^ibsmd_ctl_clients_dropped_total [1-9]'"
check "daemon still answers status" quiet ctl status

# ---- sd_notify ----------------------------------------------------------------
check "sd_notify: READY=1" grep -q '^READY=1' "$T/notify.log"
check "sd_notify: STATUS= lines" grep -q '^STATUS=' "$T/notify.log"
check "sd_notify: WATCHDOG=1 (WATCHDOG_USEC=2 s)" wait_for 5 grep -q '^WATCHDOG=1' "$T/notify.log"
W0=$(grep -c '^WATCHDOG=1' "$T/notify.log")
check "sd_notify: WATCHDOG=1 keeps coming" \
	wait_for 20 bash -c "[ \$(grep -c '^WATCHDOG=1' '$T/notify.log') -gt $W0 ]"

# ---- port disable / enable ------------------------------------------------------
# sw-L1-2 port 1 leads to ca-4; read its physical state back with smpquery
P_PATH=$(jctl node sw-L1-2 | jget 'j["dr_path"]')
phys() { sim_run 20 smpquery -D portinfo "$P_PATH" 1 2>/dev/null | sed -n 's/^PhysLinkState:\.*//p'; }
N0=$(jctl status | jget 'j["nodes"]')
check "port disable sw-L1-2 1" quiet ctl port disable sw-L1-2 1
check "smpquery: the port is Disabled ($(phys))" test "$(phys)" = Disabled
check "the CA behind it is gone after the sweep" \
	wait_for 10 sh -c "[ \"\$(\"$SMCTL\" --socket \"$SOCK\" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"nodes\"])')\" = $((N0 - 1)) ]"
check "port enable sw-L1-2 1" quiet ctl port enable sw-L1-2 1
check "smpquery: the port is Polling again ($(phys))" test "$(phys)" = Polling
SMPORT_NODE=$(jctl status | jget 'j["sm_guid"]')
ctl port disable "$SMPORT_NODE" 1 >/dev/null 2>"$T/err"
check "disabling the SM's own link is refused (bad_argument)" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
ctl port disable sw-L1-2 99 >/dev/null 2>"$T/err"
check "port 99 -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
ctl port reboot sw-L1-2 1 >/dev/null 2>"$T/err"
check "action 'reboot' -> exit 1, bad_argument" test $? = 1 -a -n "$(grep bad_argument "$T/err")"
if [ -n "$UNPRIV" ]; then
	"${AS_NOBODY[@]}" "$SMCTL" --socket "$SOCK" port disable sw-L1-2 2 >/dev/null 2>"$T/err"
	check "unprivileged 'port disable' -> exit 1, permission_denied" \
		test $? = 1 -a -n "$(grep permission_denied "$T/err")"
fi

# ---- shut down ----------------------------------------------------------------
kill "$EV_PID" 2>/dev/null
check "ibsmd exits 0 on SIGTERM" sm_stop
check "the socket is removed on exit" test ! -e "$SOCK"
finish
