#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the edm netlink family to its spec, Documentation/netlink/specs/edm.yaml.

  spec_check.py header   the spec is consistent (every name it refers to
                         exists), and the uapi header lists the same constants,
                         enums, attributes, commands and groups, with the same
                         values, and no attribute space or command outside it
  spec_check.py readme   README.md's netlink table is the one the spec makes
                         (the header mode checks it too)
  spec_check.py readme-write
                         rewrite that table from the spec
  spec_check.py kernel   (in the VM, edm.ko loaded) the running family has the
                         spec's commands with its do/dump/admin-perm flags (and
                         none for a command that is only an event), and
                         each command's policy accepts exactly the spec's
                         request attributes, with the spec's types and checks;
                         a nest's policy is the nested attribute set's, all of
                         its attributes but unused and pad ones, compared the
                         same way (recursively), with its highest attribute
                         as the kernel's maxtype

Reply-only attributes are the ones an operation's request does not list: the
kernel rejects them (NLA_REJECT) and leaves them out of its policy dump, so
the two sides agree on them by omission.

Prints TAP, one case per comparison; exits 1 if any case fails.
"""
import os
import re
import socket
import struct
import sys

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC = os.path.join(TOP, "Documentation/netlink/specs/edm.yaml")
HEADER = os.path.join(TOP, "include/uapi/linux/edm.h")


def c_name(*parts):
    return "_".join(p for p in parts if p).upper().replace("-", "_")


def numbered(items):
    """(value, item) pairs: an item's "value" key, else one past the last."""
    val = 0
    for item in items:
        val = item.get("value", val)
        yield val, item
        val += 1


def spec_enums(spec):
    """{C enum-constant name: value} the spec implies, grouped by block."""
    fam = spec["name"]
    blocks = {}
    for d in spec.get("definitions", []):
        if d["type"] != "enum":
            continue
        prefix = d.get("name-prefix", f"{fam}-{d['name']}-")
        names = [e if isinstance(e, str) else e["name"] for e in d["entries"]]
        blocks[f"enum {d['name']}"] = [(c_name(prefix + n), i) for i, n in enumerate(names)]
    for aset in spec["attribute-sets"]:
        blocks[f"attribute-set {aset['name']}"] = [
            (c_name(aset["name-prefix"] + a["name"]), v) for v, a in numbered(aset["attributes"])]
    ops = spec["operations"]
    blocks["operations"] = [(c_name(ops["name-prefix"] + op["name"]), v)
                            for v, op in numbered(ops["list"])]
    return blocks


def attr_sets(spec):
    """{set name: {attribute name: (value, attribute)}}."""
    return {s["name"]: {a["name"]: (v, a) for v, a in numbered(s["attributes"])}
            for s in spec["attribute-sets"]}


def enum_values(spec):
    """{enum name: [values]} of the spec's enum definitions, unspec left out."""
    return {d["name"]: [v for v, e in numbered(
                [e if isinstance(e, dict) else {"name": e} for e in d["entries"]])
                        if e["name"] != "unspec"]
            for d in spec.get("definitions", []) if d["type"] == "enum"}


