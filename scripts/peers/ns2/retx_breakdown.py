#!/usr/bin/env python3
"""Break ns-2 retransmissions down by cause, from a trace-all file of droptail.tcl.

usage: python3 retx_breakdown.py TRACE [--per-flow] [--json]

Node ids as in droptail.tcl: Si = i, R10..R13 = 10..13, Di = 14 + i; fid = i.
A data packet is "sent" at its '+' on Si->R10 and "delivered" at its 'r' on R13->Di; ns-2
gives every copy its own uid, so the fate of each copy is known.

Each retransmission (a '+' on Si->R10 of a packet number sent before) is classified by what
made the sender emit it, from the ACKs that reached Si at the same instant (ns-2 sends from
inside the ACK handler, so the '+' carries the ACK's timestamp):
  fr       the third duplicate ACK arrived at that instant (fast retransmit);
  timeout  no ACK arrived at that instant (the retransmission timer fired);
  gbn      a new ACK arrived while going back N after a timeout (Reno's
           t_seqno_ = highest_ack_ + 1 in reset_rtx_timer, then send_much);
  partial  a new ACK arrived during a fast recovery (NewReno's partial-ACK retransmission);
  other    anything else: in these runs Limited Transmit's send_one() resending t_seqno_ during
           a go-back-N (gone with singledup=0).
and by whether it was needed:
  needless_had   an earlier copy had already been delivered when this one was sent;
  needless_later an earlier copy was still in flight and was delivered later (spurious);
  needed         every earlier copy was dropped (or never delivered).
Also reported: false fast retransmits (fr of a packet an earlier copy of which was delivered
or still in flight), FRs whose triggering duplicate ACK was exactly the recovery point of the
last timeout/FR (ns-2 blocks these with bugFix_, highest_ack_ > recover_), timeouts counted
from the trace, and drops of data packets of the flow.
"""
import json
import sys
from collections import defaultdict


def analyse(path):
    N = 10
    sends = defaultdict(list)  # (fid, seq) -> [uid, ...] in send order
    delivered_at = {}  # uid -> time delivered
    drops = defaultdict(int)
    ack_drops = defaultdict(int)
    events = []  # (time, kind, fid, seq, uid) in trace order for sender-side events
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 12:
                continue
            ev, t, a, b, typ = p[0], float(p[1]), int(p[2]), int(p[3]), p[4]
            fid, seq, uid = int(p[7]), int(p[10]), int(p[11])
            if typ == "tcp":
                if ev == "+" and a == fid and b == 10:
                    events.append((t, "send", fid, seq, uid))
                elif ev == "r" and b == 14 + fid and a == 13:
                    delivered_at[uid] = t
                elif ev == "d":
                    drops[fid] += 1
            elif typ == "ack":
                if ev == "r" and a == 10 and b == fid:
                    events.append((t, "ack", fid, seq, uid))
                elif ev == "d":
                    ack_drops[fid] += 1

    stats = {i: defaultdict(int) for i in range(N)}
    # sender-side state reconstructed from the ACKs
    last_ack = [-1] * N
    dup = [0] * N
    maxseq = [-1] * N
    mode = [None] * N  # None | 'gbn' | 'fr'
    mode_end = [0] * N  # maxseq when the mode began
    recover = [0] * N  # ns-2 recover_ (maxseq_ at the last timeout / FR)
    # what arrived at this instant, per flow: (time, 'dup3'|'new'|'dup'|None, ackseq)
    last_ack_ev = [(None, None, None)] * N
    for t, kind, fid, seq, uid in events:
        s = stats[fid]
        if kind == "ack":
            if seq > last_ack[fid]:
                last_ack[fid] = seq
                dup[fid] = 0
                what = "new"
                if mode[fid] is not None and seq >= mode_end[fid]:
                    mode[fid] = None
            elif seq == last_ack[fid]:
                dup[fid] += 1
                what = "dup3" if dup[fid] == 3 else "dup"
            else:
                what = "old"
            last_ack_ev[fid] = (t, what, seq)
            continue
        # a data send
        sends[(fid, seq)].append(uid)
        s["sent"] += 1
        if seq <= maxseq[fid]:
            s["retx"] += 1
            at, what, aseq = last_ack_ev[fid]
            same = at == t
            if not same:
                cause = "timeout"
                mode[fid], mode_end[fid] = "gbn", maxseq[fid]
                recover[fid] = maxseq[fid]
                dup[fid] = 0  # Reno/NewReno timeout(): dupacks_ = 0
                s["timeouts"] += 1
            elif what == "dup3":
                cause = "fr"
                if aseq == recover[fid]:
                    s["fr_at_recover"] += 1
                mode[fid], mode_end[fid] = "fr", maxseq[fid]
                recover[fid] = maxseq[fid]
            elif what == "new" and mode[fid] == "gbn":
                cause = "gbn"
            elif what == "new" and mode[fid] == "fr":
                cause = "partial"
            else:
                cause = "other"
            s[cause] += 1
            earlier = sends[(fid, seq)][:-1]
            d = [delivered_at[u] for u in earlier if u in delivered_at]
            if d and min(d) <= t:
                need = "needless_had"
            elif d:
                need = "needless_later"
            else:
                need = "needed"
            s[need] += 1
            s[cause + "_" + ("needed" if need == "needed" else "needless")] += 1
            if cause == "fr" and need != "needed":
                s["false_fr"] += 1
        else:
            maxseq[fid] = seq
    for i in range(N):
        stats[i]["drops"] = drops[i]
        stats[i]["ack_drops"] = ack_drops[i]
    return stats


KEYS = ["sent", "retx", "drops", "timeouts", "fr", "timeout", "gbn", "partial", "other",
        "needed", "needless_had", "needless_later", "fr_needless", "timeout_needless",
        "gbn_needless", "partial_needless", "false_fr", "fr_at_recover", "ack_drops"]


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    stats = analyse(args[0])
    tot = defaultdict(int)
    for i, s in stats.items():
        for k, v in s.items():
            tot[k] += v
    if "--json" in args:
        print(json.dumps({"total": {k: tot[k] for k in KEYS},
                          "flows": {f"S{i}": {k: stats[i][k] for k in KEYS} for i in stats}}))
        return
    print("flow " + " ".join(KEYS))
    if "--per-flow" in args:
        for i, s in stats.items():
            print(f"S{i} " + " ".join(str(s[k]) for k in KEYS))
    print("total " + " ".join(str(tot[k]) for k in KEYS))


if __name__ == "__main__":
    main()
