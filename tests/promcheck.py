#!/usr/bin/env python3
"""Check a Prometheus text exposition (format 0.0.4) read from stdin.

What promtool's parser insists on, for when promtool is not installed: HELP
and TYPE lines well formed and at most once per family, TYPE before the
family's samples, a family's samples together, metric and label names valid,
label values quoted with only \\\\, \\" and \\n escaped, values that parse,
no series twice, counters named *_total.  Prints the problems; exit 1 on any.
Usage: promcheck.py [--require NAME ...] < metrics.txt
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*$")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_labels(s, lineno, problems):
    """s starts after '{'; returns (labels tuple, rest after '}')."""
    labels = []
    i = 0
    while True:
        if i < len(s) and s[i] == "}":
            return tuple(labels), s[i + 1:]
        m = re.match(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"", s[i:])
        if not m:
            problems.append(f"line {lineno}: bad label at '{s[i:i + 30]}'")
            return None, ""
        name = m.group(1)
        i += m.end()
        val = []
        while True:
            if i >= len(s):
                problems.append(f"line {lineno}: unterminated label value")
                return None, ""
            c = s[i]
            if c == "\\":
                if i + 1 >= len(s) or s[i + 1] not in '\\"n':
                    problems.append(f"line {lineno}: bad escape in label {name}")
                    return None, ""
                val.append(s[i:i + 2])
                i += 2
                continue
            if c == '"':
                i += 1
                break
            if c == "\n":
                problems.append(f"line {lineno}: newline in label {name}")
                return None, ""
            val.append(c)
            i += 1
        if any(n == name for n, _ in labels):
            problems.append(f"line {lineno}: label {name} twice")
        labels.append((name, "".join(val)))
        if i < len(s) and s[i] == ",":
            i += 1


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)] if name.endswith(suffix) else None
        if base and types.get(base) in ("histogram", "summary"):
            return base
    return name


def main():
    required = sys.argv[sys.argv.index("--require") + 1:] if "--require" in sys.argv else []
    text = sys.stdin.read()
    problems = []
    helps, types, done, seen = {}, {}, set(), set()
    current = None
    samples = 0
    if text and not text.endswith("\n"):
        problems.append("the text does not end with a newline")
    for lineno, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.match(name):
                    problems.append(f"line {lineno}: bad metric name {name!r}")
                d = helps if parts[1] == "HELP" else types
                if name in d:
                    problems.append(f"line {lineno}: second {parts[1]} for {name}")
                if parts[1] == "TYPE":
                    if len(parts) != 4 or parts[3] not in TYPES:
                        problems.append(f"line {lineno}: bad TYPE line")
                    elif name in done or name == current:
                        problems.append(f"line {lineno}: TYPE of {name} after its samples")
                    types[name] = parts[3] if len(parts) == 4 else "?"
                else:
                    helps[name] = parts[3] if len(parts) == 4 else ""
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$", line)
        if not m:
            problems.append(f"line {lineno}: not a sample: {line[:60]!r}")
            continue
        name, rest = m.group(1), m.group(2)
        labels = ()
        if rest.startswith("{"):
            labels, rest = parse_labels(rest[1:], lineno, problems)
            if labels is None:
                continue
        fields = rest.split()
        if not rest.startswith(" ") or len(fields) not in (1, 2):
            problems.append(f"line {lineno}: bad value part {rest[:40]!r}")
            continue
        try:
            float(fields[0].replace("Inf", "inf"))
        except ValueError:
            problems.append(f"line {lineno}: value {fields[0]!r} does not parse")
        fam = family_of(name, types)
        if fam != current:
            if fam in done:
                problems.append(f"line {lineno}: samples of {fam} are not together")
            if current:
                done.add(current)
            current = fam
        if types.get(fam) == "counter" and not fam.endswith("_total"):
            problems.append(f"line {lineno}: counter {fam} is not named *_total")
        key = (name, tuple(sorted(labels)))
        if key in seen:
            problems.append(f"line {lineno}: series {name}{dict(labels)} twice")
        seen.add(key)
        samples += 1
    for r in required:
        if r not in types and r not in {k[0] for k in seen}:
            problems.append(f"missing {r}")
    for p in problems[:20]:
        print("promcheck:", p)
    if len(problems) > 20:
        print(f"promcheck: ... {len(problems) - 20} more")
    print(f"promcheck: {samples} samples, {len(types)} families, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
