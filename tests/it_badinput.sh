#!/bin/bash
# Integration: bad input never stops the SM.  A corrupt or unreadable
# guid->LID file, a node that stops answering, and malformed / unserved MADs
# sent at the running daemon each get a log line, and the SM carries on.
. "$(dirname "$0")/lib.sh"
INJECT="$top_builddir/tests/madinject"

"$TOPOGEN" fattree2 -k 4 -o "$T/ft.net" || fail "topogen"
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

# --- a corrupt guid2lid: warned about (with the line), rebuilt, subnet up
sd="$T/state-corrupt"
mkdir -p "$sd"
printf '0x0002c90200000100 0x0001 0x0001\nthis is not a guid\n\001\002\377garbage\n0x1 0xC000 0xC000\n' >"$sd/guid2lid"
if sm_once "$sd"; then pass "corrupt guid2lid: subnet still comes up"; else fail "corrupt guid2lid: $(tail -2 "$T/sm.err")"; fi
check "corrupt guid2lid: the warning names the file and line" grep -q "guid2lid:2:" "$T/sm.err"
check "corrupt guid2lid: rewritten with only well-formed lines" \
	bash -c "! grep -vE '^(#.*|0x[0-9a-f]{16} 0x[0-9a-f]{4} 0x[0-9a-f]{4}|)$' '$sd/guid2lid'"
check "corrupt guid2lid: the good line's LID was kept" grep -q '^0x0002c90200000100 0x0001 0x0001$' "$sd/guid2lid"
capture corrupt
check "corrupt guid2lid: fabric correct" python3 "$FABCHECK" --topo "$T/corrupt.topo" \
	--fts "$T/corrupt.fts" --links "$T/corrupt.links" --nodes "$N"

# --- an unreadable guid2lid (a directory in its place): logged, subnet up
sd="$T/state-dir"
mkdir -p "$sd/guid2lid"
if sm_once "$sd"; then pass "unreadable guid2lid: subnet still comes up"; else fail "unreadable guid2lid: $(tail -2 "$T/sm.err")"; fi
check "unreadable guid2lid: the error is logged" grep -q "cannot write.*guid2lid" "$T/sm.err"

# --- a node that never answers: timeouts, retries, then carry on without it
sd="$T/state-ok"
sim_cmd 'Error "ca-5"[1] 100'
start=$SECONDS
if sm_once "$sd" --timeout 50 --retries 2; then pass "unresponsive CA: ibsmd --once still exits 0"
else fail "unresponsive CA: $(tail -2 "$T/sm.err")"; fi
check "unresponsive CA: bounded ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 30
check "unresponsive CA: the log says who did not answer" grep -q "no answer .* carrying on" "$T/sm.err"
check "unresponsive CA: the others are configured ($(cat "$T/sm.out"))" grep -q "$((N - 1)) nodes" "$T/sm.out"
sim_cmd 'Error "ca-5"[1] 0'
sm_once "$sd" || fail "after the CA answers again: $(tail -2 "$T/sm.err")"
capture healed
check "unresponsive CA: the fabric heals on the next sweep" python3 "$FABCHECK" \
	--topo "$T/healed.topo" --fts "$T/healed.fts" --links "$T/healed.links" --nodes "$N"

# --- malformed and unserved MADs at the running daemon
sm_start "$sd" --sweep-interval 1
check "daemon comes up" wait_for 20 grep -q "subnet up" "$T/smd.err"
SOCK=$SM_SOCK

# --- one state directory per daemon
sim_run 20 "$IBSMD" --once --state-dir "$sd" >"$T/second.out" 2>"$T/second.err"; rc=$?
check "a second daemon on the same state directory is refused (exit $rc)" test "$rc" = 1
check "naming the first one's pid ($SM_PID)" \
	grep -q "state directory $sd is in use by another ibsmd (pid $SM_PID)" "$T/second.err"
st() { "$SMCTL" --socket "$SOCK" --json status | python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }
# the newest event's number; the reasons of the sweeps started after event SEQ, one a
# line ("heavy: REASON" or "incremental: REASON"; the log says the same of every sweep)
evseq() { "$SMCTL" --socket "$SOCK" --json eventlog | python3 -c "import json,sys; print(json.load(sys.stdin)['seq'])"; }
sweeps_since() {
	"$SMCTL" --socket "$SOCK" --json eventlog "$1" | python3 -c 'import json,sys
for e in json.load(sys.stdin)["events"]:
    if e["type"] == "sweep_start":
        print(("heavy: " if e["heavy"] else "incremental: ") + e["reason"])'
}
# every 30th periodic sweep is heavy (sm/light.c), whatever the fabric does
PERIODIC="heavy: periodic: every 30th sweep is heavy"

