#!/usr/bin/env python3
"""PathRecords of a simulated fabric, read with saquery, against what other
tools say about the path (for tests/it_pathrec.sh).

  prcheck.py --dir T --lids LIDS.json links
      every CA pair: saquery PR --slid A --dlid B and saquery --src-to-dst A:B
      each give one record with DLID B, SLID A, the ports' GIDs, SL 0, P_Key
      0xFFFF, Reversible, HopLimit 0, and MTU, rate and packet lifetime of the
      path ibtracert walks: the smallest NeighborMTU and the slowest
      LinkWidthActive x lane speed that smpquery -x portinfo reads on the
      ports of its links (LinkSpeedExtActive where it names one, else
      LinkSpeedActive), lifetime 18 + ceil(log2(switches crossed)).
  prcheck.py --dir T --lids LIDS.json pathsl FILE
      every CA pair: the record's SL is the one the daemon's path-sl dump
      (lines "0xNODEGUID DLID SL", ibdmchk -c format) gives for its source.

The tools run under umad2sim (LD_PRELOAD=$UMAD2SIM) in directory T.  Prints
one line per failed pair and a summary; exits 1 when any failed.
"""
import argparse
import ipaddress
import json
import math
import os
import re
import subprocess
import sys

MTU_CODE = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
# PathRecord rate codes (IBA 15.2.5.16) by Gb/s: SDR/DDR/QDR, then FDR to NDR
RATE_CODE = {2.5: 2, 5: 5, 10: 3, 20: 6, 30: 4, 40: 7, 60: 8, 80: 9, 120: 10,
             14: 11, 56: 12, 112: 13, 168: 14, 25: 15, 100: 16, 200: 17, 300: 18, 28: 19,
             50: 20, 400: 21, 600: 22, 800: 23, 1200: 24}
# an extended lane's signalling rate (LinkSpeedExtActive) -> its data rate in the codes
EXT_LANE = {14.0625: 14, 25.78125: 25, 53.125: 50, 106.25: 100}
WIDTH = {'1X': 1, '2X': 2, '4X': 4, '8X': 8, '12X': 12}
SWITCH_LIFE = 18  # sa/path.h PATH_DEFAULT_SWITCH_LIFE
HOP_RE = re.compile(r'^\[(\d+)\] -> (switch|ca) port \{0x[0-9a-fA-F]+\}\[(\d+)\] lid (\d+)-\d+')
FROM_RE = re.compile(r'^From ca \{0x[0-9a-fA-F]+\} portnum (\d+) lid (\d+)-\d+')


class Sim:
    def __init__(self, d):
        self.dir = d
        self.env = dict(os.environ, LD_PRELOAD=os.environ.get(
            'UMAD2SIM', '/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so'))
        self.pi = {}

    def run(self, *cmd):
        p = subprocess.run(cmd, cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=30)
        return p.stdout

    def records(self, *args):
        """saquery's PathRecord dumps as dicts of field -> text."""
        out, recs = self.run('saquery', *args), []
        for line in out.splitlines():
            if line.startswith('PathRecord dump'):
                recs.append({})
                continue
            m = re.match(r'^\s+(\w+)\.+(.*)$', line)
            if m and recs:
                recs[-1][m.group(1)] = m.group(2).strip()
        return recs

    def portinfo(self, lid, port):
        key = (lid, port)
        if key not in self.pi:
            # -x: attribute modifier bit 31, the extended speeds (smpquery prints them
            # where the port, or a switch's port 0, says IsExtendedSpeedsSupported)
            out = self.run('smpquery', '-x', 'portinfo', str(lid), str(port))
            f = dict(re.findall(r'^(\w+):\.+(.*)$', out, re.M))
            speed = float(f.get('LinkSpeedActive', '0').split()[0] or 0)
            ext = f.get('LinkSpeedExtActive', '').split()
            if ext and re.match(r'^[0-9.]+$', ext[0]):
                speed = EXT_LANE.get(float(ext[0]), 0)
            self.pi[key] = (int(f.get('NeighborMTU', '0') or 0),
                            WIDTH.get(f.get('LinkWidthActive', ''), 0) * speed)
        return self.pi[key]

    def trace(self, a, b):
        """The ports on the path from LID a to LID b (both ends of every link) and the
        switches crossed, as ibtracert walks it; None when it finds none."""
        ports, switches, cur = [], 0, None
        for line in self.run('ibtracert', str(a), str(b)).splitlines():
            m = FROM_RE.match(line)
            if m:
                cur = int(m.group(2))
                ports.append((cur, int(m.group(1))))
                continue
            m = HOP_RE.match(line)
            if m and cur is not None:
                out, kind, inp, lid = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
                if ports[-1][0] != cur or ports[-1][1] != out:
                    ports.append((cur, out))
                ports.append((lid, inp))
                switches += kind == 'switch'
                cur = lid
        return (ports, switches) if ports and cur == b else None


