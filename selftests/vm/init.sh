#!/bin/sh
# /init of the initramfs built by selftests/vm/run (busybox sh, runs as PID 1).
#
# 1. loads the 9p/virtio modules listed in /modules/order (whatever the
#    runner found; modules that are built in are simply absent),
# 2. mounts the host's / (read-only 9p, tag "host") on /newroot, plus proc,
#    sys, devtmpfs, devpts, debugfs and tmpfs on /tmp, /run and /var,
# 3. mounts the results share (tag "out") and reads the runner's vm.conf,
#    mounts the read-write share (tag "rw") at its host path,
# 4. in multi-guest mode loads virtio_net (/modules/net.order) and exports
#    EDM_VM_NIC_TO_<j> for every NIC whose MAC is 52:54:00:ed:<me>:<j>,
#    and EDM_VM_PEER_MAC_<j>, the MAC of guest j's NIC at the other end,
# 5. starts a process that holds the timestamp static key on (see below), then
#    runs the command script cmd.sh (written by the runner into the results
#    share) chrooted in /newroot, with stdin /dev/null and stdout+stderr on
#    /dev/ttyS1 (the host saves it as output.log),
# 6. writes dmesg.log and then exit-status into the results share and
#    reboots (QEMU runs with -no-reboot, so that ends the VM).
# Anything going wrong before the command ran leaves no exit-status file,
# which the runner reports as a crash together with the tail of console.log.
# An empty /results/started, written just before the command starts, tells
# the runner that a guest without exit-status died while the command ran.

PATH=/bin
export PATH

msg() { echo "edm-init: $*"; }

die() {
	msg "FATAL: $*"
	sync
	reboot -f
	sleep 100
}

mkdir -p /dev /proc /sys /newroot /results
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys

load_modules() {
	# $1: file listing module file names, in load order
	[ -f "$1" ] || return 0
	while read -r ko; do
		[ -n "$ko" ] || continue
		out=$(insmod "/modules/$ko" 2>&1) ||
			case "$out" in
			*"File exists"*) ;;
			*) msg "insmod $ko failed: $out" ;;
			esac
	done <"$1"
}

load_modules /modules/order

# 9p over virtio: msize as large as virtio allows in 6.1 (~512 KiB).
p9opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "ro,$p9opts,cache=loose" host /newroot ||
	die "cannot mount the host root (9p tag 'host')"
mount -t 9p -o "$p9opts" out /results ||
	die "cannot mount the results share (9p tag 'out')"
[ -f /results/vm.conf ] || die "no vm.conf in the results share"
# Sets EDM_VM_GUEST, EDM_VM_NGUESTS, VM_HOSTNAME, VM_OUT_DIR, VM_RW_DIR,
# VM_MODULES_DIR (all absolute host paths; VM_MODULES_DIR may be empty).
# shellcheck source=/dev/null
. /results/vm.conf

hostname "$VM_HOSTNAME"
ip link set lo up

r=/newroot
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -t devtmpfs dev $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $r/dev/pts
mount -t tmpfs -o mode=1777 shm $r/dev/shm
mount -t debugfs debugfs $r/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null
mount -t tmpfs -o mode=1777 tmp $r/tmp
mount -t tmpfs -o mode=755 run $r/run
mount -t tmpfs -o mode=755 var $r/var
mkdir -p $r/var/tmp $r/var/lib $r/var/log $r/var/cache $r/run/lock
chmod 1777 $r/var/tmp
ln -s /run $r/var/run
ln -s /run/lock $r/var/lock

# The read-write working directory, at the same path as on the host.
# (The mount point exists on the read-only host root, or is created in one
# of the tmpfs above when it lives under /tmp, /run or /var.)
if [ -n "$VM_RW_DIR" ]; then
	mkdir -p "$r$VM_RW_DIR" 2>/dev/null
	mount -t 9p -o "$p9opts,cache=mmap" rw "$r$VM_RW_DIR" ||
		die "cannot mount the read-write share on $VM_RW_DIR"
