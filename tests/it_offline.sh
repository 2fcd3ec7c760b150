#!/bin/bash
# Integration: offline routing (ibsmd --offline).  Every engine on generated
# fabrics, its dumps verified by ibdmchk (ibutils), a corrupted dump proven to
# fail that check; bad input (syntax error, disconnected fabric, refusing and
# unknown engines); and online vs offline: the LFTs the daemon programs into
# ibsim (read back with dump_fts) equal the offline lfts.out for the same LIDs.
#
# IBSMD_OFFLINE overrides the command (default "$IBSMD"); it takes
# --offline TOPO [--routing E] [--dump-dir D] [--lmc N].
. "$(dirname "$0")/lib.sh"
OFFLINE=${IBSMD_OFFLINE:-$IBSMD}
ENGINES="minhop updn ftree dor"

command -v ibdmchk >/dev/null || { log "SKIP: ibdmchk (Debian ibutils) is not installed"; exit 77; }
if ! "$OFFLINE" --offline /dev/null >/dev/null 2>"$T/probe.err" &&
	grep -qiE "unrecognized|invalid option|usage" "$T/probe.err"; then
	fail "$OFFLINE does not take --offline (wire it in daemon/main.c)"
	finish
fi

# jq-free JSON field reader: jget FILE KEY (KEY "fallbacks" prints "engine: reason" lines)
jget() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    o = json.loads(open(sys.argv[1]).read().strip().splitlines()[0])
except Exception:
    sys.exit(1)
k = sys.argv[2]
if k == "fallbacks":
    for f in o.get("fallbacks", []):
        print("%s: %s" % (f.get("engine"), f.get("reason")))
else:
    v = o.get(k)
    print("null" if v is None else v)
EOF
}

# offline TAG TOPO [args]: run, JSON in $T/TAG.json, log in $T/TAG.err, dumps in $T/TAG/
offline() {
	local tag=$1 topo=$2; shift 2
	rm -rf "${T:?}/$tag"
	"$OFFLINE" --offline "$topo" --dump-dir "$T/$tag" "$@" >"$T/$tag.json" 2>"$T/$tag.err"
}

# ibdmchk_ok TAG CAS LOOPFREE: ibdmchk_dir (lib.sh) on the dumps of TAG
ibdmchk_ok() { ibdmchk_dir "$T/$1" "$2" "$3"; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft2.net" || fail "topogen fattree2"
"$TOPOGEN" fattree3 -k 4 -o "$T/ft3.net" || fail "topogen fattree3"
"$TOPOGEN" fattree3 -k 4 -n 13 --parallel -o "$T/ft3p.net" || fail "topogen partial fattree3"
"$TOPOGEN" torus -x 4 -y 4 -o "$T/torus.net" || fail "topogen torus"
"$TOPOGEN" mesh -x 3 -y 3 -o "$T/mesh.net" || fail "topogen mesh"
"$TOPOGEN" random -s 12 -e 6 -o "$T/random.net" || fail "topogen random"

# --- every engine on every fabric: the engine used is named, a refusal is
# listed with its reason and logged once, the dumps pass ibdmchk
for fab in ft2 ft3 ft3p torus mesh random; do
	cas=$(grep -c '^Hca' "$T/$fab.net")
	for e in $ENGINES; do
		tag="$fab-$e"
		if ! offline "$tag" "$T/$fab.net" --routing "$e"; then
			fail "$tag: offline routing failed: $(tail -1 "$T/$tag.err")"
			continue
		fi
		used=$(jget "$T/$tag.json" engine)
		if [ "$used" = "$e" ]; then
			check "$tag: routed by $e, nothing refused" test -z "$(jget "$T/$tag.json" fallbacks)"
		else
			reason=$(jget "$T/$tag.json" fallbacks | sed -n "s/^$e: //p")
			check "$tag: $e refused ('$reason'), fell back to $used" test -n "$reason" -a -n "$used"
			check "$tag: the refusal is logged once" \
				test "$(grep -c "routing engine $e refused" "$T/$tag.err")" = 1
		fi
		check "$tag: JSON counts (cas $(jget "$T/$tag.json" cas), unreachable 0)" \
			test "$(jget "$T/$tag.json" cas)" = "$cas" -a "$(jget "$T/$tag.json" unreachable)" = 0
		loopfree=1
		case "$fab:$used" in torus:minhop | mesh:minhop | random:minhop) loopfree=0 ;; esac
		check "$tag: ibdmchk verifies the $used dumps ($([ $loopfree = 1 ] &&
			echo "paths and credit loops" || echo "paths"))" ibdmchk_ok "$tag" "$cas" "$loopfree"
	done
