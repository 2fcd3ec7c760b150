#!/bin/bash
# Integration: tenant partitions at run time (issue 23) on ibsim, driven over
# HTTPS with curl as Mellanox ib-kubernetes' UFM plugin drives UFM:
#   - 401 (no or bad credentials, the bad ones answered after 1 s), 403 (a
#     read-only user; a write without TLS), 400 (a bad P_Key, GUID, body),
#     409 (a P_Key of the partitions file, the default's), 404, 413 (the
#     body, the GUIDs of one request), 429 (http_rate_limit);
#   - a P_Key made for two hosts: ready within a bounded time, smpquery pkeys
#     shows it on those two ports only (at index 0: index0), only their blocks
#     written (two CA ports, the two switch ports facing them), a PathRecord
#     between them in the new P_Key and none to a third host, its IPoIB group;
#   - idempotent: the same add again writes nothing;
#   - one host removed: its table loses the key; a GUID not in the fabric is
#     kept; deleted: gone from every table, the IPoIB group too;
#   - 1,000 add/remove cycles leave nothing behind (no member, no port
#     pending, the host's table without the key);
#   - kill -9 and restart: the runtime set is back and programmed;
#   - a standby pulls it with the state sync and keeps it when it takes over;
#   - http_allow_insecure_writes: a write over plain HTTP from loopback goes.
. "$(dirname "$0")/lib.sh"

export SIM_HOST=ca-5 # the diag tools' host: no SM there
G() { printf '0002c90200000%x01' $(($1 + 1)); } # ca-N's port GUID in fattree-k4.net
read -r PA PB HA HB < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	-subj "/CN=ibsmd-test" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 ||
	{ fail "openssl makes a certificate"; finish; }
chmod 600 "$T/key.pem"
printf '# the orchestrator and a viewer\nk8s:%s:admin\nviewer:%s:read\n' \
	"$(openssl passwd -6 s3cret)" "$(openssl passwd -6 look)" >"$T/users"
chmod 640 "$T/users"
cat >"$T/partitions.conf" <<P
Default=0x7fff, ipoib : ALL=full, SELF=full ;
Storage=0x0010 : ALL_CAS=full ;
P
cat >"$T/A.conf" <<C
sync_listen = 127.0.0.1:$PA
sync_peers = 127.0.0.1:$PB
sync_interval_ms = 300
partition_config_file = $T/partitions.conf
http_listen = 127.0.0.1:$HA
http_tls_cert = $T/cert.pem
http_tls_key = $T/key.pem
http_users_file = $T/users
http_rate_limit = 0
http_max_body = 8192
pkey_max_guids = 200
C
cat >"$T/B.conf" <<C
sync_listen = 127.0.0.1:$PB
sync_peers = 127.0.0.1:$PA
sync_interval_ms = 300
partition_config_file = $T/partitions.conf
http_listen = 127.0.0.1:$HB
http_users_file = $T/users
http_rate_limit = 2
C

