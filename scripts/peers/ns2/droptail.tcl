# droptail.tcl -- ns-2.35 model of seed 002's peer-to-peer configuration
# (ccsim preset ficcrd/droptail), for comparison with ccsim.
#
# usage:
#   ns droptail.tcl SEED VARIANT [RATE_R10R11_MBPS] [QLIM_BOTTLENECK] [QLIM_OTHER]
#                   [TRACE|none] [STARTS] [OVERHEAD] [DURATION] [key=value ...]
#   SEED      positive integer; seeds ns-2's defaultRNG (start times, TCP tick
#             phase boot_time_, RED's random drops, overhead_ jitter)
#   VARIANT   Reno | Newreno
#   RATE      R10-R11 rate in Mb/s                         (default 100)
#   QLIM_B    limit_ of the R11->R12 queue                  (default 200)
#   QLIM_O    limit_ of every other queue                   (default 50)
#   TRACE     path for "$ns trace-all" (ns-2 standard format) or none (default none)
#   STARTS    "random" (uniform [0,0.1] s per flow, ns-2 RNG) or a comma-separated
#             list of 10 start times in seconds, S0 first  (default random)
#   OVERHEAD  Agent/TCP overhead_                          (default 0)
#   DURATION  seconds                                      (default 200)
#   optional key=value:
#     aqm=droptail|red   queue discipline of R11->R12 (default droptail)
#     syn=0|1            Agent/TCP syn_ (default 0 here; ns-2 default is true)
#     singledup=0|1      Agent/TCP singledup_ (limited transmit; default 1 = ns-2 default)
#     lesscareful=0|1    Agent/TCP lessCareful_ (default 0 = ns-2 default). Only NewReno reads it:
#                        1 allows a fast retransmit when the duplicate ACKs acknowledge exactly
#                        up to recover_ (highest_ack_ == recover_, dupack_action in tcp-newreno.cc)
#     from=50            start of the measurement window, s
#     btrace=PATH        trace only the R11->R12 link (+ - d r) to PATH
#     avetrace=PATH      (RED) trace the RED average queue ave_ ("a <t> <ave>" lines,
#                        written when ave_ changes, i.e. at arrivals) to PATH; give the
#                        same PATH as btrace to interleave them with the packet events
#     dump=1             print the effective TCP / queue parameters to stderr at t=1 s
#     rtohist=1          sample every flow's RTO state every 10 ms in the window and add
#                        "rto_base_hist" (seconds -> fraction of samples) to the JSON;
#                        base RTO = max(2*tcpTick_, max(minrto_, tcpTick_*((srtt_>>3)+rttvar_)))
#                        from the raw fixed-point srtt_ (8x ticks) and rttvar_ (4x ticks),
#                        i.e. t_rtxcur_ of tcp.cc without the backoff factor
# Output: one JSON object on stdout.

proc usage {} {
    puts stderr "usage: ns droptail.tcl SEED Reno|Newreno ?RATE? ?QB? ?QO? ?TRACE|none? ?random|t0,..,t9? ?OVERHEAD? ?DURATION? ?key=value ...?"
    exit 2
}

set pos {}
array set opt {aqm droptail syn 0 singledup 1 lesscareful 0 from 50 btrace "" avetrace "" dump 0 rtohist 0}
foreach a $argv {
    if {[regexp {^([a-z_]+)=(.*)$} $a -> k v]} {
        if {![info exists opt($k)]} { puts stderr "unknown option $k"; usage }
        set opt($k) $v
    } else {
        lappend pos $a
    }
}
if {[llength $pos] < 2} usage
set defaults {1 Reno 100 200 50 none random 0 200}
for {set i [llength $pos]} {$i < [llength $defaults]} {incr i} {
    lappend pos [lindex $defaults $i]
}
lassign $pos seed variant rate qB qO tracefile starts overhead duration
if {$variant ne "Reno" && $variant ne "Newreno"} usage
set opt(aqm) [string tolower $opt(aqm)]
set mfrom $opt(from)
set N 10