def check_spec(spec, tap):
    """Every name the spec refers to exists; enum attributes take their enum."""
    sets, enums = attr_sets(spec), enum_values(spec)
    errs = []
    for sname, aset in sets.items():
        for name, (_, a) in aset.items():
            nested = a.get("nested-attributes")
            if a["type"] == "nest" and nested not in sets:
                errs.append(f"{sname}.{name}: nested-attributes {nested!r} is no attribute set")
            if "enum" in a and a["enum"] not in enums:
                errs.append(f"{sname}.{name}: enum {a['enum']!r} is not defined")
    for op in spec["operations"]["list"]:
        aset = op.get("attribute-set")
        if aset is None:
            continue
        if aset not in sets:
            errs.append(f"{op['name']}: attribute-set {aset!r} is not defined")
            continue
        for mode in ("do", "dump"):
            for msg in ("request", "reply"):
                for n in ((op.get(mode) or {}).get(msg) or {}).get("attributes", []):
                    if n not in sets[aset]:
                        errs.append(f"{op['name']} {mode} {msg}: no attribute {n!r} in {aset}")
        for n in (op.get("event") or {}).get("attributes", []):
            if n not in sets[aset]:
                errs.append(f"{op['name']} event: no attribute {n!r} in {aset}")
    tap.case("spec: attribute sets, enums and attributes referred to exist", errs)

    # An enum attribute takes every value of its enum but unspec: checks
    # min its first value (1 after an unspec) and max its last, so a new
    # enum entry needs its max raised.
    errs = []
    for sname, aset in sets.items():
        for name, (_, a) in aset.items():
            vals = enums.get(a.get("enum"))
            if not vals or a.get("enum-as-flags"):
                continue
            checks = a.get("checks", {})
            want = (min(vals), max(vals))
            got = (checks.get("min"), checks.get("max"))
            if got != want:
                errs.append(f"{sname}.{name} (enum {a['enum']}): checks min/max {got}, "
                            f"the enum's values {want}")
    tap.case("spec: enum attributes' checks span their enum", errs)


def header_enums(text):
    """Every enum block of the header as [(name, value)], markers dropped.

    Markers are __X_CNT and the constants defined from other names (X_MAX =
    __X_CNT - 1); a counter named like EDM_A_FSTAT_ITER_MAX is no marker.
    """
    blocks = []
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\};", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        val, out = 0, []
        for item in filter(None, (x.strip() for x in body.split(","))):
            m = re.fullmatch(r"(\w+)(?:\s*=\s*(.+))?", item)
            name, expr = m.group(1), m.group(2)
            if name.startswith("__"):
                continue
            if expr is not None:
                try:
                    val = int(expr, 0)
                except ValueError:
                    continue  # a marker such as X_MAX = __X_CNT - 1
            out.append((name, val))
            val += 1
        blocks.append(out)
    return blocks


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def case(self, name, errors):
        self.n += 1
        if errors:
            self.failed += 1
            print(f"not ok {self.n} {name}")
            for e in errors:
                print(f"# {e}")
        else:
            print(f"ok {self.n} {name}")

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0


def check_header(spec, tap):
    text = open(HEADER).read()
    hdr = header_enums(text)
    check_spec(spec, tap)
    blocks = spec_enums(spec)
    for what, want in blocks.items():
        got = next((b for b in hdr if b and b[0][0] == want[0][0]), None)
        errs = []
        if got is None:
            errs.append(f"no enum starting with {want[0][0]} in the header")
        elif got != want:
            errs.append(f"spec {want}")
            errs.append(f"header {got}")
        tap.case(f"header: {what} ({want[0][0]}, ...)", errs)

    # Attribute spaces and commands are netlink: the spec must have them all.
    firsts = {want[0][0] for want in blocks.values()}
    extra = [b[0][0] for b in hdr if b and b[0][0].startswith(("EDM_A_", "EDM_CMD_"))
             and b[0][0] not in firsts]
    tap.case("header: no attribute space or command list outside the spec",
             [f"enum starting with {e} is not in the spec" for e in extra])

    fam = spec["name"]
    consts = {c_name(fam, d["name"]): d["value"]
              for d in spec.get("definitions", []) if d["type"] == "const"}
    consts[c_name(spec["c-family-name"])] = f'"{fam}"'
    for g in spec["mcast-groups"]["list"]:
        consts[c_name(fam, "mcgrp", g["name"])] = f'"{g["name"]}"'
    errs = []
    for name, val in consts.items():
        m = re.search(rf"#define\s+{name}\s+(\S+)", text)
        if not m:
            errs.append(f"{name} missing")
        elif str(val) != m.group(1):
            errs.append(f"{name}: spec {val}, header {m.group(1)}")
    tap.case("header: constants, family name and multicast groups", errs)


