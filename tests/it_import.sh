#!/bin/bash
# ibsmd --import-opensm-conf: OpenSM's opensm.conf into an ibsmd.conf.
#   - on the file `opensm -c` writes: every key line accounted for in the
#     output (an ibsmd key or a comment naming it), the summary counts them
#     all, the result passes --check-config, and the table of
#     docs/migrating-from-opensm.md names every one of those keys;
#   - on a hand-made file with odd values: what maps is written (routing
#     list, log flags, the files referenced as they are), a later line wins
#     as in OpenSM, no_partition_enforcement wins over part_enforce, values
#     ibsmd refuses and unknown keys are comments and are said on stderr with
#     FILE:LINE; the result passes --check-config;
#   - a missing file: exit 1, named.
. "$(dirname "$0")/lib.sh"

# accounted OPENSM_CONF OUT: every "key value" line of OPENSM_CONF appears in OUT
accounted() {
	python3 - "$1" "$2" <<'PY'
import re, sys
keys = [l.split()[0] for l in open(sys.argv[1]) if l.strip() and not l.lstrip().startswith('#')]
out = open(sys.argv[2]).read().splitlines()
missing = []
for k in keys:
    if not any(l.startswith((f'# {k} ', f"# OpenSM's {k} ", f'{k} = ')) for l in out):
        missing.append(k)
print(f'{len(keys)} keys, missing: {missing}' if missing else f'{len(keys)} keys, all accounted for')
sys.exit(1 if missing else 0)
PY
}

if command -v opensm >/dev/null; then
	(cd "$T" && timeout 30 opensm -c "$T/opensm.conf" >"$T/opensm-c.out" 2>&1)
fi
if [ -s "$T/opensm.conf" ]; then
	n=$(grep -cv '^\s*\(#\|$\)' "$T/opensm.conf")
	"$IBSMD" --import-opensm-conf "$T/opensm.conf" >"$T/ref.conf" 2>"$T/ref.err"
	rc=$?
	check "opensm -c's file ($n keys): imported, exit 0 ($rc)" test "$rc" = 0
	check "every line accounted for ($(accounted "$T/opensm.conf" "$T/ref.conf"))" \
		accounted "$T/opensm.conf" "$T/ref.conf"
	check "the summary counts them all ($(tail -1 "$T/ref.err"))" grep -q ": $n keys: " "$T/ref.err"
	check "the result passes --check-config" "$IBSMD" -F "$T/ref.conf" --check-config
	check "docs/migrating-from-opensm.md names every key" python3 - "$T/opensm.conf" \
		"$top_srcdir/docs/migrating-from-opensm.md" <<'PY'
import re, sys
keys = {l.split()[0] for l in open(sys.argv[1]) if l.strip() and not l.lstrip().startswith('#')}
doc = set(re.findall(r'^\| `([a-z0-9_]+)`', open(sys.argv[2]).read(), re.M))
# the congestion control keys are one row (cc_*)
missing = sorted(k for k in keys - doc if not (k.startswith('cc_') and 'cc_*' in open(sys.argv[2]).read()))
print('missing from the table:', missing) if missing else None
sys.exit(1 if missing else 0)
PY
else
	log "opensm -c did not write a file (opensm not installed?): the reference part is skipped"
fi

# a hand-made file with odd values
printf '0x0002c90300001234\n' >"$T/roots"
printf 'Default=0x7fff, ipoib : ALL=full;\n' >"$T/partitions.conf"
cat >"$T/odd.conf" <<EOF
# a hand-made opensm.conf
   sm_priority   14
sm_key 0x00000000deadbeef
routing_engine lash,updn
root_guid_file $T/roots
partition_config_file $T/partitions.conf
qos_policy_file /nonexistent/qos-policy.conf
log_flags 0x0f
sminfo_polling_timeout 99999
max_wire_smps 64
transaction_timeout 0x100
part_enforce in
no_partition_enforcement TRUE
lmc 2
lmc 3
daemon TRUE
cc_key 0x1234
some_future_key 42
node_name_map_name /etc/opensm/ib-node-name-map
perfmgr TRUE
qos_vlarb_high (null)
sweep_interval
EOF
"$IBSMD" --import-opensm-conf "$T/odd.conf" >"$T/odd.out" 2>"$T/odd.err"
rc=$?
check "a hand-made file: exit 0 ($rc)" test "$rc" = 0
check "every line accounted for ($(accounted "$T/odd.conf" "$T/odd.out"))" \
	accounted "$T/odd.conf" "$T/odd.out"
for kv in "sm_priority = 14" "sm_key = 0x00000000deadbeef" "routing_engine = updn" \
	"routing_chain = updn,minhop" "updn_roots_file = $T/roots" \
	"partition_config_file = $T/partitions.conf" "log_level = debug" "mad_window = 64" \
	"part_enforce = off" "lmc = 3" "perfmgr = true"; do
	check "maps: $kv" grep -qxF "$kv" "$T/odd.out"
done
for want in "odd.conf:4: routing_engine lash,updn: partly not built: no such engine in ibsmd: lash" \
	"odd.conf:7: qos_policy_file /nonexistent/qos-policy.conf: not imported" \
	"odd.conf:9: sminfo_polling_timeout 99999: not imported: sminfo_poll_interval_ms: 99999 is out of range" \
	"odd.conf:11: transaction_timeout 0x100: not imported" \
	"odd.conf:12: part_enforce in: not imported: line 13 (no_partition_enforcement TRUE) wins" \
	"odd.conf:14: lmc 2: not imported: line 15 (lmc 3) wins" \
	"odd.conf:16: daemon TRUE: not needed" "odd.conf:17: cc_key 0x1234: not built" \
	"odd.conf:18: some_future_key 42: unknown" "odd.conf:19: node_name_map_name"; do
	check "said on stderr: $want" grep -qF -e "$want" "$T/odd.err"
done
check "and in the file, as comments" bash -c "grep -q '^# sminfo_polling_timeout 99999: not imported' '$T/odd.out' &&
	grep -q '^# some_future_key 42: unknown' '$T/odd.out' && grep -q '^# guid2lid: ' '$T/odd.out'"
check "keys at OpenSM's default are not on stderr" bash -c "! grep -q 'qos_vlarb_high\|sweep_interval' '$T/odd.err'"
check "the result passes --check-config" "$IBSMD" -F "$T/odd.out" --check-config
out=$("$IBSMD" --import-opensm-conf "$T/nope.conf" 2>&1 >/dev/null)
rc=$?
check "a missing file: exit 1 ($rc), named ($out)" bash -c "[ $rc = 1 ] && grep -q nope.conf <<<'$out'"
finish