def gid(guid):
    return str(ipaddress.IPv6Address((0xfe80 << 112) | guid))


def cas(path):
    return [(l['lid'], int(l['port_guid'], 16), int(l['node_guid'], 16), l['desc'])
            for l in json.load(open(path)) if l['port'] != 0]


def check_links(sim, hosts):
    bad = 0
    for a, aguid, _, adesc in hosts:
        for b, bguid, _, bdesc in hosts:
            if a == b:
                continue
            t = sim.trace(a, b)
            if not t:
                print(f'{adesc} -> {bdesc}: ibtracert finds no path')
                bad += 1
                continue
            ports, sw = t
            infos = [sim.portinfo(l, p) for l, p in ports]
            mtu = MTU_CODE.get(min(i[0] for i in infos), 0)
            rate = RATE_CODE.get(min(i[1] for i in infos), 0)
            life = SWITCH_LIFE + math.ceil(math.log2(sw)) if sw else SWITCH_LIFE
            want = {'dlid': str(b), 'slid': str(a), 'dgid': gid(bguid), 'sgid': gid(aguid),
                    'sl': '0x0', 'pkey': '0xFFFF', 'num_path_revers': '0x80',
                    'hop_flow_raw': '0x0', 'tclass': '0x0', 'qos_class': '0x0',
                    'mtu': f'0x{0x80 | mtu:X}', 'rate': f'0x{0x80 | rate:X}',
                    'pkt_life': f'0x{0x80 | life:X}', 'preference': '0x0'}
            for how in (('PR', '--slid', str(a), '--dlid', str(b)), ('--src-to-dst', f'{a}:{b}')):
                recs = sim.records(*how)
                if len(recs) != 1:
                    print(f'{adesc} -> {bdesc}: {" ".join(how)}: {len(recs)} records')
                    bad += 1
                    continue
                diff = {k: (recs[0].get(k), v) for k, v in want.items() if recs[0].get(k) != v}
                if diff:
                    print(f'{adesc} -> {bdesc}: {" ".join(how)}: (got, want) {diff}')
                    bad += 1
    n = len(hosts) * (len(hosts) - 1)
    print(f'{n} CA pairs, {len(sim.pi)} ports read, {bad} bad')
    return bad == 0


def check_pathsl(sim, hosts, path):
    sl = {}
    for line in open(path):
        f = line.split()
        if len(f) == 3:
            sl[(int(f[0], 16), int(f[1]))] = int(f[2])
    bad = nonzero = 0
    for a, _, anode, adesc in hosts:
        for b, _, _, bdesc in hosts:
            if a == b:
                continue
            want = sl.get((anode, b))
            recs = sim.records('PR', '--slid', str(a), '--dlid', str(b))
            got = int(recs[0]['sl'], 16) if len(recs) == 1 else None
            if want is None or got != want:
                print(f'{adesc} -> {bdesc}: record SL {got}, path-sl {want}')
                bad += 1
            nonzero += bool(want)
    n = len(hosts) * (len(hosts) - 1)
    print(f'{n} CA pairs, {nonzero} with SL != 0, {bad} bad')
    return bad == 0 and nonzero > 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    ap.add_argument('--lids', required=True)
    ap.add_argument('mode', choices=['links', 'pathsl'])
    ap.add_argument('file', nargs='?')
    o = ap.parse_args()
    sim, hosts = Sim(o.dir), cas(o.lids)
    ok = check_links(sim, hosts) if o.mode == 'links' else check_pathsl(sim, hosts, o.file)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
