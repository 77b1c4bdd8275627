#!/usr/bin/env bash
# Start-up cost of the front ends, and proof that LibTorch (and the Qt5 that Debian's LibTorch pulls in through
# OpenCV) is mapped only once a learned policy runs.
#
#   scripts/bench-startup.sh [BUILD_DIR] [RUNS]        (defaults: build, 7)
#
# 1. `schedstudio-cli policies` and a 1,000-job heuristic run, RUNS times each under /usr/bin/time -v: median and
#    max wall ms (bash's $EPOCHREALTIME around the process), median user+system CPU ms (10 ms resolution; less sensitive to
#    other work on the machine than wall time) and the largest peak RSS (MiB, "Maximum resident set size"); target
#    median wall < 30 ms and peak < 30 MiB. The same for a DAS run (informational: it loads the module).
# 2. Shared objects each CLI command loads (LD_DEBUG=files: one "generating link map" per object, dlopen'ed ones
#    included), and whether libtorch / libQt5 are among them.
# 3. The GUI (offscreen) on the sample scenario with a heuristic policy, then with das: shared objects in
#    /proc/PID/maps after the run, and whether libQt5 / libtorch / the module are mapped. Target: none of them
#    with the heuristic; all of them after das.
# Exit code 0 when every target is met.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build}
RUNS=${2:-7}
CLI=$BUILD/app/schedstudio-cli
GUI=$BUILD/app/gui/schedstudio
TARGET_MS=30
TARGET_MIB=30
fail=0
[ -x "$CLI" ] || { echo "no $CLI (build first)"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

HEUR_RUN=(run --trace sample-traces/das-small-1000.csv --cluster das-small --policy fifo+firstfit)
DAS_RUN=(run --trace sample-traces/das-case.csv --cluster das-case --policy das)

# measure LABEL TARGETED(1|0) CMD...: RUNS runs; prints median/max wall ms, peak MiB, pass/fail.
measure() {
    local label=$1 targeted=$2
    shift 2
    local walls=() cpus=() peak=0
    for ((i = 0; i < RUNS; i++)); do
        local t0 t1 kb
        # Wall time from bash's clock (no fork of date or time around the command: they add 5-15 ms here).
        t0=${EPOCHREALTIME/./}
        "$@" >/dev/null 2>"$TMP/err" || { echo "$label: command failed:"; cat "$TMP/err"; fail=1; return; }
        t1=${EPOCHREALTIME/./}
        walls+=($(((t1 - t0 + 500) / 1000)))
        # Peak RSS and CPU time from a second run under /usr/bin/time -v.
        /usr/bin/time -v -o "$TMP/time" "$@" >/dev/null 2>&1
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time")
        cpus+=($(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%d", (u + s) * 1000}' "$TMP/time"))
        ((kb > peak)) && peak=$kb
    done
    local sorted median max mib cpu verdict=""
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk -v n="${#cpus[@]}" 'NR == int((n + 1) / 2)')
    sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
    median=$(echo "$sorted" | awk -v n="${#walls[@]}" 'NR == int((n + 1) / 2)')
    max=$(echo "$sorted" | tail -1)
    mib=$(awk -v k="$peak" 'BEGIN {printf "%.1f", k / 1024}')
    if [ "$targeted" = 1 ]; then
        if ((median < TARGET_MS)) && awk -v m="$mib" -v t="$TARGET_MIB" 'BEGIN {exit !(m < t)}'; then
            verdict="PASS (< $TARGET_MS ms, < $TARGET_MIB MiB)"
        else
            verdict="FAIL (target < $TARGET_MS ms, < $TARGET_MIB MiB)"
            fail=1
        fi
    fi
    printf '%-34s wall median %5d ms (max %5d)  cpu median %5d ms  peak %7s MiB  %s\n' "$label" "$median" "$max" "$cpu" \
        "$mib" "$verdict"
}

# objects LABEL CMD...: shared objects the process loads, and which of LibTorch / Qt5 / the module.
objects() {
    local label=$1
    shift
    LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP/ld" "$@" >/dev/null 2>&1
    cat "$TMP"/ld.* >"$TMP/ldall" 2>/dev/null
    rm -f "$TMP"/ld.*
    local n torch qt5 mod
    n=$(grep -c 'generating link map' "$TMP/ldall")
    torch=$(grep 'generating link map' "$TMP/ldall" | grep -c 'file=libtorch\|/libtorch')
    qt5=$(grep 'generating link map' "$TMP/ldall" | grep -c 'libQt5')
    mod=$(grep 'generating link map' "$TMP/ldall" | grep -c 'libschedstudio-learn')
    printf '%-34s %4d shared objects loaded; libtorch* %d, libQt5* %d, libschedstudio-learn %d\n' "$label" "$n" "$torch" "$qt5" "$mod"
}

echo "== schedstudio-cli ($CLI), $RUNS runs each, on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
measure "policies" 1 "$CLI" policies
measure "run fifo+firstfit (1,000 jobs)" 1 "$CLI" "${HEUR_RUN[@]}"
measure "run das (24 jobs; loads module)" 0 "$CLI" "${DAS_RUN[@]}"
echo
echo "== shared objects loaded by schedstudio-cli (LD_DEBUG=files)"
objects "policies" "$CLI" policies
objects "run fifo+firstfit" "$CLI" "${HEUR_RUN[@]}"
objects "run das" "$CLI" "${DAS_RUN[@]}"
if grep -q 'libtorch\|libQt5' <(LD_DEBUG=files "$CLI" "${HEUR_RUN[@]}" 2>&1 >/dev/null); then
    echo "FAIL: a heuristic run maps LibTorch or Qt5"
    fail=1
fi

# gui_maps LABEL POLICY: starts the studio offscreen on the sample scenario with one policy, waits for the run,
# then reads /proc/PID/maps.
gui_maps() {
    local label=$1 policy=$2 want=$3
    sed -e "s#\"path\": \"das-case.csv\"#\"path\": \"$ROOT/sample-traces/das-case.csv\"#" \
        -e '/"policies": \[/,/\]/c\    "policies": ["'"$policy"'"],' \
        sample-traces/das-case.scenario.json >"$TMP/$policy.scenario.json"
    HOME=$TMP QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$TMP "$GUI" --scenario "$TMP/$policy.scenario.json" --run \
        >"$TMP/gui.out" 2>&1 &
    local pid=$! maps="$TMP/maps" i
    # The run is 24 jobs: done within a few seconds; with das, wait until the module is mapped (at most 30 s).
    for ((i = 0; i < 60; i++)); do
        sleep 0.5
        cp "/proc/$pid/maps" "$maps" 2>/dev/null || break
        if [ "$want" = torch ]; then grep -q libtorch "$maps" && { sleep 1; cp "/proc/$pid/maps" "$maps"; break; }; else ((i >= 6)) && break; fi
    done
    local rss
    rss=$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null)
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    local n qt5 torch mod
    n=$(awk '$6 ~ /\.so/ {print $6}' "$maps" | sort -u | wc -l)
    qt5=$(awk '$6 ~ /libQt5/ {print $6}' "$maps" | sort -u | wc -l)
    torch=$(awk '$6 ~ /libtorch/ {print $6}' "$maps" | sort -u | wc -l)
    mod=$(awk '$6 ~ /libschedstudio-learn/ {print $6}' "$maps" | sort -u | wc -l)
    printf '%-34s %4d shared objects mapped; libQt5* %d, libtorch* %d, libschedstudio-learn %d; peak RSS %s MiB\n' \
        "$label" "$n" "$qt5" "$torch" "$mod" "${rss:-?}"
    if [ "$want" = torch ]; then
        ((qt5 > 0 && torch > 0 && mod > 0)) || { echo "  FAIL: expected LibTorch, Qt5 and the module after das"; fail=1; }
    else
        ((qt5 == 0 && torch == 0 && mod == 0)) || { echo "  FAIL: heuristic-only studio maps LibTorch, Qt5 or the module"; fail=1; }
    fi
}

if [ -x "$GUI" ]; then
    echo
    echo "== schedstudio ($GUI, offscreen) on sample-traces/das-case.scenario.json, /proc/PID/maps after the run"
    gui_maps "studio, fifo+firstfit" fifo+firstfit none
    gui_maps "studio, das" das torch
fi
echo
((fail == 0)) && echo "all targets met" || echo "some targets missed"
exit $fail
