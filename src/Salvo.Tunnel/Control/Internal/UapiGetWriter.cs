using System.Buffers;
using System.Buffers.Text;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Writes the answer to <c>get=1</c> in the order and form wireguard-go's device/uapi.go writes it: keys in lowercase
/// hex, the private key, listen port and firewall mark only when set, then per peer its keys, endpoint, handshake
/// time since the Unix epoch, byte counts, keepalive and AllowedIPs. The caller adds the <c>errno=0</c> line.
/// </summary>
/// <remarks>
/// ASCII straight into the connection's buffer from the peer's own fields, under the engine's lock a page at a time:
/// no status object, key object or string per peer. Formatting through <see cref="PeerStatus"/> and strings made about
/// 25 objects a peer, and a million-peer dump took 9.66 s (docs/benchmarks.md). IPv6 is written by
/// <see cref="IPv6Text"/>; only an address .NET shows with an IPv4 tail, or an endpoint with a zone, still goes through
/// an <see cref="IPAddress"/>, so the text stays byte for byte what it was.
/// </remarks>
internal static class UapiGetWriter
{
    /// <summary>Peers written under the engine's lock at once: about 300 KB of text, a few ms of lock.</summary>
    public const int PageSize = 1_024;

    // The longest line but an IPv6 one: "persistent_keepalive_interval=" and a long, or a name and a hex key.
    private const int ShortLineBytes = 64;

    // "allowed_ip=", an IPv6 address with a zone (INET6_ADDRSTRLEN is 46, a zone up to 10 digits), "/128" or a port.
    private const int AddressLineBytes = 96;

    private static ReadOnlySpan<byte> HexDigits => "0123456789abcdef"u8;

    /// <summary>The whole answer into <paramref name="text"/> (tests; the connection writes it a page at a time).</summary>
    public static void Write(StringBuilder text, TunnelDevice device)
    {
        ArgumentNullException.ThrowIfNull(text);
        var answer = new ArrayBufferWriter<byte>();
        var peers = WriteDevice(answer, device);
        for (var start = 0; start < peers.Length; start += PageSize)
        {
            device.Engine.WriteControlPeers(peers, start, PageSize, answer);
        }

        text.Append(Encoding.ASCII.GetString(answer.WrittenSpan));
    }

    /// <summary>Writes the device's lines and returns the snapshot of peers to write after them, a page at a time.</summary>
    public static Protocol.Peer[] WriteDevice(IBufferWriter<byte> answer, TunnelDevice device)
    {
        ArgumentNullException.ThrowIfNull(answer);
        ArgumentNullException.ThrowIfNull(device);
        var (privateKey, peers) = device.Engine.GetControlSnapshot();
        if (privateKey is not null)
        {
            Key(answer, "private_key="u8, privateKey.Bytes);
        }

        if (device.ListenPort != 0)
        {
            Number(answer, "listen_port="u8, device.ListenPort);
        }

        if (device.FwMark != 0)
        {
            Number(answer, "fwmark="u8, device.FwMark);
        }

        return peers;
    }

    /// <summary>Writes one peer's lines; under the engine's lock, which keeps its fields and prefixes still.</summary>
    /// <param name="answer">Where the text goes.</param>
    /// <param name="peer">The peer.</param>
    /// <param name="endpoint">The endpoint <c>wg show</c> shows for it, or none.</param>
    public static void WritePeer(IBufferWriter<byte> answer, Protocol.Peer peer, DatagramAddress endpoint)
    {
        ArgumentNullException.ThrowIfNull(answer);
        ArgumentNullException.ThrowIfNull(peer);
        Key(answer, "public_key="u8, peer.PublicKey);
        Key(answer, "preshared_key="u8, peer.PresharedKey);
        Literal(answer, "protocol_version=1\n"u8);
        if (endpoint.HasValue)
        {
            Endpoint(answer, endpoint);
        }

        // Nanoseconds since the epoch, split as wireguard-go splits them; 0 and 0 before the first handshake.
        var nanoseconds = peer.LastHandshake is { } handshake ? (handshake - DateTimeOffset.UnixEpoch).Ticks * 100 : 0;
        Number(answer, "last_handshake_time_sec="u8, nanoseconds / 1_000_000_000);
        Number(answer, "last_handshake_time_nsec="u8, nanoseconds % 1_000_000_000);
        Number(answer, "tx_bytes="u8, peer.SentBytes);
        Number(answer, "rx_bytes="u8, peer.ReceivedBytes);
        Number(answer, "persistent_keepalive_interval="u8, peer.PersistentKeepalive > TimeSpan.Zero ? (long)peer.PersistentKeepalive.TotalSeconds : 0);
        foreach (var prefix in PackedPrefixes.Enumerate(peer.OwnedPrefixes))
        {
            var span = answer.GetSpan(AddressLineBytes);
            var at = Put(span, "allowed_ip="u8);
            at += Address(span[at..], prefix.Address);
            span[at++] = (byte)'/';
            at += Digits(span[at..], prefix.Length);
            span[at++] = (byte)'\n';
            answer.Advance(at);
        }
    }

