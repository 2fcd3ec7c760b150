#!/usr/bin/env python3
"""Check one MLID's multicast forwarding tables as the switches hold them.

Inputs: ibnetdiscover's topology and `dump_fts -M` (infiniband-diags), both
read from the fabric.  With --empty: no switch forwards the MLID.  Else,
given the group's receivers (full and non members) and send-only members by
port GUID: each receiver's switch port is set and no send-only member's; a packet sent by any member, flooded through the port masks
(every set port but the one it came in by), reaches every receiver but
itself exactly once, no other CA port, and no switch twice; and every switch
that forwards the MLID is on the tree (reached by some member's packet: a
send-only member's leaf forwards up and is reached only from it).
Prints one line per failed check, exits 1 if any failed.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fabcheck import parse_topo  # noqa: E402

HDR_RE = re.compile(r'^Multicast mlids \[.*\] of switch .* guid 0x([0-9a-fA-F]+)')
PORTS_RE = re.compile(r'^\s*Ports:')
ROW_RE = re.compile(r'^0x([0-9a-fA-F]+)\s')


def parse_mfts(path):
    """{switch GUID: {mlid: set(ports)}}, the columns read from each 'Ports:' header."""
    tables, cur, cols = {}, None, []
    for line in open(path):
        line = line.rstrip('\n')
        m = HDR_RE.match(line)
        if m:
            cur = tables.setdefault(int(m.group(1), 16), {})
            cols = []
            continue
        if PORTS_RE.match(line):
            body = line.index(':') + 1
            cols = [(m.start() + body, int(m.group())) for m in re.finditer(r'\d+', line[body:])]
            continue
        m = ROW_RE.match(line)
        if m and cur is not None:
            ports = cur.setdefault(int(m.group(1), 16), set())
            for pos, port in cols:
                if pos < len(line) and line[pos] == 'x':
                    ports.add(port)
    return tables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--topo', required=True)
    ap.add_argument('--mfts', required=True)
    ap.add_argument('--mlid', required=True, type=lambda s: int(s, 0))
    ap.add_argument('--receivers', default='', help='port GUIDs, comma separated')
    ap.add_argument('--senders', default='', help='send-only members, port GUIDs')
    ap.add_argument('--empty', action='store_true')
    a = ap.parse_args()
    nodes = parse_topo(a.topo)
    mfts = parse_mfts(a.mfts)
    fails = []
    sw_by_guid = {int(n.split('-', 1)[1], 16): n for n, d in nodes.items() if d['type'] == 'Switch'}
    mask = {}
    for g, t in mfts.items():
        if g not in sw_by_guid:
            fails.append('dump_fts -M names switch 0x%016x that ibnetdiscover did not find' % g)
            continue
        if t.get(a.mlid):
            mask[sw_by_guid[g]] = t[a.mlid]
    missing = set(sw_by_guid.values()) - {sw_by_guid[g] for g in mfts if g in sw_by_guid}
    if missing:
        fails.append('no MFT read from %d switches' % len(missing))
    if a.empty:
        for s, ports in sorted(mask.items()):
            fails.append('%s still forwards MLID 0x%04x to ports %s' % (s, a.mlid, sorted(ports)))
    else:
        # port GUID -> (CA node, port)
        where = {}
        for n, d in nodes.items():
            for p, g in d.get('portguids', {}).items():
                where[g] = (n, p)
        recv = [int(g, 16) for g in a.receivers.split(',') if g]
        send = [int(g, 16) for g in a.senders.split(',') if g]
        for g in recv + send:
            if g not in where:
                fails.append('member 0x%016x is no CA port of the fabric' % g)
        recv = [g for g in recv if g in where]
        send = [g for g in send if g in where]

        def flood(src):
            """Deliveries {(ca, port): count} and switches reached, or a failure line."""
            n, p = where[src]
            sw, swp = nodes[n]['ports'][p]
            todo, seen, got = [(sw, swp)], set(), {}
            while todo:
                s, inp = todo.pop()
                if s in seen:
                    return None, seen, 'a packet of 0x%016x reaches %s twice' % (src, s)
                seen.add(s)
                for out in mask.get(s, ()):
                    if out == inp or out == 0:
                        continue
                    peer = nodes[s]['ports'].get(out)
                    if not peer:
                        continue
                    if nodes[peer[0]]['type'] == 'Switch':
                        todo.append(peer)
                    else:
                        got[peer] = got.get(peer, 0) + 1
            return got, seen, None

        # every receiver's switch port is set, no send-only member's
        for g in recv + send:
            n, p = where[g]
            sw, swp = nodes[n]['ports'][p]
            if (swp in mask.get(sw, ())) != (g in recv):
                fails.append('%s port %d (to 0x%016x) is %sset' %
                             (sw, swp, g, 'not ' if g in recv else ''))
        want = {where[g] for g in recv}
        reached = set()
        for i, g in enumerate(recv + send):
            got, seen, err = flood(g)
            if err:
                fails.append(err)
                continue
            reached |= seen
            for ca in set(got) | want:
                n = got.get(ca, 0)
                exp = 0 if ca == where[g] or ca not in want else 1
                if n != exp:
                    fails.append('from 0x%016x: %s port %d gets %d copies, wants %d'
                                 % (g, ca[0], ca[1], n, exp))
        if recv or send:
            for s in sorted(set(mask) - reached):
                fails.append('%s forwards MLID 0x%04x but is not on the tree' % (s, a.mlid))
    for f in fails:
        print(f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
