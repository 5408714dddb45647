#!/usr/bin/env bash
# Profile-guided optimisation (PGO) of the engine: the profile `make build` and `make wheel`
# compile the extension with (docs/benchmarks.md, "Profile-guided build").
#
#   scripts/pgo.sh            # writes target/pgo/ccsim.profdata
#
# Builds the example runner instrumented (`-Cprofile-generate`, its own target directory), runs
# it on a training set that covers every kind of world (ABR cells in one queue and in windows,
# TCP over ATM and over IP, GFR, HG-RCP gateways, credit ports, a world of 1,000 sources), and
# merges the counts with the toolchain's own `llvm-profdata` (rustup's `llvm-tools` component:
# the profile format follows rustc's LLVM, so a system llvm-profdata of another version will not
# do). The profile changes where the compiler inlines and lays out code, never what it computes:
# every result is the same.
#
# Exits 3, saying why, when the toolchain has no llvm-profdata; the build then goes on without
# PGO. Any other failure (a training run that fails) exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f target/pgo/ccsim.profdata
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    echo "pgo: the Rust toolchain has no llvm-profdata (rustup component add llvm-tools): building without PGO" >&2
    exit 3
fi
out="$PWD/target/pgo"
rm -rf "$out/raw"
mkdir -p "$out/raw"
echo "pgo: building the instrumented runner and training it (about a minute and a half)" >&2
RUSTFLAGS="-Cprofile-generate=$out/raw" CARGO_TARGET_DIR="$out/gen" \
    cargo build --release --quiet -p ccsim-scenario --example run
run="$out/gen/release/examples/run"
train() {
    "$run" "python/ccsim/presets/$1.toml" "${@:2}" >/dev/null 2>"$out/train.log" || {
        echo "pgo: training run $* failed:" >&2
        cat "$out/train.log" >&2
        exit 1
    }
}
# Roughly equal weight per kind of world (each a fraction of a second), with and without series.
train abr-benchmarks/two-sources scheme=erica 'run.duration="1s"' series=none
train abr-benchmarks/gfc1 scheme=erica 'run.duration="300ms"'
# A large world (1,000 sources): its paths (a pacing wake-up per emission, deep switch queues of
# scheme timers) are cold in the small ones, and laid out as cold they cost it ~3 % more.
train abr-benchmarks/gfc1 scheme=erica 'source[0].count=1000' 'defaults.abr.icr="0.15Mbps"' 'run.duration="100ms"' series=none
train abr-benchmarks/gfc2 scheme=erica_plus 'run.duration="200ms"' series=none
train abr-benchmarks/parking-lot-3 scheme=debra 'run.duration="200ms"'
train gfr/n-source-15-sd 'run.duration="1s"' series=none
train gfr/option-acct-tag-vcq 'run.duration="500ms"'
train ficcrd/droptail series=none
train ficcrd/ficcrd 'run.duration="50s"'
train hgrcp/hgrcp-8 'run.duration="1s"' series=none
train ut-ct/two-node-case6-ut 'run.duration="1s"' series=none
train ut-ct/two-node-case6-ct-bdp 'run.duration="1s"' series=none
"$profdata" merge -o "$out/ccsim.profdata" "$out/raw"
echo "pgo: profile $out/ccsim.profdata" >&2
