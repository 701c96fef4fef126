using System.Net;
using System.Net.Sockets;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A man in the middle on loopback: one end sends to the relay, which forwards to <c>target</c> and carries the answers
/// back. It keeps the last initiation and transport message it forwarded toward the target, can hold one back, and can
/// send anything to the target from the address the target knows as its peer's.
/// </summary>
internal sealed class UdpRelay : IDisposable
{
    private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
    private readonly IPEndPoint _target;
    private readonly Thread _loop;
    private readonly Lock _gate = new();
    private volatile bool _stopping;
    private IPEndPoint? _client;
    private TaskCompletionSource<byte[]>? _held;

    public UdpRelay(IPEndPoint target)
    {
        _target = target;
        _socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _socket.ReceiveTimeout = 100;
        _loop = new Thread(Run) { IsBackground = true, Name = "udp relay" };
        _loop.Start();
    }

    public IPEndPoint EndPoint => (IPEndPoint)_socket.LocalEndPoint!;

    public byte[]? LastInitiation { get; private set; }

    public byte[]? LastTransport { get; private set; }

    /// <summary>The next transport message toward the target, not forwarded.</summary>
    public Task<byte[]> HoldNextTransport()
    {
        lock (_gate)
        {
            _held = new TaskCompletionSource<byte[]>(TaskCreationOptions.RunContinuationsAsynchronously);
            return _held.Task;
        }
    }

    /// <summary>Sends <paramref name="datagram"/> to the target as if the relayed peer had.</summary>
    public void SendToTarget(ReadOnlySpan<byte> datagram) => _socket.SendTo(datagram, SocketFlags.None, _target);

    public void Dispose()
    {
        _stopping = true;
        _loop.Join(TimeSpan.FromSeconds(2));
        _socket.Dispose();
    }

    private void Run()
    {
        var buffer = new byte[2048];
        while (!_stopping)
        {
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            int length;
            try
            {
                length = _socket.ReceiveFrom(buffer, ref from);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.TimedOut)
            {
                continue;
            }

            var datagram = buffer.AsSpan(0, length);
            if (from.Equals(_target))
            {
                if (_client is not null)
                {
                    _socket.SendTo(datagram, SocketFlags.None, _client);
                }

                continue;
            }

            _client = (IPEndPoint)from;
            if (!Record(datagram.ToArray()))
            {
                _socket.SendTo(datagram, SocketFlags.None, _target);
            }
        }
    }

    /// <summary>Keeps a copy by type; true when the message is held back instead of forwarded.</summary>
    private bool Record(byte[] datagram)
    {
        switch (datagram[0])
        {
            case 1:
                LastInitiation = datagram;
                return false;
            case 4 when datagram.Length > 32:
                LastTransport = datagram;
                lock (_gate)
                {
                    var held = _held;
                    _held = null;
                    return held?.TrySetResult(datagram) ?? false;
                }

            default:
                return false;
        }
    }
}
