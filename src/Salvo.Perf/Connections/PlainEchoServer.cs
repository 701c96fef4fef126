using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>
/// The plain .NET echo server <c>salvo connections --server plain</c> measures Salvo against: an accept loop and
/// one async task per connection that owns a 4 KiB <c>byte[]</c> (grown when a frame needs more) and awaits
/// <see cref="Socket.ReceiveAsync(Memory{byte}, SocketFlags, CancellationToken)"/> into it, echoing each frame with
/// its own <c>SendAsync</c>. What most samples and many services do; every connection keeps its buffer while idle.
/// </summary>
internal sealed class PlainEchoServer : IEchoShardServer
{
    // The buffer size of the usual sample (and of NetworkStream-style loops).
    private const int ReceiveBufferBytes = 4096;

    // include/uapi/asm-generic/socket.h
    private const int SolSocket = 1;
    private const int SoReusePort = 15;

    private readonly Socket _listener;
    private readonly IMessageFramer _framer;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<string, long> _closedByReason = new();
    private readonly ConcurrentDictionary<Socket, byte> _open = new();
    private Task _acceptLoop = Task.CompletedTask;

    public PlainEchoServer(IPEndPoint endPoint, IMessageFramer framer)
    {
        _framer = framer;
        _listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        _listener.SetRawSocketOption(SolSocket, SoReusePort, BitConverter.GetBytes(1));
        _listener.Bind(endPoint);
    }

    public int Port => ((IPEndPoint)_listener.LocalEndPoint!).Port;

    public int ConnectionCount => _open.Count;

    public long PinnedBytes => 0;

    public long RentedBlocks => 0;

    public IReadOnlyDictionary<string, long> ClosedByReason => new Dictionary<string, long>(_closedByReason);

    public void Start()
    {
        _listener.Listen(4_096);
        _acceptLoop = AcceptLoopAsync();
    }

    public async ValueTask DisposeAsync()
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        _listener.Dispose();
        await _acceptLoop.ConfigureAwait(false);
        foreach (var socket in _open.Keys)
        {
            socket.Dispose();
        }

        _stopping.Dispose();
    }

    private async Task AcceptLoopAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync(_stopping.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            socket.NoDelay = true;
            _open[socket] = 0;
            _ = ServeAsync(socket);
        }
    }

    private async Task ServeAsync(Socket socket)
    {
        var reason = "PeerClosed";
        var buffer = new byte[ReceiveBufferBytes];
        var scratch = new ArrayBufferWriter<byte>(); // for unescaping STX/ETX; holds nothing until used
        var count = 0;
        try
        {
            while (true)
            {
                var read = await socket.ReceiveAsync(buffer.AsMemory(count), SocketFlags.None, _stopping.Token).ConfigureAwait(false);
                if (read == 0)
                {
                    break;
                }

                count += read;
                var consumed = 0;
                while (consumed < count)
                {
                    var result = _framer.TryDecode(new ReadOnlySequence<byte>(buffer, consumed, count - consumed), scratch);
                    if (result.Status == FrameDecodeStatus.NeedMore)
                    {
                        break;
                    }

                    if (result.Status == FrameDecodeStatus.Malformed)
                    {
                        reason = "Malformed";
                        return;
                    }

                    // The frame goes back as it came: the same bytes, one send each.
                    await socket.SendAsync(buffer.AsMemory(consumed, (int)result.Consumed), SocketFlags.None, _stopping.Token).ConfigureAwait(false);
                    consumed += (int)result.Consumed;
                    scratch.ResetWrittenCount();
                }

                count -= consumed;
                Buffer.BlockCopy(buffer, consumed, buffer, 0, count);
                if (count == buffer.Length)
                {
                    // A frame longer than the buffer: grow it, as such loops do, up to the largest frame.
                    if (buffer.Length >= _framer.MaxFrameSize)
                    {
                        reason = "Malformed";
                        return;
                    }

                    Array.Resize(ref buffer, Math.Min(buffer.Length * 2, _framer.MaxFrameSize));
                }
            }
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            reason = _stopping.IsCancellationRequested ? "LocalClose" : "SocketError";
        }
        finally
        {
            _open.TryRemove(socket, out _);
            socket.Dispose();
            _closedByReason.AddOrUpdate(reason, 1, (_, n) => n + 1);
        }
    }
}
