# Sourced by the tunnel benchmarks: two network namespaces joined by one veth pair, the underlay every tunnel in
# them runs over. A side is 198.18.0.1/24, B side 198.18.0.2/24 (RFC 2544's benchmarking range, never routed).
# veth_pair NS_A NS_B VETH_A VETH_B [MTU]: makes both namespaces and the pair, addresses and raises everything
# (MTU defaults to the kernel's 1,500). The caller removes the namespaces, which takes the pair with them.
veth_pair() {
  local a=$1 b=$2 va=$3 vb=$4 mtu=${5:-1500}
  ip netns add "$a" && ip netns add "$b" || return 1
  ip link add "$va" mtu "$mtu" type veth peer name "$vb" mtu "$mtu" || return 1
  ip link set "$va" netns "$a"
  ip link set "$vb" netns "$b"
  ip -n "$a" address add 198.18.0.1/24 dev "$va"
  ip -n "$b" address add 198.18.0.2/24 dev "$vb"
  for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
  ip -n "$a" link set "$va" up
  ip -n "$b" link set "$vb" up
}
