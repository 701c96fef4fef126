#!/bin/sh
# Builds wireguard-salvo_VERSION_ARCH.deb: the native binary, its man page, the licence and a wg-quick@.service
# drop-in that names it as wg-quick's user-space implementation.
# Usage: packaging/deb/build.sh [BINARY] [OUTPUT_DIR]   BINARY defaults to a fresh packaging/publish-native.sh build,
# OUTPUT_DIR to artifacts/deb. Needs dpkg-deb and gzip.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="${1:-}"
out="${2:-$root/artifacts/deb}"
if [ -z "$binary" ]; then
    binary="$("$root/packaging/publish-native.sh" linux-x64)"
fi
version="$(sed -n 's:.*<VersionPrefix>\(.*\)</VersionPrefix>.*:\1:p' "$root/Directory.Build.props")"
arch="$(dpkg --print-architecture)"
stage="$(mktemp -d)"
chmod 0755 "$stage"
trap 'rm -rf "$stage"' EXIT

install -D -m 0755 "$binary" "$stage/usr/bin/wireguard-salvo"
install -d "$stage/usr/share/man/man8"
gzip -9n < "$root/man/wireguard-salvo.8" > "$stage/usr/share/man/man8/wireguard-salvo.8.gz"
install -d "$stage/usr/share/doc/wireguard-salvo"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: Salvo"
    echo
    echo "Files: *"
    echo "Copyright: Salvo contributors"
    echo "License: MIT"
    sed 's/^$/./; s/^/ /' "$root/LICENSE"
} > "$stage/usr/share/doc/wireguard-salvo/copyright"
install -d "$stage/usr/lib/systemd/system/wg-quick@.service.d"
cat > "$stage/usr/lib/systemd/system/wg-quick@.service.d/wireguard-salvo.conf" <<'CONF'
# wg-quick runs this user-space implementation where the kernel has no WireGuard module.
[Service]
Environment=WG_QUICK_USERSPACE_IMPLEMENTATION=wireguard-salvo
CONF
install -d "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: wireguard-salvo
Version: $version
Architecture: $arch
Maintainer: Salvo contributors <salvo@localhost>
Depends: wireguard-tools, iproute2
Section: net
Priority: optional
Installed-Size: $(du -sk "$stage" | cut -f1)
Description: WireGuard in user space on Salvo's tunnel
 wireguard-salvo is a user-space WireGuard implementation, run by wg-quick as
 wireguard-go is. A native binary with no runtime to install.
CONTROL
mkdir -p "$out"
deb="$out/wireguard-salvo_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" >&2
echo "$deb"
