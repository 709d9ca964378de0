#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""File-level call graph of a set of object files, from their symbol tables.

usage: layering_graph.py edges OBJ...      prints "a -> b sym..." per edge
       layering_graph.py cycles ALLOW OBJ...
           prints each cycle (strongly connected component of more than one
           file) left once the edges listed in ALLOW ("a -> b  # why" lines)
           are removed; exits 1 if there is one, 0 if none.

An edge a -> b means a.o has an undefined symbol b.o defines (nm -P: "U"
against T/D/B/R/...).  Static functions and calls through pointers (the
pollables' ready callbacks) are not edges: a callback is how a lower file
is handed work from above without depending on it.
"""
import collections
import os
import subprocess
import sys

DEFINED = set("TDBRGSVWC")


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, undefs = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            undefs.add(f[0])
        elif f[1] in DEFINED:
            defs.add(f[0])
    return defs, undefs


def graph(objs):
    defs, undefs = {}, {}
    for o in objs:
        name = os.path.basename(o)[:-2]
        defs[name], undefs[name] = symbols(o)
    owner = {s: n for n, d in defs.items() for s in d}
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for n, u in undefs.items():
        edges[n]
        for s in u:
            if s in owner and owner[s] != n:
                edges[n][owner[s]].add(s)
    return edges


def sccs(edges):
    """Tarjan's algorithm, iterative; components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def read_allow(path):
    allow = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 3 and line[1] == "->":
                allow.add((line[0], line[2]))
    return allow


def main(argv):
    if len(argv) >= 2 and argv[1] == "edges":
        edges = graph(argv[2:])
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(a, "->", b, " ".join(sorted(edges[a][b])))
        return 0
    if len(argv) >= 3 and argv[1] == "cycles":
        allow = read_allow(argv[2])
        edges = graph(argv[3:])
        for a, b in sorted(allow):
            if b not in edges.get(a, {}):
                print(f"note: allowed edge {a} -> {b} no longer exists")
            else:
                del edges[a][b]
        comps = sccs(edges)
        for c in comps:
            print(f"cycle of {len(c)} files: {' '.join(c)}")
            for a in c:
                for b in sorted(edges[a]):
                    if b in c:
                        syms = " ".join(sorted(edges[a][b]))
                        print(f"    {a} -> {b}: {syms}")
        return 1 if comps else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
