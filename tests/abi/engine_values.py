#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Private copies of verbs values in C sources (tests/abi/engine_values.sh).

usage: engine_values.py VERBS_H FILE...

Prints one "COPY" or "ORDER" line per finding and exits 1 if there is any:
 COPY   a #define or an enumerator whose value is a number and whose name,
        less any leading prefix (ENG_, WR_ of ENG_WR_, ...), is a constant
        of verbs.h less its IBV_ (WR_SEND, QPT_RC, ...; IBV_EVENT_X also
        as EV_X, the short form the engine used);
 ORDER  an ordered comparison (<, >, <=, >=) with a WR opcode, WC opcode
        or QP state, ours or verbs.h's: their order means nothing, so what
        a value means is asked through a named predicate (eng_wr.h).
"""
import re
import sys

IBV_NAME = re.compile(r"\bIBV_([A-Z0-9_]+)\b")
# A value made of numbers only: 5, 0x3ffu, (1u << 20), (0x2u | 0x4u).
NUMERIC = r"\(?\s*(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*(?:\s*(?:<<|\||\+|-)\s*\(?\s*(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\s*\)?)*\s*\)?"
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*)\s+(" + NUMERIC + r")\s*$")
ENUMERATOR = re.compile(r"(?<![\w.>])([A-Z][A-Z0-9_]*)\s*=\s*(" + NUMERIC + r")(?=\s*(?:,|}|$))")
ORDERED = re.compile(
    r"(?<![<>=!-])(?:<=|>=|<|>)(?![<>=])\s*\(?\s*(?:IBV_|ENG_)?(?:WR|WC|QPS)_[A-Z0-9_]+\b"
    r"|\b(?:IBV_|ENG_)?(?:WR|WC|QPS)_[A-Z0-9_]+\s*\)?\s*(?<![<>=!-])(?:<=|>=|<|>)(?![<>=])")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def verbs_names(path):
    with open(path, encoding="utf-8") as f:
        names = set(IBV_NAME.findall(strip_comments(f.read())))
    for n in list(names):
        if n.startswith("EVENT_"):
            names.add("EV_" + n[len("EVENT_"):])
    return names


def copied_name(name, names):
    parts = name.split("_")
    for i in range(len(parts)):
        tail = "_".join(parts[i:])
        if tail in names:
            return tail
    return None


def main():
    names = verbs_names(sys.argv[1])
    found = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            lines = strip_comments(f.read()).split("\n")
        for no, line in enumerate(lines, 1):
            m = DEFINE.match(line)
            for m in [m] if m else ENUMERATOR.finditer(line):
                tail = copied_name(m.group(1), names)
                if tail:
                    print("COPY %s:%d: %s = %s (verbs.h: IBV_%s)"
                          % (path, no, m.group(1), m.group(2).strip(), tail))
                    found += 1
            if ORDERED.search(line):
                print("ORDER %s:%d: %s" % (path, no, line.strip()))
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
