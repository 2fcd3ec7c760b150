#!/bin/bash
# Integration: the bash completion of smctl (ui/completions/smctl).
#   - it parses (bash -n) and needs nothing from the bash-completion package;
#   - command names, global options, --socket file names, topology --format values,
#     loglevel categories then levels, port disable|enable;
#   - node/route/port arguments: nothing (and quickly) when no daemon answers;
#     the GUIDs and descriptions of a (fake) daemon's nodes through --socket or
#     IBSMD_SOCKET, descriptions with spaces escaped.
# Every completion runs in its own bash, bounded by timeout.
. "$(dirname "$0")/lib.sh"

COMP="$top_srcdir/ui/completions/smctl"

# a version manager's python3 shim (pyenv) costs half a second a call: put the
# interpreter itself first in PATH.  $T/nopy: the tools without python3, for the
# completion's sed fallback.
mkdir -p "$T/bin" "$T/nopy"
PY=$(python3 -c 'import sys; print(sys.executable)') && ln -s "$PY" "$T/bin/python3"
export PATH="$T/bin:$PATH"
for t in bash timeout sort sed seq tr; do ln -s "$(type -P $t)" "$T/nopy/$t"; done

# comp WORD... : run the completion function on "WORD..." (the last WORD is the
# one being completed, may be ""), the candidates one per line, sorted
comp() {
	timeout -k 1 8 bash -uc '
		f=$1; shift
		source "$f" || exit 3
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_smctl || exit 4
		for c in ${COMPREPLY[@]+"${COMPREPLY[@]}"}; do printf "%s\n" "$c"; done
	' _ "$COMP" "$@" | LC_ALL=C sort
	return "${PIPESTATUS[0]}"
}
# expect "WANTED CANDIDATES" WORD...: the completion gives exactly these (separated
# by white space, or by ';' when there is one)
expect() {
	local want got
	if [[ $1 == *\;* ]]; then
		want=$(printf '%s\n' "$1" | tr ';' '\n' | LC_ALL=C sort | sed '/^$/d')
	else
		want=$(printf '%s\n' $1 | LC_ALL=C sort | sed '/^$/d')
	fi
	shift
	got=$(comp "$@") || { log "completion of '$*' failed ($?)"; return 1; }
	[ "$got" = "$want" ] && return 0
	log "completion of '$*': got [$(echo $got)] want [$(echo $want)]"
	return 1
}

# with_env VAR=VALUE command...: run the command with VAR exported
with_env() { local -x "$1"; shift; "$@"; }

check "the completion file parses (bash -n)" bash -n "$COMP"
check "sourcing it registers a completion for smctl" \
	bash -c 'source "$1" && complete -p smctl | grep -q -- "-F _smctl"' _ "$COMP"
check "it does not use bash-completion helpers" \
	bash -c '! grep -qE "_init_completion|_get_comp_words_by_ref|__ltrim_colon|_filedir" "$1"' _ "$COMP"

# ---- commands and options ---------------------------------------------------
check "smctl st -> status" expect "status" smctl st
check "smctl ro -> route" expect "route" smctl ro
check "smctl <empty> -> every command" \
	expect "status nodes ports links lids node route sweep reroute priority handover loglevel
topology validate events eventlog metrics counters config port partitions partition call help" smctl ""
check "smctl --j -> --json" expect "--json" smctl --j
check "smctl -- -> the global options" expect "--socket --json --timeout --help --version" smctl --
check "smctl --json st -> status" expect "status" smctl --json st
check "smctl --timeout 5 l -> links lids loglevel" expect "links lids loglevel" smctl --timeout 5 l
check "smctl --timeout <n> -> nothing" expect "" smctl --timeout ""
mkdir -p "$T/sockdir" && : >"$T/sockdir/ibsmd.sock"
check "smctl --socket PATH completes file names" expect "$T/sockdir/ibsmd.sock" smctl --socket "$T/sockdir/ib"
check "smctl --socket=PATH completes file names" expect "$T/sockdir/ibsmd.sock" smctl --socket="$T/sockdir/ib"
check "smctl --socket S st -> status (the value is skipped)" expect "status" smctl --socket "$T/x" st

# ---- arguments --------------------------------------------------------------
check "smctl loglevel -> categories" expect "sweep mad route sa ctl all" smctl loglevel ""
check "smctl loglevel mad -> levels" expect "error warning info debug" smctl loglevel mad ""
check "smctl loglevel mad d -> debug" expect "debug" smctl loglevel mad d
check "smctl partition -> its actions" expect "add remove delete show qos" smctl partition ""
check "smctl partition add 0x12 G --mem -> --membership" expect "--membership" smctl partition add 0x12 0002c90300000001 --mem
check "smctl partition add 0x12 G --membership -> full limited" expect "full limited" smctl partition add 0x12 0002c90300000001 --membership ""
check "smctl partitions -- -> --guids" expect "--guids" smctl partitions --
check "smctl loglevel mad debug -> nothing" expect "" smctl loglevel mad debug ""
check "smctl topology --format -> formats" expect "json ibnetdiscover dot slurm slurm-yaml" \
	smctl topology --format ""
