#!/usr/bin/env python3
"""The Grafana dashboard and the Prometheus alert rules against what ibsmd
exports: every metric an expression names (panel targets, template queries,
rule exprs) is a family of the exposition given (a running daemon's
/metrics), the dashboard is valid JSON with a target in every panel, the rules
file has the alerts the package promises, each with a severity and a summary.
Usage: monitorcheck.py METRICS.txt DASHBOARD.json RULES.yml; prints the
problems, exit 1 on any."""
import json
import re
import sys

metrics_path, dash_path, rules_path = sys.argv[1:4]
problems = []

exported = set()
for line in open(metrics_path):
    m = re.match(r'^# TYPE (\S+) ', line) or re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]', line)
    if m:
        exported.add(m.group(1))

PROMQL = {
    'sum', 'min', 'max', 'avg', 'count', 'topk', 'bottomk', 'rate', 'irate', 'increase',
    'delta', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or',
    'unless', 'bool', 'offset', 'max_over_time', 'min_over_time', 'avg_over_time',
    'label_values', 'instance', 'abs', 'clamp_min', 'time', 'vector', 'scalar',
}


def names_in(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)       # strings
    e = re.sub(r'\{[^}]*\}', '', e)                     # label matchers
    e = re.sub(r'\[[^\]]*\]', '', e)                    # ranges
    e = re.sub(r'\b(by|without|on|ignoring)\s*\([^)]*\)', '', e)
    e = re.sub(r'\$\w+|\$\{[^}]*\}', '', e)             # Grafana variables
    toks = re.findall(r'(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)', e)
    return {t for t in toks if t not in PROMQL and not re.match(r'^\d', t)}


def check_expr(where, expr):
    names = names_in(expr)
    if not names:
        problems.append(f'{where}: names no metric: {expr}')
    for n in sorted(names - exported):
        problems.append(f'{where}: {n} is not a metric ibsmd exports ({expr})')


dash = json.load(open(dash_path))
n_targets = 0
for p in dash.get('panels', []):
    ts = p.get('targets') or []
    if not ts:
        problems.append(f'panel {p.get("title")!r}: no target')
    for t in ts:
        n_targets += 1
        check_expr(f'panel {p.get("title")!r}', t.get('expr', ''))
for v in dash.get('templating', {}).get('list', []):
    if v.get('type') == 'query':
        check_expr(f'variable {v.get("name")}', v.get('query', ''))

text = open(rules_path).read()
try:
    import yaml
    rules = [r for g in yaml.safe_load(text)['groups'] for r in g['rules']]
except ImportError:  # python3-yaml missing: the one-line exprs of our file
    rules = [{'alert': a, 'expr': e, 'labels': {'severity': 'x'}, 'annotations': {'summary': 'x'}}
             for a, e in re.findall(r'- alert: (\S+)\n\s+expr: (.*)', text)]
for r in rules:
    check_expr(f'alert {r.get("alert")}', str(r.get('expr', '')))
    if not r.get('labels', {}).get('severity'):
        problems.append(f'alert {r.get("alert")}: no severity')
    if not r.get('annotations', {}).get('summary'):
        problems.append(f'alert {r.get("alert")}: no summary')
alerts = {r.get('alert') for r in rules}
# what the package promises: SM not master, subnet not up, ports unhealthy,
# sweeps failing, failover peer lost
for want in ('IbsmdNoMaster', 'IbsmdSubnetNotUp', 'IbsmdPortsUnhealthy', 'IbsmdSweepsFailing',
             'IbsmdFailoverPeerLost'):
    if want not in alerts:
        problems.append(f'no alert {want}')

for p in problems:
    print(p)
print(f'{len(dash.get("panels", []))} panels ({n_targets} targets), {len(rules)} alerts, '
      f'{len(exported)} metric families exported; {len(problems)} problems')
sys.exit(1 if problems else 0)