done

# --- the check can fail: one corrupted FDB entry is caught
d="$T/ft3-minhop"
python3 - "$d/opensm.fdbs" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
for i, l in enumerate(lines):
    m = re.match(r"(0x[0-9A-F]{4}) : (\d{3})  : (\d\d)", l)
    if m and int(m.group(3)) >= 2:  # a remote LID: send it to port 0 instead
        lines[i] = l.replace(" : %s  :" % m.group(2), " : 000  :", 1)
        break
open(sys.argv[1], "w").write("\n".join(lines))
EOF
(cd "$d" && timeout 120 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs \
	>ibdmchk.bad 2>&1) 2>/dev/null
check "a corrupted opensm.fdbs entry makes ibdmchk report an error" \
	grep -qE -- "-E- (Dead end|Fail to find a path)" "$d/ibdmchk.bad"

# --- LMC: every LID of a port's range is routed, dumps still verify
if offline ft2-lmc2 "$T/ft2.net" --routing minhop --lmc 2; then
	check "LMC 2: JSON says lmc 2, no unreachable LID" \
		test "$(jget "$T/ft2-lmc2.json" lmc)" = 2 -a "$(jget "$T/ft2-lmc2.json" unreachable)" = 0
	# ibdmchk -l N gives every port 2^N LIDs, switch port 0 included, which
	# IBA does not (base port 0 has LMC 0): check the base LIDs' paths
	check "LMC 2: ibdmchk verifies the base LIDs' paths" ibdmchk_ok ft2-lmc2 8 1
	check "LMC 2: lfts.out names the extra paths" grep -q "(path #2 out of 4: portguid" \
		"$T/ft2-lmc2/lfts.out"
else
	fail "LMC 2: $(tail -1 "$T/ft2-lmc2.err")"
fi

# --- bad input: a syntax error names the file and line, exit 2
{ head -12 "$T/ft2.net"; echo 'Hca 1 "broken'; tail -n +13 "$T/ft2.net"; } >"$T/syntax.net"
offline syntax "$T/syntax.net" --routing minhop
rc=$?
check "syntax error: exit 2 (got $rc)" test "$rc" = 2
check "syntax error: message names FILE:13 ($(head -1 "$T/syntax.err"))" \
	grep -q "syntax.net:13:" "$T/syntax.err"
offline missing "$T/no-such.net" --routing minhop
rc=$?
check "missing topology: exit 2 (got $rc)" test "$rc" = 2
offline unknown "$T/ft2.net" --routing nosuch
rc=$?
check "unknown engine: exit 2 (got $rc)" test "$rc" = 2
check "unknown engine: named in the message" grep -q "nosuch" "$T/unknown.err"

# --- a disconnected fabric still routes; the unreachable pairs are counted
{ cat "$T/ft2.net"; printf '\nswitchguid=0x0002c901000f0000\nSwitch 4 "iso-sw"\n[1] "iso-ca"[1]\n'
  printf '\ncaguid=0x0002c902000f0000\nHca 1 "iso-ca"\n[1] "iso-sw"[1]\n'; } >"$T/split.net"
if offline split "$T/split.net" --routing minhop; then
	# 6 switches miss the island's 2 LIDs, the island's switch misses the 14 others
	check "disconnected: routed, 26 unreachable (switch, LID) pairs ($(jget "$T/split.json" unreachable))" \
		test "$(jget "$T/split.json" unreachable)" = 26
	check "disconnected: topo.out lists the island too" grep -q '"iso-sw"' "$T/split/topo.out"
else
	fail "disconnected fabric: $(tail -1 "$T/split.err")"
fi

# --- an engine that refuses: ftree on a random graph is not a fat tree
if offline refuse "$T/random.net" --routing ftree; then
	reason=$(jget "$T/refuse.json" fallbacks | sed -n 's/^ftree: //p')
	check "ftree on a random graph: refused with a reason ('$reason')" test -n "$reason"
	check "ftree on a random graph: JSON names the engine used ($(jget "$T/refuse.json" engine))" \
		test "$(jget "$T/refuse.json" engine)" != ftree -a "$(jget "$T/refuse.json" engine)" != null
	check "ftree on a random graph: refusal logged once" \
		test "$(grep -c 'routing engine ftree refused' "$T/refuse.err")" = 1