# --- the kernel side: generic netlink controller queries ------------------

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY = 3, 10
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
CTRL_ATTR_OPS, CTRL_ATTR_MCAST_GROUPS = 6, 7
CTRL_ATTR_POLICY, CTRL_ATTR_OP_POLICY = 8, 9
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_POLICY_DO, CTRL_ATTR_POLICY_DUMP = 1, 2
GENL_ADMIN_PERM, GENL_CMD_CAP_DO, GENL_CMD_CAP_DUMP = 0x01, 0x02, 0x04
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
# enum netlink_policy_type_attr (uapi/linux/netlink.h)
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_S, NL_POLICY_TYPE_ATTR_MAX_VALUE_S = 2, 3
NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 4, 5
NL_POLICY_TYPE_ATTR_MIN_LENGTH, NL_POLICY_TYPE_ATTR_MAX_LENGTH = 6, 7
NL_POLICY_TYPE_ATTR_POLICY_IDX, NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE = 8, 9
NL_POLICY_TYPE_ATTR_BITFIELD32_MASK, NL_POLICY_TYPE_ATTR_MASK = 10, 12
# enum netlink_attribute_type, named as the spec's types. The spec's
# "string" is the kernel's NLA_NUL_STRING; NLA_STRING is "string" with
# checks: unterminated-ok.
NL_ATTR_TYPE = {1: "flag", 2: "u8", 3: "u16", 4: "u32", 5: "u64", 6: "s8", 7: "s16",
                8: "s32", 9: "s64", 10: "binary", 11: "string-unterminated",
                12: "string", 13: "nest", 14: "nest-array", 15: "bitfield32"}
INT_LIMITS = {f"{s}{b}": ((-(1 << (b - 1)), (1 << (b - 1)) - 1) if s == "s"
                          else (0, (1 << b) - 1))
              for s in "us" for b in (8, 16, 32, 64)}
# Deeper nests are not compared (the kernel's policies may be recursive).
NEST_DEPTH_MAX = 8


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[typ & 0x3FFF] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def nest_list(buf):
    return list(attrs(buf).items())


def attr(typ, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, typ) + data + b"\0" * ((4 - ln % 4) % 4)


def ctrl_query(cmd, name, dump):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    payload = struct.pack("BBH", cmd, 1, 0) + attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0")
    flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
    s.send(struct.pack("IHHII", 16 + len(payload), GENL_ID_CTRL, flags, 1, 0) + payload)
    msgs = []
    while True:
        data = s.recv(1 << 20)
        off = 0
        while off < len(data):
            ln, typ, _, _, _ = struct.unpack_from("IHHII", data, off)
            body = data[off + 16:off + ln]
            off += (ln + 3) & ~3
            if typ == NLMSG_DONE:
                return msgs
            if typ == NLMSG_ERROR:
                err = struct.unpack_from("i", body)[0]
                if err:
                    raise OSError(-err, f"genl ctrl cmd {cmd}: {os.strerror(-err)}")
                return msgs
            msgs.append(attrs(body[4:]))


