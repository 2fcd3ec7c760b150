#!/bin/sh
# Install dependencies, build ibsmd with warnings as errors, run every test.
set -e
cd "$(dirname "$0")"
./deps.sh test
# style is enforced: every C file as the checked-in .clang-format lays it out
if ! git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror 2>/tmp/ibsmd-format.$$; then
	head -20 /tmp/ibsmd-format.$$
	echo "check: C files are not clang-formatted (run: clang-format -i FILE)"
	rm -f /tmp/ibsmd-format.$$
	exit 1
fi
rm -f /tmp/ibsmd-format.$$
# an in-tree ./configure (the old by-hand recipe) blocks builds in build/
if [ -f config.status ]; then
	echo "check: the source tree was configured in place; cleaning it (make distclean)"
	make distclean >/dev/null 2>&1 || rm -f config.status Makefile
fi
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
# always with -Werror: a build/ configured without it (quickstart.sh) is redone
if ! [ -f Makefile ] || ! grep -q -- "--enable-werror" config.status 2>/dev/null; then
	../configure --enable-werror
fi
make -j"$(nproc)"
rc=0
t0=$(date +%s)
make -j"$(nproc)" check || rc=$?
t1=$(date +%s)
# the same tests again, built with AddressSanitizer and UBSan (CHECK_SANITIZERS=no skips it);
# tests/lib.sh fails a test on any sanitizer report of any process it ran
if [ "${CHECK_SANITIZERS:-yes}" != no ]; then
	mkdir -p ../build-asan
	cd ../build-asan
	if ! [ -f Makefile ] || ! grep -q -- "--enable-asan" config.status 2>/dev/null; then
		../configure --enable-werror --enable-asan --enable-ubsan
	fi
	make -j"$(nproc)"
	make -j"$(nproc)" check || rc=$?
	t2=$(date +%s)
	# every fuzz target for FUZZ_TIME s under libFuzzer (when clang is there)
	make fuzz-run FUZZ_TIME="${FUZZ_TIME:-20}" || rc=$?
	t3=$(date +%s)
	cd ../build
	echo "check: make check $((t1 - t0)) s, sanitizer make check $((t2 - t1)) s, fuzz-run $((t3 - t2)) s"
fi
TRS=$(find tests ../build-asan/tests -name '*.trs' 2>/dev/null | sort)
for f in $TRS; do
	if grep -q '^:test-result: \(FAIL\|ERROR\)' "$f"; then
		echo "==== ${f%.trs}.log"
		tail -80 "${f%.trs}.log"
	fi
done
pass=$(cat /dev/null $TRS | grep -c '^:test-result: PASS' || true)
failed=$(cat /dev/null $TRS | grep -c '^:test-result: \(FAIL\|ERROR\)' || true)
skipped=$(cat /dev/null $TRS | grep -c '^:test-result: SKIP' || true)
echo "check: $pass passed, $failed failed, $skipped skipped (plain and sanitizer builds)"
exit $rc