# ---------------------------------------------------------------- defaults
# Changed from the ns-2.35 defaults (tcl/lib/ns-default.tcl):
Agent/TCP set packetSize_   4096   ;# default 1000; wire size = 4096 + tcpip_base_hdr_size_ 40
Agent/TCP set window_       32     ;# default 20; 32 x 4096 = 128 KB
Agent/TCP set windowInit_   1      ;# default 2
Agent/TCP set tcpTick_      0.3    ;# default 0.01
Agent/TCP set minrto_       0.3    ;# default 0.2
Agent/TCP set maxrto_       64     ;# default 60
Agent/TCP set syn_          $opt(syn)       ;# default true
Agent/TCP set singledup_    $opt(singledup) ;# default 1
Agent/TCP set lessCareful_  $opt(lesscareful) ;# default false
Agent/TCP set overhead_     $overhead       ;# default 0
# Kept at the ns-2.35 default, set explicitly for the record:
Agent/TCP set rtxcur_init_  3.0
Agent/TCP set maxburst_     0
Agent/TCP set tcpip_base_hdr_size_ 40
Agent/TCPSink set packetSize_ 40

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
if {$tracefile ne "none"} {
    set tf [open $tracefile w]
    $ns trace-all $tf
}

# ---------------------------------------------------------------- topology
# node ids: S0..S9 = 0..9, R10..R13 = 10..13, D0..D9 = 14..23
for {set i 0} {$i < $N} {incr i} { set S($i) [$ns node] }
for {set r 10} {$r <= 13} {incr r} { set R($r) [$ns node] }
for {set i 0} {$i < $N} {incr i} { set D($i) [$ns node] }

set links {}
proc dlink {a an b bn bw delay qab qba} {
    global ns links
    $ns duplex-link $a $b $bw $delay DropTail
    $ns queue-limit $a $b $qab
    $ns queue-limit $b $a $qba
    lappend links [list $an $bn $a $b] [list $bn $an $b $a]
}
for {set i 0} {$i < $N} {incr i} {
    set d [expr {$i == 0 ? "10ms" : "2ms"}]
    dlink $S($i) S$i $R(10) R10 10Mb $d $qO $qO
}
dlink $R(10) R10 $R(11) R11 ${rate}Mb 2ms $qO $qO
if {$opt(aqm) eq "red"} {
    $ns simplex-link $R(11) $R(12) 10Mb 20ms RED
    $ns simplex-link $R(12) $R(11) 10Mb 20ms DropTail
    $ns queue-limit $R(11) $R(12) $qB
    $ns queue-limit $R(12) $R(11) $qO
    lappend links [list R11 R12 $R(11) $R(12)] [list R12 R11 $R(12) $R(11)]
    set redq [[$ns link $R(11) $R(12)] queue]
    $redq set thresh_ 5
    $redq set maxthresh_ 15
    $redq set q_weight_ 0.002
    $redq set linterm_ 10
    $redq set mean_pktsize_ 4136
    $redq set queue_in_bytes_ false
    $redq set gentle_ false
} elseif {$opt(aqm) eq "droptail"} {
    dlink $R(11) R11 $R(12) R12 10Mb 20ms $qB $qO
} else { usage }
dlink $R(12) R12 $R(13) R13 10Mb 2ms $qO $qO
for {set i 0} {$i < $N} {incr i} {
    dlink $R(13) R13 $D($i) D$i 10Mb 2ms $qO $qO
}

if {$opt(btrace) ne ""} {
    set btf [open $opt(btrace) w]
    $ns trace-queue $R(11) $R(12) $btf
}
if {$opt(aqm) eq "red" && $opt(avetrace) ne ""} {
    # avetrace=btrace writes the "a <time> <ave>" lines into the bottleneck trace's
    # channel, so that they interleave in event order with its + - d r lines
    if {$opt(avetrace) eq $opt(btrace)} {
        $redq attach $btf
    } else {
        set atf [open $opt(avetrace) w]
        $redq attach $atf
    }
    $redq trace ave_
}

# ---------------------------------------------------------------- monitors
# one flow monitor (classified by fid = flow index) on every simplex link
set bottleneck_fm ""
foreach l $links {
    lassign $l an bn a b
    set fm [$ns makeflowmon Fid]
    set ed [expr {$opt(aqm) eq "red" && $an eq "R11" && $bn eq "R12"}]
    $ns attach-fmon [$ns link $a $b] $fm $ed
    set FM($an-$bn) $fm
    if {$an eq "R11" && $bn eq "R12"} {
        set bint [new Integrator]
        $fm set-pkts-integrator $bint
        set bottleneck_fm $fm
    }
}

