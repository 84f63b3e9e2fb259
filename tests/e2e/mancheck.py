#!/usr/bin/env python3
"""mancheck.py — every option of every command's --help is in its man page,
and every option a man page lists is in the --help (tests/e2e/06-man-pages.sh).

  mancheck.py BLKPEAK MANDIR

The commands are read from `blkpeak --help` and `blkpeak analyze --help`,
so a new command is checked without editing this file. Pages:

  blkpeak --help              blkpeak(1), section OPTIONS
  blkpeak CMD --help          blkpeak-CMD(1), section OPTIONS
  blkpeak analyze SUB --help  blkpeak-analyze(1), section COMMANDS,
                              subsection SUB

Options in a --help text: every long option named anywhere in it (a help
line may name an option in another's description, e.g. --null-latency
under --engine), and every short option that opens an option line
("  -o, --output FILE"). Options in a man page: those on the option lines
of the section (rendered with man -l: lines indented 7 that start with
"-"), subsections included. Prints one line per difference, naming the
option, the page and the command; exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

LONG = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]*')
SHORT = re.compile(r'(?<![\w-])-[A-Za-z0-9](?![\w-])')


def run(argv, env=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env,
                          check=False).stdout


def help_text(blkpeak, words):
    return run([blkpeak] + words + ['--help'])


def commands_of(text):
    """Command names listed under a 'commands:' line of a --help text."""
    out, on = [], False
    for line in text.splitlines():
        if line.startswith('commands:'):
            on = True
        elif on and re.match(r'^  [a-z]', line):
            out.append(line.split()[0])
        elif on and not line.startswith('  '):
            on = False
    return out


def help_options(text):
    opts = set(LONG.findall(text))
    for line in text.splitlines():
        m = re.match(r'^\s+(-[A-Za-z0-9])[,\s]', line)
        if m:
            opts.add(m.group(1))
    return opts


def render(page):
    env = dict(os.environ, MANWIDTH='200', LC_ALL='C', MAN_KEEP_FORMATTING='')
    text = run(['man', '-l', page], env=env)
    # Whatever the locale, a hyphen is compared as '-'.
    return text.replace('\u2010', '-').replace('\u2212', '-')


def man_options(text, section, subsection=None):
    """Options on the option lines of SECTION (and SUBSECTION) of a page."""
    opts, in_sec, in_sub = set(), False, subsection is None
    for line in text.splitlines():
        if re.match(r'^[A-Z]', line):          # .SH heading
            in_sec = line.strip() == section
            in_sub = subsection is None
            continue
        if re.match(r'^   \S', line):           # .SS heading
            if subsection is not None:
                in_sub = line.strip() == subsection
            continue
        if in_sec and in_sub and re.match(r'^       -', line):
            opts |= set(LONG.findall(line)) | set(SHORT.findall(line))
    return opts


def main():
    blkpeak, mandir = sys.argv[1], sys.argv[2]
    checks = [([], 'blkpeak', 'OPTIONS', None)]
    for cmd in commands_of(help_text(blkpeak, [])):
        checks.append(([cmd], 'blkpeak-' + cmd, 'OPTIONS', None))
        for sub in commands_of(help_text(blkpeak, [cmd])):
            checks.append(([cmd, sub], 'blkpeak-' + cmd, 'COMMANDS', sub))

    problems, pages_used, rendered = [], set(), {}
    for words, name, section, sub in checks:
        path = os.path.join(mandir, name + '.1')
        pages_used.add(name + '.1')
        cmd = ' '.join(['blkpeak'] + words)
        where = '%s(1) %s' % (name, section) + (' / ' + sub if sub else '')
        if not os.path.exists(path):
            problems.append('%s has no man page: %s is missing' % (cmd, path))
            continue
        if path not in rendered:
            rendered[path] = render(path)
        text = help_text(blkpeak, words)
        if not text.strip():
            problems.append('%s --help printed nothing' % cmd)
            continue
        in_help = help_options(text)
        in_man = man_options(rendered[path], section, sub)
        if not in_man:
            problems.append('%s: no options found (section missing?)' % where)
        for opt in sorted(in_help - in_man):
            problems.append('option %s of `%s --help` is missing from %s'
                            % (opt, cmd, where))
        for opt in sorted(in_man - in_help):
            problems.append('option %s in %s is not in `%s --help`'
                            % (opt, where, cmd))

    for page in sorted(os.listdir(mandir)):
        if page.endswith('.1') and page not in pages_used:
            problems.append('%s: no command of that name in blkpeak --help'
                            % page)

    for p in problems:
        print(p)
    print('%d commands checked against %d pages, %d problems'
          % (len(checks), len(rendered), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
