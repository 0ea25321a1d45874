# Sourced by build.sh and the C tests' run.sh: sets $compiler to the first C compiler on the PATH
# (gcc, else cc), or to the empty string when there is none, which both scripts then say and skip.
compiler=
for c in gcc cc; do
    if command -v "$c" >/dev/null 2>&1; then
        compiler=$c
        break
    fi
done
