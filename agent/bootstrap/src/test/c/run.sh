#!/bin/sh
# Tests the C logic of dprof_native.c (native_test.c) for this machine and, when the cross
# compiler and qemu-user are installed (.ci/run installs both), for linux-aarch64 under
# qemu-aarch64. What is missing is skipped with a line saying so; a test that fails fails the build.
#
# Usage: run.sh JAVA_HOME HEADERS_DIR SOURCE_DIR TEST_DIR OUT_DIR
set -eu
java_home=$1
headers=$2
src=$3
test_src=$4
out=$5
mkdir -p "$out"

flags="-std=gnu11 -O2 -pthread -Wall -Werror -I$java_home/include -I$java_home/include/linux -I$headers -I$src"

. "$src/compiler.sh"
if [ -z "$compiler" ]; then
    echo "[dprof native test] skipped: no C compiler (gcc or cc) on the PATH"
    exit 0
fi
if [ "$(uname -s)" != Linux ]; then
    echo "[dprof native test] skipped: runs on Linux only"
    exit 0
fi

# shellcheck disable=SC2086 # $flags is a list of flags
"$compiler" $flags -o "$out/native_test" "$test_src/native_test.c"
"$out/native_test"

case "$(uname -m)" in x86_64|amd64) ;; *) exit 0 ;; esac
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
    echo "[dprof native test] aarch64 skipped: no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"
    exit 0
fi
qemu=
for q in qemu-aarch64 qemu-aarch64-static; do
    if command -v "$q" >/dev/null 2>&1; then
        qemu=$q
        break
    fi
done
if [ -z "$qemu" ]; then
    echo "[dprof native test] aarch64 skipped: no qemu-aarch64 (apt-get install qemu-user)"
    exit 0
fi
# shellcheck disable=SC2086
aarch64-linux-gnu-gcc $flags -o "$out/native_test-aarch64" "$test_src/native_test.c"
"$qemu" -L /usr/aarch64-linux-gnu "$out/native_test-aarch64"
