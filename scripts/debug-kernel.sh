#!/bin/bash
# scripts/debug-kernel.sh: build once, cache and locate the test suite's debug
# kernel (Debian's linux-source-6.12, tinyconfig + kvm_guest.config +
# selftests/vm/debug.config: KASAN, lockdep, kmemleak, UBSAN, ...).
#
#   scripts/debug-kernel.sh build     build it unless cached (stdout: nothing)
#   scripts/debug-kernel.sh kdir      print the build tree, usable as KDIR:
#                                     make -C "$(... kdir)" M=$PWD modules
#   scripts/debug-kernel.sh image     print the bzImage path
#   scripts/debug-kernel.sh release   print the kernel release (uname -r)
#   scripts/debug-kernel.sh moddir    print its /lib/modules/<release> tree
#                                     (modules.builtin etc.: for the runner's
#                                     --modules-dir, so modprobe works)
#   scripts/debug-kernel.sh cmdline   print the kernel command-line words the
#                                     runner must add when booting it
#   scripts/debug-kernel.sh key       print the cache key (no build)
#   scripts/debug-kernel.sh checkconfig  only configure and verify the
#                                     fragment (~30 s; for editing it)
#   scripts/debug-kernel.sh clean     remove cached builds of other keys
#
# kdir, image, release and moddir build first when needed.  Progress goes to
# stderr, one line per stage; the make output goes to build.log in the tree.
#
# Cache: ${EDM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edm}/
#   linux-source-<version>/   the extracted tarball (pruned: no other
#                             arches, no Documentation), shared by all keys
#   debug-kernel-<key>/       the O= build tree (KDIR), with build.log,
#                             config.fragment and modules/lib/modules/<rel>
# <key> hashes the linux-source-6.12 package version, the fragment and this
# script's code (not its comments), so a change to any of them builds a new
# tree.  A tree is built
# under a temporary name and renamed into place when complete (an
# interrupted build is never used); a flock serializes builders.

set -euo pipefail

PROG=debug-kernel
SELF=$(realpath "${BASH_SOURCE[0]}")
TOP=$(cd "$(dirname "$SELF")/.." && pwd)
FRAGMENT=$TOP/selftests/vm/debug.config
SRC_PKG=linux-source-6.12
TARBALL=/usr/src/$SRC_PKG.tar.xz
CACHE=${EDM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edm}
LOCK=$CACHE/debug-kernel.lock
# Extra kernel command line.  acpi=noirq: no ACPI IRQ routing (PIRQ table
# instead); saves ~15 s of virtio probing under TCG.  panic_on_warn=1: a
# WARN, a KASAN or a UBSAN report panics the guest (which ends the VM).
CMDLINE="panic_on_warn=1 acpi=noirq"
MAKE_ARGS=(ARCH=x86_64)

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
	sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$SELF" >&2
	exit "${1:-2}"
}

src_version() {
	local v
	v=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) ||
		die "package $SRC_PKG is not installed (scripts/deps.sh installs it)"
	[[ -n $v ]] || die "package $SRC_PKG has no version"
	[[ -r $TARBALL ]] || die "missing $TARBALL (reinstall $SRC_PKG)"
	printf '%s\n' "$v"
}

VERSION=
TMP_TREE=	# the tree being built, removed if we are interrupted
KEY=
SRC=
DIR=