    private static void Endpoint(IBufferWriter<byte> answer, DatagramAddress endpoint)
    {
        var span = answer.GetSpan(AddressLineBytes);
        var at = Put(span, "endpoint="u8);
        if (endpoint.Family == AddressFamily.InterNetwork)
        {
            Span<byte> four = stackalloc byte[4];
            endpoint.WriteAddressBytes(four);
            at += Address(span[at..], four);
            span[at++] = (byte)':';
            at += Digits(span[at..], endpoint.Port);
        }
        else
        {
            Span<byte> sixteen = stackalloc byte[16];
            endpoint.WriteAddressBytes(sixteen);
            if (endpoint.ScopeId == 0 && IPv6Text.TryWrite(sixteen, span[(at + 1)..], out var written))
            {
                span[at] = (byte)'[';
                at += 1 + written;
                span[at++] = (byte)']';
                span[at++] = (byte)':';
                at += Digits(span[at..], endpoint.Port);
            }
            else
            {
                // With a zone or an IPv4 tail, as IPEndPoint shows it; rare enough to make the objects.
                at += Encoding.ASCII.GetBytes(endpoint.ToIPEndPoint().ToString(), span[at..]);
            }
        }

        span[at++] = (byte)'\n';
        answer.Advance(at);
    }

    /// <summary>A dotted quad by hand; IPv6 by <see cref="IPv6Text"/>, or through <see cref="IPAddress"/> for the forms with an IPv4 tail.</summary>
    private static int Address(Span<byte> destination, ReadOnlySpan<byte> address)
    {
        if (address.Length == 4)
        {
            var at = 0;
            for (var i = 0; i < 4; i++)
            {
                if (i > 0)
                {
                    destination[at++] = (byte)'.';
                }

                at += Digits(destination[at..], address[i]);
            }

            return at;
        }

        if (IPv6Text.TryWrite(address, destination, out var written))
        {
            return written;
        }

        return new IPAddress(address).TryFormat(destination, out written) ? written : throw new InvalidOperationException("An IPv6 address is at most 45 characters.");
    }

    private static void Key(IBufferWriter<byte> answer, ReadOnlySpan<byte> name, ReadOnlySpan<byte> key)
    {
        var span = answer.GetSpan(name.Length + (2 * key.Length) + 1);
        var at = Put(span, name);
        foreach (var b in key)
        {
            span[at++] = HexDigits[b >> 4];
            span[at++] = HexDigits[b & 0xF];
        }

        span[at++] = (byte)'\n';
        answer.Advance(at);
    }

    private static void Number(IBufferWriter<byte> answer, ReadOnlySpan<byte> name, long value)
    {
        var span = answer.GetSpan(ShortLineBytes);
        var at = Put(span, name);
        at += Digits(span[at..], value);
        span[at++] = (byte)'\n';
        answer.Advance(at);
    }

    private static void Literal(IBufferWriter<byte> answer, ReadOnlySpan<byte> text)
    {
        text.CopyTo(answer.GetSpan(text.Length));
        answer.Advance(text.Length);
    }

    private static int Put(Span<byte> destination, ReadOnlySpan<byte> text)
    {
        text.CopyTo(destination);
        return text.Length;
    }

    private static int Digits(Span<byte> destination, long value) =>
        Utf8Formatter.TryFormat(value, destination, out var written) ? written : throw new InvalidOperationException("A long is at most 20 characters.");
}
