#!/bin/bash
# Integration: programming that survives a lossy fabric.  Every switch of a
# 90-node fat tree drops 1 % and then 5 % of the MADs it handles (ibsim's
# Error); `ibsmd --once` must still give every port its LID and bring every
# link to ACTIVE in one run (a Set whose answer was lost is read back, never
# rebuilt from the discovery copy; a failed sweep is retried), and the daemon
# must converge within seconds.  Checked with the loss switched off by
# ibnetdiscover, dump_fts and iblinkinfo.
. "$(dirname "$0")/lib.sh"

"$TOPOGEN" fattree2 -k 12 -o "$T/ft.net" || fail "topogen"
N=$(grep -cE '^(Switch|Hca)[[:space:]]' "$T/ft.net")
SWITCHES=$(sed -n 's/^Switch[[:space:]]*[0-9]* "\([^"]*\)".*/\1/p' "$T/ft.net")
sim_start "$T/ft.net" || { fail "ibsim starts"; finish; }

loss() { for s in $SWITCHES; do echo "Error \"$s\" $1" >&7; done; sim_sync; }


run=0
for pct in 1 5; do
	for i in 1 2 3; do
		run=$((run + 1))
		sd="$T/state-$run"
		loss "$pct"
		start=$SECONDS
		if sm_once "$sd" --timeout 50; then
			pass "$pct % loss, run $i: --once exits 0 ($(cat "$T/sm.out"))"
		else
			fail "$pct % loss, run $i: $(tail -3 "$T/sm.err")"
		fi
		check "$pct % loss, run $i: bounded ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 60
		loss 0
		capture "lossy-$run" || fail "capture"
		check "$pct % loss, run $i: every port has its LID, every link ACTIVE" python3 "$FABCHECK" \
			--topo "$T/lossy-$run.topo" --fts "$T/lossy-$run.fts" --links "$T/lossy-$run.links" --nodes "$N"
	done
done

# the daemon at 5 %: up within seconds, with no port left behind
loss 5
export SIM_HOST=ca-0 # the SM's host
sm_start "$T/state-daemon" --sweep-interval 2 --timeout 50
check "daemon at 5 % loss: subnet up" wait_for 40 bash -c "[ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status 2>/dev/null | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"last_sweep_status\"] == \"ok\" else 0)' 2>/dev/null) = $N ]"
loss 0
capture daemon || fail "capture"
check "daemon at 5 % loss: every port has its LID, every link ACTIVE" python3 "$FABCHECK" \
	--topo "$T/daemon.topo" --fts "$T/daemon.fts" --links "$T/daemon.links" --nodes "$N"

# the SM's own link down: no subnet, and status says so; back when it is relinked
stj() { "$SMCTL" --socket "$SM_SOCK" --json status 2>/dev/null | python3 -c "import json,sys; o=json.load(sys.stdin); print(o['$1'])" 2>/dev/null; }
sim_cmd 'Unlink "ca-0"[1]'
check "own link down: subnet_up false" wait_for 20 bash -c "[ \"\$(\"$SMCTL\" --socket '$SM_SOCK' --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"subnet_up\"])')\" = False ]"
check "own link down: the reason says so ($(stj last_sweep_reason))" \
	bash -c "'$SMCTL' --socket '$SM_SOCK' --json status | grep -q \"the SM's own port is down\""
check "own link down: retried with backoff" wait_for 10 grep -q "sweep failed [0-9]* times in a row: trying again" "$T/smd.err"
sim_cmd 'ReLink "ca-0"[1]'
check "relinked: subnet up again with $N nodes" wait_for 40 bash -c "[ \$(\"$SMCTL\" --socket '$SM_SOCK' --json status 2>/dev/null | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o[\"nodes\"] if o[\"subnet_up\"] else 0)' 2>/dev/null) = $N ]"
check "SIGTERM stops it cleanly" sm_stop
finish
