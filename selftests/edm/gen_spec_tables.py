#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate genl_test's per-request attribute tables from the family's spec.

  gen_spec_tables.py SPEC UAPI_HEADER OUTPUT

Reads SPEC (Documentation/netlink/specs/edm.yaml) and writes OUTPUT
(edm_spec_tables.h): one FIXTURE_VARIANT_ADD(cmd, ...) per request the
family takes, that is per operation's do and per operation's dump (an
operation with neither is an event and has none). Each variant says

  cmd, dump   the command and whether the request is a dump
  maxattr     the highest attribute of the operation's attribute set
  u32s, u64s, strs, nests
              the request's attributes, by type
  str_max     each of strs' checks max-len: the longest string it takes
  bins, bin_len
              the request's binary attributes and the one length each
              takes (checks min-len equal to max-len)
  flags       the request's flag attributes
  reply_only  the set's other attributes (unused and pad ones left out):
              the kernel rejects them, as spec_check.py reads the spec

and EDM_SPEC_REQUESTS lists every request as { cmd, dump }, so genl_test can
hold its hand-written list of required attributes to the spec's requests.

What the spec cannot say (which attributes a request cannot do without)
stays in genl_test.c. The spec's names are turned into C names as
spec_check.py does, and each must be in UAPI_HEADER with the spec's value.
A malformed spec, a name the header lacks, or a request attribute whose
type genl_test has no checks for fails the build: a message on stderr,
exit status 1, and no OUTPUT written.
"""
import os
import re
import sys

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the source tree at build time
from spec_check import c_name, header_enums, numbered  # noqa: E402 (after the line above)

# The request attribute types genl_test checks, and the variant list of each.
TYPE_LISTS = {"u32": "u32s", "u64": "u64s", "string": "strs", "nest": "nests",
              "binary": "bins", "flag": "flags"}
LISTS = ("u32s", "u64s", "strs", "str_max", "nests", "bins", "bin_len", "flags", "reply_only")
# genl_test also sends a string of this many bytes and expects it refused.
BIG_STRING = 4000
# Attributes no message carries: neither request nor reply-only.
NOT_ATTRS = ("unused", "pad")
WIDTH = 100


class SpecError(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise SpecError(msg)


def names_list(node, what):
    """node, a YAML list of names (None for none), as a list of str."""
    if node is None:
        return []
    need(isinstance(node, list) and all(isinstance(n, str) for n in node),
         f"{what}: not a list of names")
    need(len(set(node)) == len(node), f"{what}: a name listed twice")
    return node


def load_sets(spec):
    """{set name: (C prefix, [(value, attribute)])}, each set checked."""
    sets = {}
    need(isinstance(spec.get("attribute-sets"), list), "no attribute-sets list")
    for s in spec["attribute-sets"]:
        need(isinstance(s, dict) and isinstance(s.get("name"), str),
             "an attribute set without a name")
        what = f"attribute set {s['name']}"
        need(s["name"] not in sets, f"{what}: defined twice")
        need(isinstance(s.get("name-prefix"), str), f"{what}: no name-prefix")
        need(isinstance(s.get("attributes"), list) and s["attributes"],
             f"{what}: no attributes list")
        need(all(isinstance(a, dict) for a in s["attributes"]),
             f"{what}: an attribute that is not a mapping")
        attrs, seen, last = [], set(), -1
        for val, a in numbered(s["attributes"]):
            need(isinstance(a.get("name"), str), f"{what}: an attribute without a name")
            need(isinstance(a.get("type"), str), f"{what}.{a['name']}: no type")
            need(a["name"] not in seen, f"{what}.{a['name']}: defined twice")
            need(isinstance(val, int) and val > last,
                 f"{what}.{a['name']}: value {val!r} not above the one before")
            seen.add(a["name"])
            last = val
            attrs.append((val, a))
        sets[s["name"]] = (s["name-prefix"], attrs)
    return sets


def check_string(what, a):
    """genl_test sends a request string one character longer than its
    max-len, one of BIG_STRING bytes and one without its NUL, and expects
    each refused. Its max-len."""
    checks = a.get("checks") or {}
    need(isinstance(checks, dict), f"{what}: checks is not a mapping")
    need(not checks.get("unterminated-ok"),
         f"{what}: an unterminated-ok string; genl_test expects a string without "
         "its NUL to be refused")
    longest = checks.get("max-len")
    need(isinstance(longest, int) and 0 < longest < BIG_STRING - 1,
         f"{what}: a request string needs a number as checks max-len, below "
         f"{BIG_STRING - 1}; genl_test expects a string one character longer to be "
         "refused")
    return longest


def check_binary(what, a):
    """genl_test sends a request binary one byte shorter and one longer than
    its length, and expects each refused. Its length."""
    checks = a.get("checks") or {}
    need(isinstance(checks, dict), f"{what}: checks is not a mapping")
    n = checks.get("min-len")
    need(isinstance(n, int) and 0 < n < BIG_STRING and checks.get("max-len") == n,
         f"{what}: a request binary needs one length, as checks min-len and max-len")
    return n


def variant_name(op_name, dump):
    """dev-get's do is dev_get, its dump dev_dump; a dump of no -get op X is X_dump."""
    name = op_name.replace("-", "_")
    if not dump:
        return name
    return name[:-4] + "_dump" if name.endswith("_get") else name + "_dump"


