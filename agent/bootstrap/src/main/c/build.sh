#!/bin/sh
# Builds dprof's JNI library (dprof_native.c) into the class directory, beside the classes that
# load it, at native/<os>-<arch>/ (NativeLibrary picks it by os.name and os.arch):
#   - for this machine, with gcc (or cc) from the PATH: linux-x86_64, linux-aarch64, or on macOS
#     darwin-x86_64 / darwin-aarch64 (libdprof.dylib; compiles there, untested);
#   - on Linux x86-64, also for linux-aarch64 when Debian's cross compiler aarch64-linux-gnu-gcc
#     is installed (.ci/run installs it).
# With no C compiler on the PATH it builds nothing and says so: the agent then runs on the declared
# System.nanoTime fallback. A compiler that is present and fails fails the build.
#
# Usage: build.sh JAVA_HOME HEADERS_DIR CLASSES_DIR SOURCE_DIR
set -eu
java_home=$1
headers=$2
classes=$3
src=$4
out_root=$classes/dev/dprof/agent/bootstrap/native

. "$src/compiler.sh"
if [ -z "$compiler" ]; then
    echo "[dprof native] no C compiler (gcc or cc) on the PATH: libdprof is not built; the agent will use System.nanoTime"
    exit 0
fi

case "$(uname -s)" in
    Linux) os=linux; lib=libdprof.so ;;
    Darwin) os=darwin; lib=libdprof.dylib ;;
    *) echo "[dprof native] no native build for $(uname -s): the agent will use System.nanoTime"; exit 0 ;;
esac
case "$(uname -m)" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) echo "[dprof native] no CPU counter for $(uname -m): libdprof is not built; the agent will use System.nanoTime"; exit 0 ;;
esac

# build COMPILER OS ARCH LIB: one library, with the flags that OS's linker takes.
build() {
    dir=$out_root/$2-$3
    mkdir -p "$dir"
    if [ "$2" = linux ]; then
        link="-shared -Wl,--no-undefined -Wl,-z,noexecstack"
        include=linux
    else
        link="-dynamiclib -undefined error"
        include=darwin
    fi
    # shellcheck disable=SC2086 # $link is a list of flags
    "$1" -std=gnu11 -O2 -fPIC -pthread -Wall -Werror -fvisibility=hidden -ftls-model=initial-exec $link \
        -I"$java_home/include" -I"$java_home/include/$include" -I"$headers" \
        -o "$dir/$4" "$src/dprof_native.c"
    echo "[dprof native] built $2-$3/$4 with $1"
}

build "$compiler" "$os" "$arch" "$lib"
if [ "$os-$arch" = linux-x86_64 ]; then
    if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
        build aarch64-linux-gnu-gcc linux aarch64 libdprof.so
    else
        echo "[dprof native] no aarch64-linux-gnu-gcc: the jar holds no linux-aarch64 library (apt-get install gcc-aarch64-linux-gnu)"
    fi
fi