def kernel_ops(fam):
    """{cmd: flags} and group names of the running family."""
    msg = ctrl_query(CTRL_CMD_GETFAMILY, fam, False)[0]
    ops = {}
    for _, op in nest_list(msg[CTRL_ATTR_OPS]):
        a = attrs(op)
        ops[struct.unpack("I", a[CTRL_ATTR_OP_ID])[0]] = struct.unpack("I", a[CTRL_ATTR_OP_FLAGS])[0]
    groups = [attrs(g)[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0").decode()
              for _, g in nest_list(msg.get(CTRL_ATTR_MCAST_GROUPS, b""))]
    return ops, groups


def kernel_policies(fam):
    """({cmd: (do policy idx, dump policy idx)}, {idx: {attr: {k: v}}}).

    Each attribute's description is raw: {NL_POLICY_TYPE_ATTR_*: bytes}.
    """
    op_pol, pols = {}, {}
    for m in ctrl_query(CTRL_CMD_GETPOLICY, fam, True):
        if CTRL_ATTR_OP_POLICY in m:
            for cmd, nest in nest_list(m[CTRL_ATTR_OP_POLICY]):
                a = attrs(nest)
                get = lambda k: struct.unpack("I", a[k])[0] if k in a else None
                op_pol[cmd] = (get(CTRL_ATTR_POLICY_DO), get(CTRL_ATTR_POLICY_DUMP))
        if CTRL_ATTR_POLICY in m:
            for idx, nest in nest_list(m[CTRL_ATTR_POLICY]):
                # A policy whose attributes are all rejected still has an
                # index (an op refers to it) but dumps no attribute.
                pol = pols.setdefault(idx, {})
                for atype, desc in nest_list(nest):
                    pol[atype] = attrs(desc)
    return op_pol, pols


def kernel_attr_policy(pols, d, depth=0):
    """Raw kernel description d as spec_attr_policy() words it.

    Unsigned bounds are u64 in the dump (MIN/MAX_VALUE_U, 64-bit padded),
    signed ones s64; a nest names its policy by index, which is resolved
    here into that policy, described the same way.
    """
    def u(k):
        return int.from_bytes(d[k], "little") if k in d else None

    def s(k):
        return int.from_bytes(d[k], "little", signed=True) if k in d else None

    typ = NL_ATTR_TYPE.get(u(NL_POLICY_TYPE_ATTR_TYPE), u(NL_POLICY_TYPE_ATTR_TYPE))
    if typ in INT_LIMITS and typ.startswith("u"):
        if NL_POLICY_TYPE_ATTR_MASK in d:
            return {"type": typ, "mask": u(NL_POLICY_TYPE_ATTR_MASK)}
        return {"type": typ, "min": u(NL_POLICY_TYPE_ATTR_MIN_VALUE_U),
                "max": u(NL_POLICY_TYPE_ATTR_MAX_VALUE_U)}
    if typ in INT_LIMITS:
        return {"type": typ, "min": s(NL_POLICY_TYPE_ATTR_MIN_VALUE_S),
                "max": s(NL_POLICY_TYPE_ATTR_MAX_VALUE_S)}
    if typ in ("string", "string-unterminated", "binary"):
        return {"type": typ, "min-len": u(NL_POLICY_TYPE_ATTR_MIN_LENGTH),
                "max-len": u(NL_POLICY_TYPE_ATTR_MAX_LENGTH)}
    if typ in ("nest", "nest-array"):
        idx = u(NL_POLICY_TYPE_ATTR_POLICY_IDX)
        out = {"type": typ, "max-type": u(NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE)}
        if idx is None:
            out["policy"] = None
        elif depth >= NEST_DEPTH_MAX:
            out["policy"] = "(too deep)"
        elif idx not in pols:
            out["policy"] = f"(policy {idx} missing from the dump)"
        else:
            out["policy"] = {a: kernel_attr_policy(pols, sub, depth + 1)
                             for a, sub in pols[idx].items()}
        return out
    if typ == "bitfield32":
        return {"type": typ, "mask": u(NL_POLICY_TYPE_ATTR_BITFIELD32_MASK)}
    return {"type": typ}


def spec_limit(spec, v):
    """A checks value: an integer, a const's name, or "u32-max" and the like."""
    if v is None or isinstance(v, int):
        return v
    m = re.fullmatch(r"([su](?:8|16|32|64))-(min|max)", v)
    if m:
        return INT_LIMITS[m.group(1)][m.group(2) == "max"]
    for d in spec.get("definitions", []):
        if d["type"] == "const" and d["name"] == v:
            return d["value"]
    m = re.fullmatch(r"(.+) - 1", v)
    if m:
        return spec_limit(spec, m.group(1)) - 1
    raise ValueError(f"checks value {v!r} is neither a number nor a known name")


def spec_attr_policy(spec, sets, a, depth=0):
    """What the kernel's policy dump must say of spec attribute a."""
    checks, typ = a.get("checks", {}), a["type"]
    if typ in INT_LIMITS:
        lo, hi = INT_LIMITS[typ]
        return {"type": typ, "min": spec_limit(spec, checks.get("min", lo)),
                "max": spec_limit(spec, checks.get("max", hi))}
    if typ in ("string", "binary"):
        if typ == "string" and checks.get("unterminated-ok"):
            typ = "string-unterminated"
        return {"type": typ, "min-len": spec_limit(spec, checks.get("min-len")),
                "max-len": spec_limit(spec, checks.get("max-len"))}
    if typ == "nest":
        name = a.get("nested-attributes")
        if name is None:
            return {"type": "nest", "max-type": None, "policy": None}
        nested = sets.get(name)
        if not nested:
            return {"type": "nest", "policy": f"(no attribute set {name!r} in the spec)"}
        out = {"type": "nest", "max-type": max(v for v, _ in nested.values())}
        if depth >= NEST_DEPTH_MAX:
            out["policy"] = "(too deep)"
        else:
            out["policy"] = {v: spec_attr_policy(spec, sets, sub, depth + 1)
                             for v, sub in nested.values()
                             if sub["type"] not in ("unused", "pad")}
        return out
    return {"type": typ}


def attr_names(sets, set_name):
    return {v: n for n, (v, _) in sets[set_name].items()} if set_name in sets else {}


def policy_diff(exp, got, sets, set_name, path):
    """Differences of two policies, {attr: description}, one line each."""
    names = attr_names(sets, set_name)
    out = []
    for t in sorted(set(exp) | set(got)):
        where = f"{path}{names.get(t, t)}"
        if t not in got:
            out.append(f"{where}: in the spec's request, not accepted by the kernel "
                       f"(spec {exp[t]})")
        elif t not in exp:
            out.append(f"{where}: accepted by the kernel, not in the spec's request "
                       f"(kernel {got[t]})")
        elif exp[t] != got[t]:
            e, g = exp[t], got[t]
            if e.get("type") == g.get("type") == "nest" and \
               isinstance(e.get("policy"), dict) and isinstance(g.get("policy"), dict):
                if e["max-type"] != g["max-type"]:
                    out.append(f"{where}: nested maxtype: spec {e['max-type']}, "
                               f"kernel {g['max-type']}")
                sub = sets.get(set_name, {}).get(names.get(t), (0, {}))[1].get(
                    "nested-attributes")
                out += policy_diff(e["policy"], g["policy"], sets, sub, f"{where}.")
            else:
                out.append(f"{where}: spec {e}, kernel {g}")
    return out


def check_kernel(spec, tap):
    check_spec(spec, tap)
    fam = spec["name"]
    ops, groups = kernel_ops(fam)
    op_pol, pols = kernel_policies(fam)
    sets = attr_sets(spec)
    spec_cmds = set()
    mask = GENL_ADMIN_PERM | GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP
    for cmd, op in numbered(spec["operations"]["list"]):
        if cmd == 0:
            continue
        if "do" not in op and "dump" not in op:
            # An event only: the family has no operation to register for it.
            tap.case(f"kernel: {op['name']} is an event, no operation",
                     [f"the running family has an operation {cmd}"] if cmd in ops else [])
            continue
        spec_cmds.add(cmd)
        errs = []
        want = (GENL_ADMIN_PERM if "admin-perm" in op.get("flags", []) else 0) | \
               (GENL_CMD_CAP_DO if "do" in op else 0) | (GENL_CMD_CAP_DUMP if "dump" in op else 0)
        if cmd not in ops:
            errs.append("command missing from the running family")
        elif ops[cmd] & mask != want:
            errs.append(f"flags: spec {want:#x}, kernel {ops[cmd] & mask:#x}")
        for mode, slot in (("do", 0), ("dump", 1)):
            if mode not in op or cmd not in op_pol:
                continue
            idx = op_pol[cmd][slot]
            raw = pols.get(idx, {}) if idx is not None else {}
            got = {t: kernel_attr_policy(pols, d) for t, d in raw.items()}
            aset, exp = sets.get(op.get("attribute-set"), {}), {}
            for n in ((op[mode] or {}).get("request") or {}).get("attributes", []):
                if n in aset:
                    exp[aset[n][0]] = spec_attr_policy(spec, sets, aset[n][1])
            errs += [f"{mode} policy: {e}" for e in
                     policy_diff(exp, got, sets, op["attribute-set"], "")]
        tap.case(f"kernel: {op['name']} flags and policy", errs)
    extra = sorted(set(ops) - spec_cmds)
    tap.case("kernel: no command outside the spec", [f"extra commands {extra}"] if extra else [])
    want_groups = [g["name"] for g in spec["mcast-groups"]["list"]]
    tap.case("kernel: multicast groups", [] if groups == want_groups
             else [f"spec {want_groups}, kernel {groups}"])


README = os.path.join(TOP, "README.md")
TABLE_BEGIN = ("<!-- The table below is generated from Documentation/netlink/specs/edm.yaml:"
               " selftests/edm/spec_check.py readme-write -->")
TABLE_END = "<!-- end of the generated table -->"


def readme_table(spec):
    """README's table of the family's commands: one row per operation."""
    rows = ["| command | what it does (the spec's doc, first sentence) | request | permission |",
            "| --- | --- | --- | --- |"]
    for _, op in numbered(spec["operations"]["list"]):
        if op["name"] == "unspec":
            continue
        doc = " ".join((op.get("doc") or "").split())
        what = re.split(r"(?<=\.)\s", doc, maxsplit=1)[0].replace("|", "\\|")
        if "do" not in op and "dump" not in op:
            how, perm = "event only", "(events group)"
        else:
            how = " and ".join(m for m in ("do", "dump") if m in op)
            perm = "CAP_NET_ADMIN" if "admin-perm" in op.get("flags", []) else "anyone"
        rows.append(f"| `{op['name']}` | {what} | {how} | {perm} |")
    return rows


def readme_split(text):
    """README.md as (before, table, after) around the generated table's markers."""
    lines = text.split("\n")
    if lines.count(TABLE_BEGIN) != 1 or lines.count(TABLE_END) != 1:
        return None
    a, b = lines.index(TABLE_BEGIN), lines.index(TABLE_END)
    return lines[:a + 1], lines[a + 1:b], lines[b:]


def check_readme(spec, tap):
    parts = readme_split(open(README).read())
    if parts is None:
        tap.case("readme: the netlink table", ["README.md lacks the table's two marker lines"])
        return
    want, got = readme_table(spec), parts[1]
    errs = [f"README has {g!r}, the spec makes {w!r}" for w, g in zip(want, got) if w != g]
    if len(want) != len(got):
        errs.append(f"README's table has {len(got)} lines, the spec's {len(want)}")
    tap.case("readme: the netlink table is the spec's "
             "(selftests/edm/spec_check.py readme-write rewrites it)", errs[:5])


def write_readme(spec):
    parts = readme_split(open(README).read())
    if parts is None:
        print(f"{README}: no table markers ({TABLE_BEGIN!r} ... {TABLE_END!r})", file=sys.stderr)
        return 1
    with open(README, "w") as f:
        f.write("\n".join(parts[0] + readme_table(spec) + parts[2]))
    return 0


def main():
    modes = ("header", "kernel", "readme", "readme-write")
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    spec = yaml.safe_load(open(SPEC))
    if sys.argv[1] == "readme-write":
        return write_readme(spec)
    tap = Tap()
    print("TAP version 13")
    if sys.argv[1] == "header":
        check_header(spec, tap)
        check_readme(spec, tap)
    elif sys.argv[1] == "readme":
        check_readme(spec, tap)
    else:
        check_kernel(spec, tap)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
