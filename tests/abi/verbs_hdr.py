"""Small reader for the C declarations in a verbs header.

Enough of C for public RDMA headers: comments, a few known preprocessor
conditionals, struct/union/enum definitions (with nested anonymous
aggregates) and function prototypes or inline definitions.  Used by
gen_verbs_probe.py to list what must match between two headers.
"""
import re

# Conditionals whose value we know; anything else is an error, so that a
# new construct in either header is noticed instead of silently misread.
_KNOWN_FALSE = {"__cplusplus", "RDMA_STATIC_PROVIDERS", "__CHECKER__"}
# rdma-core's verbs_api.h defines this before it includes the uAPI header.
_KNOWN_TRUE = {"RDMA_UAPI_PTR"}
_KNOWN_IF = {
    "__GNUC__ >= 3": True,
    "defined(__GNUC__)": True,
    "UINTPTR_MAX == UINT64_MAX": True,
    "UINTPTR_MAX == UINT32_MAX": False,
    "__BYTE_ORDER == __LITTLE_ENDIAN": True,
    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__": True,
}

IDENT = r"[A-Za-z_]\w*"


class HeaderError(Exception):
    pass


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _cond_value(kind, arg):
    arg = arg.strip()
    if kind in ("ifdef", "ifndef"):
        if arg.endswith("_H"):  # include guards
            return kind == "ifndef"
        if arg in _KNOWN_FALSE:
            return kind == "ifndef"
        if arg in _KNOWN_TRUE:
            return kind == "ifdef"
        raise HeaderError("unknown #%s %s" % (kind, arg))
    if arg in _KNOWN_IF:
        return _KNOWN_IF[arg]
    raise HeaderError("unknown #%s %s" % (kind, arg))


def preprocess(text):
    """Returns (code, defines): the active code without directives, and
    {name: (params or None, body)} for every #define in active code."""
    text = _strip_comments(text).replace("\\\n", " ")
    out, defines = [], {}
    # Stack of [this branch active, some branch already taken].
    stack = []

    def active():
        return all(s[0] for s in stack)

    for line in text.split("\n"):
        m = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if not m:
            out.append(line if active() else "")
            continue
        kind, arg = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            val = _cond_value(kind, arg) if active() else False
            stack.append([val, val])
        elif kind == "elif":
            val = (not stack[-1][1]) and _cond_value("if", arg)
            stack[-1] = [val, stack[-1][1] or val]
        elif kind == "else":
            stack[-1] = [not stack[-1][1], True]
        elif kind == "endif":
            stack.pop()
        elif kind == "define" and active():
            d = re.match(r"(%s)(\([^)]*\))?\s*(.*)" % IDENT, arg)
            defines[d.group(1)] = (d.group(2), d.group(3).strip())
        out.append("")
    return "\n".join(out), defines


def _match_close(s, i, op="{", cl="}"):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == op:
            depth += 1
        elif s[j] == cl:
            depth -= 1
            if depth == 0:
                return j
    raise HeaderError("unbalanced %s at %d" % (op, i))


def split_top(code):
    """Top-level statements: declarations ending in ';' and function
    definitions ending in their closing brace."""
    stmts, start, i = [], 0, 0
    while i < len(code):
        c = code[i]
        if c == "{":
            head = code[start:i].strip()
            j = _match_close(code, i)
            if head.endswith(")"):  # function definition
                stmts.append(code[start:j + 1].strip())
                start = i = j + 1
                continue
            i = j + 1
            continue
        if c == ";":
            stmts.append(code[start:i].strip())
            start = i + 1
        i += 1
    if code[start:].strip():
        raise HeaderError("trailing text: " + code[start:][:80])
    return [s for s in stmts if s]


def _split_members(body):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        elif c == ";" and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    if body[start:].strip():
        raise HeaderError("member without ';': " + body[start:])
    return [p for p in parts if p]


def _norm(s):
    return re.sub(r"\s+", " ", s).strip()


def parse_members(body, prefix=""):
    """[(path, decl)] for every member; decl is None for members whose type
    is an anonymous aggregate (their own members are listed instead)."""
    res = []
    for m in _split_members(body):
        m = _norm(m)
        # A pointer padded to 64 bits (ours and the kernel uAPI's macro).
        ptr = re.match(r"(?:PV_VERBS_U64_PTR|RDMA_UAPI_PTR)\((.*),\s*(%s)\)$"
                       % IDENT, m)
        if ptr:
            m = "union { %s %s; __aligned_u64 %s_data_u64; }" % (
                ptr.group(1), ptr.group(2), ptr.group(2))
        agg = re.match(r"(struct|union)\s*\{", m)
        if agg:
            ob = m.index("{")
            cb = _match_close(m, ob)
            name = m[cb + 1:].strip()
            inner_prefix = prefix + name + "." if name else prefix
            if name:
                res.append((prefix + name, None))
            res.extend(parse_members(m[ob + 1:cb], inner_prefix))
            continue
        fp = re.search(r"\(\s*\*\s*(%s)\s*\)" % IDENT, m)
        if fp:
            res.append((prefix + fp.group(1), m))
            continue
        plain = re.match(r"(.*?)(%s)\s*((\[[^\]]*\]\s*)*)$" % IDENT, m)
        if not plain or "," in m:
            raise HeaderError("cannot read member: " + m)
        res.append((prefix + plain.group(2), m))
    return res


def _strip_attrs(s):
    s = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", s)
    return _norm(re.sub(r"\b(__attribute_const|PV_VERBS_CONST_FN)\b", " ", s))


class Header:
    def __init__(self, paths):
        self.aggregates = {}  # "struct x" -> [(path, decl)]
        self.enums = {}  # enum tag ("" if anonymous) list -> [names]
        self.enumerators = []
        self.functions = {}  # name -> (prototype text, is_static, name_pos)
        self.defines = {}
        for p in paths:
            with open(p) as f:
                code, defs = preprocess(f.read())
            self.defines.update(defs)
            for st in split_top(code):
                self._statement(_norm(st))

    def _statement(self, st):
        m = re.match(r"(struct|union)\s+(%s)\s*\{" % IDENT, st)
        if m:
            ob = st.index("{")
            cb = _match_close(st, ob)
            self.aggregates["%s %s" % (m.group(1), m.group(2))] = \
                parse_members(st[ob + 1:cb])
            return
        m = re.match(r"enum\s*(%s)?\s*\{" % IDENT, st)
        if m:
            ob = st.index("{")
            body = st[ob + 1:_match_close(st, ob)]
            names = [re.match(r"\s*(%s)" % IDENT, e).group(1)
                     for e in body.split(",") if e.strip()]
            if m.group(1):
                self.enums[m.group(1)] = names
            self.enumerators.extend(names)
            return
        if re.match(r"(struct|union|enum)\s+%s$" % IDENT, st):
            return  # forward declaration
        if "(" in st:
            proto = st
            if st.endswith("}"):
                proto = st[:st.index("{")]
            proto = _strip_attrs(proto)
            m = re.search(r"(%s)\s*\(" % IDENT, proto)
            if not m:
                raise HeaderError("cannot read function: " + proto)
            static = bool(re.match(r"static\b", proto))
            self.functions[m.group(1)] = (proto, static, m.start(1))
            return
        raise HeaderError("cannot read statement: " + st[:100])

    def macros(self):
        """(value macros, function-like macros) by name."""
        vals = {n for n, (params, _) in self.defines.items() if not params}
        fns = {n for n, (params, _) in self.defines.items() if params}
        return vals, fns
