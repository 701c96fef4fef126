using System.Net.Sockets;
using System.Text;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>Speaks the configuration protocol to a control socket as wg does: one request, then the answer up to "errno=N" and its blank line.</summary>
internal sealed class UapiClient : IDisposable
{
    private readonly Socket _socket = new(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
    private readonly List<byte> _pending = [];

    public UapiClient(string path) => _socket.Connect(new UnixDomainSocketEndPoint(path));

    public static string Request(string path, string request)
    {
        using var client = new UapiClient(path);
        return client.Send(request);
    }

    /// <summary>The whole answer, errno line included; throws when the server closes or is silent for 10 s.</summary>
    public string Send(string request)
    {
        _socket.Send(Encoding.ASCII.GetBytes(request));
        var buffer = new byte[65536];
        _socket.ReceiveTimeout = 10_000;
        while (true)
        {
            var text = Encoding.ASCII.GetString([.. _pending]);
            var errno = text.IndexOf("errno=", StringComparison.Ordinal);
            if (errno >= 0 && text.IndexOf("\n\n", errno, StringComparison.Ordinal) is var end and >= 0)
            {
                _pending.RemoveRange(0, end + 2);
                return text[..(end + 1)];
            }

            var read = _socket.Receive(buffer);
            if (read == 0)
            {
                throw new IOException($"The control socket closed the connection; got: '{text}'");
            }

            _pending.AddRange(buffer.AsSpan(0, read));
        }
    }

    /// <summary>Whether the server closed the connection (reads 0 within 10 s).</summary>
    public bool IsClosedByServer()
    {
        _socket.ReceiveTimeout = 10_000;
        try
        {
            return _socket.Receive(new byte[1]) == 0;
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
            return true;
        }
    }

    /// <summary>
    /// Whether the server has neither closed the connection nor sent anything, checked without waiting: a closed
    /// connection reads as ready (end of file), as does one with bytes to read.
    /// </summary>
    public bool IsOpenAndSilent() => _pending.Count == 0 && !_socket.Poll(0, SelectMode.SelectRead);

    public void SendRaw(byte[] bytes) => _socket.Send(bytes);

    /// <summary>Ends the request stream as a client that stops halfway does (the server reads end of file).</summary>
    public void EndSending() => _socket.Shutdown(SocketShutdown.Send);

    /// <summary>Everything the server sends until it closes the connection; throws when it stays open for <paramref name="timeout"/>.</summary>
    public string ReadUntilClosed(TimeSpan timeout)
    {
        _socket.ReceiveTimeout = (int)timeout.TotalMilliseconds;
        var received = new List<byte>(_pending);
        var buffer = new byte[4096];
        while (true)
        {
            int read;
            try
            {
                read = _socket.Receive(buffer);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
            {
                read = 0;
            }

            if (read == 0)
            {
                return Encoding.ASCII.GetString([.. received]);
            }

            received.AddRange(buffer.AsSpan(0, read));
        }
    }

    public void Dispose() => _socket.Dispose();

    /// <summary>The value of each "key=value" line in <paramref name="answer"/> with that key.</summary>
    public static List<string> Values(string answer, string key) =>
        [.. answer.Split('\n').Where(line => line.StartsWith(key + "=", StringComparison.Ordinal)).Select(line => line[(key.Length + 1)..])];

    public static string Hex(WireGuardKey key) => Convert.ToHexStringLower(key.Bytes);
}
