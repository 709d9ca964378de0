#!/usr/bin/python3
"""Generates the verbs.h ABI probes (see verbs_layout.sh).

usage: gen_verbs_probe.py OUR_VERBS_H RDMA_INCLUDE_DIR OUT_DIR

Reads our header and rdma-core's installed headers, compares the sets of
public names (aggregates and their members, enumerators and constant
macros, functions, function-like macros) and writes:

  OUT_DIR/layout.c  prints size/alignment of every struct, union and enum,
                    offset/size (and signedness of scalars) of every
                    member, and value/size of every constant; built once
                    against each header, the outputs must be identical.
  OUT_DIR/types.c   built against our header only, with member types and
                    function prototypes as rdma-core declares them: any
                    incompatible type is a compile error.

Name-set differences are printed as "MISMATCH ..." and give exit status 1.
The counts of checked items are printed on the last line.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verbs_hdr  # noqa: E402

SCALARS = {
    "char", "int", "unsigned int", "unsigned", "size_t", "ssize_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "int8_t", "int16_t", "int32_t", "int64_t",
    "__u8", "__u16", "__u32", "__u64", "__aligned_u64",
    "__be16", "__be32", "__be64",
}
# Macros that are not API: include guards and the attribute helper
# rdma-core undefines at the end of its header.
NOT_API = {"INFINIBAND_VERBS_H", "__attribute_const"}


def rdma_header(inc):
    ib = os.path.join(inc, "infiniband")
    h = verbs_hdr.Header([os.path.join(ib, "verbs.h")])
    api = verbs_hdr.Header([os.path.join(ib, "verbs_api.h")])
    uapi = verbs_hdr.Header([os.path.join(ib, "ib_user_ioctl_verbs.h")])
    # verbs_api.h names some ibv_ types as aliases of kernel uAPI types;
    # take those with the alias names (also inside member types).
    alias = {body: name for name, (params, body) in api.defines.items()
             if not params and name.startswith("ibv_")}

    def rename(decl):
        if decl is None:
            return None
        return re.sub(r"\b(ib_uverbs_\w+)\b",
                      lambda m: alias.get(m.group(1), m.group(1)), decl)

    for body, name in alias.items():
        members = uapi.aggregates.get("struct " + body)
        if members is not None:
            h.aggregates["struct " + name] = [(p, rename(d))
                                              for p, d in members]
    for name, val in api.defines.items():
        if name.startswith("IBV_"):
            h.defines[name] = val
    return h


def api_names(h, ours):
    vals, fns = h.macros()
    drop = lambda n: (n in NOT_API or n.endswith("_H") or
                      (ours and n.startswith("PV_VERBS_")))
    consts = set(h.enumerators) | {n for n in vals if not drop(n)}
    fns = {n for n in fns if not drop(n) and n != "RDMA_UAPI_PTR"}
    return consts, fns


def compare(label, theirs, ours, problems):
    for n in sorted(set(theirs) - set(ours)):
        problems.append("MISMATCH %s missing in ours: %s" % (label, n))
    for n in sorted(set(ours) - set(theirs)):
        problems.append("MISMATCH %s not in rdma-core: %s" % (label, n))


def member_type(decl, path):
    name = path.split(".")[-1]
    return re.sub(r"\b%s\b\s*$" % name, "", decl).strip()


def ref(agg, path):
    return "((%s *)0)->%s" % (agg, path)


def write_layout(f, our, consts):
    n = 0
    f.write("#include <infiniband/verbs.h>\n#include <stdio.h>\n"
            "#include <stdint.h>\n\n"
            "#define P(...) printf(__VA_ARGS__)\n"
            "#define SGN(x) (int)((__typeof__(x))-1 < (__typeof__(x))0)\n\n"
            "int main(void)\n{\n")
    for agg in sorted(our.aggregates):
        f.write('\tP("%s size %%zu align %%zu\\n", sizeof(%s), '
                '_Alignof(%s));\n' % (agg, agg, agg))
        n += 2
        for path, decl in our.aggregates[agg]:
            f.write('\tP("%s.%s off %%zu size %%zu\\n", offsetof(%s, %s), '
                    'sizeof(%s));\n' % (agg, path, agg, path, ref(agg, path)))
            n += 2
            if decl and "*" not in decl and "[" not in decl:
                t = member_type(decl, path)
                if t in SCALARS or t.startswith("enum "):
                    f.write('\tP("%s.%s signed %%d\\n", SGN(%s));\n'
                            % (agg, path, ref(agg, path)))
                    n += 1
    for tag in sorted(our.enums):
        f.write('\tP("enum %s size %%zu signed %%d\\n", sizeof(enum %s), '
                '(int)((enum %s)-1 < 0));\n' % (tag, tag, tag))
        n += 2
    for c in sorted(consts):
        f.write('\tP("%s = %%lld size %%zu\\n", (long long)(intptr_t)(%s), '
                'sizeof(%s));\n' % (c, c, c))
        n += 2
    f.write("\treturn 0;\n}\n")
    return n


def write_types(f, theirs, fmacros):
    n_types = n_protos = 0
    f.write("/* Member types and prototypes as rdma-core declares them. */\n"
            "#include <infiniband/verbs.h>\n\n")
    for agg in sorted(theirs.aggregates):
        for path, decl in theirs.aggregates[agg]:
            if decl is None:
                continue
            name = path.split(".")[-1]
            tname = "pv_t%d" % n_types
            if re.search(r"\(\s*\*\s*%s\s*\)" % name, decl):
                td = re.sub(r"\(\s*\*\s*%s\s*\)" % name, "(*%s)" % tname,
                            decl, count=1)
            else:
                td = re.sub(r"\b%s\b(?=\s*(\[[^\]]*\]\s*)*$)" % name, tname,
                            decl)
            f.write("typedef %s;\n_Static_assert(__builtin_types_compatible_p"
                    "(__typeof__(%s), %s), \"type of %s.%s\");\n"
                    % (td, ref(agg, path), tname, agg, path))
            n_types += 1
    for name in sorted(theirs.functions):
        proto, _static, pos = theirs.functions[name]
        # Parenthesised so that function-like macros of the same name
        # (ibv_reg_mr, ibv_query_port) do not expand.
        f.write("%s(%s)%s;\n" % (proto[:pos], name, proto[pos + len(name):]))
        n_protos += 1
    for m in sorted(fmacros):
        f.write("#ifndef %s\n#error \"macro %s missing\"\n#endif\n" % (m, m))
    return n_types, n_protos


def main():
    our_h, inc, out = sys.argv[1:4]
    our = verbs_hdr.Header([our_h])
    theirs = rdma_header(inc)
    problems = []
    their_consts, their_fm = api_names(theirs, False)
    our_consts, our_fm = api_names(our, True)
    compare("constant", their_consts, our_consts, problems)
    compare("function-like macro", their_fm, our_fm, problems)
    # #ifdef must answer the same for every constant.
    compare("constant macro", their_consts & set(theirs.macros()[0]),
            our_consts & set(our.macros()[0]), problems)
    compare("aggregate", theirs.aggregates, our.aggregates, problems)
    compare("function", theirs.functions, our.functions, problems)
    for agg in sorted(set(theirs.aggregates) & set(our.aggregates)):
        a = [p for p, _ in theirs.aggregates[agg]]
        b = [p for p, _ in our.aggregates[agg]]
        if a != b:
            problems.append("MISMATCH members of %s: rdma-core %s, ours %s"
                            % (agg, a, b))
    for name in sorted(set(theirs.functions) & set(our.functions)):
        if theirs.functions[name][1] != our.functions[name][1]:
            problems.append("MISMATCH inline-ness of %s" % name)
    with open(os.path.join(out, "layout.c"), "w") as f:
        n_layout = write_layout(f, our, their_consts & our_consts)
    with open(os.path.join(out, "types.c"), "w") as f:
        n_types, n_protos = write_types(f, theirs, their_fm & our_fm)
    for p in problems:
        print(p)
    print("items: %d layout/values, %d member types, %d prototypes, "
          "%d function-like macros, %d aggregates, %d constants"
          % (n_layout, n_types, n_protos, len(their_fm), len(our.aggregates),
             len(their_consts)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