# ---------------------------------------------------------------- flows
if {$starts eq "random"} {
    set srng [new RNG]
    set uv [new RandomVariable/Uniform]
    $uv set min_ 0.0
    $uv set max_ 0.1
    $uv use-rng $srng
    set st {}
    for {set i 0} {$i < $N} {incr i} { lappend st [$uv value] }
} else {
    set st [split $starts ,]
    if {[llength $st] != $N} { puts stderr "need $N start times"; exit 2 }
}
for {set i 0} {$i < $N} {incr i} {
    set tcp($i) [new Agent/TCP/$variant]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $S($i) $tcp($i)
    $ns attach-agent $D($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [lindex $st $i] "$ftp($i) start"
}

# ---------------------------------------------------------------- sampling
proc snap {tag} {
    global ns N tcp sink FM snapv bint
    for {set i 0} {$i < $N} {incr i} {
        foreach v {ack_ nrexmit_ nrexmitpack_ ndatapack_ ncwndcuts_} {
            set snapv($tag,$i,$v) [$tcp($i) set $v]
        }
        set snapv($tag,$i,sinkbytes) [$sink($i) set bytes_]
    }
    foreach q [array names FM] {
        foreach f [$FM($q) flows] {
            set fid [$f set flowid_]
            set snapv($tag,$q,$fid,pdrops) [$f set pdrops_]
            set snapv($tag,$q,$fid,epdrops) [$f set epdrops_]
        }
    }
    $bint newpoint [$ns now] [$bint set lasty_]
    set snapv($tag,bint) [$bint set sum_]
}
proc val {tag key} {
    global snapv
    if {[info exists snapv($tag,$key)]} { return $snapv($tag,$key) }
    return 0
}

proc jstr {s} { return "\"$s\"" }

proc finish {} {
    global ns N snapv FM mfrom duration seed variant rate qB qO tracefile starts \
        overhead st opt tf btf atf rtoh_n
    snap end
    set T [expr {$duration - $mfrom}]
    set gp {}
    set flows {}
    set qnames [lsort [array names FM]]
    for {set i 0} {$i < $N} {incr i} {
        set dack [expr {[val end $i,ack_] - [val m $i,ack_]}]
        set g [expr {$dack * 4096 * 8.0 / $T / 1e6}]
        lappend gp $g
        set dw {}; set dt {}; set ew {}; set et {}
        set ndw 0; set ndt 0; set nedw 0; set nedt 0
        foreach q $qnames {
            set a [val end $q,$i,pdrops]
            set b [val m $q,$i,pdrops]
            if {$a > 0} { lappend dt "[jstr $q]: $a" ; incr ndt $a }
            if {$a - $b > 0} { lappend dw "[jstr $q]: [expr {$a - $b}]"; incr ndw [expr {$a - $b}] }
            set ea [val end $q,$i,epdrops]
            set eb [val m $q,$i,epdrops]
            if {$ea > 0} { lappend et "[jstr $q]: $ea"; incr nedt $ea }
            if {$ea - $eb > 0} { lappend ew "[jstr $q]: [expr {$ea - $eb}]"; incr nedw [expr {$ea - $eb}] }
        }
        set rec "{\"flow\": \"S$i\", \"start\": [lindex $st $i], \"goodput_mbps\": [format %.6f $g],"
        append rec " \"acked_pkts_window\": $dack, \"ack_at_from\": [val m $i,ack_], \"ack_at_end\": [val end $i,ack_],"
        append rec " \"sink_bytes_window\": [expr {[val end $i,sinkbytes] - [val m $i,sinkbytes]}],"
        append rec " \"drops_window\": $ndw, \"drops_total\": $ndt,"
        append rec " \"drops_by_queue_window\": {[join $dw {, }]}, \"drops_by_queue_total\": {[join $dt {, }]},"
        if {$opt(aqm) eq "red"} {
            append rec " \"early_drops_window\": $nedw, \"early_drops_total\": $nedt,"
        }
        append rec " \"timeouts_window\": [expr {[val end $i,nrexmit_] - [val m $i,nrexmit_]}], \"timeouts_total\": [val end $i,nrexmit_],"
        append rec " \"rexmit_pkts_window\": [expr {[val end $i,nrexmitpack_] - [val m $i,nrexmitpack_]}], \"rexmit_pkts_total\": [val end $i,nrexmitpack_],"
        append rec " \"cwnd_cuts_window\": [expr {[val end $i,ncwndcuts_] - [val m $i,ncwndcuts_]}],"
        append rec " \"data_pkts_sent_total\": [val end $i,ndatapack_]}"
        lappend flows $rec
    }
    set sum 0.0; set sq 0.0
    foreach g $gp { set sum [expr {$sum + $g}]; set sq [expr {$sq + $g*$g}] }
    set jain [expr {$sq > 0 ? $sum*$sum/($N*$sq) : 0}]
    set srt [lsort -real $gp]
    set med [expr {([lindex $srt 4] + [lindex $srt 5]) / 2.0}]
    set s0r [expr {$med > 0 ? [lindex $gp 0] / $med : 0}]
    set qmean [expr {([val end bint] - [val m bint]) / $T}]
    set out "{\"seed\": $seed, \"variant\": [jstr $variant], \"aqm\": [jstr $opt(aqm)], \"r10r11_mbps\": $rate,"
    append out " \"qlim_bottleneck\": $qB, \"qlim_other\": $qO, \"starts\": [jstr $starts], \"overhead\": $overhead,"
    append out " \"duration\": $duration, \"measure_from\": $mfrom, \"syn\": $opt(syn), \"singledup\": $opt(singledup),"
    append out " \"trace\": [jstr $tracefile],"
    append out " \"total_goodput_mbps\": [format %.6f $sum], \"jain\": [format %.6f $jain],"
    append out " \"median_goodput_mbps\": [format %.6f $med], \"s0_over_median\": [format %.6f $s0r],"
    append out " \"bottleneck_mean_waiting_pkts\": [format %.4f $qmean],"
    global rtoh rtoh_n rtob
    if {$rtoh_n > 0} {
        set h {}
        foreach k [lsort -real [array names rtoh]] {
            lappend h "[jstr $k]: [format %.6f [expr {double($rtoh($k)) / $rtoh_n}]]"
        }
        append out " \"rto_base_hist\": {[join $h {, }]},"
        set h {}
        foreach k [lsort -integer [array names rtob]] {
            lappend h "[jstr $k]: [format %.6f [expr {double($rtob($k)) / $rtoh_n}]]"
        }
        append out " \"backoff_hist\": {[join $h {, }]}, \"rto_samples\": $rtoh_n,"
    }
    append out " \"flows\": \[[join $flows {, }]\]}"
    puts $out
    foreach ch {tf btf atf} {
        if {[info exists $ch]} { flush [set $ch]; close [set $ch] }
    }
    exit 0
}

set rtoh_n 0
proc rtosample {} {
    global ns tcp N rtoh rtoh_n rtob rtob_n duration
    for {set i 0} {$i < $N} {incr i} {
        set sr [$tcp($i) set srtt_]
        if {$sr == 0} { continue }
        set rv [$tcp($i) set rttvar_]
        set tick [$tcp($i) set tcpTick_]
        set r [expr {(($sr >> 3) + $rv) * $tick}]
        if {$r < [$tcp($i) set minrto_]} { set r [$tcp($i) set minrto_] }
        if {$r < 2.0 * $tick} { set r [expr {2.0 * $tick}] }
        set k [format %.1f $r]
        if {[info exists rtoh($k)]} { incr rtoh($k) } else { set rtoh($k) 1 }
        incr rtoh_n
        set b [$tcp($i) set backoff_]
        if {[info exists rtob($b)]} { incr rtob($b) } else { set rtob($b) 1 }
    }
    set nt [expr {[$ns now] + 0.01}]
    if {$nt < $duration} { $ns at $nt rtosample }
}
if {$opt(rtohist)} { $ns at [expr {$mfrom + 0.005}] rtosample }

proc dump {} {
    global tcp sink opt redq ns R
    set t $tcp(0)
    foreach v {packetSize_ tcpip_base_hdr_size_ window_ windowInit_ tcpTick_ minrto_ maxrto_
               rtxcur_init_ srtt_init_ rttvar_init_ T_SRTT_BITS T_RTTVAR_BITS rttvar_exp_ rfc2988_
               maxburst_ overhead_ syn_ singledup_ numdupacks_ bugFix_ timestamps_ useHeaders_
               slow_start_restart_ exitFastRetrans_ decrease_num_ increase_num_ windowOption_
               delay_growth_ aggressive_maxburst_ precisionReduce_ maxcwnd_} {
        puts stderr "[$t info class] $v = [$t set $v]"
    }
    puts stderr "Agent/TCPSink packetSize_ = [$sink(0) set packetSize_]"
    set q [[$ns link $R(11) $R(12)] queue]
    puts stderr "R11->R12 queue [$q info class] limit_ = [$q set limit_]"
    if {$opt(aqm) eq "red"} {
        foreach v {thresh_ maxthresh_ q_weight_ linterm_ mean_pktsize_ idle_pktsize_ bytes_
                   queue_in_bytes_ wait_ gentle_ setbit_ use_mark_p_ mark_p_ drop_tail_
                   drop_front_ drop_rand_ adaptive_ cautious_ ns1_compat_ cur_max_p_ ave_} {
            puts stderr "Queue/RED $v = [$q set $v]"
        }
    }
}
if {$opt(dump)} { $ns at 1.0 dump }
$ns at $mfrom "snap m"
$ns at $duration "finish"
$ns run
