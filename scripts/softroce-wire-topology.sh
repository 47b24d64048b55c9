#!/usr/bin/env bash
# Run as root inside the Soft-RoCE VM (scripts/softroce-wire.sh does): hosts that talk over a wire. Each host
# is one end of a veth pair whose other end is a port of one bridge, with an IPv4 address of its own and a
# Soft-RoCE device (rdma_rxe) on that end:
#
#   wc   10.78.0.1  rxec   (the client)          wc-br  --+
#   wn0  10.78.0.2  rxen0  (node 0)              wn0-br --+-- bridge brw
#   wn1  10.78.0.3  rxen1  (node 1)              wn1-br --+
#   wn2  10.78.0.4  rxen2  (node 2)              wn2-br --+
#
# All of it stays in the initial network namespace: rxe cannot move to another one (rdma dev set ... netns
# fails with EOPNOTSUPP in exclusive mode, and rxe's UDP socket lives in init_net). So that packets between two
# of these local addresses leave by the wire instead of the loopback, the local routing table moves behind one
# table per host ("from A iif lo": what host A sends goes out of its own veth end; "iif lo" keeps the rule out
# of the input lookup of packets that arrive, which would otherwise be dropped as IpInAddrErrors), packets
# arriving on a wire end are looked up in the local table, accept_local lets a packet from a local address in,
# rp_filter is off, and the neighbours are static (ARP between two local addresses does not resolve).
#
# Usage: softroce-wire-topology.sh setup [MTU]  builds it; MTU: netdev MTU of every wire device (default 1500;
#                                              rxe's active MTU is the largest IB MTU that fits: 1024 at 1500,
#                                              4096 at 9000)
#        softroce-wire-topology.sh facts       addresses, routes, each device's state, MTUs and GID table
#        softroce-wire-topology.sh counters    one line per wire end (veth: tx/rx packets and bytes) and per
#                                              RDMA device, rxe0 on the loopback included (sent/received packets)
# Env:   SOFTROCE_CACHE  where run-in-softroce-vm.sh unpacked the guest kernel (default /tmp/softroce-cache):
#                        veth.ko and bridge.ko come from there (the guest's initramfs has neither)
set -euo pipefail
CMD=${1:-setup}
MTU=${2:-1500}
KROOT=${SOFTROCE_CACHE:-/tmp/softroce-cache}/kroot
IFS=' ' read -ra NAMES <<< "wc wn0 wn1 wn2"
IFS=' ' read -ra ADDRS <<< "10.78.0.1 10.78.0.2 10.78.0.3 10.78.0.4"
IFS=' ' read -ra RXES <<< "rxec rxen0 rxen1 rxen2"
BRIDGE=brw

if [ "$CMD" = counters ]; then
  for n in "${NAMES[@]}"; do
    s=/sys/class/net/$n/statistics
    echo "veth $n tx_packets $(cat $s/tx_packets) rx_packets $(cat $s/rx_packets) tx_bytes $(cat $s/tx_bytes) rx_bytes $(cat $s/rx_bytes)"
  done
  for r in rxe0 "${RXES[@]}"; do
    line=$(rdma statistic show link "$r/1" 2>/dev/null || true)
    sent=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "sent_pkts") print $(i + 1)}')
    rcvd=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "rcvd_pkts") print $(i + 1)}')
    echo "rdma $r sent_pkts ${sent:-?} rcvd_pkts ${rcvd:-?}"
  done
  exit 0
fi
if [ "$CMD" = facts ]; then
  ip -br addr show | grep -E '^(wc|wn[0-9]|brw|lo) '
  ip rule show
  for i in "${!NAMES[@]}"; do
    j=$(( (i + 1) % ${#NAMES[@]} ))
    echo "route ${ADDRS[$i]} -> ${ADDRS[$j]}: $(ip route get "${ADDRS[$j]}" from "${ADDRS[$i]}" | head -1)"
  done
  rdma link show
  for r in "${RXES[@]}"; do
    echo "== $r"
    ibv_devinfo -v -d "$r" | grep -E 'transport:|link_layer|state:|active_mtu|max_mtu|atomic_cap|GID\[' | sed 's/^[[:space:]]*/  /'
  done
  exit 0
fi
[ "$CMD" = setup ] || { echo "softroce-wire-topology: unknown command $CMD (setup, facts or counters)" >&2; exit 2; }

modprobe -d "$KROOT" veth
modprobe -d "$KROOT" bridge
ip link add "$BRIDGE" type bridge stp_state 0 forward_delay 0
ip link set "$BRIDGE" mtu "$MTU" up
for i in "${!NAMES[@]}"; do
  n=${NAMES[$i]}
  ip link add "$n" type veth peer name "$n-br"
  ip link set "$n-br" master "$BRIDGE"
  ip link set "$n" mtu "$MTU"; ip link set "$n-br" mtu "$MTU"
  ip addr add "${ADDRS[$i]}/24" dev "$n"
  ip link set "$n-br" up; ip link set "$n" up
done
for d in all default "${NAMES[@]}"; do
  sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0"
done
# the local table after the wire's rules; each host's table routes the other hosts out of its own end
ip rule add pref 100 lookup local
ip rule del pref 0
for i in "${!NAMES[@]}"; do
  table=$((10 + i))
  for j in "${!NAMES[@]}"; do
    [ "$i" = "$j" ] && continue
    ip route add "${ADDRS[$j]}" dev "${NAMES[$i]}" src "${ADDRS[$i]}" table "$table"
    ip neigh replace "${ADDRS[$j]}" lladdr "$(cat "/sys/class/net/${NAMES[$j]}/address")" dev "${NAMES[$i]}" nud permanent
  done
  ip rule add pref "$table" from "${ADDRS[$i]}" iif lo lookup "$table"
  ip rule add pref $((50 + i)) iif "${NAMES[$i]}" lookup local
done
for i in "${!NAMES[@]}"; do
  rdma link add "${RXES[$i]}" type rxe netdev "${NAMES[$i]}"
done
# wait until every device's port is ACTIVE (the veth carrier comes up asynchronously)
for _ in $(seq 1 50); do
  down=0
  for r in "${RXES[@]}"; do
    ibv_devinfo -d "$r" 2>/dev/null | grep -q 'PORT_ACTIVE' || down=1
  done
  [ $down = 0 ] && break
  sleep 0.2
done
[ $down = 0 ] || { echo "softroce-wire-topology: not every rxe port became ACTIVE" >&2; rdma link show >&2; exit 1; }
# check that each pair's route leaves by the source's own wire end
for i in "${!NAMES[@]}"; do
  for j in "${!NAMES[@]}"; do
    [ "$i" = "$j" ] && continue
    ip route get "${ADDRS[$j]}" from "${ADDRS[$i]}" | grep -q "dev ${NAMES[$i]} " ||
      { echo "softroce-wire-topology: ${ADDRS[$i]} -> ${ADDRS[$j]} does not leave by ${NAMES[$i]}:" >&2
        ip route get "${ADDRS[$j]}" from "${ADDRS[$i]}" >&2; exit 1; }
  done
done
echo "softroce-wire-topology: ${#NAMES[@]} hosts on bridge $BRIDGE, MTU $MTU"
