#!/usr/bin/python3
"""Checks README.md and docs/*.md against the code and against themselves.

  check_docs.py --binary PATH/TO/bloomroute --source SOURCE_DIR

1. Commands and flags. Every mention of `bloomroute COMMAND ...` (a line of a
   code block, or an inline code span; a synopsis's indented continuation
   lines belong to it) names a command whose `--help` exits 0. For `admin`,
   `index`, `cert` and `lab` (the commands whose help declares a --subcommand,
   --action or --experiment option) the words after the command, up to the
   first flag, are subcommands and must be words of that help; every -x or
   --flag of the mention must be an option the help declares. An inline span
   that starts with a command's name and a flag (`router --max-reply-bytes`,
   `admin regions --table t`) is a mention too, and a span that starts with a
   flag (`--sync`) must name an option of some command. Quoted text, values in
   capitals (`COMMAND`, `SERVER`) and output lines (`bloomroute router: ...`)
   are not checked.
2. Links. Every relative link [text](path) or [text](path#anchor) resolves to
   a file or directory of the source tree, and an anchor to a heading of the
   page it names (GitHub's slugs: lowercase, spaces to '-', punctuation but '-'
   and '_' dropped, -1, -2... for repeats).
3. Reachability. Every docs/*.md is reached from README.md through links.
4. Audience. Every docs/*.md opens (its first paragraph after the title) with
   a paragraph starting "**For:**" that says who the page is for. A generated
   page (its first line "<!-- Generated file: edit X and regenerate. -->")
   is checked through X, the text it is generated from.

Each problem is printed as FILE:LINE: message; the exit code is 1 if there is
any, 0 otherwise. Standard library only; runs in about a second.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import urllib.parse

AUDIENCE_PREFIX = "**For:**"
SUBCOMMAND_OPTIONS = ("subcommand", "action", "experiment")

# `bloomroute` as the command word at the start of a code line (after a `$ `
# prompt) or of an inline span: alone or at the end of a path
# (build/tools/bloomroute), followed by whitespace; not `bloomroute.index`,
# not the shell's prompt `bloomroute>`, not prose in a code block.
MENTION_RE = re.compile(r"^\s*(?:\$\s+)?(?:[\w.\-]*/)?bloomroute[ \t]+(?P<rest>\S.*)$")
FLAG_RE = re.compile(r"(?:(?<=^)|(?<=[\s\[|(]))(--?[A-Za-z][A-Za-z0-9\-]*)")
WORD_RE = re.compile(r"^[a-z][a-z0-9\-]*$")
QUOTED_RE = re.compile(r"'[^']*'|\"[^\"]*\"")
INLINE_CODE_RE = re.compile(r"(`+)(.+?)\1")
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")
GENERATED_RE = re.compile(r"^<!-- Generated file: edit (\S+) and regenerate\. -->")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, line, message):
        self.items.append("%s:%d: %s" % (where, line, message))


class Page:
    """A markdown file: its lines, code-block flags, headings and links."""

    def __init__(self, source, relpath):
        self.relpath = relpath
        self.path = os.path.join(source, relpath)
        with open(self.path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.in_code = []
        fence = None
        for line in self.lines:
            m = FENCE_RE.match(line)
            if fence is None and m:
                fence = m.group(1)
                self.in_code.append(None)  # the fence line itself
            elif fence is not None and m and m.group(1) == fence:
                fence = None
                self.in_code.append(None)
            else:
                self.in_code.append(fence is not None)
        self.anchors = self._anchors()

    def prose_lines(self):
        """(line number, text) of lines outside code blocks, inline code removed."""
        for i, line in enumerate(self.lines):
            if self.in_code[i] is False:
                yield i + 1, INLINE_CODE_RE.sub("", line)

    def _anchors(self):
        anchors, seen = set(), collections.Counter()
        for i, line in enumerate(self.lines):
            if self.in_code[i] is not False:
                continue
            m = HEADING_RE.match(line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            n = seen[slug]
            seen[slug] += 1
            anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
        return anchors


def github_slug(heading):
    """The anchor GitHub gives a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "")
    text = re.sub(r"<[^>]+>", "", text)
    out = []
    for ch in text.lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


