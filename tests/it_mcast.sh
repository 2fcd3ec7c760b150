#!/bin/bash
# Integration: multicast forwarding tables on ibsim (IBA 14.2.5.11).  With
# only the IPoIB broadcast group and no member yet (the SA comes next), a
# new SM reads every switch's MFT block back (it cannot know what the switch
# holds) and writes none (a fresh switch holds the empty table wanted);
# dump_fts -M reads the tables (no MLID forwards anywhere); heavy sweeps of
# the same fabric, and of a fabric that lost and regained a link, send no
# MFT block; a restarted SM reads them back and writes none; with
# lft_readback false it writes every block.  Asserted on smctl --json status.
. "$(dirname "$0")/lib.sh"

jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
# jget EXPR: evaluate a Python expression over the JSON on stdin (as j)
jget() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
mc() { jctl status | jget "j['multicast']$1"; }
subnet_up() { jctl status 2>/dev/null | jget 'j["subnet_up"]' 2>/dev/null | grep -qx True; }
updates_at_least() { [ "$(mc "['mft_updates']" 2>/dev/null)" -ge "$1" ] 2>/dev/null; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
SW=$(grep -c '^Switch' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

sm_start "$T/state" --sweep-interval 0
wait_for 60 subnet_up || fail "subnet up: $(tail -3 "$T/smd.err")"
wait_for 20 updates_at_least 1 || fail "an MFT update ran"
check "one group (IPoIB broadcast), no member, MLID 0xC000" \
	test "$(mc "['groups'], j['multicast']['members'], j['multicast']['mlid_top']")" = "(1, 0, 49152)"
check "every switch's MFT block was read back ($SW switches, $(mc "['mft_read_blocks']") blocks)" \
	test "$(mc "['mft_read_blocks']")" = "$SW"
check "a fresh switch holds what an empty group wants: no block written" \
	test "$(mc "['mft_blocks'], j['multicast']['mft_errors']")" = "(0, 0)"

sim_run 60 dump_fts -M >"$T/mfts.txt" 2>"$T/mfts.err"
check "dump_fts -M reads the MFT of every switch" \
	test "$(grep -c '^Multicast mlids' "$T/mfts.txt")" = "$SW"
check "no MLID forwards anywhere yet" \
	test "$(grep -c '^0 valid mlids dumped' "$T/mfts.txt")" = "$SW"

U=$(mc "['mft_updates']")
jctl sweep >/dev/null || fail "smctl sweep"
wait_for 20 updates_at_least $((U + 1)) || fail "a heavy sweep recomputes the trees"
check "a heavy sweep of the same fabric sends or reads no MFT block" \
	test "$(mc "['mft_blocks'], j['multicast']['mft_read_blocks']")" = "(0, $SW)"

# a link between a leaf and a spine goes down and comes back
sim_cmd 'Unlink "sw-L1-0"[3]'
jctl sweep >/dev/null || fail "smctl sweep after Unlink"
sim_cmd 'ReLink "sw-L1-0"[3]'
jctl sweep >/dev/null || fail "smctl sweep after ReLink"
wait_for 60 subnet_up || fail "subnet up after ReLink"
U=$(mc "['mft_updates']")
jctl sweep >/dev/null
wait_for 20 updates_at_least $((U + 1)) || fail "MFT update after ReLink"
check "a link that went and came back costs no MFT block" \
	test "$(mc "['mft_blocks']")" = 0
check "still no MFT Set failed" test "$(mc "['mft_errors']")" = 0
sm_stop || fail "ibsmd stops"

# a new SM process does not know what the switches hold: it reads them back
sm_start "$T/state" --sweep-interval 0
wait_for 60 subnet_up || fail "subnet up after restart"
wait_for 20 updates_at_least 1 || fail "an MFT update after restart"
check "a restarted SM reads every switch's block back and writes none" \
	test "$(mc "['mft_read_blocks'], j['multicast']['mft_blocks']")" = "($SW, 0)"
sm_stop || fail "ibsmd stops"
# ... and with lft_readback off it writes every block
printf 'lft_readback = false\n' >"$T/noread.conf"
sm_start "$T/state" --sweep-interval 0 -F "$T/noread.conf"
wait_for 60 subnet_up || fail "subnet up without readback"
wait_for 20 updates_at_least 1 || fail "an MFT update without readback"
check "lft_readback false: every switch's block written, none read" \
	test "$(mc "['mft_read_blocks'], j['multicast']['mft_blocks'], j['multicast']['mft_errors']")" = "(0, $SW, 0)"
sm_stop || fail "ibsmd stops"
sim_stop
finish
