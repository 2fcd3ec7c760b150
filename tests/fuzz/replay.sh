#!/bin/sh
# Replay every fuzz corpus through its target's plain (gcc, no libFuzzer)
# build: tests/fuzz/fuzz_X over tests/fuzz/corpus/X.  Part of `make check`;
# a crash or a violated property fails the test.
: "${top_builddir:=.}" "${top_srcdir:=.}"
status=0
for t in sa smp mad topo conf ctl lid rmpp perf http sync part qos plan pkeyreq; do
	bin="$top_builddir/tests/fuzz/fuzz_$t"
	corpus="$top_srcdir/tests/fuzz/corpus/$t"
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz_$t: $bin not built"
		status=1
		continue
	fi
	if [ ! -d "$corpus" ]; then
		echo "FAIL fuzz_$t: no corpus $corpus"
		status=1
		continue
	fi
	if out=$("$bin" "$corpus" 2>&1); then
		echo "ok fuzz_$t: $out"
	else
		echo "FAIL fuzz_$t:"
		echo "$out"
		status=1
	fi
done
exit $status
