using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Salvo.Perf.Measurement;
using Salvo.Perf.Native;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

// Safety: each pointer comes from a `fixed` over a managed array for exactly one synchronous send, recv or
// epoll_wait, with a length inside that array (commented at each site).
/// <summary>
/// One thread of the lean load generator: paces its share of the messages over its slice of connections and
/// reads their echoes from its own level-triggered epoll set. A message costs one <c>send</c> and, per wake,
/// one <c>recv</c>; there is no thread pool hop, no pipe and no task per connection.
/// </summary>
internal sealed unsafe class EpollLoadLoop : IDisposable
{
    private const int MaxEvents = 256;

    // One read takes up to 128 echoes of 512 bytes from one connection.
    private const int ReceiveBufferBytes = 64 * 1024;

    private const int TimestampBytes = 8;

    // Sends between two reads of the echoes: a loop that falls behind and sent everything due before reading again
    // would let the echoes fill its receive windows and stall the server's sends (measured: one loop at 100,000/s
    // echoed 10-19 k/s with no cap).
    private const int MaxSendsPerTurn = 64;

    private readonly int _epoll;
    private readonly LoadConnection[] _connections;
    private readonly IMessageFramer _framer;
    private readonly ArrayBufferWriter<byte> _frame = new();
    private readonly ArrayBufferWriter<byte> _scratch = new();
    private readonly byte[] _receive = GC.AllocateArray<byte>(ReceiveBufferBytes, pinned: true);
    private readonly byte[] _events = GC.AllocateArray<byte>(MaxEvents * 16, pinned: true);
    private readonly List<LoadConnection> _unsent = [];
    private readonly int _heldCapacity;
    private readonly int _batch;
    private bool _recording;

    /// <summary>Registers <paramref name="fds"/> (connected, non-blocking sockets) with a new epoll set.</summary>
    /// <exception cref="IOException">epoll could not be created or a socket not added.</exception>
    /// <param name="fds">The sockets.</param>
    /// <param name="framer">Encodes the messages and decodes the echoes.</param>
    /// <param name="maxMessageBytes">The largest message this run sends.</param>
    /// <param name="batch">Messages written to a connection together, in one send.</param>
    public EpollLoadLoop(IReadOnlyList<int> fds, IMessageFramer framer, int maxMessageBytes, int batch)
    {
        _framer = framer;
        _batch = batch;
        _epoll = Epoll.Create(Epoll.CloseOnExec);
        if (_epoll < 0)
        {
            throw new IOException($"epoll_create1 failed: errno {Marshal.GetLastPInvokeError()}.");
        }

        // An escaped STX/ETX frame is at most twice the message plus its delimiters; a length prefix is 4 bytes. An
        // echo cut short holds at most one frame; a batch's echoes may come back as one read, so keep room for it.
        _heldCapacity = batch * ((2 * maxMessageBytes) + 16);
        _connections = new LoadConnection[fds.Count];
        for (var i = 0; i < fds.Count; i++)
        {
            _connections[i] = new LoadConnection(fds[i]);
            var errno = Epoll.Add(_epoll, fds[i], Epoll.In, (ulong)i);
            if (errno != 0)
            {
                Epoll.Close(_epoll);
                throw new IOException($"epoll_ctl(ADD) failed for socket {fds[i]}: errno {errno}.");
            }
        }
    }

    /// <summary>Messages handed to the kernel whole or in part (the rest follows as the socket drains).</summary>
    public long Sent { get; private set; }

    /// <summary>Messages not sent: the connection's socket buffer was full, it still held an earlier partial frame, or it had closed.</summary>
    public long Refused { get; private set; }

    /// <summary>Echoes received while recording.</summary>
    public long Echoed { get; private set; }

    /// <summary>Of <see cref="Echoed"/>, those that came back within the send window.</summary>
    public long EchoedInWindow { get; private set; }

    /// <summary>Connections the server closed or that failed.</summary>
    public long Closed { get; private set; }

    /// <summary>Connections whose echo did not decode (closed by this side).</summary>
    public long Malformed { get; private set; }

    /// <summary>How long <see cref="Run"/> sent: the window <see cref="EchoedInWindow"/> covers (the other counts include the settle time).</summary>
    public double Seconds { get; private set; }