fi
mkdir -p "$r$VM_OUT_DIR" 2>/dev/null
mount --bind /results "$r$VM_OUT_DIR" ||
	die "cannot bind the results share on $VM_OUT_DIR"

# Modules of a kernel that is not the host's: show them where modprobe looks.
# (vm.conf sets VM_MODULES_DIR only when it is not /lib/modules/$(uname -r).)
if [ -n "$VM_MODULES_DIR" ]; then
	krel=$(uname -r)
	mkdir -p /moddir
	if mount --bind "$r$VM_MODULES_DIR" /moddir &&
		mount -t tmpfs -o mode=755 modules $r/lib/modules &&
		mkdir -p "$r/lib/modules/$krel" &&
		mount --move /moddir "$r/lib/modules/$krel"; then
		:
	else
		msg "cannot show $VM_MODULES_DIR as /lib/modules/$krel"
	fi
fi

# NICs toward the other guests: MAC 52:54:00:ed:<me>:<peer> (hex).
set --
if [ "${EDM_VM_NGUESTS:-1}" -gt 1 ]; then
	load_modules /modules/net.order
	me=$(printf %02x "$EDM_VM_GUEST")
	for dev in /sys/class/net/*; do
		ifname=${dev##*/}
		read -r mac <"$dev/address" || continue
		case "$mac" in
		52:54:00:ed:$me:??)
			peer=$((0x${mac##*:}))
			set -- "$@" "EDM_VM_NIC_TO_$peer=$ifname" \
				"EDM_VM_PEER_MAC_$peer=52:54:00:ed:$(printf %02x $peer):$me"
			;;
		esac
	done
fi

# Command output goes to the second serial port, raw (no \n -> \r\n).
# We keep it open on fd 3 (not passed on to the command) so that our own
# close below is the last one: closing a serial tty waits until all its
# output has left the UART, so nothing is lost at power-off.
exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo
# Kernels with kmemleak: forget what boot itself left, so that what the
# final scan reports was made while CMD ran.
kml=$r/sys/kernel/debug/kmemleak
[ ! -w "$kml" ] || echo clear >"$kml"
# Holds the kernel's receive-timestamp static key on for the guest's life:
# every ping sets SO_TIMESTAMP, and each 0 <-> 1 change of the key patches
# kernel text. Under TCG a vCPU sometimes ran a patched site's stale int3
# after the patching was over (an int3 oops in __netif_receive_skb_core,
# make check 2026-11-29). With one user always there, tests' pings no
# longer change it. A UDP socket with SO_TIMESTAMP (29) that sends nothing:
# a ping would move the ICMP counters tests read. kill -1 below ends it.
chroot $r python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)
time.sleep(1e9)' </dev/null >/dev/null 2>&1 &
# Tells the runner that a guest without exit-status died while CMD ran
# (allowed with --may-die), not before.
: >/results/started
env -i "$@" chroot $r /bin/sh "$VM_OUT_DIR/cmd.sh" </dev/null >&3 2>&1 3>&-
status=$?

# Leftover background processes of the command would keep files open and
# keep writing while we shut down.  (kill -1 fails if there were none.)
if kill -KILL -1 2>/dev/null; then
	sleep 0.2
fi
exec 3>&-

# Kernels with kmemleak: kmemleak reports only objects older than 5 s, so
# let the last ones CMD made age, then scan. Leaks show up in dmesg
# ("kmemleak:") and in kmemleak.log, and either fails the run.
if [ -w "$kml" ]; then
	sleep 6
	echo scan >"$kml"
	cat "$kml" >/results/kmemleak.log
fi
dmesg >/results/dmesg.log
echo "$status" >/results/exit-status.tmp && mv /results/exit-status.tmp /results/exit-status
sync
reboot -f
sleep 100
