#!/bin/bash
# Integration: services and subscriptions on ibsim.
#   - a host registers a ServiceRecord (tests/saclient); saquery SR from
#     another host reads it back; that other host may neither register for
#     the first one's GID nor delete its service (ERR_REQ_DENIED); the owner
#     deletes it (the answer is the record) and it is gone;
#   - a service with a 2 s lease is there, then expires;
#   - a host subscribes to trap 65 with InformInfo (saquery IIR lists it),
#     a CA's link goes down (ibsim Unlink): a Report(Notice) of trap 65 with
#     that CA's GID reaches the subscriber, which answers ReportResp and gets
#     no resend; a subscriber that does not answer gets it 4 times; a
#     subscriber of trap 64 gets one when the link comes back (ReLink);
#   - unsubscribe works once, then ERR_REQ_INVALID; a subscriber whose link
#     goes down loses its subscription; the daemon goes on.
. "$(dirname "$0")/lib.sh"

SAC="$top_builddir/tests/saclient"
jctl() { "$SMCTL" --socket "$SM_SOCK" --timeout 20 --json "$@"; }
# on HOST saclient-args...: saclient attached to HOST
on() { local h=$1; shift; (export SIM_HOST=$h; sim_run 30 "$SAC" "$@" 2>>"$T/saclient.err"); }
# bg HOST OUT saclient-args...: saclient in the background (BG_PID), output in OUT
bg() {
	local h=$1 out=$2; shift 2
	(cd "$T" && SIM_HOST=$h LD_PRELOAD="$UMAD2SIM" exec timeout -k 5 90 stdbuf -oL "$SAC" "$@" \
		>"$out" 2>>"$T/saclient.err") &
	BG_PID=$!
	PIDS+=("$BG_PID")
}
# bounded wait for a background client; its exit status
bg_wait() {
	local p=$1
	for _ in $(seq 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
	wait "$p" 2>/dev/null
}
# saquery with a 5 s timeout (its default, 1 s, is short on a loaded 2-core machine)
sq() { (export SIM_HOST=$1; shift; sim_run 30 saquery -t 5000 "$@" 2>/dev/null); }
guid_of() { jctl lids | python3 -c '
import json,sys
print(next(l["port_guid"] for l in json.load(sys.stdin) if l["desc"] == sys.argv[1]))' "$1"; }
# gid6 GUID: the port GID as saquery prints it (fe80::...)
gid6() { python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' "$1"; }
status_is() { grep -q "^status $1\$"; }
# answers STATUS HOST saclient-args...: the SA answers that command with STATUS
answers() { local st=$1; shift; on "$@" | status_is "$st"; }

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || { fail "topogen fattree2"; finish; }
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }
sm_start "$T/state" --sweep-interval 1
check "daemon comes up" wait_for 30 bash -c "'$SMCTL' --socket '$SM_SOCK' --json status 2>/dev/null | grep -q '\"subnet_up\": true'"
G1=$(guid_of ca-1)
G3=$(guid_of ca-3)
G5=$(guid_of ca-5)
log "ca-1 $G1, ca-3 $G3, ca-5 $G5"

# ---- ServiceRecord -----------------------------------------------------------------
on ca-1 sr-set --id 0x1234 --name ibsmd-test >"$T/set"
check "ca-1 registers a service" status_is 0x0000 <"$T/set"
check "the answer: default P_Key, infinite lease" \
	grep -q "service id 0x0000000000001234 guid $G1 pkey 0xffff lease 4294967295 name ibsmd-test" "$T/set"
sq ca-2 SR >"$T/sr"
check "saquery SR on ca-2 shows it: ServiceName" grep -q "ServiceName.*ibsmd-test" "$T/sr"
check "saquery SR: ServiceID" grep -qi "ServiceID.*0x0*1234" "$T/sr"
check "saquery SR: ca-1's GID" grep -q "ServiceGID\.*$(gid6 "$G1")\$" "$T/sr"
check "ca-2 cannot register for ca-1's GID (ERR_REQ_DENIED)" \
	answers 0x0700 ca-2 sr-set --id 0x1234 --guid "$G1" --name hijack
check "nor delete ca-1's service" \
	answers 0x0700 ca-2 sr-delete --id 0x1234 --guid "$G1"
on ca-3 sr-get --name ibsmd-test >"$T/get"
check "GetTable by name from ca-3: ca-1's record, unchanged" \
	grep -q "service id 0x0000000000001234 guid $G1 .*name ibsmd-test$" "$T/get"
on ca-1 sr-delete --id 0x1234 >"$T/del"
check "ca-1 deletes it" status_is 0x0000 <"$T/del"
check "the answer is the record" grep -q "name ibsmd-test$" "$T/del"
check "saquery SR: no services left" test "$(sq ca-2 SR | grep -c ServiceName)" = 0
check "deleting it again: ERR_NO_RECORDS" \
	answers 0x0300 ca-1 sr-delete --id 0x1234

on ca-1 sr-set --id 0x99 --name short --lease 2 >"$T/lease"
check "a service with a 2 s lease" status_is 0x0000 <"$T/lease"
t0=$SECONDS
gone() { ! sq ca-2 SR | grep -q "ServiceName.*short"; }
check "is there at first" test "$(sq ca-2 SR | grep -c 'ServiceName.*short')" = 1
check "and is gone when the lease is over" wait_for 10 gone
check "not before (>= 1 s)" test $((SECONDS - t0)) -ge 1

# ---- InformInfo and Reports ---------------------------------------------------------
# ca-2 answers its Report and listens 4 s more (a resend would come after 1.3 s:
# RespTimeValue 18); ca-6 never answers and gets the Report and its 3 resends
bg ca-2 "$T/inform65" inform --trap 65 --wait 60 --count 1 --linger 4
P65=$BG_PID
bg ca-6 "$T/noack" inform --trap 65 --wait 60 --count 4 --no-ack
PNOACK=$BG_PID
check "ca-2 subscribes to trap 65" wait_for 15 grep -q "^subscribed" "$T/inform65"
check "ca-6 too" wait_for 15 grep -q "^subscribed" "$T/noack"
G2=$(guid_of ca-2)
sq ca-4 IIR >"$T/iir"
check "saquery IIR lists ca-2's subscription to trap 65" \
	bash -c "grep -q 'SubscriberGID\.*$(gid6 "$G2")\$' '$T/iir' && grep -q 'trap_num\.*65\$' '$T/iir'"
sim_cmd 'Unlink "ca-3"[1]'
check "ca-2 gets a Report of trap 65 for ca-3's GID" wait_for 30 grep -q "^report trap 65 gid $G3 " "$T/inform65"
bg_wait "$P65"
check "and answers it (the client saw its Report, exit 0)" test $? = 0
check "answered: it is not sent again" test "$(grep -c '^report' "$T/inform65")" = 1
bg_wait "$PNOACK"
check "unanswered: sent 4 times (3 resends), one TID" \
	test "$(grep '^report trap 65' "$T/noack" | sort -u | wc -l) $(grep -c '^report trap 65' "$T/noack")" = "1 4"
on ca-2 inform --trap 65 --unsubscribe >"$T/unsub"
check "ca-2 unsubscribes" status_is 0x0000 <"$T/unsub"
on ca-2 inform --trap 65 --unsubscribe >"$T/unsub2"
check "unsubscribing again: ERR_REQ_INVALID" status_is 0x0200 <"$T/unsub2"

bg ca-4 "$T/inform64" inform --trap 64 --wait 60 --count 1
P64=$BG_PID
check "ca-4 subscribes to trap 64" wait_for 15 grep -q "^subscribed" "$T/inform64"
sim_cmd 'ReLink "ca-3"[1]'
check "ca-4 gets a Report of trap 64 for ca-3's GID" wait_for 30 grep -q "^report trap 64 gid $G3 " "$T/inform64"
bg_wait "$P64"
check "and answers it" test $? = 0

on ca-5 inform --trap 0xffff >"$T/sub5"
check "ca-5 subscribes (and leaves at once)" status_is 0x0000 <"$T/sub5"
nosub5() { ! sq ca-4 IIR | grep -q "SubscriberGID\.*$(gid6 "$G5")\$"; }
check "saquery IIR lists ca-5" test "$(sq ca-4 IIR | grep -c "SubscriberGID\.*$(gid6 "$G5")\$")" = 1
sim_cmd 'Unlink "ca-5"[1]'
check "ca-5's link goes down: its subscription is dropped" wait_for 30 nosub5

check "the daemon goes on" kill -0 "$SM_PID"
check "SIGTERM stops it cleanly" sm_stop
finish