    /// <summary>Round trips of the echoes received while recording.</summary>
    public LatencyHistogram Latency { get; } = new();

    /// <summary>
    /// Sends <paramref name="ratePerSecond"/> messages/s of random lengths to random connections for
    /// <paramref name="seconds"/> and records their echoes; echoes still in flight at the end are not counted,
    /// unless <paramref name="settleSeconds"/> gives them time to arrive (<see cref="Seconds"/> stays the window).
    /// </summary>
    public void Run(double ratePerSecond, double seconds, int minMessageBytes, int maxMessageBytes, int seed, double settleSeconds = 0)
    {
        var random = new Random(seed);
        var message = new byte[maxMessageBytes];
        var clock = Stopwatch.StartNew();
        _recording = true;
        double elapsed;
        while ((elapsed = clock.Elapsed.TotalSeconds) < seconds)
        {
            SendUnsent();
            var due = (long)(elapsed * ratePerSecond) - Sent - Refused;
            var left = Math.Min(due, MaxSendsPerTurn * (long)_batch);
            var behind = due > left;
            while (left > 0)
            {
                var count = (int)Math.Min(left, _batch);
                _frame.ResetWrittenCount();
                for (var k = 0; k < count; k++)
                {
                    var length = random.Next(minMessageBytes, maxMessageBytes + 1);
                    BinaryPrimitives.WriteInt64LittleEndian(message, Stopwatch.GetTimestamp());
                    _framer.Encode(message.AsSpan(0, length), _frame);
                }

                SendFrames(_connections[random.Next(_connections.Length)], count);
                left -= count;
            }

            // Behind: read what came back and go on at once. On time: wait up to 1 ms (at 50,000 messages/s a turn
            // sends about 50); echoes wake it sooner.
            Poll(timeoutMilliseconds: behind ? 0 : 1);
        }

        Seconds = clock.Elapsed.TotalSeconds;
        EchoedInWindow = Echoed;
        var settle = Stopwatch.StartNew();
        while (Echoed < Sent && Closed == 0 && settle.Elapsed.TotalSeconds < settleSeconds)
        {
            SendUnsent();
            Poll(timeoutMilliseconds: 1);
        }

        _recording = false;
    }

    /// <inheritdoc />
    public void Dispose() => Epoll.Close(_epoll);

    /// <summary>Sends the <paramref name="messages"/> frames encoded in <see cref="_frame"/> with one <c>send</c>.</summary>
    private void SendFrames(LoadConnection connection, int messages)
    {
        if (connection.IsClosed || connection.UnsentCount > 0)
        {
            Refused += messages;
            return;
        }

        var frame = _frame.WrittenSpan;
        nint written;
        // Safety: the frame's own length; send(2) keeps no pointer after it returns.
        fixed (byte* bytes = frame)
        {
            written = Epoll.Send(connection.Fd, bytes, (nuint)frame.Length, Epoll.NoSignal);
        }

        if (written < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            Refused += messages;
            if (errno != Epoll.TryAgain && errno != Epoll.Interrupted)
            {
                Close(connection);
            }

            return;
        }

        Sent += messages;
        if (written < frame.Length)
        {
            // The kernel took part of the frame: the rest goes before anything else on this connection.
            connection.KeepUnsent(frame[(int)written..]);
            _unsent.Add(connection);
        }
    }

    private void SendUnsent()
    {
        for (var i = _unsent.Count - 1; i >= 0; i--)
        {
            var connection = _unsent[i];
            if (!connection.IsClosed)
            {
                nint written;
                // Safety: UnsentOffset + UnsentCount never exceeds Unsent.Length (both move together below).
                fixed (byte* bytes = connection.Unsent)
                {
                    written = Epoll.Send(connection.Fd, bytes + connection.UnsentOffset, (nuint)connection.UnsentCount, Epoll.NoSignal);
                }

                if (written > 0)
                {
                    connection.UnsentOffset += (int)written;
                    connection.UnsentCount -= (int)written;
                }
                else if (written < 0 && Marshal.GetLastPInvokeError() is not (Epoll.TryAgain or Epoll.Interrupted))
                {
                    Close(connection);
                }
            }

            if (connection.IsClosed || connection.UnsentCount == 0)
            {
                _unsent.RemoveAt(i);
            }
        }
    }

