#!/usr/bin/env python3
"""Docs against the programs: the options of `ibsmd --help` against the
OPTIONS of ibsmd(8); every configuration key (as `ibsmd --create-config`
writes them, with their defaults) against the KEYS of ibsmd.conf(5) and the
commented-out defaults of etc/ibsmd.conf; the commands of `smctl --help`
against the COMMANDS of smctl(8); the README's map of docs/ against the
pages there (every page listed, every link to a page that exists, every
relative link between pages resolving).  Prints each difference; exit 1 if
any."""
import re
import subprocess
import sys
import tempfile
import os

ibsmd, smctl, srcdir = sys.argv[1:4]
problems = []


def roff_plain(line):
    line = re.sub(r'\\f[BIRP]', '', line)
    line = line.replace('\\-', '-').replace('\\(em', '-').replace('\\&', '')
    return line


def section(path, name):
    """The source lines of one .SH section."""
    out, inside = [], False
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if line.startswith('.SH '):
            inside = line[4:].strip().strip('"') == name
            continue
        if inside:
            out.append(line)
    return out


def tags(lines):
    """The tag line of every .TP paragraph, as plain text."""
    return [roff_plain(lines[i + 1]) for i, l in enumerate(lines[:-1]) if l == '.TP']


OPT = re.compile(r'(?<![\w-])(--?[A-Za-z?][\w-]*)')


def opts_of(text):
    # drop quoted arguments ("FILE") of .BR/.BI lines and the macro itself
    text = re.sub(r'^\.\w+\s*', '', text)
    return set(m for m in OPT.findall(text.replace('"', ' ')))


# ---- ibsmd --help vs ibsmd(8) ---------------------------------------------
help_text = subprocess.run([ibsmd, '--help'], capture_output=True, text=True, check=True).stdout
help_opts = set()
for line in help_text.splitlines():
    if re.match(r'^  +-', line):
        spec = re.split(r'\s{2,}', line.strip())[0]
        help_opts |= opts_of(spec)
man_opts = set()
for t in tags(section(os.path.join(srcdir, 'man/ibsmd.8'), 'OPTIONS')):
    man_opts |= opts_of(t)
for o in sorted(help_opts - man_opts):
    problems.append(f'ibsmd --help has {o}, ibsmd(8) OPTIONS does not')
for o in sorted(man_opts - help_opts):
    problems.append(f'ibsmd(8) OPTIONS has {o}, ibsmd --help does not')
# and every option listed is one the program takes
for o in sorted(help_opts):
    if o in ('-h', '-?', '--help', '--version'):
        continue
    r = subprocess.run([ibsmd, o] + ([] if o in ('--check-config', '-o', '--once', '-v',
                                                  '--verbose', '-V') else ['x']) +
                       ['--check-config'], capture_output=True, text=True)
    if 'unrecognized option' in r.stderr or 'invalid option' in r.stderr:
        problems.append(f'ibsmd rejects {o}, which --help lists')

# ---- configuration keys ----------------------------------------------------
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, 'all.conf')
    subprocess.run([ibsmd, '-F', '/dev/null', '--create-config', out], check=True,
                   capture_output=True)
    keys = {}
    for line in open(out):
        m = re.match(r'^(\w+) = ?(.*)$', line.rstrip('\n'))
        if m:
            keys[m.group(1)] = m.group(2)


def same(a, b):
    # an installed path: the prefix is configure's (datadir = PREFIX/share)
    a, b = (re.sub(r'^(.*/share|datadir)/', 'DATADIR/', x) for x in (a, b))
    if a == b:
        return True
    try:
        return int(a, 16) == int(b, 16) if a.startswith('0x') or b.startswith('0x') else False
    except ValueError:
        return False


man_keys = {}
for t in tags(section(os.path.join(srcdir, 'man/ibsmd.conf.5'), 'KEYS')):
    m = re.match(r'^\.BR (\w+) " \(default: ([^;)]*)', t)
    if not m:
        problems.append(f'ibsmd.conf(5) KEYS: cannot read the tag {t!r}')
        continue
    d = m.group(2).strip()
    man_keys[m.group(1)] = '' if d == 'empty' else d
example = {}
for line in open(os.path.join(srcdir, 'etc/ibsmd.conf')):
    m = re.match(r'^#(\w+) = ?(.*)$', line.rstrip('\n'))
    if m:
        example[m.group(1)] = m.group(2)
for where, table in (('ibsmd.conf(5)', man_keys), ('etc/ibsmd.conf', example)):
    for k in sorted(set(keys) - set(table)):
        problems.append(f'{where} does not describe the key {k}')
    for k in sorted(set(table) - set(keys)):
        problems.append(f'{where} describes {k}, which ibsmd does not have')
    for k in sorted(set(keys) & set(table)):
        if not same(keys[k], table[k]):
            problems.append(f'{where}: {k} defaults to {table[k]!r}, ibsmd says {keys[k]!r}')

# ---- smctl --help vs smctl(8) ----------------------------------------------
help_text = subprocess.run([smctl, '--help'], capture_output=True, text=True).stdout
cmds = set()
inside = False
for line in help_text.splitlines():
    if line.startswith('commands:'):
        inside = True
        continue
    if inside and not line.strip():
        break
    if inside:
        w = line.split()[0]
        if re.match(r'^[a-z]+$', w):
            cmds.add(w)
man_cmds = set()
for t in tags(section(os.path.join(srcdir, 'man/smctl.8'), 'COMMANDS')):
    w = re.sub(r'^\.\w+\s*', '', t).split()
    if w and re.match(r'^[a-z]+$', w[0].strip('"')):
        man_cmds.add(w[0].strip('"'))
for c in sorted(cmds - man_cmds):
    problems.append(f'smctl --help has the command {c}, smctl(8) COMMANDS does not')
for c in sorted(man_cmds - cmds):
    problems.append(f'smctl(8) COMMANDS has {c}, smctl --help does not')

# ---- the README's map of docs/ ---------------------------------------------
readme = open(os.path.join(srcdir, 'README'), encoding='utf-8').read()
docs_dir = os.path.join(srcdir, 'docs')
pages = sorted(f for f in os.listdir(docs_dir) if f.endswith('.md'))
linked = set(re.findall(r'\(docs/([\w.-]+\.md)\)', readme))
for f in pages:
    if f not in linked:
        problems.append(f'README does not list docs/{f}')
for f in sorted(linked - set(pages)):
    problems.append(f'README links docs/{f}, which does not exist')
for f in pages:
    for target in re.findall(r'\]\(([\w.-]+\.md)(?:#[\w-]*)?\)', open(os.path.join(docs_dir, f)).read()):
        if target not in pages:
            problems.append(f'docs/{f} links {target}, which does not exist')

for p in problems:
    print(p)
print(f'{len(help_opts)} options, {len(keys)} keys, {len(cmds)} smctl commands, '
      f'{len(pages)} docs pages compared; {len(problems)} problems')
sys.exit(1 if problems else 0)
