#!/usr/bin/env bash
# Builds siw.ko (Soft-iWARP) for the Soft-RoCE VM's kernel and prints its path.
#
#   scripts/siw-module.sh            (root: it apt-installs the kernel's headers and downloads its source)
#
# Debian builds rdma_rxe but not siw (CONFIG_RDMA_SIW is not set in bookworm's 6.1 nor in trixie's 6.12), so
# the module is built here from Debian's own source of the exact kernel the VM boots (linux-source-6.1 of the
# version named in the VM kernel's banner), against that kernel's headers, as an out-of-tree module. Loading
# it in the guest taints the kernel (unsigned, out of tree) and needs libcrc32c and crc32c_generic first,
# which the guest loads from the VM kernel's modules (scripts/softroce-verbs.sh does). Cached, with the
# headers' and source's version, in $SOFTROCE_CACHE/siw/<kernel release>/siw.ko.
#
# Env: SOFTROCE_CACHE (default /tmp/softroce-cache, where run-in-softroce-vm.sh keeps the VM kernel).
# Exit: 0 and the path on stdout; 1 when it cannot build (the reason on stderr); 3 no VM kernel cached yet.
set -euo pipefail
cache=${SOFTROCE_CACHE:-/tmp/softroce-cache}
log() { echo "[siw-module] $*" >&2; }

[ -d "$cache/kroot/lib/modules" ] && [ -f "$cache/vmlinux" ] ||
  { log "no VM kernel in $cache yet (run scripts/softroce-verbs.sh, or ../shared/softroce/run-in-softroce-vm.sh true)"; exit 3; }
release=$(ls "$cache/kroot/lib/modules")
out="$cache/siw/$release"
if [ -s "$out/siw.ko" ]; then echo "$out/siw.ko"; exit 0; fi

# "... #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)": the package version of image, headers and source
version=$(strings "$cache/vmlinux" | sed -n 's/^Linux version .* Debian \([^ ]*\) .*/\1/p' | head -n 1) || true
[ -n "$version" ] || { log "cannot read the Debian version from the VM kernel's banner"; exit 1; }
series=${release%%.*}.$(echo "$release" | cut -d. -f2)   # 6.1.0-57-amd64 -> 6.1
flavour=${release##*-}                                   # amd64
abi=${release%-"$flavour"}                               # 6.1.0-57
log "kernel $release, Debian $version: headers and linux-source-$series"

export DEBIAN_FRONTEND=noninteractive
install_headers() {
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "linux-headers-$release=$version" "linux-headers-$abi-common=$version" "linux-kbuild-$series=$version" \
    gcc make xz-utils > /dev/null
}
install_headers 2>/dev/null || { apt-get -o DPkg::Lock::Timeout=600 update -qq && install_headers; } ||
  { log "cannot install linux-headers-$release=$version (the mirror may have moved on: refresh the VM kernel)"; exit 1; }

work=$(mktemp -d /tmp/siw-module.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "linux-source-$series=$version" > /dev/null) ||
  { log "cannot download linux-source-$series=$version"; exit 1; }
dpkg-deb --fsys-tarfile "$work"/linux-source-*.deb |
  tar -xO "./usr/src/linux-source-$series.tar.xz" | xz -dc |
  tar -x -C "$work" --wildcards "linux-source-$series/drivers/infiniband/sw/siw/*"
src="$work/linux-source-$series/drivers/infiniband/sw/siw"
[ -f "$src/siw_main.c" ] || { log "no drivers/infiniband/sw/siw in linux-source-$series"; exit 1; }
make -s -C "/usr/src/linux-headers-$release" M="$src" CONFIG_RDMA_SIW=m modules > "$work/build.log" 2>&1 ||
  { log "build failed:"; tail -n 20 "$work/build.log" >&2; exit 1; }
mkdir -p "$out"
cp "$src/siw.ko" "$out/siw.ko"
echo "linux-source-$series $version, headers linux-headers-$release $version" > "$out/built-from"
log "built $out/siw.ko"
echo "$out/siw.ko"