check "smctl topology --format i -> ibnetdiscover" expect "ibnetdiscover" smctl topology --format i
check "smctl topology -> --format" expect "--format" smctl topology ""
check "smctl port -> disable enable" expect "disable enable" smctl port ""
check "smctl priority 1 -> 1 10..15" expect "1 10 11 12 13 14 15" smctl priority 1
check "smctl call -> command names" expect "status" smctl call sta
check "smctl status -> nothing" expect "" smctl status ""
check "smctl ports -> its filters" expect "--type --node --offset --limit --state --unhealthy" smctl ports ""
check "smctl nodes -> its filters (no --state)" expect "--type --node --offset --limit" smctl nodes ""
check "smctl ports --state -> port states" expect "down init armed active" smctl ports --state ""
check "smctl links --type -> switch ca" expect "switch ca" smctl links --type ""
check "smctl lids --limit <n> -> nothing" expect "" smctl lids --limit ""

# ---- node arguments without a daemon -----------------------------------------
t0=$SECONDS
check "smctl node (no daemon) -> nothing" \
	with_env IBSMD_SOCKET="$T/none.sock" expect "" "$SMCTL" node ""
check "smctl --socket FILE route (not a socket) -> nothing" \
	expect "" "$SMCTL" --socket "$T/sockdir/ibsmd.sock" route ""
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/stale.sock"
check "smctl --socket STALE node (a dead daemon's socket) -> nothing" \
	expect "" "$SMCTL" --socket "$T/stale.sock" node ""
# each call is capped at 3 s (timeout -k 1 3, smctl --timeout 2): three within 12 s means
# the caps held (smctl's own default is 30 s a call), however busy the machine is
check "the node completions without a daemon are quick (capped)" test $((SECONDS - t0)) -le 12

# ---- node arguments from a (fake) daemon --------------------------------------
cat >"$T/fake.py" <<'EOF'
import json, os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
s.settimeout(30)
nodes = [{"guid": "0x0002c90300000001", "type": "switch", "desc": "spine-1", "ports": 4, "lid": 1},
         {"guid": "0x0002c90300000002", "type": "ca", "desc": "host h1 HCA-1", "ports": 2, "lid": 2}]
while True:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    f = c.makefile("rwb")
    req = json.loads(f.readline())
    if req["cmd"] == "nodes":
        res = nodes
    elif req["cmd"] == "node":
        res = dict(nodes[0], nports=4, ports=[{"port": p, "state": "ACTIVE"} for p in (1, 2, 3, 4)])
    else:
        res = {}
    f.write((json.dumps({"ok": True, "result": res}) + "\n").encode())
    f.flush()
    c.close()
EOF
FAKE="$T/fake.sock"
python3 "$T/fake.py" "$FAKE" &
PIDS+=($!)
wait_for 10 test -S "$FAKE" || fail "the fake daemon starts"
ALL="0x0002c90300000001;0x0002c90300000002;spine-1;host\\ h1\\ HCA-1"
check "smctl --socket S node -> GUIDs and descriptions" expect "$ALL" "$SMCTL" --socket "$FAKE" node ""
check "smctl --socket=S route X -> GUIDs and descriptions" expect "$ALL" "$SMCTL" --socket="$FAKE" route spine-1 ""
check "smctl --socket S node sp -> spine-1" expect "spine-1" "$SMCTL" --socket "$FAKE" node sp
check "smctl --socket S node 'host\\ h -> escaped description" \
	expect 'host\ h1\ HCA-1;' "$SMCTL" --socket "$FAKE" node 'host\ h'
check "smctl --socket S node \"ho -> quoted description" \
	expect 'host h1 HCA-1;' "$SMCTL" --socket "$FAKE" node '"ho'
check "IBSMD_SOCKET=S smctl node 0x -> GUIDs" \
	with_env IBSMD_SOCKET="$FAKE" expect "0x0002c90300000001 0x0002c90300000002" "$SMCTL" node 0x
check "smctl --socket S port disable -> nodes" expect "$ALL" "$SMCTL" --socket "$FAKE" port disable ""
check "smctl --socket S counters -> nodes" expect "$ALL" "$SMCTL" --socket "$FAKE" counters ""
check "smctl --socket S counters spine-1 -> port numbers" \
	expect "1 2 3 4" "$SMCTL" --socket "$FAKE" counters spine-1 ""
check "smctl --socket S port disable spine-1 -> port numbers" \
	expect "1 2 3 4" "$SMCTL" --socket "$FAKE" port disable spine-1 ""
check "sed fallback: smctl --socket S node -> GUIDs and descriptions" \
	with_env PATH="$T/nopy" expect "$ALL" "$SMCTL" --socket "$FAKE" node ""
check "sed fallback: smctl --socket S port enable spine-1 -> port numbers" \
	with_env PATH="$T/nopy" expect "1 2 3 4" "$SMCTL" --socket "$FAKE" port enable spine-1 ""
check "smctl --socket S node X -> nothing more" expect "" "$SMCTL" --socket "$FAKE" node spine-1 ""

finish
