#!/bin/bash
# Integration: dr_only (issue 22) on ibsim.  The SM counts every LID-routed
# SMP request it sends (smctl status: mad.lid_routed_smps; answers to
# LID-routed requests, which must go as they came, apart).
#   - without dr_only a master answers a link's traps (ibsim's trap 128 on
#     Unlink/ReLink) with LID-routed TrapRepress: the count grows;
#   - with dr_only (key dr_only = true) on a master A, a standby B polling it
#     and a better SM C that arrives (trap 144 to the master, SMInfo Sets,
#     the handover), and the same Unlink/ReLink: the traps are answered
#     directed-route, C becomes master, B follows it, and not one LID-routed
#     SMP request leaves any of the three;
#   - on a host whose SMI and GSI are one device (umad2sim's) dr_only auto
#     is off (smctl status: mad.split false, mad.dr_only false).
. "$(dirname "$0")/lib.sh"

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen"; finish; }
export SIM_HOST=ca-5 # the diag tools' host
lid_routed() { smd_field "$1" 'j["mad"]["lid_routed_smps"]'; }
traps_of() { smd_field "$1" 'j["traps"]'; }
# flap: take ca-6's link down and up again; wait (bounded) for NAME to see traps about it
flap() {
	local before
	before=$(traps_of "$1")
	sim_cmd 'Unlink "ca-6"[1]'
	wait_for 20 bash -c "[ \$(\"$SMCTL\" --socket '$T/$1.sock' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"traps\"])') -gt $before ]"
	sim_cmd 'ReLink "ca-6"[1]'
	sleep 2
}
printf 'dr_only = false\n' >"$T/lid.conf"
printf 'dr_only = true\n' >"$T/dr.conf"

sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

# ---- without dr_only -------------------------------------------------------------
smd L ca-0 -F "$T/lid.conf" --priority 14 --sweep-interval 1
check "L brings the subnet up" wait_for 20 smd_up L
check "umad2sim's port: SMI and GSI one device, dr_only auto would be off" \
	test "$(smd_field L '(j["mad"]["split"], j["mad"]["dr_only"])')" = "(False, False)"
flap L
check "without dr_only, traps are answered LID-routed ($(lid_routed L) LID-routed SMPs)" \
	test "$(lid_routed L)" -gt 0
smd_kill L

# ---- dr_only: a master, a standby, a better SM arriving --------------------------
smd A ca-0 -F "$T/dr.conf" --priority 10 --sweep-interval 1
check "A brings the subnet up with dr_only" wait_for 20 smd_up A
check "A: dr_only in effect" test "$(smd_field A 'j["mad"]["dr_only"]')" = True
smd B ca-1 -F "$T/dr.conf" --priority 0 --sweep-interval 1
check "B stands by" wait_for 20 smd_state_is B STANDBY
# (a trap that comes before the first snapshot has no route to answer along)
unrouted=$(smd_field A 'j["mad"]["trap_repress_unrouted"]')
traps=$(traps_of A)
flap A
check "A answered the link's traps, every one along a route" \
	test "$(smd_field A "(j['traps'] > $traps, j['mad']['trap_repress_unrouted'])")" = "(True, $unrouted)"
sleep 2 # B polls A a few times
smd C ca-2 -F "$T/dr.conf" --priority 15 --sweep-interval 1
check "C, the better SM, becomes master" wait_for 30 smd_state_is C MASTER
check "A steps down to STANDBY" wait_for 30 smd_state_is A STANDBY
check "B follows C" wait_for 30 bash -c "[ \"\$(\"$SMCTL\" --socket '$T/B.sock' --json status | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j[\"state\"], j[\"failover\"][\"master\"] == \"$(smd_field C 'j["sm_guid"]')\")')\" = 'STANDBY True' ]"
flap C
for s in A B C; do
	check "$s: no LID-routed SMP request left it" test "$(lid_routed $s)" = 0
done
check "the subnet is up under C" smd_up C
for s in A B C; do smd_kill $s; done
sim_stop
finish
