#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/fake_qemu.py: a stand-in for qemu-system-x86_64 that boots
nothing, for testing selftests/vm/run's own logic in seconds
(selftests/vm/runner_test.sh sets EDM_VM_QEMU to it).

It reads the options the runner passes (-name edm-vmI, the con and out
chardev files, the out 9p share, the shmem memory-backend-file, the socket
netdevs), listens where told to, and then plays guest I's boot as the plan
in $FAKE_QEMU_PLAN says (boots are counted per guest in $FAKE_QEMU_STATE,
where argvI holds guest I's last command line, an argument a line).
$FAKE_QEMU_DELAY, if set, is how many seconds it waits before its first
console line, as a QEMU started on a loaded host may.
The plan is "I:BOOT:STEP+STEP+... ...", BOOT counting from 1; a boot it
does not name plays "started+print+status".  The steps:

  started      write the started file (CMD starts)
  print        print "ok 1 guest I" (a TAP result)
  status       write exit status 0 (1 after a failed check) and end
  panic        print a kernel panic on the console and end
  fatal        print init's "edm-init: FATAL" line on the console and end
  die          end (no exit status)
  wait         wait to be killed
  dirty        write a byte into the shared memory file, then touch
               dirty in the state directory
  await-dirty  wait until the state directory has dirty
  check        fail (print why, status 1) unless the shared memory is zero
"""

import os
import socket
import sys
import time


def opt_values(argv, name):
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == name]


def kv(spec):
    out = {}
    for part in spec.split(","):
        k, _, v = part.partition("=")
        out[k] = v
    return out


def main(argv):
    name = opt_values(argv, "-name")[0]
    guest = int(name.removeprefix("edm-vm"))
    files = {}
    for spec in opt_values(argv, "-chardev"):
        d = kv(spec)
        files[d["id"]] = d["path"]
    outdir = None
    for spec in opt_values(argv, "-virtfs"):
        d = kv(spec)
        if d.get("mount_tag") == "out":
            outdir = d["path"]
    # every shared file (--shmem, --nvdimm): dirty writes and check reads each
    shmems = []
    for spec in opt_values(argv, "-object"):
        d = kv(spec)
        if spec.startswith("memory-backend-file"):
            shmems.append(d["mem-path"])
    # The links: connect toward guest I-1; listen toward guest I+1 and, as
    # the runner starts guest I+1 only once guest I listens, wait for it to
    # connect before booting (a real guest takes longer than that to boot).
    links = []
    for spec in opt_values(argv, "-netdev"):
        d = kv(spec)
        if "connect" in d:
            host, _, port = d["connect"].rpartition(":")
            links.append(socket.create_connection((host, int(port))))
    # A tap must be there, in the namespace QEMU runs in, to be opened.
    for spec in opt_values(argv, "-netdev"):
        d = kv(spec)
        if spec.startswith("tap,") and not os.path.exists(f"/sys/class/net/{d['ifname']}"):
            sys.exit(f"fake qemu: no tap {d['ifname']} in this network namespace")
    for spec in opt_values(argv, "-netdev"):
        d = kv(spec)
        if "listen" in d:
            host, _, port = d["listen"].rpartition(":")
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, int(port)))
            s.listen(1)
            links.append(s.accept()[0])

    state = os.environ["FAKE_QEMU_STATE"]
    path = os.path.join(state, f"boots{guest}")
    boots = int(open(path).read()) + 1 if os.path.exists(path) else 1
    with open(path, "w") as f:
        f.write(str(boots))
    with open(os.path.join(state, f"argv{guest}"), "w") as f:
        f.write("\n".join(argv) + "\n")
    plan = {}
    for item in os.environ.get("FAKE_QEMU_PLAN", "").split():
        g, b, action = item.split(":")
        plan[(int(g), int(b))] = action
    steps = plan.get((guest, boots), "started+print+status").split("+")

    time.sleep(float(os.environ.get("FAKE_QEMU_DELAY", "0")))
    con = open(files["con"], "a", buffering=1)
    out = open(files["out"], "a", buffering=1)
    con.write(f"[    0.000000] Linux version fake (guest {guest}, boot {boots})\n")
    status = 0
    for step in steps:
        if step == "started":
            open(os.path.join(outdir, "started"), "w").close()
        elif step == "print":
            out.write(f"ok 1 guest {guest}\n")
        elif step == "status":
            with open(os.path.join(outdir, "exit-status"), "w") as f:
                f.write(f"{status}\n")
            return 0
        elif step == "panic":
            con.write("[    1.496638] Kernel panic - not syncing: Fatal exception in interrupt\n")
            return 0
        elif step == "fatal":
            con.write("edm-init: FATAL: cannot mount the host's / over 9p\n")
            return 0
        elif step == "die":
            return 0
        elif step == "wait":
            time.sleep(3600)
        elif step == "dirty":
            for shmem in shmems:
                with open(shmem, "r+b") as f:
                    f.write(b"\x5a")
            open(os.path.join(state, "dirty"), "w").close()
        elif step == "await-dirty":
            while not os.path.exists(os.path.join(state, "dirty")):
                time.sleep(0.05)
        elif step == "check":
            for shmem in shmems:
                with open(shmem, "rb") as f:
                    if any(f.read()):
                        out.write(f"# guest {guest}: {shmem} was not zeroed\n")
                        status = 1
        else:
            raise SystemExit(f"fake_qemu: unknown step {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
