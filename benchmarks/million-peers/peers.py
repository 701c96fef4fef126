#!/usr/bin/env python3
"""Writes a wg setconf file with PEERS peers to standard output: random keys (any 32 bytes is a valid X25519 public
key for configuration), one /32 in 10.0.0.0/8 and one /128 in fd00:5a1::/64 per peer (16,777,214 fit), an endpoint on
loopback. --address adds the Interface's Address line (10.0.0.1/8, fd00:5a1::1/64: every peer prefix inside it, so
no peer needs a route of its own) for a daemon that reads wg-quick files. usage: peers.py PEERS [--address]"""
import base64
import os
import sys

peers = int(sys.argv[1])
out = sys.stdout
out.write("[Interface]\nPrivateKey = " + base64.b64encode(os.urandom(32)).decode() + "\n")
if "--address" in sys.argv[2:]:
    out.write("Address = 10.0.0.1/8, fd00:5a1::1/64\n")
out.write("ListenPort = 0\n")
keys = os.urandom(32 * peers)
lines = []
for i in range(2, peers + 2):
    key = base64.b64encode(keys[32 * (i - 2):32 * (i - 1)]).decode()
    lines.append(f"\n[Peer]\nPublicKey = {key}\nAllowedIPs = 10.{i >> 16}.{(i >> 8) & 255}.{i & 255}/32, fd00:5a1::{i >> 16:x}:{i & 0xffff:x}/128\n"
                 f"Endpoint = 127.0.0.1:{10000 + i % 50000}\n")
    if len(lines) == 10000:
        out.write("".join(lines))
        lines = []
out.write("".join(lines))