else
	fail "ftree on a random graph: $(tail -1 "$T/refuse.err")"
fi

# --- online vs offline: the same LFTs for the same LIDs
# lft_entries FILE: "switchguid lid port" for every entry of a dump_fts-format file
lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1); next }
	     /^0x[0-9a-f]+ [0-9]+ :/ { print g, $1, $2 }' "$1" | sort
}
sim_start "$T/ft3p.net" || { fail "ibsim starts"; finish; }
sd="$T/state"
mkdir -p "$sd"
# online_vs_offline ENGINE: the daemon routes the live fabric with ENGINE;
# offline routing of what ibnetdiscover then reads gives the same LFTs
online_vs_offline() {
	local e=$1
	if sm_once "$sd" --routing "$e"; then pass "online $e: ibsmd --once brings the subnet up"
	else fail "online $e: $(tail -2 "$T/sm.err")"; fi
	capture "online-$e" || fail "online $e: capture ibnetdiscover/dump_fts"
	if offline "online-off-$e" "$T/online-$e.topo" --routing "$e"; then
		lft_entries "$T/online-$e.fts" >"$T/online-$e.entries"
		lft_entries "$T/online-off-$e/lfts.out" >"$T/offline-$e.entries"
		check "online vs offline $e: $(wc -l <"$T/online-$e.entries") LFT entries read back" \
			test -s "$T/online-$e.entries"
		check "online vs offline $e: identical LFTs" \
			diff "$T/online-$e.entries" "$T/offline-$e.entries"
		check "online vs offline $e: same LIDs in topo.out" diff \
			<(grep -o 'lid [0-9]*' "$T/online-$e.topo" | sort) \
			<(grep -o 'lid [0-9]*' "$T/online-off-$e/topo.out" | sort)
	else
		fail "offline $e on the discovered topology: $(tail -1 "$T/online-off-$e.err")"
	fi
	# the daemon writes the same dumps into its state directory after routing
	if [ -f "$sd/lfts.out" ]; then
		check "online $e: daemon's own lfts.out equals what dump_fts reads back" \
			diff "$T/online-$e.entries" <(lft_entries "$sd/lfts.out")
		check "online $e: daemon's own dumps pass ibdmchk" bash -c "cd '$sd' && (timeout 120 \
			ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs 2>&1) 2>/dev/null |
			grep -q 'no credit loops found'"
	else
		fail "online $e: the daemon wrote no routing dumps to its state directory"
	fi
}
for e in minhop ftree updn; do
	online_vs_offline "$e"
done
sim_stop
# updn with a roots file: the core switches of a 3-level tree as roots
"$TOPOGEN" fattree3 -k 4 -o "$T/roots.net" || fail "topogen roots"
sed -n 's/^switchguid=\(0x[0-9a-f]*\)/\1/p' "$T/roots.net" | tail -4 >"$T/roots.guids"
printf '# core switches\n' | cat - "$T/roots.guids" >"$T/roots.txt"
printf 'updn_roots_file = %s\n' "$T/roots.txt" >"$T/roots.conf"
offline roots "$T/roots.net" --routing updn --config "$T/roots.conf"
check "updn roots file: updn routes with the given roots" \
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(1 if o["engine"] != "updn" or o["fallbacks"] else 0)' "$T/roots.json"
check "updn roots file: the dumps pass ibdmchk" ibdmchk_ok roots "$(grep -c '^Hca' "$T/roots.net")" 1
printf '0x0002c90000000001\nnot-a-guid\n' >"$T/badroots.txt"
printf 'updn_roots_file = %s\n' "$T/badroots.txt" >"$T/badroots.conf"
rc=0; offline badroots "$T/roots.net" --routing updn --config "$T/badroots.conf" || rc=$?
check "updn roots file with a bad line: exit 2 (got $rc)" test "$rc" = 2
check "updn roots file with a bad line: FILE:LINE in the message" grep -q "badroots.txt:2:" "$T/badroots.err"
printf '0x00000000deadbeef\n' >"$T/noroots.txt"
printf 'updn_roots_file = %s\n' "$T/noroots.txt" >"$T/noroots.conf"
offline noroots "$T/roots.net" --routing updn --config "$T/noroots.conf"
check "updn roots naming no switch: refused with a reason, next engine used" \
	python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(0 if o["engine"] != "updn" and o["fallbacks"] and o["fallbacks"][0]["engine"] == "updn" else 1)' "$T/noroots.json"
finish
