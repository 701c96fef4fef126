using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Protocol;
using Salvo.Perf.Threading;

namespace Salvo.Perf.Impair;

/// <summary>
/// A UDP relay that misbehaves on purpose: clients send to <see cref="ImpairOptions.Listen"/>, the relay
/// forwards to <see cref="ImpairOptions.Forward"/> from a socket of each client's own and sends the
/// server's replies back to that client, dropping, duplicating, holding back and delaying datagrams in both
/// directions as the seeded <see cref="ImpairDecider"/> says, and counting exactly what it did.
/// </summary>
/// <remarks>
/// Threads: one receives on the listen socket, each session's upstream socket has an async receive loop,
/// and a scheduler thread releases what is due. Every send happens under its line's lock, so what leaves a
/// line leaves in the order the line decided, and the counts describe the wire.
/// </remarks>
internal sealed class ImpairRelay : IDisposable
{
    private const string Up = "client-to-server";
    private const string Down = "server-to-client";
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(100);

    private readonly ImpairOptions _options;
    private readonly DatagramSocket _listen;
    private readonly DatagramAddress _forward;
    private readonly Dictionary<DatagramAddress, ImpairSession> _sessions = [];
    private readonly Lock _sessionsLock = new();
    private readonly Lock _sendLock = new();
    private readonly SendBatch _sendBatch = new(64);
    private readonly AutoResetEvent _wake = new(false);
    private readonly CancellationTokenSource _stop = new();
    private readonly Thread _receiver;
    private readonly Thread _scheduler;
    private ImpairSession[] _snapshot = [];
    private ImpairDirectionReport _retiredUp = Empty(Up);
    private ImpairDirectionReport _retiredDown = Empty(Down);
    private ulong _sessionsOpened;
    private long _sessionsRefused;
    private long _foreignReplies;
    private long _plannedWake = long.MaxValue;
    private int _state;