# --- light sweeps: a quiet fabric is only polled; a silent switch is asked again
# around it (an incremental sweep, heavy when it stays silent behind live links)
check "control socket answers" wait_for 10 bash -c "'$SMCTL' --socket '$SOCK' status >/dev/null"
wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | grep -c '\"light_sweeps\": [1-9]') = 1 ]"
H0=$(st sweeps); L0=$(st light_sweeps); E0=$(evseq)
check "quiet fabric: light sweeps go on (2 more after $L0)" \
	wait_for 30 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"light_sweeps\"])') -ge $((L0 + 2)) ]"
H1=$(st sweeps)
sweeps_since "$E0" >"$T/quiet.sweeps"
log "quiet fabric: sweeps $H0 -> $H1, started: $(paste -sd';' "$T/quiet.sweeps")"
check "quiet fabric: no heavy sweep but the periodic one" bash -c "! grep -vxF '$PERIODIC' '$T/quiet.sweeps'"
sim_cmd 'Error "sw-L2-1" 100'
check "a switch that stops answering: the light sweep notices" \
	wait_for 10 grep -q "light sweep: switch .* did not answer: sweeping around 1 switch" "$T/smd.err"
sim_cmd 'Error "sw-L2-1" 0'
check "and once it answers again the heavy sweeps bring it back ($N nodes)" \
	wait_for 15 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"last_sweep_status\"] == \"ok\" else 0)') = $N ]"
SMLID=$(sim_run 20 sminfo 2>/dev/null | sed -n 's/^sminfo: sm lid \([0-9]*\).*/\1/p')
check "sminfo finds the SM (LID ${SMLID:-none})" test -n "$SMLID"
for args in "--class 0x01 --base-version 7" \
	"--class 0x01 --method 0x01 --attr 0x20 --len 40" \
	"--class 0x03 --method 0x01 --attr 0x35" \
	"--class 0x03 --garbage" \
	"--class 0x01 --method 0x05 --attr 0x02 --garbage" \
	"--class 0x04 --method 0x01"; do
	(export SIM_HOST=ca-3; sim_run 20 "$INJECT" --dlid "${SMLID:-1}" $args >/dev/null 2>&1) ||
		fail "madinject $args"
done
check "daemon survives the bad MADs" kill -0 "$SM_PID"

# --- a burst of traps (40 trap 144s from a known host over 0.8 s, each after the sweep
# the one before started has ended) is folded into a couple of heavy sweeps by the hold-down
wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"last_sweep_status\"])') = ok ]"
ta() { "$SMCTL" --socket "$SOCK" --json status | python3 -c "import json,sys; print(json.load(sys.stdin)['trap_actions']['$1'])"; }
T0=$(st traps); H0=$(st sweeps)
(export SIM_HOST=ca-3; sim_run 30 "$INJECT" --dlid "${SMLID:-1}" --class 0x01 --method 0x05 \
	--attr 0x02 --trap 144 --count 40 --interval 20 >/dev/null 2>&1) || fail "madinject a trap burst"
check "40 traps arrive" wait_for 10 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"traps\"])') -ge $((T0 + 40)) ]"
# the folded sweeps: the first has come, and the sweeps are done (settled, below)
settled() { local a b; a=$(st sweeps); sleep 2; b=$(st sweeps); [ "$a" = "$b" ]; }
wait_for 30 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"sweeps\"])') -gt $H0 ]"
wait_for 30 settled
H1=$(st sweeps)
check "a burst of 40 trap 144s costs 1 to 4 heavy sweeps, not 40 ($H0 -> $H1)" \
	test "$H1" -ge $((H0 + 1)) -a "$H1" -le $((H0 + 4))

# --- 1,000 forged traps from a host: a 128 (only switches send it) and numbers the SM
# does not act on are refused or ignored, counted, logged rate-limited; none asks for
# a sweep, and no sweep starts for a trap (a periodic one may: every 30th is heavy)
# (first the burst's folded sweeps end: on a loaded machine one may still wait;
# settled lets 2 s pass with no sweep)
wait_for 30 settled
R0=$(ta refused); I0=$(ta ignored); S0=$(ta sweep); H0=$(st sweeps); L0=$(wc -l <"$T/smd.err")
E0=$(evseq)
# (in runs of 450: the TrapRepresses queue up unread at the sender, and ibsim must not stall)
for run in 1 2; do
	(export SIM_HOST=ca-3; sim_run 60 "$INJECT" --dlid "${SMLID:-1}" --class 0x01 --method 0x05 \
		--attr 0x02 --trap 128 --count 450 --interval 2 >/dev/null 2>&1) || fail "madinject 450 forged trap 128s"
done
(export SIM_HOST=ca-3; sim_run 30 "$INJECT" --dlid "${SMLID:-1}" --class 0x01 --method 0x05 \
	--attr 0x02 --trap 9999 --count 100 --interval 2 >/dev/null 2>&1) || fail "madinject 100 trap 9999s"