class Binary:
    """Runs `bloomroute ... --help` once per command and keeps the answers."""

    def __init__(self, path):
        self.path = path
        self.helps = {}
        self.sub_rc = {}

    def help(self, command):
        """(exit code, text) of `bloomroute COMMAND --help`."""
        if command not in self.helps:
            self.helps[command] = self._run([command, "--help"])
        return self.helps[command]

    def sub_help_rc(self, command, subs):
        key = (command,) + tuple(subs)
        if key not in self.sub_rc:
            self.sub_rc[key] = self._run([command] + list(subs) + ["--help"])[0]
        return self.sub_rc[key]

    def _run(self, args):
        try:
            p = subprocess.run([self.path] + args, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=20)
        except OSError as e:
            return 127, str(e)
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def commands(self):
        """The command names `bloomroute --help` lists."""
        rc, text = self._run(["--help"])
        names, listing = [], False
        for line in text.split("\n"):
            if line.strip() == "commands:":
                listing = True
            elif listing:
                m = re.match(r"^  ([a-z][a-z0-9\-]*)\s", line)
                if not m:
                    if line.strip():
                        listing = False
                    continue
                names.append(m.group(1))
        return names

    def options(self, command):
        """Long and short options the command's help declares."""
        opts = set()
        for line in self.help(command)[1].split("\n"):
            m = re.match(r"^  (?:-(\w) \[ --([\w\-]+) \]|--([\w\-]+)|-(\w)\b)", line)
            if m:
                if m.group(1):
                    opts.update(("-" + m.group(1), "--" + m.group(2)))
                elif m.group(3):
                    opts.add("--" + m.group(3))
                else:
                    opts.add("-" + m.group(4))
        return opts

    def has_subcommands(self, command):
        return any("--" + o in self.options(command) for o in SUBCOMMAND_OPTIONS)

    def subcommands_text(self, command):
        """The description of the command's --subcommand, --action or --experiment
        option (which lists the subcommands), continuation lines included."""
        lines, taking = [], False
        for line in self.help(command)[1].split("\n"):
            m = re.match(r"^  --([\w\-]+)", line)
            if m:
                taking = m.group(1) in SUBCOMMAND_OPTIONS
            elif not line.startswith("      "):
                taking = False
            if taking:
                lines.append(line)
        return "\n".join(lines)


def mentions(page):
    """(line number, text after `bloomroute`, explicit) of each command mention.

    explicit is False for an inline span that starts with a command name
    rather than with `bloomroute`."""
    found = []
    current = None  # the code-block mention a continuation line extends
    for i, line in enumerate(page.lines):
        lineno = i + 1
        if page.in_code[i]:
            text = re.sub(r"\s#\s.*$", "", line)  # a trailing comment
            m = MENTION_RE.match(text)
            if m:
                current = [lineno, m.group("rest"), True]
                found.append(current)
            elif current is not None and re.match(r"^\s+\S", text):
                current[1] += " " + text.strip()
            else:
                current = None
            continue
        current = None
        if page.in_code[i] is None:
            continue
        for span in INLINE_CODE_RE.finditer(line):
            code = span.group(2).strip()
            m = MENTION_RE.match(code)
            if m:
                found.append([lineno, m.group("rest"), True])
            else:
                found.append([lineno, code, False])
    return found


def check_mention(binary, commands, all_options, where, lineno, rest, explicit, problems):
    stripped = QUOTED_RE.sub(" ", rest)
    tokens = stripped.split()
    if not tokens:
        return
    first = tokens[0]
    if not explicit:
        if first.startswith("--"):
            # A span that is a flag (`--sync`, `--max-frame-bytes N`).
            flag = FLAG_RE.match(first)
            if flag and flag.group(1) not in all_options:
                problems.add(where, lineno, "`%s` is not an option of any bloomroute command"
                             % flag.group(1))
            return
        if first not in commands or len(tokens) < 2:
            return
        # `router --max-reply-bytes`, `admin regions --table t`: only when a
        # flag follows the command and its subcommand words.
        k = 1
        while k < len(tokens) and WORD_RE.match(tokens[k]):
            k += 1
        if k >= len(tokens) or not tokens[k].startswith("-"):
            return
    if first.endswith(":") or not WORD_RE.match(first):
        return  # an output line (`bloomroute router: ...`) or a placeholder
    rc, _ = binary.help(first)
    if rc != 0:
        problems.add(where, lineno, "`bloomroute %s --help` exits %d: no command `%s`"
                     % (first, rc, first))
        return
    label = "bloomroute " + first
    opts = binary.options(first)
    _, help_text = binary.help(first)
    args = tokens[1:]
    if binary.has_subcommands(first):
        subs = []
        for tok in args:
            if tok.startswith("-") or not WORD_RE.match(tok):
                break
            subs.append(tok)
        for n, sub in enumerate(subs):
            # The first must be in the option's list; later ones (`quota set`)
            # anywhere in the help.
            text = binary.subcommands_text(first) if n == 0 else help_text
            if not re.search(r"(?<![\w\-])%s(?![\w\-])" % re.escape(sub), text):
                problems.add(where, lineno, "`%s %s`: `%s --help` names no subcommand `%s`"
                             % (label, " ".join(subs), label, sub))
                return
        if subs:
            rc = binary.sub_help_rc(first, subs[:1])
            if rc != 0:
                problems.add(where, lineno, "`%s %s --help` exits %d" % (label, subs[0], rc))
                return
            label += " " + " ".join(subs)
    for m in FLAG_RE.finditer(" ".join(args)):
        flag = m.group(1)
        if flag not in opts:
            problems.add(where, lineno, "`%s`: `%s` is not an option in `bloomroute %s --help`"
                         % (label, flag, first))