    /// <exception cref="ArgumentException">An option is invalid (the message names it).</exception>
    /// <exception cref="SocketException">The listen address cannot be bound.</exception>
    public ImpairRelay(ImpairOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = options.GetErrors();
        if (errors.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", errors), nameof(options));
        }

        _options = options;
        _forward = DatagramAddress.FromIPEndPoint(options.Forward);
        _listen = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = options.Listen,
            ReceiveBufferSize = 4 << 20,
            SendBufferSize = 4 << 20,
            Gso = false,
            Gro = false,
        });
        _receiver = new Thread(ReceiveClients) { Name = "salvo-impair-listen", IsBackground = true };
        _scheduler = new Thread(Schedule) { Name = "salvo-impair-timer", IsBackground = true };
    }

    /// <summary>Where clients send (the actual port when 0 was asked for).</summary>
    public IPEndPoint ListenEndPoint => _listen.LocalEndPoint;

    /// <summary>Clients tracked now (each with an upstream socket); idle ones are forgotten after <see cref="ImpairOptions.SessionIdle"/>.</summary>
    public int ActiveSessions => Sessions().Length;

    /// <summary>Copies waiting in every line (delayed or held).</summary>
    public int Pending => Sessions().Sum(s => Locked(s.Up, l => l.Pending) + Locked(s.Down, l => l.Pending));

    /// <summary>Starts relaying.</summary>
    public void Start()
    {
        if (Interlocked.CompareExchange(ref _state, 1, 0) != 0)
        {
            throw new InvalidOperationException("The relay has already been started.");
        }

        _receiver.Start();
        _scheduler.Start();
    }

    /// <summary>What the relay has done so far, both directions summed over clients.</summary>
    public ImpairReport Report()
    {
        ImpairDirectionReport up, down;
        lock (_sessionsLock)
        {
            up = _retiredUp;
            down = _retiredDown;
        }

        foreach (var session in Sessions())
        {
            up = up.Add(Locked(session.Up, l => l.Report(Up)));
            down = down.Add(Locked(session.Down, l => l.Report(Down)));
        }

        return new ImpairReport(up, down, (long)Volatile.Read(ref _sessionsOpened), Interlocked.Read(ref _sessionsRefused), Interlocked.Read(ref _foreignReplies));
    }

    /// <summary>
    /// Stops receiving, sends everything still delayed or held at once (so nothing is lost uncounted), and
    /// closes the sockets. The counts stay readable.
    /// </summary>
    public void Stop()
    {
        if (Interlocked.Exchange(ref _state, 2) == 2)
        {
            return;
        }

        _stop.Cancel();
        _wake.Set();
        _receiver.JoinIfStarted(Timeout.InfiniteTimeSpan);
        _scheduler.JoinIfStarted(Timeout.InfiniteTimeSpan);

        var emissions = new List<Emission<ImpairPacket>>();
        foreach (var session in Sessions())
        {
            Release(session.Up, l => l.Flush(emissions), session.Upstream, _forward, emissions);
            Release(session.Down, l => l.Flush(emissions), _listen, session.Client, emissions);
        }

        _listen.Dispose();
        foreach (var session in Sessions())
        {
            session.Dispose();
        }
    }

    public void Dispose()
    {
        Stop();
        _wake.Dispose();
        _stop.Dispose();
    }

    private static ImpairDirectionReport Empty(string direction) => new(direction, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private static TResult Locked<TResult>(ImpairLine<ImpairPacket> line, Func<ImpairLine<ImpairPacket>, TResult> read)
    {
        lock (line)
        {
            return read(line);
        }
    }

    private ImpairSession[] Sessions() => Volatile.Read(ref _snapshot);

    private void ReceiveClients()
    {
        var batch = new ReceiveBatch(16);
        var emissions = new List<Emission<ImpairPacket>>();
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                if (_listen.Receive(batch, Poll) == 0)
                {
                    continue;
                }

                foreach (var datagram in batch)
                {
                    // A session retired between the lookup and the take is looked up again (a new one opens).
                    for (var attempt = 0; attempt < 2 && FindOrOpen(datagram.Source) is { } session; attempt++)
                    {
                        session.Touch();
                        if (Take(session, session.Up, datagram.Payload, session.Upstream, _forward, emissions))
                        {
                            break;
                        }
                    }
                }
            }
        }
        catch (ObjectDisposedException)
        {
            // Stopping.
        }
    }

    private async Task ReceiveServerAsync(ImpairSession session)
    {
        var batch = new ReceiveBatch(4);
        var emissions = new List<Emission<ImpairPacket>>();
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                try
                {
                    await session.Upstream.ReceiveAsync(batch, _stop.Token).ConfigureAwait(false);
                }
                catch (SocketException)
                {
                    // A transient error (an ICMP error queued on the socket): pause briefly so a lasting one cannot spin, then go on.
                    await Task.Delay(10).ConfigureAwait(false);
                    continue;
                }

                foreach (var datagram in batch)
                {
                    // Only the server's answers go back: the upstream port is not an open door to the client.
                    if (!datagram.Source.Unmap().Equals(_forward.Unmap()))
                    {
                        Interlocked.Increment(ref _foreignReplies);
                        continue;
                    }

                    session.Touch();
                    if (!Take(session, session.Down, datagram.Payload, _listen, session.Client, emissions))
                    {
                        // The client was forgotten while this reply was in hand: nowhere to send it.
                        Interlocked.Increment(ref _foreignReplies);
                    }
                }
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or OperationCanceledException)
        {
            // Stopping, or the session was retired.
        }
    }

    /// <summary>Passes one datagram into a line; false (and nothing counted) when the session has been retired.</summary>
    private bool Take(ImpairSession session, ImpairLine<ImpairPacket> line, ReadOnlySpan<byte> payload, DatagramSocket via, DatagramAddress to, List<Emission<ImpairPacket>> emissions)
    {
        var packet = ImpairPacket.Copy(payload);
        long due;
        lock (line)
        {
            if (session.Retired)
            {
                packet.Return();
                return false;
            }

            if (!line.Accept(packet, MonotonicClock.NowNanoseconds(), emissions))
            {
                packet.Return();
            }

            Send(line, via, to, emissions);
            due = line.NextDueNanoseconds;
        }

        if (due < Volatile.Read(ref _plannedWake))
        {
            _wake.Set();
        }

        return true;
    }

    private void Release(ImpairLine<ImpairPacket> line, Action<ImpairLine<ImpairPacket>> release, DatagramSocket via, DatagramAddress to, List<Emission<ImpairPacket>> emissions)
    {
        lock (line)
        {
            release(line);
            Send(line, via, to, emissions);
        }
    }

    /// <summary>Sends what a line released, in order; called under the line's lock.</summary>
    private void Send(ImpairLine<ImpairPacket> line, DatagramSocket via, DatagramAddress to, List<Emission<ImpairPacket>> emissions)
    {
        if (emissions.Count == 0)
        {
            return;
        }

        try
        {
            lock (_sendLock)
            {
                for (var next = 0; next < emissions.Count;)
                {
                    _sendBatch.Clear();
                    while (next < emissions.Count && _sendBatch.TryAdd(emissions[next].Item.Buffer.AsSpan(0, emissions[next].Item.Length), to))
                    {
                        next++;
                    }

                    var failed = _sendBatch.Count - via.Send(_sendBatch);
                    if (failed > 0)
                    {
                        line.RecordSendFailures(failed);
                    }
                }
            }
        }
        catch (ObjectDisposedException)
        {
            line.RecordSendFailures(emissions.Count);
        }
        finally
        {
            foreach (var emission in emissions.Where(e => e.IsLastCopy))
            {
                emission.Item.Return();
            }

            emissions.Clear();
        }
    }

    private ImpairSession? FindOrOpen(DatagramAddress client)
    {
        lock (_sessionsLock)
        {
            if (_sessions.TryGetValue(client, out var session))
            {
                return session;
            }

            if (_sessions.Count >= _options.MaxSessions)
            {
                _sessionsRefused++;
                return null;
            }

            session = new ImpairSession(client, _options.Forward, _options, _sessionsOpened++);
            _sessions.Add(client, session);
            Volatile.Write(ref _snapshot, [.. _sessions.Values]);
            _ = Task.Run(() => ReceiveServerAsync(session));
            return session;
        }
    }

    private void Schedule()
    {
        var emissions = new List<Emission<ImpairPacket>>();
        while (!_stop.IsCancellationRequested)
        {
            var now = MonotonicClock.NowNanoseconds();
            var next = long.MaxValue;
            foreach (var session in Sessions())
            {
                Release(session.Up, l => l.Advance(now, emissions), session.Upstream, _forward, emissions);
                Release(session.Down, l => l.Advance(now, emissions), _listen, session.Client, emissions);
                next = Math.Min(next, Math.Min(Locked(session.Up, l => l.NextDueNanoseconds), Locked(session.Down, l => l.NextDueNanoseconds)));
            }

            RetireIdleSessions();
            Volatile.Write(ref _plannedWake, next);
            var wait = next == long.MaxValue ? Poll : TimeSpan.FromTicks(Math.Clamp((next - MonotonicClock.NowNanoseconds()) / 100, 0, Poll.Ticks));
            if (wait > TimeSpan.Zero)
            {
                _wake.WaitOne(wait);
            }
        }
    }

    private void RetireIdleSessions()
    {
        var idleMs = (long)_options.SessionIdle.TotalMilliseconds;
        var idle = Sessions().Where(s => Environment.TickCount64 - s.LastActivity > idleMs && Locked(s.Up, l => l.Pending) == 0 && Locked(s.Down, l => l.Pending) == 0).ToList();
        if (idle.Count == 0)
        {
            return;
        }

        lock (_sessionsLock)
        {
            foreach (var session in idle)
            {
                _sessions.Remove(session.Client);

                // Marked under both line locks: once the counts are taken, no datagram can enter either line.
                lock (session.Up)
                {
                    lock (session.Down)
                    {
                        session.Retired = true;
                        _retiredUp = _retiredUp.Add(session.Up.Report(Up));
                        _retiredDown = _retiredDown.Add(session.Down.Report(Down));
                    }
                }

                session.Dispose();
            }

            Volatile.Write(ref _snapshot, [.. _sessions.Values]);
        }
    }
}
