using System.Buffers.Binary;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Strangers against a TCP fallback listener on loopback: connections from 127.0.1.1, 127.0.1.2, ... (IPv4 loopback is
/// a /8, so each is a source address of its own), each sending 36-byte frames (a length prefix and 32 junk bytes)
/// that no WireGuard message could be. Disposing closes every one.
/// </summary>
internal sealed class JunkConnections : IDisposable
{
    private static readonly byte[] s_frame = JunkFrame();
    private readonly List<Socket> _sockets = [];
    private readonly IPEndPoint _target;

    /// <param name="port">The listener's port on 127.0.0.1.</param>
    /// <param name="count">Connections to open, spread round-robin over the sources.</param>
    /// <param name="sources">How many source addresses, from 127.0.1.1 on (at most 254).</param>
    public JunkConnections(int port, int count, int sources)
    {
        _target = new IPEndPoint(IPAddress.Loopback, port);
        Sources = sources;
        for (var i = 0; i < count; i++)
        {
            _sockets.Add(Connect(i));
        }

        SendJunk(reconnect: false);
    }

    public int Sources { get; }

    /// <summary>Connections the listener had closed when <see cref="SendJunk"/> found them, and that were opened again.</summary>
    public int Reopened { get; private set; }

    /// <summary>
    /// Sends one junk frame on each connection. One the listener closed (the send fails) is passed over, or with
    /// <paramref name="reconnect"/> opened again from the same source, so the flood stays at full strength.
    /// </summary>
    public void SendJunk(bool reconnect)
    {
        for (var i = 0; i < _sockets.Count; i++)
        {
            if (TrySend(_sockets[i]) || !reconnect)
            {
                continue;
            }

            _sockets[i].Dispose();
            _sockets[i] = Connect(i);
            Reopened++;
            _ = TrySend(_sockets[i]);
        }
    }

    private static bool TrySend(Socket socket)
    {
        try
        {
            socket.Send(s_frame, SocketFlags.None);
            return true;
        }
        catch (SocketException)
        {
            // Reset by the listener: that stranger was refused or closed, which is what the tests look for.
            return false;
        }
    }

    private Socket Connect(int index)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Bind(new IPEndPoint(IPAddress.Parse(string.Create(CultureInfo.InvariantCulture, $"127.0.1.{1 + (index % Sources)}")), 0));
            socket.Connect(_target);
        }
        catch (SocketException)
        {
            // The listener's backlog was full for a moment: this one stays unconnected, and its sends fail.
        }

        return socket;
    }

    public void Dispose()
    {
        foreach (var socket in _sockets)
        {
            socket.Dispose();
        }
    }

    private static byte[] JunkFrame()
    {
        // Type byte 0xee: no WireGuard message type (1 to 4).
        var frame = new byte[36];
        BinaryPrimitives.WriteUInt32BigEndian(frame, 32);
        frame.AsSpan(4).Fill(0xee);
        return frame;
    }
}
