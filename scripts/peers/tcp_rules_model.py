#!/usr/bin/env python3
"""tcp_rules_model.py -- a small packet-level model of ccsim's ficcrd/droptail (seed 002's dumbbell)
whose TCP sender transcribes ccsim's (crates/ccsim-model/src/tcp/{sender,reno,newreno,rtt}.rs with the
quantized clock, as of 2026-11), with four switches that each replace one ccsim rule by ns-2.35's:

  careful=1           fast retransmit only if snd_una > recover (ns-2 dupack_action: highest_ack_ >
                      recover_; RFC 6582 s3.2: ack - 1 > recover). ccsim: snd_una >= recover.
  ssthresh_ns2=1      ssthresh = max(int(int(cwnd)/2), 2) of the un-inflated cwnd (ns-2 slowdown(),
                      CLOSE_SSTHRESH_HALF). ccsim: max(FlightSize/2, 2) (RFC 5681 eq. 4).
                      Finer: ssthresh_mode=flight|ns2|ns2_to|ns2_fr|ns2_hold|flight_rep2.
  rto_ns2=1           ns-2 RTO: samples = tick boundaries crossed with a random per-agent phase,
                      integer t_srtt_/t_rttvar_, truncation, 2-tick floor (tcp.cc rtt_update,
                      rtt_timeout). ccsim: samples rounded to ticks, float, ceil. Finer:
                      rto_samples_ns2=0|1, rto_calc_ns2=0|1.
  limited_transmit=1  ns-2 singledup_ 1: send_one() on duplicate ACKs 1 and 2.

It records the fate of every copy of every packet, so retransmissions can be classified by cause
(fr, timeout, gbn = go-back-N after a timeout, partial = NewReno partial ACK, lt = limited transmit)
and by need (needed; needless_had: an earlier copy had arrived when it was sent; needless_later: an
earlier copy arrived afterwards), which ccsim's results do not expose. It is not ccsim: same
topology and rules, its own event order and random draws; compare it with ccsim statistically.

usage:
  python3 tcp_rules_model.py run SEED [variant=reno|newreno] [careful=1] [ssthresh_ns2=1] ...
  python3 tcp_rules_model.py factorial NSEEDS   # 16 rule combinations x 2 variants, Shapley split
Units: sequence numbers and windows in segments (MSS = 1); wire sizes 4136 B (data) and 40 B (ACK).
"""
import heapq
import math
import random
import sys
from collections import defaultdict, deque

MSS_B = 4096
DATA_B = 4136
ACK_B = 40
TICK = 0.3


class Cfg:
    def __init__(self, **kw):
        self.variant = "reno"
        self.careful = False  # ns-2: FR only if highest_ack_ > recover_ (snd_una > recover)
        self.ssthresh_ns2 = False  # ns-2: ssthresh = int(window()/2) of the un-inflated cwnd
        self.limited_transmit = False  # ns-2 singledup_: send_one() on dupacks 1 and 2
        self.rto_ns2 = False  # ns-2: tick-boundary samples, integer srtt/rttvar, 2-tick floor
        # finer switches (override rto_ns2 / ssthresh_ns2 when not None)
        self.rto_samples_ns2 = None  # tick boundaries crossed, with a random phase per agent
        self.rto_calc_ns2 = None  # integer fixed point, truncation, 2-tick floor
        self.ssthresh_mode = None  # 'flight' | 'ns2' | 'ns2_hold' | 'flight_rep2'
        self.rto_min = 0.3
        self.window = 32
        self.duration = 200.0
        for k, v in kw.items():
            if not hasattr(self, k):
                raise KeyError(k)
            setattr(self, k, v)
        if self.rto_samples_ns2 is None:
            self.rto_samples_ns2 = self.rto_ns2
        if self.rto_calc_ns2 is None:
            self.rto_calc_ns2 = self.rto_ns2
        if self.ssthresh_mode is None:
            self.ssthresh_mode = "ns2" if self.ssthresh_ns2 else "flight"


class Sim:
    def __init__(self):
        self.q = []
        self.n = 0
        self.now = 0.0

    def at(self, t, fn, *a):
        self.n += 1
        heapq.heappush(self.q, (t, self.n, fn, a))

    def run(self, until):
        q = self.q
        while q:
            t, _, fn, a = heapq.heappop(q)
            if t > until:
                break
            self.now = t
            fn(*a)


