using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Doctor;

/// <summary>
/// Loopback probes of what the kernel really does, not what it advertises: UDP GSO (UDP_SEGMENT),
/// UDP GRO (UDP_GRO) and SO_REUSEPORT, each with a real bind, send and receive, bounded by timeouts.
/// </summary>
internal static class SocketProbes
{
    private const int SolUdp = 17;
    private const int UdpSegment = 103;
    private const int UdpGro = 104;
    private const int SolSocket = 1;
    private const int SoReusePort = 15;
    private const int SegmentSize = 1000;
    private const int Segments = 3;
    private const int TimeoutMilliseconds = 500;

    public static IEnumerable<Finding> Run()
    {
        if (!HostOs.IsLinux)
        {
            yield return new Finding("udp gso/gro", FindingStatus.Info, "Linux only; Salvo uses the portable backend here");
            yield break;
        }

        yield return Gso();
        yield return Gro();
        yield return ReusePort();
    }

    /// <summary>GSO: one 3,000-byte send with a 1,000-byte segment size must arrive as three datagrams.</summary>
    private static Finding Gso()
    {
        try
        {
            using var receiver = Open();
            using var sender = Open();
            if (!TrySet(sender, SolUdp, UdpSegment, SegmentSize, out var error))
            {
                return new Finding("udp gso (UDP_SEGMENT)", FindingStatus.Warn, $"setsockopt refused: {error}",
                    "The kernel lacks UDP GSO (Linux 4.18+); sends go one datagram per packet through the stack.");
            }

            sender.SendTo(new byte[SegmentSize * Segments], receiver.LocalEndPoint!);
            var sizes = ReceiveAll(receiver);
            return sizes.Count == Segments && sizes.All(s => s == SegmentSize)
                ? new Finding("udp gso (UDP_SEGMENT)", FindingStatus.Ok, $"works: one {SegmentSize * Segments}-byte send arrived as {Segments} datagrams of {SegmentSize}")
                : new Finding("udp gso (UDP_SEGMENT)", FindingStatus.Warn, $"accepted, but a {SegmentSize * Segments}-byte send arrived as [{string.Join(", ", sizes)}]",
                    "Do not rely on GSO on this host.");
        }
        catch (SocketException e)
        {
            return new Finding("udp gso (UDP_SEGMENT)", FindingStatus.Warn, $"probe failed: {e.SocketErrorCode}", "Do not rely on GSO on this host.");
        }
    }

    /// <summary>GRO: a GSO send into a UDP_GRO socket must be read as one coalesced buffer.</summary>
    private static Finding Gro()
    {
        try
        {
            using var receiver = Open();
            using var sender = Open();
            if (!TrySet(receiver, SolUdp, UdpGro, 1, out var error))
            {
                return new Finding("udp gro (UDP_GRO)", FindingStatus.Warn, $"setsockopt refused: {error}",
                    "The kernel lacks UDP GRO (Linux 5.0+); each datagram costs one receive slot.");
            }

            if (!TrySet(sender, SolUdp, UdpSegment, SegmentSize, out _))
            {
                return new Finding("udp gro (UDP_GRO)", FindingStatus.Info, "accepted; not verified (needs GSO to send a coalescible train)");
            }

            sender.SendTo(new byte[SegmentSize * Segments], receiver.LocalEndPoint!);
            var sizes = ReceiveAll(receiver);
            return sizes.Count == 1 && sizes[0] == SegmentSize * Segments
                ? new Finding("udp gro (UDP_GRO)", FindingStatus.Ok, $"works: {Segments} segments read as one {SegmentSize * Segments}-byte buffer")
                : new Finding("udp gro (UDP_GRO)", FindingStatus.Info, $"accepted; the segments were read as [{string.Join(", ", sizes)}] (not coalesced)",
                    "GRO coalesces only what the path delivers as one train; receive batching (recvmmsg) still applies.");
        }
        catch (SocketException e)
        {
            return new Finding("udp gro (UDP_GRO)", FindingStatus.Warn, $"probe failed: {e.SocketErrorCode}");
        }
    }

    /// <summary>SO_REUSEPORT: two sockets bind the same port.</summary>
    private static Finding ReusePort()
    {
        try
        {
            using var first = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            using var second = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            if (!TrySet(first, SolSocket, SoReusePort, 1, out var error) || !TrySet(second, SolSocket, SoReusePort, 1, out error))
            {
                return new Finding("SO_REUSEPORT", FindingStatus.Warn, $"setsockopt refused: {error}", "Receive workers cannot share a port; use one socket.");
            }

            first.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            second.Bind(first.LocalEndPoint!);
            return new Finding("SO_REUSEPORT", FindingStatus.Ok, "two sockets bound one port; the kernel spreads flows over receive workers");
        }
        catch (SocketException e)
        {
            return new Finding("SO_REUSEPORT", FindingStatus.Warn, $"probe failed: {e.SocketErrorCode}", "Receive workers cannot share a port; use one socket.");
        }
    }

    private static Socket Open()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        socket.ReceiveTimeout = TimeoutMilliseconds;
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return socket;
    }

    private static bool TrySet(Socket socket, int level, int name, int value, out string? error)
    {
        try
        {
            socket.SetRawSocketOption(level, name, BitConverter.GetBytes(value));
            error = null;
            return true;
        }
        catch (SocketException e)
        {
            error = e.SocketErrorCode.ToString();
            return false;
        }
    }

    /// <summary>Reads datagrams until the expected bytes arrived or a receive times out (at most 8 reads).</summary>
    private static List<int> ReceiveAll(Socket socket)
    {
        var sizes = new List<int>();
        var buffer = new byte[65_536];
        var total = 0;
        for (var i = 0; i < 8 && total < SegmentSize * Segments; i++)
        {
            try
            {
                var n = socket.Receive(buffer);
                sizes.Add(n);
                total += n;
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.TimedOut or SocketError.WouldBlock)
            {
                break;
            }
        }

        return sizes;
    }
}
