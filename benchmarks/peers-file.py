#!/usr/bin/env python3
"""Writes a wg-quick file with PEERS peers to standard output: random keys (any 32 bytes is a valid X25519 public key
for configuration), a /32 in 198.18.0.0/15 and a /128 in fd00:5a1::/64 per peer, an endpoint on loopback, as
benchmarks/tunnel-peers writes them. usage: peers-file.py PEERS [--address]   (--address adds the Interface's
Address line, whose prefixes hold no peer's: a peer prefix inside them needs no route of its own, and this file
measures adding them; for a daemon that sets it; wg setconf takes the file without it)"""
import base64
import os
import sys

peers = int(sys.argv[1])
print("[Interface]")
print("PrivateKey = " + base64.b64encode(os.urandom(32)).decode())
if "--address" in sys.argv[2:]:
    print("Address = 198.20.255.254/16, fd00:5a2::1/64")
print("ListenPort = 0")
for i in range(1, peers + 1):
    print()
    print("[Peer]")
    print("PublicKey = " + base64.b64encode(os.urandom(32)).decode())
    print(f"AllowedIPs = 198.{18 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}/32, fd00:5a1::{i:x}/128")
    print(f"Endpoint = 127.0.0.1:{10000 + i % 50000}")
