#!/usr/bin/python3
"""Public names of a set of C headers, and probes that compare two copies.

usage: hdr_names.py names PREPROCESSED HEADER...     > names.txt
       hdr_names.py classify-probe NAMES OUT.c INCLUDES
       hdr_names.py classify NAMES ERRORS OUT.c INCLUDES   (rewrites NAMES)
       hdr_names.py rdma-probe NAMES INCLUDES OUT.c
       hdr_names.py ours-probe NAMES VALUES INCLUDES OUT.c
       hdr_names.py verdict NAMES VALUES OUT.c ERRORS

"names" reads `cc -E -dD` output of a file that includes the headers and
lists, for the lines that came from HEADER... (absolute paths), every
object-like and function-like macro still defined at the end, every
enumerator, struct/union/enum tag with a body and every member of the
structs and unions (dotted paths through named nested aggregates,
anonymous ones flattened, bit-fields left out), typedef and function
declaration, one "KIND NAME [MACRO BODY | TAG KIND]" per line.

The probes (see verbs_names.sh): built against rdma-core's headers, the
first tells which macros are integer constant expressions (a compile
error each one that is not) and then prints the value, size and
signedness of every constant and the size/alignment of every tag and
typedef; from those figures the second asserts each name in our headers,
one check per line, and "verdict" names each failing line's item.

Nothing of the headers themselves is stored: everything is read at run
time.
"""
import re
import sys

KEYWORDS = {
    "struct", "union", "enum", "typedef", "static", "inline", "extern",
    "const", "volatile", "unsigned", "signed", "int", "char", "short",
    "long", "void", "float", "double", "_Bool", "__inline", "__inline__",
    "__extension__", "__restrict", "restrict", "_Static_assert", "sizeof",
    "__typeof__", "typeof", "__const", "register", "auto", "_Alignas",
    "__attribute__", "__asm__", "asm", "__volatile__", "return", "if",
    "else", "for", "while", "do", "switch", "case", "default", "break",
    "continue", "goto",
}
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|'(?:\\.|[^'])*'|\"(?:\\.|[^\"])*\""
                   r"|->|\+\+|--|<<|>>|[<>=!]=|&&|\|\||\S")


def read_preprocessed(path, headers):
    """Returns (code tokens from headers, {macro: (params, body)})."""
    want = set(headers)
    cur = None
    code = []
    macros = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r'#\s*(\d+)\s+"([^"]*)"', line)
            if m:
                cur = m.group(2)
                continue
            if cur not in want:
                continue
            m = re.match(r"#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)", line)
            if m:
                macros[m.group(1)] = (m.group(2), m.group(3).strip())
                continue
            m = re.match(r"#\s*undef\s+(\w+)", line)
            if m:
                macros.pop(m.group(1), None)
                continue
            if line.startswith("#"):
                continue
            code.append(line)
    return TOKEN.findall("".join(code)), macros


