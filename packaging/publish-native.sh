#!/bin/sh
# Publishes wireguard-salvo as one native file (NativeAOT, trimmed, no libsodium beside it) and prints its path.
# Usage: packaging/publish-native.sh [RID] [OUTPUT]   RID defaults to linux-x64, OUTPUT to artifacts/native/RID.
# Needs the .NET SDK, clang, lld and zlib1g-dev (apt-get install clang lld zlib1g-dev).
set -eu
rid="${1:-linux-x64}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${2:-$root/artifacts/native/$rid}"
publish="$(mktemp -d)"
trap 'rm -rf "$publish"' EXIT
# dotnet's output goes to standard error: standard output is the binary's path alone.
dotnet publish "$root/src/Salvo.WireGuard" -c Release -r "$rid" -p:PublishAot=true -p:StripSymbols=true -o "$publish" >&2
# The publish folder also holds the symbols (wireguard-salvo.dbg) and the libraries' XML docs and PDBs, none of
# which the binary reads; a native library there would be one it needs, so that stops the script.
if find "$publish" -name '*.so*' | grep -q .; then
    echo "publish-native: a native library was published beside the binary:" >&2
    find "$publish" -name '*.so*' >&2
    exit 1
fi
mkdir -p "$out"
install -m 0755 "$publish/wireguard-salvo" "$out/wireguard-salvo"
echo "$out/wireguard-salvo"