check "the forged trap 128s are refused" wait_for 15 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"trap_actions\"][\"refused\"])') -ge $((R0 + 900)) ]"
check "the trap 9999s are ignored ($I0 -> $(ta ignored))" test "$(ta ignored)" -ge $((I0 + 100))
# time for a sweep a trap asked for to start (the hold-down), were there one
wait_for 30 settled
H1=$(st sweeps)
sweeps_since "$E0" >"$T/forged.sweeps"
log "during the forged traps: sweeps $H0 -> $H1, started: $(paste -sd';' "$T/forged.sweeps")"
check "1,000 forged traps ask for no sweep (trap actions 'sweep' $S0 -> $(ta sweep))" test "$(ta sweep)" = "$S0"
check "and no sweep started for a trap meanwhile" bash -c "! grep -q '^[a-z]*: trap ' '$T/forged.sweeps'"
check "a refused trap is logged with why" grep -q "trap 128 from CA .* refused: LID .* is a CA: only switches send trap 128" "$T/smd.err"
check "and rate-limited ($(($(wc -l <"$T/smd.err") - L0)) lines for 1,000 traps)" \
	test $(($(wc -l <"$T/smd.err") - L0)) -lt 100
# a real link change during a flood is still handled: the switch's trap 128 sweeps
(export SIM_HOST=ca-3; sim_run 60 "$INJECT" --dlid "${SMLID:-1}" --class 0x01 --method 0x05 \
	--attr 0x02 --trap 128 --count 400 --interval 5 >/dev/null 2>&1) &
FLOOD=$!
R1=$(ta refused)
wait_for 30 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"trap_actions\"][\"refused\"])') -gt $R1 ]" ||
	fail "the flood began"
S0=$(ta sweep)
sim_cmd 'Unlink "ca-6"[1]'
check "a real trap 128 during the flood is taken" wait_for 15 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"trap_actions\"][\"sweep\"])') -gt $S0 ]"
check "and the link's loss is swept in ($((N - 1)) nodes)" wait_for 15 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"last_sweep_status\"] == \"ok\" else 0)') = $((N - 1)) ]"
wait "$FLOOD" 2>/dev/null
sim_cmd 'ReLink "ca-6"[1]'
check "ReLink: back to $N nodes" wait_for 20 bash -c "[ \$(\"$SMCTL\" --socket '$SOCK' --json status | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"last_sweep_status\"] == \"ok\" else 0)') = $N ]"
check "a malformed SMP is logged" grep -q "malformed" "$T/smd.err"
check "unserved MADs are logged" grep -q "ignored a MAD of class 0x04" "$T/smd.err"
check "bad SA queries are answered and logged" grep -q "SA: .* refused" "$T/smd.err"
sweeps=$(grep -c "subnet up" "$T/smd.err")
kill -HUP "$SM_PID"
check "and keeps sweeping" wait_for 20 bash -c "[ \$(grep -c 'subnet up\|sweep' '$T/smd.err') -gt $sweeps ]"
check "sminfo still answers MASTER" bash -c "cd '$T' && LD_PRELOAD='$UMAD2SIM' timeout 20 sminfo 2>/dev/null | grep -q SMINFO_MASTER"
check "SIGTERM stops it cleanly" sm_stop

# --- the socket path replaces only a stale socket, never another kind of file
echo precious >"$T/not-a-socket"
sim_run 30 "$IBSMD" --once --state-dir "$T/state-sock" --socket "$T/not-a-socket" \
	>"$T/sock.out" 2>"$T/sock.err"; rc=$?
check "--socket naming a regular file: refused (exit $rc)" test "$rc" = 1
check "and says why" grep -q "not-a-socket exists and is not a socket: not replacing it" "$T/sock.err"
check "and the file is untouched" grep -qx precious "$T/not-a-socket"

# --- a guid2lid that cannot be written is written as soon as it can be
sd="$T/state-owed"
mkdir -p "$sd/guid2lid" # rename(2) onto a directory fails: EISDIR
sm_start "$sd" --sweep-interval 0
SOCK=$SM_SOCK
check "guid2lid unwritable: the daemon comes up" wait_for 20 grep -q "subnet up" "$T/smd.err"
check "the error names the errno" grep -q "cannot write $sd/guid2lid: Is a directory" "$T/smd.err"
check "status: guid2lid_pending" test "$(st guid2lid_pending)" = True
rmdir "$sd/guid2lid"
check "once it can be, it is written without a LID change (retry timer)" \
	wait_for 20 test -s "$sd/guid2lid"
check "with every port's LID ($N nodes)" test "$(grep -c '^0x' "$sd/guid2lid")" -ge "$N"
check "the log says so" wait_for 5 grep -q "wrote $sd/guid2lid after [0-9]* failed attempt" "$T/smd.err"
check "status: no longer pending" test "$(st guid2lid_pending)" = False
check "SIGTERM stops it cleanly" sm_stop
finish