class Port:
    """FIFO output port; `limit` counts the packet being transmitted (None: unlimited)."""

    def __init__(self, sim, rate, delay, limit, name):
        self.sim, self.rate, self.delay, self.limit, self.name = sim, rate, delay, limit, name
        self.buf = deque()
        self.busy = False
        self.drops = 0

    def send(self, pkt, size, deliver):
        if self.limit is not None and len(self.buf) + (1 if self.busy else 0) >= self.limit:
            self.drops += 1
            pkt.dropped(self.sim.now)
            return
        self.buf.append((pkt, size, deliver))
        if not self.busy:
            self._start()

    def _start(self):
        pkt, size, deliver = self.buf.popleft()
        self.busy = True
        tx = size * 8.0 / self.rate
        self.sim.at(self.sim.now + tx, self._done, pkt, deliver)

    def _done(self, pkt, deliver):
        self.sim.at(self.sim.now + self.delay, deliver, pkt)
        self.busy = False
        if self.buf:
            self._start()


class Pkt:
    __slots__ = ("flow", "seq", "ack", "copy", "path", "hop")

    def __init__(self, flow, seq=None, ack=None, copy=None, path=None):
        self.flow, self.seq, self.ack, self.copy, self.path, self.hop = flow, seq, ack, copy, path, 0

    def dropped(self, t):
        if self.copy is not None:
            self.copy["fate"] = ("drop", t)


def forward(pkt):
    """Move a packet to its next port, or hand it to its endpoint."""
    hop = pkt.hop
    pkt.hop += 1
    if hop < len(pkt.path) - 1:
        port = pkt.path[hop]
        port.send(pkt, DATA_B if pkt.seq is not None else ACK_B, forward)
    else:
        pkt.path[-1](pkt)


class Rtt:
    def __init__(self, cfg, rng):
        self.cfg = cfg
        self.srtt = None
        self.rttvar = 0.0
        self.backoff = 0
        # ns-2 fixed point (tcp.cc): t_srtt_ = 8 srtt, t_rttvar_ = 4 rttvar, in ticks
        self.t_srtt = 0
        self.t_rttvar = 12  # rttvar_init_ 12 -> not used before the first sample
        self.boot = rng.uniform(0, TICK)
        self.have = False

    def sample(self, sent, now):
        tao = now - sent
        if self.cfg.rto_samples_ns2:
            tickoff = math.fmod(sent + self.boot, TICK)
            r = max(1, int((tao + tickoff) / TICK))
        else:
            r = max(1, int(round(tao / TICK)))
        if self.cfg.rto_calc_ns2:
            if self.have:
                delta = r - (self.t_srtt >> 3)
                self.t_srtt += delta
                if self.t_srtt <= 0:
                    self.t_srtt = 1
                if delta < 0:
                    delta = -delta
                delta -= self.t_rttvar >> 2
                self.t_rttvar += delta
                if self.t_rttvar <= 0:
                    self.t_rttvar = 1
            else:
                self.t_srtt = r << 3
                self.t_rttvar = r << 1
                self.have = True
        elif self.srtt is None:
            self.srtt = float(r)
            self.rttvar = r / 2.0
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - r)
            self.srtt = 0.875 * self.srtt + 0.125 * r
        self.backoff = 0

    def base_rto(self):
        b = self.backoff
        self.backoff = 0
        r = self.rto()
        self.backoff = b
        return r

    def rto(self):
        if self.cfg.rto_calc_ns2:
            if not self.have:
                base = 3.0
            else:
                base = ((self.t_rttvar << 3) + self.t_srtt >> 3) * TICK  # tcp.cc l.605
            t = (self.cfg.rto_min if base < self.cfg.rto_min else base) * (1 << self.backoff)
            t = min(t, 64.0)
            return max(t, 2 * TICK)
        if self.srtt is None:
            base = 3.0
        else:
            base = max(math.ceil(self.srtt + 4 * self.rttvar - 1e-12), 1.0) * TICK
        r = base * (1 << min(self.backoff, 30))
        return min(max(r, self.cfg.rto_min), 64.0)

    def back_off(self):
        self.backoff = min(self.backoff + 1, 6)