    private void Poll(int timeoutMilliseconds)
    {
        int ready;
        // Safety: _events holds MaxEvents * 16 bytes, room for MaxEvents events of EventSize (12 or 16) bytes.
        fixed (byte* events = _events)
        {
            ready = Epoll.Wait(_epoll, events, MaxEvents, timeoutMilliseconds);
            for (var i = 0; i < ready; i++)
            {
                Receive(_connections[(int)Epoll.DataAt(events, i)]);
            }
        }

        if (ready < 0 && Marshal.GetLastPInvokeError() != Epoll.Interrupted)
        {
            throw new IOException($"epoll_wait failed: errno {Marshal.GetLastPInvokeError()}.");
        }
    }

    private void Receive(LoadConnection connection)
    {
        if (connection.IsClosed)
        {
            return;
        }

        // Bytes of a frame cut short by the last read go first: read the rest straight after them.
        var held = connection.HeldCount > 0;
        var buffer = held ? connection.Held! : _receive;
        var start = held ? connection.HeldCount : 0;
        nint read;
        // Safety: start <= buffer.Length, and recv(2) writes at most buffer.Length - start bytes after it.
        fixed (byte* bytes = buffer)
        {
            read = Epoll.Receive(connection.Fd, bytes + start, (nuint)(buffer.Length - start), 0);
        }

        if (read <= 0)
        {
            if (read == 0 || Marshal.GetLastPInvokeError() is not (Epoll.TryAgain or Epoll.Interrupted))
            {
                Close(connection);
            }

            return;
        }

        Decode(connection, buffer, start + (int)read);
    }

    private void Decode(LoadConnection connection, byte[] buffer, int count)
    {
        var consumed = 0;
        while (consumed < count)
        {
            var result = _framer.TryDecode(new ReadOnlySequence<byte>(buffer, consumed, count - consumed), _scratch);
            if (result.Status == FrameDecodeStatus.NeedMore)
            {
                break;
            }

            if (result.Status == FrameDecodeStatus.Malformed)
            {
                Malformed++;
                Close(connection);
                return;
            }

            Record(result.Message);
            consumed += (int)result.Consumed;
            _scratch.ResetWrittenCount();
        }

        var left = count - consumed;
        if (left == 0)
        {
            connection.HeldCount = 0;
            return;
        }

        if (left >= _heldCapacity)
        {
            // More than the largest frame this run sends, and still no end: the echo is garbage.
            Malformed++;
            Close(connection);
            return;
        }

        connection.Held ??= new byte[_heldCapacity];
        Buffer.BlockCopy(buffer, consumed, connection.Held, 0, left);
        connection.HeldCount = left;
    }

    private void Record(ReadOnlySequence<byte> echo)
    {
        if (!_recording || echo.Length < TimestampBytes)
        {
            return;
        }

        Span<byte> stamp = stackalloc byte[TimestampBytes];
        echo.Slice(0, TimestampBytes).CopyTo(stamp);
        var elapsed = Stopwatch.GetElapsedTime(BinaryPrimitives.ReadInt64LittleEndian(stamp));
        Latency.RecordNanoseconds(elapsed.Ticks * 100);
        Echoed++;
    }

    private void Close(LoadConnection connection)
    {
        if (!connection.IsClosed)
        {
            connection.IsClosed = true;
            Epoll.Remove(_epoll, connection.Fd);
            Closed++;
        }
    }

    /// <summary>What the loop keeps per connection; the socket itself stays with its owner.</summary>
    private sealed class LoadConnection(int fd)
    {
        public int Fd { get; } = fd;

        public bool IsClosed { get; set; }

        /// <summary>The start of a frame the last read cut short; allocated the first time that happens.</summary>
        public byte[]? Held { get; set; }

        public int HeldCount { get; set; }

        /// <summary>The rest of a frame the kernel took only part of.</summary>
        public byte[]? Unsent { get; private set; }

        public int UnsentOffset { get; set; }

        public int UnsentCount { get; set; }

        public void KeepUnsent(ReadOnlySpan<byte> rest)
        {
            if (Unsent is null || Unsent.Length < rest.Length)
            {
                Unsent = new byte[rest.Length];
            }

            rest.CopyTo(Unsent);
            UnsentOffset = 0;
            UnsentCount = rest.Length;
        }
    }
}
