#!/bin/bash
# What an operator reads from smctl and the daemon's start:
#   - `smctl status` is a short summary (state and since when, subnet,
#     counts, last sweep, peers, ports, problems); --full is every member;
#   - every time smctl prints is ISO 8601 and parses back to the unix time
#     the JSON holds (to the millisecond), close to now;
#   - tables (eventlog, ports) have no column that is empty in every row, and
#     eventlog shows its time once (no UNIX_TIME beside TIME);
#   - with --http and a missing web root, the daemon logs an error at start.
. "$(dirname "$0")/lib.sh"

command -v ibsim >/dev/null || { log "SKIP: ibsim not installed"; exit 77; }
HP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sim_start "$top_srcdir/tests/fabrics/fattree-k4.net" || exit 1
printf 'http_root = %s/no-such-web-root\n' "$T" >"$T/ibsmd.conf"
sm_start "$T/state" --config "$T/ibsmd.conf" --http "127.0.0.1:$HP"
ctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 10 "$@"; }
check "the subnet comes up" wait_for 60 bash -c "'$SMCTL' --socket '$SM_SOCK' --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
check "a missing web root is an error at start ($(grep -m1 'http_root' "$T/smd.err"))" \
	grep -q "error: http_root $T/no-such-web-root: .*the web page cannot be served" "$T/smd.err"

ctl status >"$T/summary" 2>&1
ctl status --full >"$T/full" 2>&1
ctl --json status >"$T/status.json" 2>&1
sed 's/^/  summary: /' "$T/summary"
check "status: a summary of $(wc -l <"$T/summary") lines (at most 20)" test "$(wc -l <"$T/summary")" -le 20
check "status --full: every member ($(wc -l <"$T/full") lines)" test "$(wc -l <"$T/full")" -gt 100
for want in '^state: +MASTER since ' '^subnet: +up$' '^fabric: +14 nodes \(6 switches, 8 CAs\), 16 links, 14 LIDs' \
	'^routing: +ftree' '^last sweep: +ok in ' '^peers: +none' '^ports: ' \
	'^problems: +sm_key is the default'; do
	check "summary: /$want/" grep -qE "$want" "$T/summary"
done
# every ISO time printed, read back: the JSON's unix time, to the millisecond
check "status: state_since in ISO 8601, the JSON's unix time" python3 - "$T/summary" "$T/full" "$T/status.json" <<'PY'
import datetime, json, re, sys, time
j = json.load(open(sys.argv[3]))
want = j['state_since']
iso = re.compile(r'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z')
def back(s):
    return datetime.datetime.strptime(s, '%Y-%m-%dT%H:%M:%S.%f').replace(tzinfo=datetime.timezone.utc).timestamp()
m = iso.search(open(sys.argv[1]).read().split('\n')[0])
full = [l for l in open(sys.argv[2]) if l.startswith('state_since:')]
m2 = iso.search(full[0]) if full else None
ok = bool(m and m2)
for mm in (m, m2):
    if mm:
        t = back(mm.group(1))
        print(mm.group(0), t, want)
        ok = ok and abs(t - want) <= 0.0006 and abs(t - time.time()) < 600
# no time printed as a float in exponent form
ok = ok and not re.search(r'\d\.\d+e\+0?9', open(sys.argv[2]).read())
sys.exit(0 if ok else 1)
PY
check "perfmgr/sync times in --full are ISO or absent" bash -c "! grep -E '_(since|time|end): +[0-9]+\.[0-9]+$' '$T/full'"

# tables: no empty column; the event log's time once
ctl eventlog >"$T/eventlog" 2>&1
ctl --json eventlog >"$T/eventlog.json" 2>&1
check "eventlog: no UNIX_TIME column beside TIME" bash -c "grep -q ' TIME ' '$T/eventlog' && ! grep -q 'UNIX_TIME' '$T/eventlog'"
check "eventlog --json keeps unix_time beside time" grep -q '"unix_time": ' "$T/eventlog.json"
# table_ok FILE: under its header line, every column has a value other than "-" in some row
table_ok() {
	python3 - "$1" <<'PY'
import re, sys
lines = [l.rstrip('\n') for l in open(sys.argv[1])]
hdr = next(i for i, l in enumerate(lines) if re.match(r'^\s*[A-Z][A-Z_]+(\s{2,}[A-Z][A-Z_]+)+\s*$', l))
head = lines[hdr]
starts = [m.start() for m in re.finditer(r'[A-Z][A-Z_]*', head)]
names = re.findall(r'[A-Z][A-Z_]*', head)
rows = [l for l in lines[hdr + 1:] if l.strip()]
empty = []
for k, (s, n) in enumerate(zip(starts, names)):
    e = starts[k + 1] if k + 1 < len(starts) else None
    vals = {r[s:e].strip() for r in rows}
    if vals <= {'-', ''}:
        empty.append(n)
print(f'{len(names)} columns, {len(rows)} rows, empty: {empty}')
sys.exit(1 if empty or not rows else 0)
PY
}
check "eventlog: no column empty in every row ($(table_ok "$T/eventlog"))" table_ok "$T/eventlog"
check "eventlog: the times parse back" python3 - "$T/eventlog" "$T/eventlog.json" <<'PY'
import datetime, json, re, sys
txt = open(sys.argv[1]).read()
ev = json.load(open(sys.argv[2]))['events']
isos = re.findall(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z', txt)
ok = len(isos) == len(ev)
for s, e in zip(isos, ev):
    t = datetime.datetime.strptime(s, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp()
    ok = ok and abs(t - e['unix_time']) <= 0.0011  # the daemon's text is cut, not rounded
print(len(isos), 'times,', len(ev), 'events')
sys.exit(0 if ok else 1)
PY
ctl ports >"$T/ports" 2>&1
check "ports: no column empty in every row ($(table_ok "$T/ports"))" table_ok "$T/ports"
sm_stop || fail "the daemon did not stop"
finish