class Sender:
    def __init__(self, sim, cfg, i, rng, log):
        self.sim, self.cfg, self.i, self.log = sim, cfg, i, log
        self.snd_una = self.snd_nxt = self.snd_max = 0
        self.cwnd = 1.0
        self.ssthresh = float(cfg.window)
        self.rwnd = cfg.window
        self.dupacks = 0
        self.recover = 0
        self.in_recovery = False
        self.rtt = Rtt(cfg, rng)
        self.timing = None
        self.deadline = None
        self.timer_gen = 0
        self.retries = 0
        self.timer_restarted_in = None
        self.st = defaultdict(int)
        self.st["rto_hist"] = defaultdict(int)
        self.copies = defaultdict(list)  # seq -> [copy dicts]
        self.path = None
        self.cause = None  # why the segments being emitted now go out

    # -- timer
    def _arm(self):
        self.timer_gen += 1
        if self.deadline is not None:
            self.sim.at(self.deadline, self._timer, self.timer_gen)

    def restart_timer(self):
        self.deadline = self.sim.now + self.rtt.rto()
        self._arm()

    def flight(self):
        return self.snd_max - self.snd_una

    def halved(self, timeout=False):
        mode = self.cfg.ssthresh_mode
        repeated = timeout and self.rtt.backoff > 0
        if mode == "ns2_hold" and repeated:
            return self.ssthresh
        if mode == "flight_rep2" and repeated:
            return 2.0
        if mode in ("ns2", "ns2_hold") or (mode == "ns2_to" and timeout) or (mode == "ns2_fr" and not timeout):
            # slowdown(CLOSE_SSTHRESH_HALF): int(window()/2), window() = int(cwnd_) (+dupwnd_ 0),
            # cwnd_ being the un-inflated window (ssthresh during a Reno/NewReno recovery)
            base = self.ssthresh if self.in_recovery else self.cwnd
            return float(max(int(min(int(base), self.cfg.window) / 2), 2))
        return max(self.flight() / 2.0, 2.0)

    def emit(self, seq):
        now = self.sim.now
        retx = seq < self.snd_max
        if retx:
            self.st["retx"] += 1
            self.st["retx_" + self.cause] += 1
            if self.timing is not None and self.timing[0] > seq:
                self.timing = None
        elif self.timing is None:
            self.timing = (seq + 1, now)
        c = {"t": now, "fate": None, "retx": retx, "cause": self.cause if retx else None,
             "prev": list(self.copies[seq])}
        self.copies[seq].append(c)
        self.log.append((self.i, seq, c))
        self.st["sent"] += 1
        self.snd_max = max(self.snd_max, seq + 1)
        if self.deadline is None:
            self.deadline = now + self.rtt.rto()
            self._arm()
        p = Pkt(self.i, seq=seq, copy=c, path=self.path)
        forward(p)

    def window_allows_one(self):
        return self.snd_nxt - self.snd_una + 1 <= min(self.cwnd, self.rwnd) + 1e-9

    def send_window(self):
        while self.window_allows_one():
            self.emit(self.snd_nxt)
            self.snd_nxt += 1

    def fast_retransmit(self):
        self.st["fr"] += 1
        self.cause = "fr"
        self.emit(self.snd_una)
        self.restart_timer()

    def go_back(self):
        self.snd_nxt = self.snd_una
        self.send_window()
        self.restart_timer()

    def fr_allowed(self):
        if self.cfg.careful:
            return self.snd_una > self.recover
        return self.snd_una >= self.recover

    def grow(self, acked):
        if self.cwnd < self.ssthresh:
            self.cwnd += min(acked, 1)
        else:
            self.cwnd += 1.0 / self.cwnd
        self.cwnd = min(self.cwnd, self.cfg.window)

    def advance(self, ack):
        acked = ack - self.snd_una
        if self.timing is not None and ack >= self.timing[0]:
            self.rtt.sample(self.timing[1], self.sim.now)
            self.timing = None
        self.snd_una = ack
        self.snd_nxt = max(self.snd_nxt, ack)
        self.retries = 0
        if self.snd_una >= self.snd_max:
            self.deadline = None
            self.timer_gen += 1
        else:
            self.restart_timer()
        return acked

    def leave_recovery(self, cwnd):
        self.cwnd = cwnd
        self.in_recovery = False
        self.dupacks = 0
        self.send_window()

    def on_ack(self, pkt):
        ack = pkt.ack
        self.cause = "gbn" if self.snd_nxt < self.snd_max else "other"
        if self.snd_una < ack <= self.snd_max:
            kind = "new"
        elif ack == self.snd_una and self.snd_max > self.snd_una:
            kind = "dup"
        else:
            kind = "old"
        if kind == "new" and self.in_recovery and self.cfg.variant == "newreno" and ack < self.recover:
            deadline = self.deadline
            acked = self.advance(ack)
            recovery = self.st["fr"]
            if self.timer_restarted_in != recovery:
                self.timer_restarted_in = recovery
            elif self.deadline is not None:
                self.deadline = deadline if deadline is not None else self.deadline
                self._arm()
            self.cause = "partial"
            self.emit(self.snd_una)
            self.cwnd = max(self.cwnd - acked + 1, 1.0)
            self.cause = "gbn" if self.snd_nxt < self.snd_max else "other"
            self.send_window()
        elif kind == "new" and self.in_recovery:
            self.advance(ack)
            if self.cfg.variant == "newreno":
                self.leave_recovery(min(self.ssthresh, self.flight() + 1))
            else:
                self.leave_recovery(self.ssthresh)
        elif kind == "new":
            acked = self.advance(ack)
            self.dupacks = 0
            self.grow(acked)
            self.send_window()
        elif kind == "dup":
            if self.in_recovery:
                self.cwnd += 1
                self.send_window()
                return
            self.dupacks += 1
            if self.dupacks == 3:
                if self.fr_allowed():
                    if self.snd_una == self.recover:
                        self.st["fr_at_recover"] += 1
                    self.ssthresh = self.halved()
                    self.fast_retransmit()
                    self.cwnd = self.ssthresh + 3
                    self.in_recovery = True
                    self.recover = self.snd_max
                    self.cause = "other"
                    self.send_window()
                else:
                    self.st["fr_blocked"] += 1
            elif self.dupacks < 3 and self.cfg.limited_transmit:
                # ns-2 send_one(): t_seqno_ <= highest_ack_ + cwnd_ + dupacks_ (and wnd_)
                if self.snd_nxt - self.snd_una + 1 <= min(self.cwnd + self.dupacks, self.rwnd) + 1e-9:
                    self.cause = "lt"
                    self.emit(self.snd_nxt)
                    self.snd_nxt += 1
        else:
            self.send_window()

    def _timer(self, gen):
        if gen != self.timer_gen or self.deadline is None or self.sim.now < self.deadline:
            return
        self.retries += 1
        self.st["timeouts"] += 1
        self.st["rto_hist"][round(self.rtt.base_rto(), 1)] += 1
        if self.rtt.backoff > 0:
            self.st["repeat_timeouts"] += 1
        self.ssthresh = self.halved(timeout=True)
        self.rtt.back_off()
        self.cwnd = 1.0
        self.snd_nxt = self.snd_una
        self.dupacks = 0
        self.in_recovery = False
        self.recover = self.snd_max
        self.timing = None
        self.cause = "timeout"
        self.go_back()

    def start(self):
        self.cause = "other"
        self.send_window()


