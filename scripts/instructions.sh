#!/usr/bin/env bash
# Instructions per cell-hop inside `World::advance` (callgrind), the stable speed measure of
# docs/benchmarks.md: wall times on shared VMs swing by a third, instruction counts do not.
#
#   scripts/instructions.sh [PRESET] [SCHEME] [DURATION] [extra PATH=VALUE ...]
#   scripts/instructions.sh                        # GFC1 / ERICA, 0.3 s simulated
#   scripts/instructions.sh gfr/n-source-15-sd "" 0.5s
#   FROM=200ms scripts/instructions.sh abr-benchmarks/gfc1 erica 300ms   # steady state: 200-300 ms
#
# With FROM set, the preset is also run to FROM and that run's instructions, hops and events are
# taken away: the counts of the window FROM..DURATION alone, past the start's transients.
#
# It measures the build `make build` ships: profile-guided when scripts/pgo.sh's profile exists
# (PGO=0 measures the plain release build). Set CCSIM_RUN to a built `run` example to measure
# another build (e.g. a copy made before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-abr-benchmarks/gfc1}
scheme=${2-erica}
duration=${3:-300ms}
shift $(( $# < 3 ? $# : 3 ))
profile=$PWD/target/pgo/ccsim.profdata
if [ -n "${CCSIM_RUN:-}" ]; then
    run=$CCSIM_RUN
elif [ "${PGO:-1}" = 1 ] && [ -f "$profile" ]; then
    run=target/pgo/use/release/examples/run
    RUSTFLAGS="-Cprofile-use=$profile" CARGO_TARGET_DIR=target/pgo/use \
        cargo build --release --quiet -p ccsim-scenario --example run
else
    run=target/release/examples/run
    cargo build --release --quiet -p ccsim-scenario --example run
fi
echo "build: $run" >&2
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=("python/ccsim/presets/$preset.toml" "run.duration=\"$duration\"" "run.measure_from=\"0s\"")
[ -n "$scheme" ] && args+=("scheme=$scheme")
args+=("$@")
# Instructions inside `World::advance` (what `run_until` runs), and the summary, of a run to $1 (files $out/$2.*).
measure() {
    local a=("${args[@]}")
    a[1]="run.duration=\"$1\""
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect='*World*advance*' \
        "$run" "${a[@]}" >"$out/$2.json" 2>"$out/log"
    grep -E '^(summary|totals):' "$out/cg" | tail -1 | awk '{print $2}' >"$out/$2.ir"
}
measure "$duration" to
window="$duration"
if [ -n "${FROM:-}" ]; then
    measure "$FROM" from
    window="$FROM..$duration"
fi
python3 - "$out" "$preset" "$scheme" "$window" <<'EOF'
import json, os, sys
out = sys.argv[1]


def counts(name):
    s = json.load(open(f"{out}/{name}.json"))
    return int(open(f"{out}/{name}.ir").read()), s.get("cell_hops", 0) + s.get("packet_hops", 0), s["events"]


ir, hops, events = counts("to")
if os.path.exists(f"{out}/from.json"):
    ir0, hops0, events0 = counts("from")
    ir, hops, events = ir - ir0, hops - hops0, events - events0
print(f"{sys.argv[2]} {sys.argv[3] or '-'} {sys.argv[4]}: {ir} instructions, {hops} hops, "
      f"{ir / hops:.1f} instructions per hop, {events} events ({events / hops:.2f} per hop)")
EOF
