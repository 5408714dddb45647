#!/bin/sh
# ns-2.35 on the ficcrd/droptail topology: every run docs/validation/ns2.md reports (two at a time).
# A measuring instrument, not a dependency: needs `ns` (Debian package ns2).
# Usage: sh scripts/peers/ns2/run_all.sh [OUT]   (default /tmp/ns2-runs; about 2 min)
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/ns2-runs}
mkdir -p "$OUT" && cd "$OUT" || exit 1
cp "$here/droptail.tcl" "$here/summarise.py" .
mkdir -p runs
DET="0,0.007,0.014,0.021,0.028,0.035,0.042,0.049,0.056,0.063"
# (a) random starts, DropTail 200/50, no trace
for s in 1 2 3 4 5; do
  ns droptail.tcl $s Reno    100 200 50 none random 0 200 rtohist=1 > runs/a_reno_s$s.json &
  ns droptail.tcl $s Newreno 100 200 50 none random 0 200 rtohist=1 > runs/a_newreno_s$s.json &
  wait
done
# (b) deterministic starts with trace-all
ns droptail.tcl 1 Reno 100 199 49 $OUT/trace_det_reno.tr     $DET 0 200 rtohist=1 > runs/det_reno_199.json &
ns droptail.tcl 1 Reno 100 200 50 $OUT/trace_det_reno_200.tr $DET 0 200 rtohist=1 > runs/det_reno_200.json &
wait
# (c) RED at R11->R12, Reno, random starts; bottleneck-only trace + ave_ trace
for s in 1 2 3 4 5; do
  ns droptail.tcl $s Reno 100 200 50 none random 0 200 aqm=red \
     btrace=$OUT/runs/red_s$s.btr avetrace=$OUT/runs/red_s$s.btr rtohist=1 > runs/c_red_s$s.json &
  if [ $s = 2 ] || [ $s = 4 ] || [ $s = 5 ]; then wait; fi
done
wait
# (c) again without Limited Transmit (singledup_ 0), the TCP ccsim models (docs/validation/ns2.md, RED)
for s in 1 2 3 4 5; do
  ns droptail.tcl $s Reno 100 200 50 none random 0 200 aqm=red singledup=0 \
     btrace=$OUT/runs/red_sd0_s$s.btr avetrace=$OUT/runs/red_sd0_s$s.btr > runs/x_red_sd0_s$s.json &
  if [ $s = 2 ] || [ $s = 4 ] || [ $s = 5 ]; then wait; fi
done
wait
# extras (not in the brief): phase-effect check with overhead_, and limited transmit off
for s in 1 2 3 4 5; do
  ns droptail.tcl $s Reno 100 200 50 none random 0.0033 200 > runs/x_reno_ovh_s$s.json &
  ns droptail.tcl $s Reno 100 200 50 none random 0 200 singledup=0 > runs/x_reno_sd0_s$s.json &
  wait
done
ns droptail.tcl 1 Reno 100 200 50 none $DET 0 200 singledup=0 > runs/x_det_reno_200_sd0.json &
ns droptail.tcl 1 Newreno 100 200 50 none $DET 0 200 > runs/x_det_newreno_200.json &
wait
# trace cross-checks and RED drop classification
python3 summarise.py trace trace_det_reno.tr     --json runs/det_reno_199.json > runs/det_reno_199.trace.json &
python3 summarise.py trace trace_det_reno_200.tr --json runs/det_reno_200.json > runs/det_reno_200.trace.json &
wait
for s in 1 2 3 4 5; do
  python3 summarise.py red runs/red_s$s.btr --json runs/c_red_s$s.json > runs/c_red_s$s.redstats.json
  python3 summarise.py red runs/red_sd0_s$s.btr --json runs/x_red_sd0_s$s.json > runs/x_red_sd0_s$s.redstats.json
done
# tables used in REPORT.md
mkdir -p tables
python3 summarise.py group runs/a_reno_s?.json    --label "s{seed}" > tables/a_reno.md
python3 summarise.py group runs/a_newreno_s?.json --label "s{seed}" > tables/a_newreno.md
python3 summarise.py group runs/det_reno_199.json runs/det_reno_200.json --label "{qlim_bottleneck}/{qlim_other}" > tables/b_det.md
python3 summarise.py group runs/c_red_s?.json     --label "s{seed}" > tables/c_red.md
python3 summarise.py group runs/x_reno_ovh_s?.json --label "s{seed}" > tables/x_reno_overhead.md
python3 summarise.py group runs/x_reno_sd0_s?.json --label "s{seed}" > tables/x_reno_singledup0.md
python3 summarise.py group runs/det_reno_200.json runs/x_det_reno_200_sd0.json runs/x_det_newreno_200.json --label "{variant} sd{singledup}" > tables/x_det.md
python3 summarise.py table runs/a_*_s?.json runs/det_reno_199.json runs/det_reno_200.json runs/c_red_s?.json > tables/per_run.md
python3 summarise.py redtable runs/c_red_s?.redstats.json > tables/c_red_drops.md