class Receiver:
    def __init__(self, sim, i):
        self.sim, self.i = sim, i
        self.rcv_nxt = 0
        self.ooo = set()
        self.path = None

    def on_data(self, pkt):
        c = pkt.copy
        c["fate"] = ("arr", self.sim.now)
        s = pkt.seq
        if s >= self.rcv_nxt:
            self.ooo.add(s)
            while self.rcv_nxt in self.ooo:
                self.ooo.discard(self.rcv_nxt)
                self.rcv_nxt += 1
        a = Pkt(self.i, ack=self.rcv_nxt, path=self.path)
        forward(a)


def build(cfg, seed):
    rng = random.Random(seed)
    sim = Sim()
    N = 10
    M = 1e6
    r10_r11 = Port(sim, 100 * M, 0.002, 50, "R10->R11")
    r11_r12 = Port(sim, 10 * M, 0.020, 200, "R11->R12")
    r12_r13 = Port(sim, 10 * M, 0.002, 50, "R12->R13")
    r13_r12 = Port(sim, 10 * M, 0.002, 50, "R13->R12")
    r12_r11 = Port(sim, 10 * M, 0.020, 50, "R12->R11")
    r11_r10 = Port(sim, 100 * M, 0.002, 50, "R11->R10")
    log = []
    senders, receivers = [], []
    for i in range(N):
        d = 0.010 if i == 0 else 0.002
        host = Port(sim, 10 * M, d, None, f"S{i}")
        r13_d = Port(sim, 10 * M, 0.002, 50, f"R13->D{i}")
        dhost = Port(sim, 10 * M, 0.002, None, f"D{i}")
        r10_s = Port(sim, 10 * M, d, 50, f"R10->S{i}")
        s = Sender(sim, cfg, i, rng, log)
        r = Receiver(sim, i)
        s.path = [host, r10_r11, r11_r12, r12_r13, r13_d, r.on_data]
        r.path = [dhost, r13_r12, r12_r11, r11_r10, r10_s, s.on_ack]
        senders.append(s)
        receivers.append(r)
        sim.at(rng.uniform(0, 0.1), s.start)
    return sim, senders, receivers, log