def links(page):
    """(line number, target) of each link outside code."""
    for lineno, text in page.prose_lines():
        for m in LINK_RE.finditer(text):
            yield lineno, m.group(1)
        m = REF_LINK_RE.match(text)
        if m:
            yield lineno, m.group(1)


def is_external(target):
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:", target))


def resolve(source, page, target):
    """(path relative to source or None, anchor or None, error or None)."""
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path)
    if not path:
        return page.relpath, anchor or None, None
    full = os.path.normpath(os.path.join(os.path.dirname(page.path), path))
    rel = os.path.relpath(full, source)
    if rel.startswith(".."):
        return None, None, "link `%s` leaves the source tree" % target
    if not os.path.exists(full):
        return None, None, "link `%s`: no file %s" % (target, rel)
    return rel, anchor or None, None


def run(binary_path, source):
    problems = Problems()
    names = ["README.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(source, "docs"))
        if n.endswith(".md"))
    pages = {n: Page(source, n) for n in names}
    binary = Binary(binary_path)
    commands = binary.commands()
    if not commands:
        problems.add(binary_path, 0, "`bloomroute --help` lists no commands")
    all_options = set()
    for c in commands:
        all_options |= binary.options(c)

    graph = collections.defaultdict(set)
    for name, page in pages.items():
        for lineno, rest, explicit in mentions(page):
            check_mention(binary, commands, all_options, name, lineno, rest, explicit, problems)
        for lineno, target in links(page):
            if is_external(target):
                continue
            rel, anchor, error = resolve(source, page, target)
            if error:
                problems.add(name, lineno, error)
                continue
            if rel.endswith(".md"):
                graph[name].add(rel)
                if anchor is not None:
                    linked = pages.get(rel) or Page(source, rel)
                    if anchor not in linked.anchors:
                        problems.add(name, lineno, "link `%s`: %s has no heading with anchor #%s"
                                     % (target, rel, anchor))

    reached, todo = {"README.md"}, ["README.md"]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    for name in names[1:]:
        if name not in reached:
            problems.add(name, 1, "not reachable from README.md by links")
        check_audience(source, pages[name], problems)
    return problems.items


def check_audience(source, page, problems):
    m = GENERATED_RE.match(page.lines[0]) if page.lines else None
    if m:
        template = m.group(1)
        if not os.path.exists(os.path.join(source, template)):
            problems.add(page.relpath, 1, "generated from %s, which does not exist" % template)
        return  # the template is a docs page of its own and checked as one
    i = 0
    while i < len(page.lines) and (not page.lines[i].strip() or page.lines[i].startswith("<!--")):
        i += 1
    if i >= len(page.lines) or not page.lines[i].startswith("# "):
        problems.add(page.relpath, i + 1, "a docs page opens with its title (`# ...`)")
        return
    i += 1
    while i < len(page.lines) and not page.lines[i].strip():
        i += 1
    if i >= len(page.lines) or not page.lines[i].startswith(AUDIENCE_PREFIX):
        problems.add(page.relpath, min(i + 1, len(page.lines)),
                     "the first paragraph after the title must start with %s and say who "
                     "the page is for" % AUDIENCE_PREFIX)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the bloomroute binary")
    parser.add_argument("--source", required=True, help="the source tree (README.md, docs/)")
    args = parser.parse_args()
    items = run(args.binary, os.path.abspath(args.source))
    items.sort(key=lambda item: (item.split(":")[0], int(item.split(":")[1])))
    for item in items:
        print(item)
    if items:
        print("check_docs: %d problem(s)" % len(items))
        return 1
    print("check_docs: README.md and docs/*.md agree with `bloomroute --help` and their links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
