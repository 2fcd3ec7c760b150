#!/usr/bin/env python3
"""Read a simulated fabric back with tools we did not write and check it.

Inputs are the outputs of ibnetdiscover, dump_fts and iblinkinfo.  Checks:
every expected node found; every LID unique and non-zero; every connected
link Active/LinkUp; and, following the switches' LFTs hop by hop, every LID
reached from every switch without a loop.  Prints one line per failed check
and exits 1 if any failed.  --lids-out writes "portguid lid" lines.
"""
import argparse
import re
import sys

NODE_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"(.*)$')
SW_PORT_RE = re.compile(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]')
CA_PORT_RE = re.compile(r'^\[(\d+)\]\(([0-9a-fA-F]+)\)\s+"([^"]+)"\[(\d+)\]')
LID_RE = re.compile(r'\blid (\d+) lmc (\d+)')
SW_HDR_LID_RE = re.compile(r'base port 0 lid (\d+) lmc (\d+)')
FTS_HDR_RE = re.compile(r'^Unicast lids \[0x([0-9a-fA-F]+)-0x([0-9a-fA-F]+)\] of switch .* guid 0x([0-9a-fA-F]+)')
FTS_ENT_RE = re.compile(r'^0x([0-9a-fA-F]+)\s+(\d+)\s')


def parse_topo(path):
    nodes = {}   # id -> dict(type, nports, lid (switch), ports{p: (rid, rp)}, portlids{p: (lid, lmc)}, guid)
    cur = None
    for line in open(path):
        line = line.rstrip('\n')
        m = NODE_RE.match(line)
        if m:
            kind, nports, nid, rest = m.groups()
            cur = nodes.setdefault(nid, {'type': kind, 'nports': int(nports), 'ports': {},
                                         'portlids': {}, 'portguids': {}})
            if kind == 'Switch':
                lm = SW_HDR_LID_RE.search(rest)
                cur['lid'] = (int(lm.group(1)), int(lm.group(2))) if lm else (0, 0)
            continue
        if cur is None or not line.startswith('['):
            if not line.strip():
                cur = None
            continue
        m = CA_PORT_RE.match(line)
        if m:
            p, pguid, rid, rp = m.groups()
            cur['ports'][int(p)] = (rid, int(rp))
            cur['portguids'][int(p)] = int(pguid, 16)
            lm = LID_RE.search(line)
            cur['portlids'][int(p)] = (int(lm.group(1)), int(lm.group(2))) if lm else (0, 0)
            continue
        m = SW_PORT_RE.match(line)
        if m:
            p, rid, rp = m.groups()
            cur['ports'][int(p)] = (rid, int(rp))
    return nodes


def node_guid(nid):
    return int(nid.split('-', 1)[1], 16)


def parse_fts(path):
    tables = {}
    cur = None
    for line in open(path):
        m = FTS_HDR_RE.match(line)
        if m:
            cur = tables.setdefault(int(m.group(3), 16), {})
            continue
        m = FTS_ENT_RE.match(line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return tables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--topo', required=True)
    ap.add_argument('--fts')
    ap.add_argument('--links')
    ap.add_argument('--nodes', type=int, help='expected node count')
    ap.add_argument('--lids-out')
    a = ap.parse_args()
    errors = []
    nodes = parse_topo(a.topo)
    if a.nodes is not None and len(nodes) != a.nodes:
        errors.append('ibnetdiscover found %d nodes, expected %d' % (len(nodes), a.nodes))

    # LIDs: unique, non-zero, and who owns each
    owner = {}
    lids_out = []
    for nid, n in nodes.items():
        ranges = []
        if n['type'] == 'Switch':
            ranges.append((0, n['lid'], node_guid(nid)))
        else:
            for p, lm in n['portlids'].items():
                ranges.append((p, lm, n['portguids'][p]))
        for p, (lid, lmc), pguid in ranges:
            if lid == 0:
                errors.append('%s port %d has LID 0' % (nid, p))
                continue
            lids_out.append('0x%016x %d' % (pguid, lid))
            for l in range(lid, lid + (1 << lmc)):
                if l in owner:
                    errors.append('LID %d on both %s/%d and %s/%d' % ((l,) + owner[l] + (nid, p)))
                owner[l] = (nid, p)
    if a.lids_out:
        with open(a.lids_out, 'w') as f:
            f.write('\n'.join(sorted(lids_out)) + '\n')

    # links: every connected port Active/LinkUp (iblinkinfo prints a line per port end)
    nlinks2 = sum(len(n['ports']) for n in nodes.values())
    if a.links:
        active = 0
        for line in open(a.links):
            if '==(' not in line:
                continue
            if 'LinkUp' in line and 'Active' not in line:
                errors.append('link not active: ' + line.strip())
            if 'Active/' in line and 'LinkUp' in line:
                active += 1
        if active != nlinks2:
            errors.append('iblinkinfo shows %d Active port ends, ibnetdiscover %d connected' %
                          (active, nlinks2))

    # routes: walk the LFTs from every switch to every LID
    if a.fts:
        tables = parse_fts(a.fts)
        switches = {node_guid(nid): nid for nid, n in nodes.items() if n['type'] == 'Switch'}
        maxlid = max(owner) if owner else 0
        bad = 0
        for sguid, snid in switches.items():
            lft = tables.get(sguid)
            if lft is None:
                errors.append('dump_fts has no table for switch %s' % snid)
                continue
            for lid in sorted(owner):
                cur, hops, why = snid, 0, None
                while True:
                    t = tables.get(node_guid(cur), {})
                    port = t.get(lid)
                    if port is None:
                        # dump_fts skips a top LID that starts a 64-LID block
                        if lid == maxlid and lid % 64 == 0:
                            break
                        why = 'no entry at %s' % cur
                        break
                    if port == 0:
                        if owner[lid] != (cur, 0):
                            why = 'port 0 at %s but LID belongs to %s' % (cur, owner[lid])
                        break
                    nxt = nodes[cur]['ports'].get(port)
                    if nxt is None:
                        why = 'port %d of %s is not connected' % (port, cur)
                        break
                    rid, rp = nxt
                    if nodes[rid]['type'] != 'Switch':
                        if owner[lid] != (rid, rp):
                            why = 'delivered to %s/%d, LID belongs to %s' % (rid, rp, owner[lid])
                        break
                    cur = rid
                    hops += 1
                    if hops > len(switches):
                        why = 'loop'
                        break
                if why:
                    bad += 1
                    if bad <= 5:
                        errors.append('route %s -> LID %d: %s' % (snid, lid, why))
        if bad > 5:
            errors.append('... %d bad routes in all' % bad)
    for e in errors:
        print('fabcheck: ' + e)
    print('fabcheck: %d nodes, %d LIDs, %d links, %d problems' %
          (len(nodes), len(owner), nlinks2 // 2, len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