def classify(log):
    """needless_had: an earlier copy had arrived when this one was sent; needless_later: an
    earlier copy arrived later; needed: every earlier copy was dropped (or is still unknown)."""
    out = defaultdict(int)
    for i, seq, c in log:
        if not c["retx"]:
            continue
        arr = [p["fate"][1] for p in c["prev"] if p["fate"] and p["fate"][0] == "arr"]
        if arr and min(arr) <= c["t"]:
            k = "needless_had"
        elif arr:
            k = "needless_later"
        else:
            k = "needed"
        out[k] += 1
        out[c["cause"] + "_" + ("needed" if k == "needed" else "needless")] += 1
    return out


def run(cfg, seed):
    sim, senders, receivers, log = build(cfg, seed)
    sim.run(cfg.duration)
    tot = defaultdict(int)
    hist = defaultdict(int)
    for s in senders:
        for k, v in s.st.items():
            if k == "rto_hist":
                for a, b in v.items():
                    hist[a] += b
            else:
                tot[k] += v
    drops = sum(1 for _, _, c in log if c["fate"] and c["fate"][0] == "drop")
    tot["drops"] = drops
    tot.update(classify(log))
    tot["goodput"] = sum(r.rcv_nxt for r in receivers)
    tot = dict(tot)
    tot["rto_hist"] = {str(k): v for k, v in sorted(hist.items())}
    return tot


def _job(a):
    v, combo, seed = a
    kw = {f: bool(b) for f, b in zip(FACTORS, combo)}
    r = run(Cfg(variant=v, **kw), seed)
    return v, "".join(map(str, combo)), r


FACTORS = ["careful", "ssthresh_ns2", "rto_ns2", "limited_transmit"]
RUNAWAY = 1500  # runs with more retransmissions are reported apart


def factorial(nseeds, procs=2):
    import itertools
    import statistics as st
    from multiprocessing import Pool

    jobs = [(v, c, s) for v in ("reno", "newreno") for c in itertools.product([0, 1], repeat=4)
            for s in range(1, nseeds + 1)]
    res = defaultdict(lambda: defaultdict(list))
    with Pool(procs) as p:
        for v, c, r in p.imap(_job, jobs, chunksize=2):
            res[v][c].append(r)
    for v, d in res.items():
        print(f"## {v}: {nseeds} seeds; mean over runs with <= {RUNAWAY} retransmissions")
        print("combo (careful,ssthresh,rto,lt)  retx drops timeouts fr needless runaways")
        for c in sorted(d):
            rows = [r for r in d[c] if r["retx"] <= RUNAWAY]
            m = lambda k: st.mean(r.get(k, 0) for r in rows) if rows else float("nan")
            print(f"  {c}  {m('retx'):.0f} {m('drops'):.0f} {m('timeouts'):.1f} {m('fr'):.0f} "
                  f"{m('needless_had') + m('needless_later'):.0f} {len(d[c]) - len(rows)}")
        for key in ("retx", "timeouts", "drops"):
            val = {c: st.mean([r[key] for r in d[c] if r["retx"] <= RUNAWAY] or [float("nan")]) for c in d}
            phi = []
            for i in range(4):
                tot = 0.0
                for c in itertools.product([0, 1], repeat=4):
                    if c[i]:
                        continue
                    k = sum(c)
                    w = math.factorial(k) * math.factorial(3 - k) / math.factorial(4)
                    c1 = list(c)
                    c1[i] = 1
                    tot += w * (val["".join(map(str, c1))] - val["".join(map(str, c))])
                phi.append(tot)
            print(f"  Shapley split of {key}: ccsim rules {val['0000']:.1f} -> ns-2 rules {val['1111']:.1f}: "
                  + ", ".join(f"{FACTORS[i]} {phi[i]:+.1f}" for i in range(4)))


if __name__ == "__main__":
    import json
    if len(sys.argv) < 3 or sys.argv[1] not in ("run", "factorial"):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "factorial":
        factorial(int(sys.argv[2]))
        sys.exit(0)
    kw = {}
    for a in sys.argv[3:]:
        k, v = a.split("=")
        if k in ("variant", "ssthresh_mode"):
            kw[k] = v
        elif k == "rto_min":
            kw[k] = float(v)
        else:
            kw[k] = bool(int(v))
    print(json.dumps(run(Cfg(**kw), int(sys.argv[2]))))