def requests(spec, sets):
    """Every request of the spec: a dict per operation's do and dump."""
    ops = spec.get("operations")
    need(isinstance(ops, dict) and isinstance(ops.get("name-prefix"), str) and
         isinstance(ops.get("list"), list), "no operations with a name-prefix and a list")
    need(all(isinstance(op, dict) for op in ops["list"]),
         "an operation that is not a mapping")
    out, seen_ops, seen_vals = [], set(), set()
    for val, op in numbered(ops["list"]):
        need(isinstance(op.get("name"), str), "an operation without a name")
        oname = op["name"]
        need(oname not in seen_ops, f"operation {oname}: defined twice")
        need(isinstance(val, int) and val not in seen_vals,
             f"operation {oname}: value {val!r} taken or not a number")
        seen_ops.add(oname)
        seen_vals.add(val)
        modes = [m for m in ("do", "dump") if m in op]
        if not modes:
            continue  # an event (or unspec): no request takes it
        sname = op.get("attribute-set")
        need(sname in sets, f"operation {oname}: attribute-set {sname!r} is not defined")
        prefix, attrs = sets[sname]
        by_name = {a["name"]: (v, a) for v, a in attrs}
        for mode in modes:
            what = f"operation {oname} {mode}"
            body = op[mode] or {}
            need(isinstance(body, dict), f"{what}: not a mapping")
            req = body.get("request") or {}
            need(isinstance(req, dict), f"{what} request: not a mapping")
            names = names_list(req.get("attributes"), f"{what} request attributes")
            r = {"op": oname, "name": variant_name(oname, mode == "dump"),
                 "cmd": c_name(ops["name-prefix"] + oname), "cmd_value": val,
                 "dump": mode == "dump", "maxattr": c_name(prefix + "max"),
                 "consts": {}}
            r.update({k: [] for k in LISTS})
            for n in names:
                need(n in by_name, f"{what} request: no attribute {n!r} in {sname}")
                v, a = by_name[n]
                awhat = f"{what} request: {sname}.{n}"
                need(a["type"] in TYPE_LISTS,
                     f"{awhat} is of type {a['type']}: genl_test has no checks for it "
                     f"(only {', '.join(TYPE_LISTS)}); teach gen_spec_tables.py and "
                     "genl_test.c")
                if a["type"] == "string":
                    r["str_max"].append(str(check_string(awhat, a)))
                if a["type"] == "binary":
                    r["bin_len"].append(str(check_binary(awhat, a)))
                cn = c_name(prefix + n)
                r["consts"][cn] = v
                r[TYPE_LISTS[a["type"]]].append(cn)
            for v, a in attrs:
                if a["name"] not in names and a["type"] not in NOT_ATTRS:
                    cn = c_name(prefix + a["name"])
                    r["consts"][cn] = v
                    r["reply_only"].append(cn)
            out.append(r)
    need(out, "no operation has a do or a dump")
    names = [r["name"] for r in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    need(not dup, f"requests named alike: {dup}")
    return out


def check_header(reqs, text):
    """Every C name the tables use is in the header, with the spec's value."""
    defined = {}
    for block in header_enums(text):
        defined.update(block)
    for r in reqs:
        consts = dict(r["consts"])
        consts[r["cmd"]] = r["cmd_value"]
        for name, val in consts.items():
            need(name in defined, f"{r['op']}: the uapi header has no {name}")
            need(defined[name] == val,
                 f"{r['op']}: {name} is {defined[name]} in the uapi header, {val} in the spec")
        need(re.search(rf"\b{r['maxattr']}\s*=", text),
             f"{r['op']}: the uapi header has no {r['maxattr']}")


def c_list(field, items):
    """'\t.field = { A, B },' wrapped at WIDTH columns (tabs of 8)."""
    head = f"\t.{field} = {{ "
    col = len(head.expandtabs(8))  # continuation lines align with the first item
    lines, cur = [], head
    for i, it in enumerate(items):
        word = it + (" }," if i == len(items) - 1 else ",")
        if cur != head and len(cur.expandtabs(8)) + len(word) + 1 > WIDTH:
            lines.append(cur.rstrip())
            cur = "\t" * (col // 8) + " " * (col % 8)
        cur += word + " "
    lines.append(cur.rstrip())
    return lines


def render(reqs, spec_path):
    longest = max(len(r[k]) for r in reqs for k in LISTS)
    out = [f"/* Generated by gen_spec_tables.py from {os.path.basename(spec_path)}: "
           "do not edit. */",
           "/*",
           " * One FIXTURE_VARIANT_ADD(cmd, ...) per request of the edm family (each",
           " * operation's do and dump): its command, its attribute set's maxattr, the",
           " * attributes it takes by type (each string's longest, each binary's length),",
           " * and the set's reply-only ones. Include after FIXTURE_VARIANT(cmd), whose",
           " * lists have EDM_SPEC_LIST_MAX entries.",
           " */",
           "",
           f"#define EDM_SPEC_LIST_MAX {longest + 1}\t/* the longest list and its 0 */",
           ""]
    for r in reqs:
        out.append(f"/* {r['op']}, {'dump' if r['dump'] else 'do'} */")
        out.append(f"FIXTURE_VARIANT_ADD(cmd, {r['name']}) {{")
        out.append(f"\t.cmd = {r['cmd']},")
        out.append(f"\t.dump = {int(r['dump'])},")
        out.append(f"\t.maxattr = {r['maxattr']},")
        for k in LISTS:
            if r[k]:
                out += c_list(k, r[k])
        out.append("};")
        out.append("")
    out.append("/* Every request above as { cmd, dump }. */")
    out.append("#define EDM_SPEC_REQUESTS \\")
    out += [f"\t{{ {r['cmd']}, {int(r['dump'])} }}," + (" \\" if i < len(reqs) - 1 else "")
            for i, r in enumerate(reqs)]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, header_path, out_path = sys.argv[1:]
    try:
        with open(spec_path) as f:
            spec = yaml.safe_load(f)
        need(isinstance(spec, dict), "not a YAML mapping")
        reqs = requests(spec, load_sets(spec))
        with open(header_path) as f:
            check_header(reqs, f.read())
    except (OSError, yaml.YAMLError, SpecError) as e:
        print(f"gen_spec_tables.py: {spec_path}: {e}", file=sys.stderr)
        return 1
    text = render(reqs, spec_path)
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