def strip_attrs(toks):
    """Drops __attribute__((...)), __asm__(...) and __extension__."""
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t in ("__attribute__", "__asm__", "asm", "__declspec") and \
                i + 1 < len(toks) and toks[i + 1] == "(":
            depth, i = 0, i + 1
            while i < len(toks):
                depth += {"(": 1, ")": -1}.get(toks[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        if t != "__extension__":
            out.append(t)
        i += 1
    return out


def declarations(toks):
    """Splits top-level tokens into declarations; a function body ends
    its declaration (the body is dropped)."""
    decl, depth, out, i = [], 0, [], 0
    while i < len(toks):
        t = toks[i]
        if t == "{" and depth == 0 and decl and decl[-1] == ")" and \
                "typedef" not in decl and "=" not in decl:
            # a function definition: skip the body
            d, i = 0, i
            while i < len(toks):
                d += {"{": 1, "}": -1}.get(toks[i], 0)
                i += 1
                if d == 0:
                    break
            out.append(decl)
            decl = []
            continue
        if t in "{([":
            depth += 1
        elif t in "})]":
            depth -= 1
        if t == ";" and depth == 0:
            out.append(decl)
            decl = []
        else:
            decl.append(t)
        i += 1
    return out


def enum_body(toks, i):
    """Enumerator names of the enum body that opens at toks[i] == '{'."""
    names, depth, expect = [], 0, True
    for t in toks[i:]:
        if t in "{([":
            depth += 1
            if depth == 1:
                continue
        elif t in "})]":
            depth -= 1
            if depth == 0:
                break
        if depth == 1:
            if expect and re.match(r"[A-Za-z_]\w*$", t):
                names.append(t)
                expect = False
            elif t == ",":
                expect = True
    return names


IDENT_RE = re.compile(r"[A-Za-z_]\w*$")


def balanced(toks, j):
    """Index after the bracket group that opens at toks[j]."""
    depth = 0
    while j < len(toks):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(
            toks[j], 0)
        j += 1
        if depth == 0:
            break
    return j


def declarator_names(toks):
    """Names declared by 'a, *b[2], (*c)(int)' (type already removed or
    leading): the function-pointer name, else the last identifier
    outside brackets, for each comma-separated piece.  Bit-fields give
    no name (no offsetof)."""
    pieces, cur, depth = [], [], 0
    for t in toks:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == "," and depth == 0:
            pieces.append(cur)
            cur = []
        else:
            cur.append(t)
    pieces.append(cur)
    out = []
    for p in pieces:
        m = re.search(r"\( \* (\w+) \)", " ".join(p))
        if m:
            out.append(m.group(1))
            continue
        depth, last, bitfield = 0, None, False
        for t in p:
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
            elif depth == 0 and t == ":":
                bitfield = True
            elif depth == 0 and IDENT_RE.match(t) and t not in KEYWORDS \
                    and not bitfield:
                last = t
        if last and not bitfield:
            # a flexible array member has no size: marked "[]"
            flex = " ".join(p).endswith("[ ]")
            out.append(last + ("[]" if flex else ""))
    return out


def members(toks, i):
    """Member paths of the aggregate body opening at toks[i] ('{'), with
    anonymous members' members promoted; returns (paths, index after
    the closing brace)."""
    paths, decl, j = [], [], i + 1
    while j < len(toks) and toks[j] != "}":
        t = toks[j]
        if t in ("struct", "union") and j + 1 < len(toks) and (
                toks[j + 1] == "{" or (IDENT_RE.match(toks[j + 1]) and
                                       j + 2 < len(toks) and
                                       toks[j + 2] == "{")):
            k = j + 1 if toks[j + 1] == "{" else j + 2
            sub, j = members(toks, k)
            rest = []
            while j < len(toks) and toks[j] != ";":
                rest.append(toks[j])
                j += 1
            j += 1
            names = declarator_names(rest)
            if not names:
                paths += sub
            for n in names:
                paths.append(n)
                paths += [n + "." + x for x in sub]
            decl = []
            continue
        if t in "([{":
            e = balanced(toks, j)
            decl += toks[j:e]
            j = e
            continue
        if t == ";":
            # the type's own words come first: drop up to the first
            # token that can start a declarator list
            paths += declarator_names(decl)
            decl = []
        else:
            decl.append(t)
        j += 1
    return paths, j + 1


def scan(decl, names):
    for i, t in enumerate(decl):
        if t in ("struct", "union", "enum") and i + 2 < len(decl) and \
                re.match(r"[A-Za-z_]\w*$", decl[i + 1]) and \
                decl[i + 2] == "{":
            names.add(("tag_" + t, decl[i + 1]))
            if t != "enum":
                for m in members(decl, i + 2)[0]:
                    names.add(("member", "%s.%s" % (decl[i + 1], m), t))
        if t == "enum":
            j = i + 1
            if j < len(decl) and decl[j] != "{":
                j += 1
            if j < len(decl) and decl[j] == "{":
                for e in enum_body(decl, j):
                    names.add(("enumerator", e))
    if not decl:
        return
    flat = top_level(decl)
    if decl[0] == "typedef":
        m = re.search(r"\( \* (\w+) \)", " ".join(flat))
        if m:
            names.add(("typedef", m.group(1)))
            return
        idents = [t for t in flat if re.match(r"[A-Za-z_]\w*$", t) and
                  t not in KEYWORDS]
        if idents:
            names.add(("typedef", idents[-1]))
        return
    if decl[0] == "_Static_assert":
        return
    for i, t in enumerate(flat[:-1]):
        if flat[i + 1] == "(" and re.match(r"[A-Za-z_]\w*$", t) and \
                t not in KEYWORDS and (i == 0 or flat[i - 1] != "("):
            names.add(("function", t))
            return


def top_level(decl):
    """decl without what is inside braces (aggregate bodies); parens are
    kept but their contents reduced to '(' ')' after the first level."""
    out, depth = [], 0
    for t in decl:
        if t == "{":
            depth += 1
            continue
        if t == "}":
            depth -= 1
            continue
        if depth == 0:
            out.append(t)
    # collapse parameter lists: keep "( * name )" and the first "("
    res, pdepth = [], 0
    for t in out:
        if t == "(":
            pdepth += 1
            if pdepth == 1:
                res.append(t)
            continue
        if t == ")":
            pdepth -= 1
            if pdepth == 0:
                res.append(t)
            continue
        if pdepth == 0 or (pdepth == 1 and res and res[-1] in ("(", "*")
                           and (t == "*" or res[-1] == "*")):
            res.append(t)
    return res


def cmd_names(pre, headers):
    toks, macros = read_preprocessed(pre, headers)
    names = set()
    for d in declarations(strip_attrs(toks)):
        scan(d, names)
    for n, (params, body) in macros.items():
        if params is not None:
            names.add(("fmacro", n))
        elif body == "" and re.search(r"_H_*$", n):
            continue	# include guard
        else:
            names.add(("macro", n))
    macro_body = {n: b for n, (p, b) in macros.items() if p is None}
    for item in sorted(names, key=lambda x: (x[0], x[1])):
        kind, n = item[0], item[1]
        if kind == "macro":
            print("macro %s %s" % (n, macro_body[n]))
        elif kind == "member":
            print("member %s %s" % (n, item[2]))
        else:
            print("%s %s" % (kind, n))


def load_names(path):
    items = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            items.append((parts[0], parts[1],
                          parts[2] if len(parts) > 2 else ""))
    return items


def includes_text(includes):
    return "".join("#include <%s>\n" % h for h in includes.split(",") if h)


TAGKW = {"tag_struct": "struct", "tag_union": "union", "tag_enum": "enum"}


def cmd_rdma_probe(names, includes, out):
    """Prints NAME VALUE SIZE SIGNED for each constant, NAME SIZE ALIGN
    for tags and typedefs."""
    items = load_names(names)
    with open(out, "w") as f:
        f.write(includes_text(includes))
        f.write("#include <stddef.h>\n#include <stdio.h>\n#define SGN(x) (int)((__typeof__(x))-1"
                " < (__typeof__(x))0)\nint main(void)\n{\n")
        for kind, n, body in items:
            if kind in ("const", "enumerator"):
                f.write('\tprintf("%s %%llu %%zu %%d\\n", (unsigned long '
                        'long)(%s), sizeof(%s), SGN(%s));\n' % (n, n, n, n))
            elif kind in TAGKW:
                t = "%s %s" % (TAGKW[kind], n)
                f.write('\tprintf("%s %%zu %%zu\\n", sizeof(%s), '
                        '_Alignof(%s));\n' % (n, t, t))
            elif kind == "typedef":
                f.write('\tprintf("%s %%zu %%zu\\n", sizeof(%s), '
                        '__alignof__(%s));\n' % (n, n, n))
            elif kind == "member":
                t, path, size = member_parts(n, body)
                f.write('\tprintf("%s %%zu %%zu\\n", offsetof(%s, %s), '
                        '(size_t)%s);\n' % (n, t, path, size))
        f.write("\treturn 0;\n}\n")


def cmd_classify_probe(names, out, includes):
    """One _Static_assert per macro: the lines that fail to compile are
    the macros that are not integer constant expressions."""
    items = load_names(names)
    with open(out, "w") as f:
        f.write(includes_text(includes))
        for kind, n, _ in items:
            if kind == "macro":
                f.write("_Static_assert(((%s) | 0) == ((%s) | 0), \"\");\n"
                        % (n, n))
            else:
                f.write("\n")


def cmd_classify(names, errors, out, includes):
    items = load_names(names)
    first = includes_text(includes).count("\n") + 1
    bad = error_lines(errors, out)
    tags = {n: TAGKW[k] for k, n, _ in items if k in TAGKW}
    with open(names, "w") as f:
        for i, (kind, n, body) in enumerate(items):
            if kind == "macro":
                if first + i not in bad:
                    kind = "const"
                elif body in tags:
                    kind = "alias_" + tags[body]
            f.write("%s %s %s\n" % (kind, n, body))


def error_lines(errors, src):
    base = re.escape(src.split("/")[-1])
    bad = {}
    with open(errors, errors="replace") as f:
        for line in f:
            m = re.match(r".*%s:(\d+):(?:\d+:)? (?:fatal )?error: (.*)" %
                         base, line)
            if m:
                bad.setdefault(int(m.group(1)), m.group(2))
    return bad


def load_values(path):
    vals = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            vals[p[0]] = p[1:]
    return vals


def member_parts(n, body):
    """(aggregate type, member path, size expression) of a member item
    "tag.path" of a struct or union; a flexible array's size is 0."""
    tag, path = n.split(".", 1)
    t = "%s %s" % (body, tag)
    if path.endswith("[]"):
        return t, path[:-2], "0"
    return t, path, "sizeof(((%s *)0)->%s)" % (t, path)


def check_line(kind, n, body, vals):
    v = vals.get(n)
    if kind in ("const", "enumerator"):
        return ("_Static_assert((unsigned long long)(%s) == %sull && "
                "sizeof(%s) == %s && SGN(%s) == %s, \"%s\");"
                % (n, v[0], n, v[1], n, v[2], n))
    if kind in TAGKW:
        t = "%s %s" % (TAGKW[kind], n)
        return ("_Static_assert(sizeof(%s) == %s && _Alignof(%s) == %s, "
                "\"%s\");" % (t, v[0], t, v[1], n))
    if kind.startswith("alias_"):
        t = "%s %s" % (kind[6:], n)
        bv = vals.get(body)
        return ("_Static_assert(sizeof(%s) == %s, \"%s\");"
                % (t, bv[0], n))
    if kind == "typedef":
        return ("_Static_assert(sizeof(%s) == %s && __alignof__(%s) == %s, "
                "\"%s\");" % (n, v[0], n, v[1], n))
    if kind == "member":
        t, path, size = member_parts(n, body)
        return ("_Static_assert(offsetof(%s, %s) == %s && %s == %s, \"%s\");"
                % (t, path, v[0], size, v[1], n))
    if kind == "function":
        # parenthesised: a function-like macro of the same name
        # (ibv_query_port) does not expand
        return "static void *pv_f_%s = (void *)&(%s);" % (n, n)
    # function-like macros and macros without a constant value: defined
    return "#ifndef %s\n#error %s\n#endif" % (n, n)


def cmd_ours_probe(names, values, includes, out):
    items = load_names(names)
    vals = load_values(values)
    with open(out, "w") as f:
        f.write(includes_text(includes))
        f.write("#include <stddef.h>\n#define SGN(x) (int)((__typeof__(x))-1 < "
                "(__typeof__(x))0)\n")
        for kind, n, body in items:
            f.write("/* %s %s */\n%s\n" % (kind, n,
                                           check_line(kind, n, body, vals)))


def cmd_verdict(names, values, src, errors):
    items = load_names(names)
    lines = open(src).read().split("\n")
    owner = {}
    cur = None
    for no, line in enumerate(lines, 1):
        m = re.match(r"/\* (\S+) (\S+) \*/$", line)
        if m:
            cur = (m.group(1), m.group(2))
        elif cur:
            owner[no] = cur
    bad = error_lines(errors, src)
    vals = load_values(values)
    failed = {}
    for no, msg in sorted(bad.items()):
        it = owner.get(no)
        if it is None or it in failed:
            continue
        why = "differs" if "static assertion" in msg else "missing"
        failed[it] = why
    kinds = {}
    for kind, n, _ in items:
        k = {"enumerator": "const", "alias_struct": "tag",
             "alias_union": "tag", "alias_enum": "tag", "tag_struct": "tag",
             "tag_union": "tag", "tag_enum": "tag"}.get(kind, kind)
        tot, bad_n = kinds.get(k, (0, 0))
        kinds[k] = (tot + 1, bad_n + ((kind, n) in failed))
    for (kind, n), why in sorted(failed.items(), key=lambda x: x[0][1]):
        extra = ""
        if why == "differs" and n in vals:
            extra = " (rdma-core: %s)" % " ".join(vals[n])
        print("%s %s %s%s" % (why.upper(), kind, n, extra))
    print("names: %d checked, %d failed (%s)" % (
        len(items), len(failed),
        ", ".join("%s %d/%d" % (k, t - b, t)
                  for k, (t, b) in sorted(kinds.items()))))
    return 1 if failed else 0


def main(argv):
    cmd = argv[1]
    if cmd == "names":
        cmd_names(argv[2], argv[3:])
    elif cmd == "rdma-probe":
        cmd_rdma_probe(argv[2], argv[3], argv[4])
    elif cmd == "classify-probe":
        cmd_classify_probe(argv[2], argv[3], argv[4])
    elif cmd == "classify":
        cmd_classify(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "ours-probe":
        cmd_ours_probe(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "verdict":
        return cmd_verdict(argv[2], argv[3], argv[4], argv[5])
    else:
        sys.exit("unknown command " + cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
