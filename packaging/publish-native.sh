#!/bin/sh
# Publishes wireguard-salvo as one native file (NativeAOT, trimmed, no libsodium beside it).
# Usage: packaging/publish-native.sh [RID] [OUTPUT]   RID defaults to linux-x64, OUTPUT to artifacts/native/RID.
# Needs the .NET SDK, clang, lld and zlib1g-dev (apt-get install clang lld zlib1g-dev).
set -eu
rid="${1:-linux-x64}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${2:-$root/artifacts/native/$rid}"
rm -rf "$out"
dotnet publish "$root/src/Salvo.WireGuard" -c Release -r "$rid" -p:PublishAot=true -p:StripSymbols=true \
    -p:GenerateDocumentationFile=false -p:DebugType=none -o "$out"
# The build leaves the symbols (wireguard-salvo.dbg) only when asked; anything else beside the binary is a mistake.
extra="$(find "$out" -type f ! -name wireguard-salvo ! -name wireguard-salvo.dbg)"
if [ -n "$extra" ]; then
    echo "publish-native: more than one file in $out:" >&2
    echo "$extra" >&2
    exit 1
fi
echo "$out/wireguard-salvo"
