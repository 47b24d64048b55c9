#!/usr/bin/env bash
# Installs what building and testing rdmakv needs on a fresh Debian 12 machine (idempotent): Maven, gcc and
# rdma-core for the ibverbs layout test, prometheus for promtool (the alert rules are checked with it), and
# redis-server, which bench/ycsb.sh --redis measures side by side (only its binary is used: the script starts
# its own instance on loopback; a service the package may start is left alone).
set -euo pipefail
PKGS="maven gcc libc6-dev libibverbs-dev libibverbs1 ibverbs-providers librdmacm-dev librdmacm1 prometheus redis-server"
# the nemesis suite (scripts/nemesis.sh, NemesisTest): network namespaces and veths (ip), drop rules (nft)
PKGS="$PKGS iproute2 nftables"
# openssl: deploy/local-cluster.sh makes the local ZooKeeper's CA, certificates and credential with it
PKGS="$PKGS openssl"
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "[setup] installing:" $missing
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
fi
. "$(dirname "$0")/java25.sh"
echo "[setup] Java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1) at $JAVA_HOME"
