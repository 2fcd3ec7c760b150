#!/bin/bash
# Integration: real link speeds (issue 22) on ibsim.  A 2-level fat tree
# whose links ibsim runs at the speeds its topology lines give (ibsim 0.10
# reads FDR, EDR and HDR): every link 4x HDR but ca-1's 4x FDR, ca-2's
# 4x EDR, ca-5's 1x HDR and every link of the spine sw-L2-1 4x EDR.
#   - discovery asks each CA's port again with SMSupportExtendedSpeeds
#     (last_sweep_ext_speed_gets: one per CA);
#   - every CA pair's PathRecord (saquery PR and --src-to-dst) has the rate
#     of the slowest link ibtracert walks, width x speed as smpquery -x
#     portinfo reads each port (tests/prcheck.py); a few by hand: 56, 100,
#     50 and 200 Gb/s (codes 12, 16, 20, 17);
#   - MCMemberRecord: a group created from a 4x HDR host gets 200 Gb/s, one
#     from the 1x host 50 Gb/s; the FDR host (56) cannot join the 200 one,
#     a 4x HDR host can; the IPoIB broadcast group keeps its partition's
#     rate, 10 Gb/s as OpenSM's default (OSM_DEFAULT_MGRP_RATE);
#   - smctl ports --json and the metrics name the speeds and rates.
. "$(dirname "$0")/lib.sh"

PRCHECK="$top_srcdir/tests/prcheck.py"
MCJ="$top_builddir/tests/mcjoin"
jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
up() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | grep -q '"subnet_up": true'; }
lid_of() { python3 -c 'import json,sys; print([l for l in json.load(open(sys.argv[1])) if l["desc"] == sys.argv[2]][0]["lid"])' "$T/lids.json" "$1"; }
# rate HOST SLID DLID: the rate field of saquery --src-to-dst from HOST
rate() { saq "$1" --src-to-dst "$2:$3" 2>/dev/null | sed -n 's/^[[:space:]]*rate\.*//p'; }
mcj() { local h=$1; shift; (export SIM_HOST=$h; sim_run 60 "$MCJ" "$@" 2>>"$T/mcjoin.err"); }
field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline()).get(sys.argv[1]))' "$1"; }
export UMAD2SIM

"$TOPOGEN" fattree2 -k 4 --speeds '*=4xHDR,ca-1=4xFDR,ca-2=4xEDR,ca-5=1xHDR,sw-L2-1=4xEDR' \
	-o "$T/mix.net" || { fail "topogen --speeds"; finish; }
check "the topology carries ibsim's speeds" grep -q '"ca-5" lid 0 1xHDR' "$T/mix.net"
sim_start "$T/mix.net" || { fail "ibsim starts"; finish; }
sm_start "$T/state" --sweep-interval 0
check "daemon comes up on the mixed-speed fat tree" wait_for 30 up
jctl lids >"$T/lids.json"
jctl status >"$T/status.json"
check "each CA's port asked again with SMSupportExtendedSpeeds: 8 Gets" \
	test "$(jget 'j["last_sweep_ext_speed_gets"]' <"$T/status.json")" = 8

# ---- PathRecord ---------------------------------------------------------------
check "every CA pair: PathRecord rate = the slowest link's width x speed ($(python3 "$PRCHECK" --dir "$T" --lids "$T/lids.json" links | tee "$T/prcheck.out" | tail -1))" \
	grep -q " 0 bad$" "$T/prcheck.out"
CA0=$(lid_of ca-0)
check "ca-0 -> ca-1 (4x FDR): 56 Gb/s (0x8C)" test "$(rate ca-3 "$CA0" "$(lid_of ca-1)")" = 0x8C
check "ca-0 -> ca-2 (4x EDR): 100 Gb/s (0x90)" test "$(rate ca-3 "$CA0" "$(lid_of ca-2)")" = 0x90
check "ca-0 -> ca-5 (1x HDR): 50 Gb/s (0x94)" test "$(rate ca-3 "$CA0" "$(lid_of ca-5)")" = 0x94
check "ca-6 -> ca-7 (one leaf, 4x HDR): 200 Gb/s (0x91)" \
	test "$(rate ca-3 "$(lid_of ca-6)" "$(lid_of ca-7)")" = 0x91

# ---- MCMemberRecord --------------------------------------------------------------
mcj ca-3 join --mgid 0 >"$T/j-hdr.json"
check "a group created from a 4x HDR host: 200 Gb/s (17)" test "$(field rate <"$T/j-hdr.json")" = 17
MGID=$(field mgid <"$T/j-hdr.json")
mcj ca-5 join --mgid 0 >"$T/j-1x.json"
check "a group created from the 1x HDR host: 50 Gb/s (20)" test "$(field rate <"$T/j-1x.json")" = 20
check "the 4x FDR host (56 Gb/s) cannot join the 200 Gb/s group" \
	test "$(mcj ca-1 join --mgid "$MGID" | field status)" = 0x0200
check "another 4x HDR host can" test "$(mcj ca-6 join --mgid "$MGID" | field status)" = 0x0000
check "the IPoIB broadcast group keeps its partition's rate, 10 Gb/s (3)" \
	test "$(mcj ca-1 get --mgid ff12:401b:ffff::ffff:ffff | head -1 | field rate)" = 3

# ---- smctl, metrics ----------------------------------------------------------------
jctl ports >"$T/ports.json"
speed_of() { python3 -c 'import json,sys; p=[p for p in json.load(open(sys.argv[1])) if p["node_desc"] == sys.argv[2] and p["port"] == 1][0]; print(p["width"], p["speed"], p["rate_gbps"], p["below_enabled"])' "$T/ports.json" "$1"; }
check "smctl ports: ca-1 4x FDR 56 Gb/s" test "$(speed_of ca-1)" = "4x FDR 56.0 False"
check "smctl ports: ca-2 4x EDR 100 Gb/s" test "$(speed_of ca-2)" = "4x EDR 100.0 False"
check "smctl ports: ca-5 1x HDR 50 Gb/s" test "$(speed_of ca-5)" = "1x HDR 50.0 False"
check "smctl ports: ca-7 4x HDR 200 Gb/s" test "$(speed_of ca-7)" = "4x HDR 200.0 False"
"$SMCTL" --socket "$SM_SOCK" ports --node ca-1 >"$T/ports.txt"
check "smctl ports (text): FDR, 56 Gb/s" grep -q "FDR *56 Gb/s" "$T/ports.txt"
"$SMCTL" --socket "$SM_SOCK" metrics >"$T/metrics.txt"
check "metrics: ibsmd_port_rate_gbps of ca-5's port is 50" \
	grep -qE '^ibsmd_port_rate_gbps\{.*node_desc="ca-5",port="1"\} 50$' "$T/metrics.txt"
check "metrics: ibsmd_port_lane_speed_gbps of ca-1's port is FDR's 14.0625" \
	grep -qE '^ibsmd_port_lane_speed_gbps\{.*node_desc="ca-1",port="1"\} 14.0625$' "$T/metrics.txt"
check "metrics: no link below what its ends enable" \
	bash -c "! grep -qE '^ibsmd_port_below_enabled\{.*\} 1$' '$T/metrics.txt'"
check "SIGTERM stops the daemon cleanly" sm_stop
sim_stop
finish