init_paths() {
	[[ -r $FRAGMENT ]] || die "missing $FRAGMENT"
	VERSION=$(src_version)
	KEY=$( {
		printf '%s\n' "$VERSION"
		cat "$FRAGMENT"
		grep -v '^[[:space:]]*#' "$SELF"
	} | sha256sum | cut -c1-12)
	SRC=$CACHE/linux-source-${VERSION//[^A-Za-z0-9.+_-]/_}
	DIR=$CACHE/debug-kernel-$KEY
}

# A complete tree: renamed into place only after everything succeeded.
complete() { [[ -f $DIR/.complete ]]; }

# What extract_source keeps of other arches and Documentation: Kconfig files
# (the Kconfig tree sources some) and Makefiles (6.12's fs/hostfs includes
# arch/um/scripts/Makefile.rules). Written into .complete: a tree pruned by
# another rule is extracted again.
KEEP="Kconfig* Makefile*"

# Extract the tarball into $SRC (once per package version).
extract_source() {
	[[ -f $SRC/.complete ]] && grep -qxF "keep: $KEEP" "$SRC/.complete" && return 0
	local tmp top
	log "extracting $TARBALL ($SRC_PKG $VERSION)"
	tmp=$(mktemp -d "$SRC.tmp.XXXXXX")
	TMP_TREE=$tmp
	tar -xJf "$TARBALL" -C "$tmp"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	[[ -n $top && -f $top/Makefile && -f $top/Kconfig ]] ||
		die "$TARBALL: unexpected layout"
	# Not needed for an x86 build: other arches and Documentation, but for
	# the files $KEEP names: ~200 MB less.
	find "$top/Documentation" "$top/arch" -path "$top/arch/x86" -prune -o \
		-type f ! -name 'Kconfig*' ! -name 'Makefile*' -print0 | xargs -0r rm -f
	find "$top/Documentation" "$top/arch" -depth -mindepth 1 -type d \
		-empty -delete
	echo "keep: $KEEP" >"$top/.complete"
	rm -rf "$SRC"
	mv "$top" "$SRC"
	rmdir "$tmp"
	TMP_TREE=
}

# Print the fragment's assignments as "CONFIG_X value" ("n" for not set).
fragment_options() {
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1 \2/p' \
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' "$1"
}

# Fail unless every option of the fragment ended up as asked in $1/.config.
verify_config() {
	local out=$1 sym want got bad=0 n=0
	declare -A final=()
	while read -r sym got; do
		final[$sym]=$got
	done < <(fragment_options "$out/.config")
	while read -r sym want; do
		got=${final[$sym]:-n}
		n=$((n + 1))
		if [[ $got != "$want" ]]; then
			log "Kconfig dropped $sym=$want (final .config: $sym=$got)"
			bad=$((bad + 1))
		fi
	done < <(fragment_options "$FRAGMENT")
	((n > 0)) || { log "no options in $FRAGMENT"; return 1; }
	((bad == 0)) || { log "$bad of $n options of the fragment were dropped"; return 1; }
}

# Build a trivial module against tree $1 the way users do (no ARCH=).
check_extmod() {
	local kdir=$1 t rel vermagic
	t=$(mktemp -d "${TMPDIR:-/tmp}/edm-extmod.XXXXXX")
	cat >"$t/hello.c" <<'EOF'
#include <linux/module.h>
#include <linux/init.h>
static int __init hello_init(void) { pr_info("hello: loaded\n"); return 0; }
static void __exit hello_exit(void) { pr_info("hello: unloaded\n"); }
module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := hello.o' >"$t/Kbuild"
	if ! make -C "$kdir" M="$t" modules >"$t/make.log" 2>&1; then
		tail -n 30 "$t/make.log" >&2
		rm -rf "$t"
		die "an out-of-tree module does not build against $kdir"
	fi
	rel=$(cat "$kdir/include/config/kernel.release")
	vermagic=$(modinfo -F vermagic "$t/hello.ko")
	rm -rf "$t"
	[[ $vermagic == "$rel "* ]] ||
		die "hello.ko vermagic '$vermagic' does not match release $rel"
}

# Write $1/.config (an O= tree): tinyconfig, kvm_guest.config and the
# fragment merged, olddefconfig; then check that no option was dropped.
configure_tree() {
	local out=$1 blog=$2
	local mk=(make -C "$SRC" O="$out" "${MAKE_ARGS[@]}")
	log "configuring: tinyconfig + kvm_guest.config + ${FRAGMENT#"$TOP"/}"
	cp "$FRAGMENT" "$out/config.fragment"
	if ! {
		"${mk[@]}" tinyconfig &&
			(cd "$out" && ARCH=x86_64 "$SRC/scripts/kconfig/merge_config.sh" \
				-m -O "$out" "$out/.config" \
				"$SRC/kernel/configs/kvm_guest.config" \
				"$out/config.fragment") &&
			"${mk[@]}" olddefconfig
	} >"$blog" 2>&1; then
		tail -n 40 "$blog" | sed 's/^/  | /' >&2
		rm -rf "$out"
		die "configuration failed"
	fi
	log "verifying that the final .config has every option of the fragment"
	if ! verify_config "$out"; then
		cp -f "$out/.config" "$DIR.failed.config"
		rm -rf "$out"
		die "${FRAGMENT#"$TOP"/} is not fully applied: a Kconfig dependency is missing (final config: $DIR.failed.config)"
	fi
}

build_tree() {
	local tmp t0=$SECONDS rel jobs
	jobs=$(nproc)
	tmp=$(mktemp -d "$DIR.tmp.XXXXXX")
	TMP_TREE=$tmp
	chmod 755 "$tmp"
	local mk=(make -C "$SRC" O="$tmp" "${MAKE_ARGS[@]}")
	local blog=$tmp/build.log
	fail() {
		tail -n 40 "$blog" | sed 's/^/  | /' >&2
		cp -f "$blog" "$DIR.failed.log" 2>/dev/null || true
		rm -rf "$tmp"
		die "$1 (log: $DIR.failed.log)"
	}

	configure_tree "$tmp" "$blog"

	log "building bzImage and modules (make -j$jobs; 10-15 min on 2 cores)"
	"${mk[@]}" -j"$jobs" bzImage modules >>"$blog" 2>&1 ||
		fail "kernel build failed"
	log "modules_prepare, modules_install"
	{
		"${mk[@]}" modules_prepare &&
			"${mk[@]}" INSTALL_MOD_PATH="$tmp/modules" modules_install
	} >>"$blog" 2>&1 || fail "modules_prepare/modules_install failed"
	rel=$(cat "$tmp/include/config/kernel.release")
	# The build/source links would point at the temporary name.
	rm -f "$tmp/modules/lib/modules/$rel/build" "$tmp/modules/lib/modules/$rel/source"
	# Kernel objects are not needed to build external modules: ~1 GB less.
	# (Host tools under scripts/ and tools/ stay; vmlinux and System.map too.)
	find "$tmp" \( -path "$tmp/scripts" -o -path "$tmp/tools" \) -prune -o \
		-type f \( -name '*.o' -o -name '*.a' \) -print0 | xargs -0r rm -f
	rm -f "$tmp/vmlinux.o" "$tmp/.tmp_vmlinux"*

	log "checking that an out-of-tree module builds against it"
	check_extmod "$tmp"

	touch "$tmp/.complete"
	rm -rf "$DIR"
	mv "$tmp" "$DIR"
	TMP_TREE=
	log "built $rel in $((SECONDS - t0)) s: $DIR ($(du -sh "$DIR" | cut -f1)," \
		"bzImage $(du -h "$DIR/arch/x86/boot/bzImage" | cut -f1))"
}

# The build tree and the source it was built from (an O= tree needs it to
# build external modules; it is re-extracted if someone removed it).
ensure_built() {
	complete && [[ -f $SRC/.complete ]] && return 0
	mkdir -p "$CACHE"
	exec 9>>"$LOCK"
	if ! flock -n 9; then
		log "waiting for another build (lock $LOCK)"
		flock 9
	fi
	# We hold the lock: temporary trees left here are from dead builds.
	rm -rf "$CACHE"/debug-kernel-*.tmp.* "$CACHE"/linux-source-*.tmp.*
	extract_source
	complete || build_tree
	exec 9>&-
	complete || die "build did not complete"
}

main() {
	(($# == 1)) || usage
	trap '[[ -z $TMP_TREE ]] || rm -rf "$TMP_TREE"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	command -v flock >/dev/null || die "flock (util-linux) is missing"
	case $1 in
	cmdline)
		echo "$CMDLINE"
		return
		;;
	build | kdir | image | release | moddir | key | clean | checkconfig) ;;
	-h | --help | help) usage 0 ;;
	*) usage ;;
	esac
	init_paths
	case $1 in
	key) echo "$KEY" ;;
	checkconfig)
		mkdir -p "$CACHE"
		exec 9>>"$LOCK"
		flock 9
		extract_source
		exec 9>&-
		TMP_TREE=$(mktemp -d "$DIR.check.XXXXXX")
		configure_tree "$TMP_TREE" "$TMP_TREE/config.log"
		;;
	build) ensure_built ;;
	kdir) ensure_built && echo "$DIR" ;;
	image) ensure_built && echo "$DIR/arch/x86/boot/bzImage" ;;
	release)
		ensure_built
		make -s --no-print-directory -C "$DIR" kernelrelease
		;;
	moddir)
		ensure_built
		echo "$DIR/modules/lib/modules/$(cat "$DIR/include/config/kernel.release")"
		;;
	clean)
		mkdir -p "$CACHE"
		exec 9>>"$LOCK"
		flock 9
		local d
		for d in "$CACHE"/debug-kernel-*; do
			[[ -e $d && $d != "$DIR" && $d != "$LOCK" ]] || continue
			log "removing $d"
			rm -rf "$d"
		done
		for d in "$CACHE"/linux-source-*; do
			[[ -e $d && $d != "$SRC" ]] || continue
			log "removing $d"
			rm -rf "$d"
		done
		;;
	esac
}

main "$@"
