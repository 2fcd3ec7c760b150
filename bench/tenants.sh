#!/bin/bash
# Benchmark: tenant partitions at run time (issue 23).  Not a test.  On a
# 3-level fat tree of radix K in ibsim, ibsmd with HTTPS and a users file;
# for a P_Key of N GUIDs (the first N host ports, one POST as ib-kubernetes'
# UFM plugin sends it): the time from the POST to the answer, and to the
# P_Key's "ready": true (polled every 20 ms over HTTPS), the P_KeyTable
# blocks written (smctl status runtime_partitions.blocks), then for its
# DELETE: the answer, the key gone from the first host's table (smpquery
# pkeys polled: an upper bound, each smpquery takes some ms), the blocks.
#
#   bench/tenants.sh [K...]        radixes (default 16 24: 1,024 and 3,456 hosts)
#   SIZES="2 64 1024" bench/tenants.sh 16
set -u
SIZES=${SIZES:-2 64 1024}
KS=${*:-16 24}
. "$(dirname "$0")/lib.sh" tenants
SM=

sm_down() { [ -n "$SM" ] && { kill "$SM"; wait "$SM" 2>/dev/null; SM=; }; }
status() { "$B/smctl" --socket "$W/sock" --timeout 60 --json status 2>/dev/null; }
up() { status | python3 -c 'import json,sys; sys.exit(not json.load(sys.stdin)["subnet_up"])' 2>/dev/null; }
blocks() { status | python3 -c 'import json,sys; print(json.load(sys.stdin)["runtime_partitions"]["blocks"])'; }

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" -days 2 \
	-subj "/CN=ibsmd-bench" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || exit 1
chmod 600 "$W/key.pem"
printf 'bench:%s:admin\n' "$(openssl passwd -6 bench)" >"$W/users"
chmod 600 "$W/users"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$W/ibsmd.conf" <<C
http_listen = 127.0.0.1:$PORT
http_tls_cert = $W/cert.pem
http_tls_key = $W/key.pem
http_users_file = $W/users
http_rate_limit = 0
C

printf "%-4s %6s %6s | %6s | %9s %10s %7s | %9s %10s %7s\n" K hosts GUIDs pkey "POST ms" "ready ms" \
	blocks "DELETE ms" "gone ms" blocks
for K in $KS; do
	"$B/ibsmd-topogen" fattree3 -k "$K" -o "$W/ft$K.net" || exit 1
	sim_up "$W/ft$K.net"
	rm -rf "$W/state"
	(cd "$W" && LD_PRELOAD=$UMAD2SIM exec "$B/ibsmd" -F "$W/ibsmd.conf" --state-dir "$W/state" \
		--socket "$W/sock" --sweep-interval 0 >"$W/ibsmd.out" 2>&1) &
	SM=$!
	PIDS+=("$SM")
	wait_until 1800 up || { echo "K=$K: the subnet does not come up"; tail -3 "$W/ibsmd.out"; exit 1; }
	"$B/smctl" --socket "$W/sock" --json lids | python3 -c '
import json,sys
for l in json.load(sys.stdin):
    if l.get("type") == "ca" or l["desc"].startswith("ca-"): print(l["port_guid"][2:])' >"$W/guids"
	hosts=$(wc -l <"$W/guids")
	i=0
	for n in $SIZES; do
		i=$((i + 1))
		pkey=$(printf '0x%04x' $((0x100 + i)))
		b0=$(blocks)
		out=$(python3 - "$PORT" "$W/cert.pem" "$pkey" "$n" "$W/guids" <<'PY'
import base64, http.client, json, ssl, sys, time
port, ca, pkey, n, gf = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
guids = [l.strip() for l in open(gf) if l.strip()][:n]
ctx = ssl.create_default_context(cafile=ca)
auth = {"Authorization": "Basic " + base64.b64encode(b"bench:bench").decode(),
        "Content-Type": "application/json"}
def call(method, path, body=None):
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=60)
    c.request(method, path, json.dumps(body) if body is not None else None, auth)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None
t0 = time.monotonic()
st, _ = call("POST", "/ufmRest/resources/pkeys", {"pkey": pkey, "index0": True, "ip_over_ib": True,
                                                  "membership": "full", "guids": guids})
t1 = time.monotonic()
assert st == 200, st
while True:
    st, j = call("GET", "/ufmRest/resources/pkeys/" + pkey)
    if st == 200 and j["ready"] and j["holding"] == len(guids):
        break
    time.sleep(0.02)
t2 = time.monotonic()
print(f"{(t1 - t0) * 1000:.1f} {(t2 - t0) * 1000:.1f}")
PY
)
		b1=$(blocks)
		# the DELETE, then the first host's table polled (smpquery) until the key is gone
		lid=$("$B/smctl" --socket "$W/sock" --json lids | python3 -c '
import json,sys
g = sys.argv[1]
print(next(l["lid"] for l in json.load(sys.stdin) if l["port_guid"][2:] == g))' "$(head -1 "$W/guids")")
		gone=$(python3 - "$PORT" "$W/cert.pem" "$pkey" "$lid" "$UMAD2SIM" "$W" <<'PY'
import base64, http.client, os, ssl, subprocess, sys, time
port, ca, pkey, lid, pre, w = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
t0 = time.monotonic()
c = http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=ca))
c.request("DELETE", "/ufmRest/resources/pkeys/" + pkey, None,
          {"Authorization": "Basic " + base64.b64encode(b"bench:bench").decode()})
assert c.getresponse().status == 200
t1 = time.monotonic()
key = "0x%04x" % (0x8000 | int(pkey, 16))
env = dict(os.environ, LD_PRELOAD=pre)
while key in subprocess.run(["smpquery", "pkeys", lid], capture_output=True, text=True, env=env, cwd=w).stdout:
    pass
print(f"{(t1 - t0) * 1000:.1f} {(time.monotonic() - t0) * 1000:.0f}")
PY
)
		wait_until 600 bash -c "\"$B/smctl\" --socket $W/sock --json status | python3 -c 'import json,sys; s=json.load(sys.stdin)[\"runtime_partitions\"]; sys.exit(s[\"pending_ports\"] != 0)'"
		b2=$(blocks)
		printf "%-4s %6s %6s | %6s | %9s %10s %7s | %9s %10s %7s\n" "$K" "$hosts" "$n" "$pkey" \
			"${out% *}" "${out#* }" $((b1 - b0)) "${gone% *}" "${gone#* }" $((b2 - b1))
	done
	status | python3 -c 'import json,sys; print("     ", json.load(sys.stdin)["runtime_partitions"])'
	sm_down
done
