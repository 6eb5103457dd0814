#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the edm netlink family to its spec, Documentation/netlink/specs/edm.yaml.

  spec_check.py header   the uapi header lists the same constants, enums,
                         attributes, commands and groups, with the same values
  spec_check.py kernel   (in the VM, edm.ko loaded) the running family has the
                         spec's commands with its do/dump/admin-perm flags, and
                         each command's policy accepts exactly the spec's
                         request attributes, with the spec's types and checks

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


def header_enums(text):
    """Every enum block of the header as [(name, value)], markers dropped."""
    blocks = []
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\};", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        val, out = 0, []
        for item in filter(None, (x.strip() for x in body.split(","))):
            m = re.fullmatch(r"(\w+)(?:\s*=\s*(.+))?", item)
            name, expr = m.group(1), m.group(2)
            if name.startswith("__") or name.endswith("_MAX"):
                continue
            if expr is not None:
                val = int(expr, 0)
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
    for what, want in spec_enums(spec).items():
        got = next((b for b in hdr if b and b[0][0] == want[0][0]), None)
        errs = []
        if got is None:
            errs.append(f"no enum starting with {want[0][0]} in the header")
        elif got != want:
            errs.append(f"spec {want}")
            errs.append(f"header {got}")
        tap.case(f"header: {what} ({want[0][0]}, ...)", errs)

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
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 4, 5
NL_POLICY_TYPE_ATTR_MAX_LENGTH = 7
NL_ATTR_TYPE = {4: "u32", 12: "string"}
U32_MAX = 0xFFFFFFFF


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
    """({cmd: (do policy idx, dump policy idx)}, {idx: {attr: {k: v}}})."""
    op_pol, pols = {}, {}
    for m in ctrl_query(CTRL_CMD_GETPOLICY, fam, True):
        if CTRL_ATTR_OP_POLICY in m:
            for cmd, nest in nest_list(m[CTRL_ATTR_OP_POLICY]):
                a = attrs(nest)
                get = lambda k: struct.unpack("I", a[k])[0] if k in a else None
                op_pol[cmd] = (get(CTRL_ATTR_POLICY_DO), get(CTRL_ATTR_POLICY_DUMP))
        if CTRL_ATTR_POLICY in m:
            for idx, nest in nest_list(m[CTRL_ATTR_POLICY]):
                for atype, desc in nest_list(nest):
                    d = attrs(desc)
                    val = lambda k: int.from_bytes(d[k], "little") if k in d else None
                    pols.setdefault(idx, {})[atype] = {
                        "type": NL_ATTR_TYPE.get(val(NL_POLICY_TYPE_ATTR_TYPE),
                                                 val(NL_POLICY_TYPE_ATTR_TYPE)),
                        "min": val(NL_POLICY_TYPE_ATTR_MIN_VALUE_U),
                        "max": val(NL_POLICY_TYPE_ATTR_MAX_VALUE_U),
                        "max-len": val(NL_POLICY_TYPE_ATTR_MAX_LENGTH),
                    }
    return op_pol, pols


def spec_attr_policy(a):
    """What the kernel's policy dump must say of spec attribute a."""
    checks = a.get("checks", {})
    if a["type"] == "u32":
        return {"type": "u32", "min": checks.get("min", 0), "max": checks.get("max", U32_MAX),
                "max-len": None}
    return {"type": "string", "min": None, "max": None, "max-len": checks.get("max-len")}


def check_kernel(spec, tap):
    fam = spec["name"]
    ops, groups = kernel_ops(fam)
    op_pol, pols = kernel_policies(fam)
    sets = {s["name"]: {a["name"]: (i, a) for i, a in numbered(s["attributes"])}
            for s in spec["attribute-sets"]}
    spec_cmds = set()
    mask = GENL_ADMIN_PERM | GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP
    for cmd, op in numbered(spec["operations"]["list"]):
        if cmd == 0:
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
            got = pols.get(idx, {}) if idx is not None else {}
            aset = sets[op["attribute-set"]]
            exp = {aset[n][0]: spec_attr_policy(aset[n][1])
                   for n in op[mode]["request"]["attributes"]}
            if got != exp:
                errs.append(f"{mode} policy: spec {exp}")
                errs.append(f"{mode} policy: kernel {got}")
        tap.case(f"kernel: {op['name']} flags and policy", errs)
    extra = sorted(set(ops) - spec_cmds)
    tap.case("kernel: no command outside the spec", [f"extra commands {extra}"] if extra else [])
    want_groups = [g["name"] for g in spec["mcast-groups"]["list"]]
    tap.case("kernel: multicast groups", [] if groups == want_groups
             else [f"spec {want_groups}, kernel {groups}"])


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("header", "kernel"):
        print(__doc__, file=sys.stderr)
        return 2
    spec = yaml.safe_load(open(SPEC))
    tap = Tap()
    print("TAP version 13")
    (check_header if sys.argv[1] == "header" else check_kernel)(spec, tap)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