U="https://127.0.0.1:$HA"
# code METHOD PATH [BODY] [USER:PASS]: the HTTP status of one request to A
code() {
	curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/cert.pem" -u "${4-k8s:s3cret}" \
		-X "$1" ${3:+-H 'Content-Type: application/json' -d "$3"} "$U$2"
}
# add PKEY GUID...: ib-kubernetes' AddGuidsToPKey body
add() {
	local p=$1 g l=
	shift
	for g in "$@"; do l="$l${l:+,}\"$g\""; done
	code POST /ufmRest/resources/pkeys \
		"{\"pkey\": \"$p\", \"index0\": true, \"ip_over_ib\": true, \"membership\": \"full\", \"guids\": [$l]}"
}
rm_() {
	local p=$1 g l=
	shift
	for g in "$@"; do l="$l${l:+,}\"$g\""; done
	code POST /ufmRest/actions/remove_guids_from_pkey "{\"pkey\": \"$p\", \"guids\": [$l]}"
}
field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$T/body" 2>/dev/null; }
ready() { [ "$(code GET "/ufmRest/resources/pkeys/$1")" = 200 ] && [ "$(field 'j["ready"]')" = True ]; }
st() { smd_field "$1" "j['runtime_partitions']['$2']"; }
lid_of() { "$SMCTL" --socket "$T/$1.sock" --timeout 5 --json lids | python3 -c '
import json,sys; print([l["lid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]][0])' "$2"; }
# the non-zero P_Keys of a LID, in index order
pkeys() { sim_run 20 smpquery pkeys "$1" 2>/dev/null | sed -n 's/^ *[0-9]*: //p' | tr ' ' '\n' | grep -v '^0x0000$' | grep . | tr '\n' ' '; }
# prs FROM_HOST TO_LID PKEY: PathRecords in that P_Key; pr_pkey: their P_Key
prs() { (export SIM_HOST=$1; sim_run 20 saquery PR --slid "$(lid_of A "$1")" --dlid "$2" --pkey "$3" 2>/dev/null) | grep -c "PathRecord dump"; }
pr_pkey() { (export SIM_HOST=$1; sim_run 20 saquery PR --slid "$(lid_of A "$1")" --dlid "$2" 2>/dev/null) | sed -n 's/^[[:space:]]*pkey\.*//p'; }
# has LID KEY / lacks LID KEY: smpquery pkeys shows KEY (exactly, membership bit included)
has() { pkeys "$1" | grep -qw "$2"; }
lacks() { ! has "$@"; }
# holders KEY: the CAs whose table holds KEY (either membership), from smpquery
holders() {
	local i k out=
	for i in 0 1 2 3 4 5 6 7; do
		for k in $(pkeys "${L[$i]}"); do
			[ $((k & 0x7fff)) = $(($1 & 0x7fff)) ] && out="$out ca-$i"
		done
	done
	echo "$out"
}
not() { ! "$@"; }

sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || { fail "ibsim starts"; finish; }
smd A ca-0 -F "$T/A.conf" --priority 14 --sweep-interval 1
check "A brings the subnet up" wait_for 30 smd_up A
declare -A L
for i in 0 1 2 3 4 5 6 7; do L[$i]=$(lid_of A "ca-$i"); done

# ---- refusals -------------------------------------------------------------------
check "no credentials: 401" test "$(code GET /ufmRest/resources/pkeys '' '')" = 401
check "... JSON, code unauthorized" test "$(field 'j["error"]["code"]')" = unauthorized
t0=$(date +%s.%N)
check "a wrong password: 401" test "$(code GET /ufmRest/resources/pkeys '' k8s:nope)" = 401
check "... answered after 1 s at least" python3 -c "import sys; sys.exit(not $(date +%s.%N) - $t0 >= 1.0)"
check "... counted" bash -c "curl -s --cacert $T/cert.pem -u k8s:s3cret $U/metrics | grep -q '^ibsmd_http_auth_failures_total [1-9]'"
check "the plugin's liveness check: 200" test "$(code GET /ufmRest/app/ufm_version)" = 200
check "a read-only user may list: 200" test "$(code GET /ufmRest/resources/pkeys '' viewer:look)" = 200
check "... and may not write: 403" test "$(code POST /ufmRest/resources/pkeys "{\"pkey\":\"0x1234\",\"guids\":[\"$(G 2)\"]}" viewer:look)" = 403
check "... JSON, saying so" test "$(field 'j["error"]["message"]')" = "user 'viewer' may read only (role read)"
check "the read API works with credentials" test "$(code GET /api/status)" = 200
check "a P_Key of the partitions file: 409" test "$(add 0x0010 "$(G 2)")" = 409
check "... with a message naming the file" grep -q "partitions file" "$T/body"
check "the default P_Key: 409" test "$(add 0x7fff "$(G 2)")" = 409
check "a P_Key out of range: 400" test "$(add 0x12345 "$(G 2)")" = 400
check "a GUID that is none: 400" test "$(add 0x1234 zz)" = 400
check "a body that is not JSON: 400" test "$(code POST /ufmRest/resources/pkeys '{"pkey":')" = 400
check "an unknown P_Key: 404" test "$(code GET /ufmRest/resources/pkeys/0x4321)" = 404
check "a body over http_max_body: 413" test "$(code POST /ufmRest/resources/pkeys "{\"pkey\":\"0x1234\",\"guids\":[],\"pad\":\"$(head -c 9000 /dev/zero | tr '\0' x)\"}")" = 413
check "more GUIDs than pkey_max_guids: 413" test "$(add 0x1234 $(for i in $(seq 201); do printf '0002c9030000%04x ' "$i"; done))" = 413
check "nothing was made" test "$(st A pkeys)" = 0
check "every refusal is JSON with a message" grep -q '"message"' "$T/body"

# ---- a P_Key for two hosts ---------------------------------------------------------
B0=$(st A blocks)
t0=$(date +%s.%N)
check "add ca-2, ca-3 to 0x1234: 200" test "$(add 0x1234 "$(G 2)" "$(G 3)")" = 200
check "... ready within 5 s" wait_for 5 ready 0x1234
log "POST to ready: $(python3 -c "print(round(($(date +%s.%N) - $t0) * 1000))") ms"
check "... 4 P_Key blocks written (2 CA ports, the 2 switch ports facing them): $(($(st A blocks) - B0))" \
	test "$(($(st A blocks) - B0))" = 4
# (every CA is a full member of the file's Storage, 0x0010)
check "... smpquery: ca-2 holds it at index 0" test "$(pkeys "${L[2]}")" = "0x9234 0xffff 0x8010 "
check "... ca-3 too" test "$(pkeys "${L[3]}")" = "0x9234 0xffff 0x8010 "
check "... no other CA" test "$(holders 0x1234)" = " ca-2 ca-3"
check "... a PathRecord ca-2 -> ca-3 in it" test "$(prs ca-2 "${L[3]}" 0x1234)" = 1
check "... the first one they share, at index 0: the new P_Key" test "$(pr_pkey ca-2 "${L[3]}")" = 0x9234
check "... none ca-2 -> ca-4 in it" test "$(prs ca-2 "${L[4]}" 0x1234)" = 0
(export SIM_HOST=ca-2; sim_run 20 saquery MCMR) >"$T/mcmr" 2>/dev/null
check "... its IPoIB broadcast group" grep -q "MGID\.*ff12:401b:9234::ffff:ffff" "$T/mcmr"
code GET "/ufmRest/resources/pkeys/?guids_data=true" >/dev/null
check "GET every P_Key: UFM's shape, GUIDs without 0x" \
	test "$(field 'sorted(g["guid"] for g in j["0x1234"]["guids"])')" = "['$(G 2)', '$(G 3)']"
check "a heavy sweep (smctl sweep) keeps it" "$SMCTL" --socket "$T/A.sock" --timeout 30 sweep
check "... ca-2 still holds it" has "${L[2]}" 0x9234
check "... the sweep read and wrote the tables: the view is empty" test "$(st A view_ports)" = 0
check "... and it is still ready" wait_for 5 ready 0x1234
B1=$(st A blocks)
check "the same add again: 200" test "$(add 0x1234 "$(G 2)" "$(G 3)")" = 200
check "... changes nothing" test "$(field 'j["changed"]')" = False
sleep 0.5
check "... writes nothing" test "$(st A blocks)" = "$B1"

# ---- shrink, a GUID not yet there, delete ---------------------------------------------
check "remove ca-3: 200" test "$(rm_ 0x1234 "$(G 3)")" = 200
check "... its table loses the key" wait_for 5 lacks "${L[3]}" 0x9234
check "... ca-2 keeps it" test "$(pkeys "${L[2]}")" = "0x9234 0xffff 0x8010 "
check "... no PathRecord ca-2 -> ca-3 in it" test "$(prs ca-2 "${L[3]}" 0x1234)" = 0
check "removing it again: 200" test "$(rm_ 0x1234 "$(G 3)")" = 200
check "... nothing changed" test "$(field 'j["changed"]')" = False
check "a GUID not in the fabric (a VF to come): kept" test "$(add 0x1234 0002c9030000dead)" = 200
check "... the P_Key stays ready" wait_for 5 ready 0x1234
check "... 2 members, 1 present" test "$(field '(j["members"], j["present"])')" = "(2, 1)"
check "delete 0x1234: 200" test "$(code DELETE /ufmRest/resources/pkeys/0x1234)" = 200
check "... gone from ca-2's table" wait_for 5 lacks "${L[2]}" 0x9234
check "... from every table" test "$(holders 0x1234)" = ""
(export SIM_HOST=ca-2; sim_run 20 saquery MCMR) >"$T/mcmr" 2>/dev/null
check "... its IPoIB group too" not grep -q "ff12:401b:9234" "$T/mcmr"
check "... GET: 404" test "$(code GET /ufmRest/resources/pkeys/0x1234)" = 404
check "deleting it again: 200" test "$(code DELETE /ufmRest/resources/pkeys/0x1234)" = 200

# ---- 1,000 add/remove cycles -----------------------------------------------------------
python3 - "$HA" "$T/cert.pem" "$(G 4)" >"$T/cycles.out" 2>&1 <<'PY'
import base64, http.client, json, ssl, sys, time
port, ca, guid = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
auth = "Basic " + base64.b64encode(b"k8s:s3cret").decode()
bad = 0
t0 = time.monotonic()
for i in range(1000):
    for path, body in (("/ufmRest/resources/pkeys", {"pkey": "0x0777", "index0": False, "ip_over_ib": True, "membership": "full", "guids": [guid]}),
                       ("/ufmRest/actions/remove_guids_from_pkey", {"pkey": "0x0777", "guids": [guid]})):
        c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        c.request("POST", path, json.dumps(body), {"Authorization": auth, "Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        bad += r.status != 200
        c.close()
print(f"2000 requests in {time.monotonic() - t0:.1f} s, {bad} not 200")
sys.exit(bad != 0)
PY
check "1,000 add/remove cycles of ca-4 in 0x0777: every answer 200 ($(cat "$T/cycles.out"))" test $? = 0
check "... the P_Key has no member" bash -c "[ \"\$(curl -s --cacert $T/cert.pem -u k8s:s3cret $U/ufmRest/resources/pkeys/0x0777 | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"members\"])')\" = 0 ]"
check "... no port is left pending" wait_for 10 bash -c "[ \"\$(\"$SMCTL\" --socket $T/A.sock --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"runtime_partitions\"][\"pending_ports\"])')\" = 0 ]"
check "... ca-4's table does not hold it" test "$(pkeys "${L[4]}")" = "0xffff 0x8010 "
check "... the set holds one P_Key and no membership" test "$(st A pkeys)/$(st A members)" = "1/0"
check "delete 0x0777" test "$(code DELETE /ufmRest/resources/pkeys/0x0777)" = 200

# ---- restart: the set comes back ------------------------------------------------------
check "add ca-2 full, ca-4 limited to 0x0abc" test "$(add 0x0abc "$(G 2)")" = 200
check "..." test "$(code POST /ufmRest/resources/pkeys "{\"pkey\":\"0x0abc\",\"membership\":\"limited\",\"guids\":[\"$(G 4)\"]}")" = 200
check "... ready" wait_for 5 ready 0x0abc
check "... written to the state directory" grep -q '"0x0abc"' "$T/sd-A/partitions.runtime.json"
check "... the file is not readable by others" test "$(stat -c %a "$T/sd-A/partitions.runtime.json")" = 600
smd_kill A KILL
smd A ca-0 -F "$T/A.conf" --priority 14 --sweep-interval 1
check "A, killed with -9, comes back" wait_for 30 smd_up A
check "... with the runtime P_Key" wait_for 5 ready 0x0abc
code GET '/ufmRest/resources/pkeys/0x0abc?guids_data=true' >/dev/null
check "... ca-2 full, ca-4 limited (the GUIDs)" \
	test "$(field 'sorted((g["guid"][-4:], g["membership"]) for g in j["guids"])')" = "[('0301', 'full'), ('0501', 'limited')]"
check "... smpquery: ca-2 full" has "${L[2]}" 0x8abc
check "... ca-4 limited" has "${L[4]}" 0x0abc
check "smctl partitions: both sources" bash -c "\"$SMCTL\" --socket $T/A.sock --json partitions | python3 -c '
import json,sys; s={p[\"pkey\"]: p[\"source\"] for p in json.load(sys.stdin)[\"partitions\"]}
sys.exit(s != {\"0x7fff\": \"file\", \"0x0010\": \"file\", \"0x0abc\": \"runtime\"})'"

# ---- the standby ------------------------------------------------------------------
smd B ca-1 -F "$T/B.conf" --priority 0 --sweep-interval 1
check "B stands by" wait_for 20 smd_state_is B STANDBY
check "B holds A's state" wait_for 10 bash -c "[ \"\$(\"$SMCTL\" --socket $T/B.sock --json status | python3 -c 'import json,sys; print(bool(json.load(sys.stdin)[\"sync\"].get(\"held\")))')\" = True ]"
check "a write without TLS (B): 403" test "$(curl -s -o "$T/body" -w '%{http_code}' -u k8s:s3cret -X DELETE "http://127.0.0.1:$HB/ufmRest/resources/pkeys/0x0abc")" = 403
for i in $(seq 10); do curl -s -o /dev/null -w '%{http_code}\n' -u viewer:look "http://127.0.0.1:$HB/ufmRest/resources/pkeys"; done >"$T/rate"
check "over http_rate_limit (2/s on B): 429 ($(sort "$T/rate" | uniq -c | tr -s ' \n' ' '))" grep -q 429 "$T/rate"
check "smctl partition on the standby: refused" not "$SMCTL" --socket "$T/B.sock" partition add 0x0def "$(G 5)"
smd_kill A KILL
check "A killed: B is master" wait_for 30 smd_state_is B MASTER
check "... B carried the runtime partitions" wait_for 10 bash -c "[ \"\$(\"$SMCTL\" --socket $T/B.sock --json partition show 0x0abc | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j[\"source\"], j[\"members\"], j[\"ready\"])')\" = 'runtime 2 True' ]"
check "... and says so" grep -q "runtime P_Keys" "$T/B.err"
check "... ca-2 still holds 0x8abc" has "${L[2]}" 0x8abc
check "... B wrote it to its state directory" grep -q '"0x0abc"' "$T/sd-B/partitions.runtime.json"
check "smctl partition delete on B" "$SMCTL" --socket "$T/B.sock" partition delete 0x0abc
check "... gone from ca-2" wait_for 5 lacks "${L[2]}" 0x8abc
# http_allow_insecure_writes: plain HTTP writes, from this host only (B listens on 127.0.0.1)
echo "http_allow_insecure_writes = true" >>"$T/B.conf"
kill -HUP "${SMD_PID[B]}"
check "http_allow_insecure_writes reloaded on B" \
	wait_for 10 grep -q "reload: http_allow_insecure_writes: false -> true" "$T/B.err"
check "... a write over plain HTTP from loopback: 200" test "$(curl -s -o "$T/body" -w '%{http_code}' \
	-u k8s:s3cret -X POST -H 'Content-Type: application/json' \
	-d "{\"pkey\":\"0x0def\",\"guids\":[\"$(G 2)\"]}" "http://127.0.0.1:$HB/ufmRest/resources/pkeys")" = 200
check "... ca-2 holds 0x8def" wait_for 5 has "${L[2]}" 0x8def
smd_kill B
finish
