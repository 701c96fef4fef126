using System.Net.Sockets;

namespace Salvo.Tunnel;

public sealed partial class TunnelDevice
{
    /// <summary>The largest MTU the kernel gives a TUN interface (drivers/net/tun.c, MAX_MTU).</summary>
    private const int LargestTunMtu = 65_535;

    /// <summary>What the data loops do with an unexpected error: counted, logged at most once a second, a 10 ms pause.</summary>
    private readonly ReceiveErrorPolicy _loopErrors;

    private long _tooLargeSeen;
    private volatile Exception? _loopFailure;

    /// <summary>
    /// Why a data loop ended while the tunnel was running: null while both run, as they should until <see cref="Dispose"/>
    /// (an error inside one round is counted as <see cref="TunnelDropReason.InternalError"/> and the loop goes on). A
    /// process that hosts the tunnel stops when this is set, since the tunnel no longer carries packets.
    /// </summary>
    public Exception? LoopFailure => _loopFailure;

    private void RunOutbound() => RunLoop("outbound (device to network)", OutboundRounds);

    private void RunInbound() => RunLoop("inbound (network to device)", InboundRounds);

    /// <summary>The last guard of a loop's thread: an exception that escaped the loop's own handling ends only the loop, and is reported.</summary>
    private void RunLoop(string loop, Action rounds)
    {
        try
        {
            rounds();
        }
        catch (Exception e) when (!_stop.IsCancellationRequested)
        {
            _loopFailure = e;
            TunnelLog.LoopEnded(_logger, _tun.Name, loop, e);
        }
    }

    private void OutboundRounds()
    {
        var packets = new PacketBatch(BatchSize, _packetSlotSize);
        var output = new Output(this);
        var nextTick = DateTime.UtcNow;
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                if (packets.BufferSize < _packetSlotSize)
                {
                    packets = new PacketBatch(BatchSize, _packetSlotSize);
                }

                if (ReadPackets(packets) > 0)
                {
                    Engine.SendPackets(packets, output);
                }

                if (DateTime.UtcNow >= nextTick)
                {
                    FollowInterfaceMtu();
                    Engine.Tick(output);
                    nextTick = DateTime.UtcNow + TunnelEngine.TickInterval;
                }

                output.Flush();
            }
            catch (ObjectDisposedException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (!_stop.IsCancellationRequested)
            {
                OnLoopError("outbound (device to network)", output, e);
            }
        }
    }

    private void InboundRounds()
    {
        var datagrams = new ReceiveBatch(ReceiveBuffers, ReceiveBatch.DefaultBufferSize);
        var output = new Output(this);
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                if (ReceiveDatagrams(datagrams) > 0)
                {
                    Engine.ReceiveDatagrams(datagrams, output);
                    output.Flush();
                    FlushDevice();
                }
            }
            catch (ObjectDisposedException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (!_stop.IsCancellationRequested)
            {
                OnLoopError("inbound (network to device)", output, e);
            }
        }
    }

    /// <summary>
    /// Drops what the round held (a reservation the engine never filled must not be sent), counts it, logs it at most
    /// once a second and pauses 10 ms, so an error that repeats costs a little CPU and never ends the tunnel.
    /// </summary>
    private void OnLoopError(string loop, Output output, Exception exception)
    {
        output.Discard();
        Engine.Counters.Drop(TunnelDropReason.InternalError);
        if (_loopErrors.RecordError(out var notLogged))
        {
            TunnelLog.LoopError(_logger, _tun.Name, loop, notLogged, exception);
        }

        _loopErrors.BackOff(_stop.Token);
    }

    /// <summary>A message from a TCP connection that failed unexpectedly: counted and logged as the loops' are; the connection reads on (no pause: it is not this thread's to hold).</summary>
    private void OnTcpMessageFailed(Exception exception)
    {
        Engine.Counters.Drop(TunnelDropReason.InternalError);
        if (_loopErrors.RecordError(out var notLogged))
        {
            TunnelLog.LoopError(_logger, _tun.Name, "TCP fallback receive", notLogged, exception);
        }
    }

    /// <summary>
    /// Reads the interface's MTU (once a tick, from the outbound loop, and once at start) and applies it: the engine
    /// pads for it and the packet slots grow to hold it. Packets the device dropped as too long since the last look
    /// are counted here, under <see cref="TunnelDropReason.PacketTooLarge"/>.
    /// </summary>
    private void FollowInterfaceMtu()
    {
        var mtu = _tun.Mtu;
        if (mtu > 0 && mtu != Engine.Mtu)
        {
            TunnelLog.MtuChanged(_logger, _tun.Name, Engine.Mtu, mtu);
            Engine.Mtu = mtu;
            _packetSlotSize = Math.Max(_packetSlotSize, Math.Min(mtu, LargestTunMtu));
        }

        var tooLarge = _tun.PacketsTooLarge;
        if (tooLarge > _tooLargeSeen)
        {
            Engine.Counters.Drop(TunnelDropReason.PacketTooLarge, tooLarge - _tooLargeSeen);
            _tooLargeSeen = tooLarge;
        }
    }

    /// <summary>Reads a batch from the device; 0 when none came or the read failed (counted, logged, backed off).</summary>
    private int ReadPackets(PacketBatch packets)
    {
        try
        {
            return _tun.ReadBatch(packets, TunnelEngine.TickInterval);
        }
        catch (IOException e)
        {
            OnReceiveError(_deviceErrors, "TUN device", e);
            return 0;
        }
    }

    /// <summary>Receives a batch from the socket; 0 when none came or the receive failed (counted, logged, backed off).</summary>
    private int ReceiveDatagrams(ReceiveBatch datagrams)
    {
        try
        {
            return _receive(_sockets.Socket, datagrams, TunnelEngine.TickInterval);
        }
        catch (SocketException e)
        {
            OnReceiveError(_socketErrors, "UDP socket", e);
            return 0;
        }
        catch (ObjectDisposedException) when (!_stop.IsCancellationRequested)
        {
            // A new listen port replaced the socket while this receive waited on the old one.
            return 0;
        }
    }

    private void OnReceiveError(ReceiveErrorPolicy policy, string source, Exception exception)
    {
        if (policy.RecordError(out var notLogged))
        {
            TunnelLog.ReceiveFailed(_logger, _tun.Name, source, notLogged, exception);
        }

        policy.BackOff(_stop.Token);
    }
}
