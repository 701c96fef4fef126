using System.Net;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>Opens the UDP socket of one iperf3 stream: connected to its peer, so the kernel sends it only that peer's datagrams.</summary>
internal static class Iperf3StreamSocket
{
    /// <summary>
    /// A socket on the server's own port (SO_REUSEPORT, as the server's receive engine), connected to the
    /// client's stream. Linux prefers a connected socket that matches all four of address and port over the
    /// unconnected ones sharing the port, and leaves connected sockets out of the REUSEPORT spread
    /// (net/ipv4/udp.c, udp4_lib_lookup2), so the stream's datagrams reach this socket only.
    /// </summary>
    public static DatagramSocket OpenOnServerPort(IPEndPoint serverPort, IPEndPoint client, DatagramBackend backend)
    {
        var socket = new DatagramSocket(Options(serverPort, reusePort: true, backend));
        Connect(socket, client);
        return socket;
    }

    /// <summary>A client's stream socket on an ephemeral port, connected to the server's port.</summary>
    public static DatagramSocket OpenToServer(IPAddress bind, IPEndPoint server, DatagramBackend backend)
    {
        var socket = new DatagramSocket(Options(new IPEndPoint(bind, 0), reusePort: false, backend));
        Connect(socket, server);
        return socket;
    }

    private static DatagramSocketOptions Options(IPEndPoint local, bool reusePort, DatagramBackend backend) => new()
    {
        Backend = backend,
        LocalEndPoint = local,
        ReusePort = reusePort,
        ReceiveBufferSize = 4 << 20,
        SendBufferSize = 4 << 20,
    };

    private static void Connect(DatagramSocket socket, IPEndPoint peer)
    {
        try
        {
            socket.Connect(peer);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }
}
