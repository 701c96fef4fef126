using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel;

/// <summary>
/// Runs a tunnel: a UDP socket (Salvo's <see cref="DatagramSocket"/>, batched receive and send), a TUN device and
/// the engine between them, on two dedicated threads. Device to network: read a batch of packets (super-packets cut
/// by the device), encrypt, one batched send (runs to one peer leave as GSO messages). Network to device: receive a
/// batch of datagrams (GRO buffers split by the socket), decrypt in place, write the packets (joined again by the
/// device), flush. Each loop waits at most 100 ms (the engine's tick), so timers run and <see cref="Dispose"/> returns
/// promptly. A receive that fails (from the socket or the device) does not end its loop: it is counted in
/// <see cref="ReceiveErrors"/>, logged at most once a second and followed by a 10 ms pause (<see cref="ReceiveErrorPolicy"/>,
/// as the library's server workers do); any other error inside a round drops that round's batch, is counted as
/// <see cref="TunnelDropReason.InternalError"/> and handled the same way (TunnelDevice.Loops.cs). Handshake messages
/// do not wait in the inbound loop: it copies them into a bounded queue that a third thread, below the data threads'
/// priority, answers (<see cref="HandshakeThread"/>); a full queue drops them (<see cref="TunnelDropReason.HandshakeQueueFull"/>). The device reads
/// its interface's MTU at start and once a tick, and pads and sizes its buffers for it.
/// </summary>
public sealed partial class TunnelDevice : IDisposable
{
    /// <summary>Packets per device read and datagrams per send: room for two 64 KiB super-packets cut at a 1,420-byte MTU.</summary>
    private const int BatchSize = 128;

    /// <summary>
    /// Receive buffers per socket read, each of 64 KiB so the socket turns UDP GRO on (one buffer then holds up to 64
    /// datagrams of one peer): 32 of them are 2 MiB, pinned once.
    /// </summary>
    private const int ReceiveBuffers = 32;

    /// <summary>
    /// Bytes per packet slot of the outbound loop's batch: the larger of the configured MTU and the interface's, as
    /// last read; it only grows (to at most 65,535, the largest MTU a TUN takes), and the loop grows its batch to match.
    /// </summary>
    private volatile int _packetSlotSize;
    private readonly ITunDevice _tun;
    private readonly TunnelSockets _sockets;
    private readonly CancellationTokenSource _stop = new();
    private readonly Thread _outbound;
    private readonly Thread _inbound;
    private readonly HandshakeThread _handshakes;
    private readonly TcpPaths _tcp;
    private readonly ILogger _logger;
    private readonly ReceiveErrorPolicy _socketErrors;
    private readonly ReceiveErrorPolicy _deviceErrors;
    private readonly Func<DatagramSocket, ReceiveBatch, TimeSpan, int> _receive;

    private TunnelDevice(
        TunnelConfiguration configuration,
        ITunDevice tun,
        TimeProvider? time,
        ILogger? logger,
        ReceiveErrorPolicy? socketErrors,
        Func<DatagramSocket, ReceiveBatch, TimeSpan, int>? receive,
        Crypto.TunnelCrypto? crypto)
    {
        _tun = tun;
        _logger = logger ?? NullLogger.Instance;
        _socketErrors = socketErrors ?? new ReceiveErrorPolicy(ReceiveErrorPolicy.DefaultLogInterval, ReceiveErrorPolicy.DefaultBackOffDelay, time);
        _deviceErrors = new ReceiveErrorPolicy(ReceiveErrorPolicy.DefaultLogInterval, ReceiveErrorPolicy.DefaultBackOffDelay, time);
        _receive = receive ?? ((socket, batch, timeout) => socket.Receive(batch, timeout));
        var change = configuration.ToChange();
        var settings = change.Interface ?? new InterfaceSettings();
        _packetSlotSize = Math.Min(settings.Mtu, LargestTunMtu);
        _loopErrors = new ReceiveErrorPolicy(ReceiveErrorPolicy.DefaultLogInterval, ReceiveErrorPolicy.DefaultBackOffDelay, time);
        Engine = new TunnelEngine(change, time, crypto, logger: logger, name: tun.Name);
        _tcp = new TcpPaths(Engine, Protocol.MessageLayout.LargestTransportSize, () => new Output(this, flushesDevice: true),
            peers: change.Peers.Count(peer => peer.TcpFallback is not null and not TcpFallbackMode.Off), mark: change.FwMark ?? 0)
        {
            MessageFailed = OnTcpMessageFailed,
        };
        try
        {
            _sockets = new TunnelSockets(change.ListenPort ?? 0, change.FwMark ?? 0, _tcp, _logger);
        }
        catch
        {
            _tcp.Dispose();
            throw;
        }

        _outbound = new Thread(RunOutbound) { IsBackground = true, Name = $"{tun.Name} out" };
        _inbound = new Thread(RunInbound) { IsBackground = true, Name = $"{tun.Name} in" };
        var handshakeQueue = new Protocol.HandshakeQueue();
        var handshakeOutput = new Output(this);
        _handshakes = new HandshakeThread(Engine, handshakeQueue, handshakeOutput, $"{tun.Name} hs", e => OnLoopError("handshakes", handshakeOutput, e), _stop.Token);
        Engine.UseHandshakeQueue(handshakeQueue);
        Engine.UseTcpPaths(_tcp);
        if (logger is not null)
        {
            TunnelLog.TunOffloads(logger, tun.Name, tun.Offloads);
        }
    }

    /// <summary>The protocol engine, for status.</summary>
    public TunnelEngine Engine { get; }

    /// <summary>The UDP port the tunnel listens on.</summary>
    public int ListenPort => _sockets.ListenPort;

    /// <summary>The UDP socket in use now: the loops read it anew for each receive and send, and tests read its options.</summary>
    internal DatagramSocket UdpSocket => _sockets.Socket;

    /// <summary>The TCP fallback, for tests that read its sockets' options.</summary>
    internal TcpPaths TcpPaths => _tcp;

    /// <summary>The firewall mark (SO_MARK) of the tunnel's UDP socket and of the TCP fallback's listener and new connections; 0 when none is set.</summary>
    public uint FwMark => _sockets.FwMark;

    /// <summary>The thread that answers handshakes, for tests that look at its priority.</summary>
    internal HandshakeThread Handshakes => _handshakes;

    /// <summary>The device packets come from and go to, for tests that look at its offload counts.</summary>
    internal ITunDevice Tun => _tun;

    /// <summary>The TUN interface name.</summary>
    public string InterfaceName => _tun.Name;

    /// <summary>Packets the kernel refused to take from the tunnel.</summary>
    public long TunWriteFailures => Interlocked.Read(ref _tunWriteFailures);

    private long _tunWriteFailures;

    /// <summary>WireGuard messages for the TCP fallback dropped because their connection was gone or its send queue full.</summary>
    public long TcpSendDrops => _tcp.SendDrops;

    /// <summary>Receives from the UDP socket and reads from the device that failed; each loop went on after a short pause.</summary>
    public long ReceiveErrors => _socketErrors.Errors + _deviceErrors.Errors;

    /// <summary>Binds the socket and starts both loops; the device is taken over and disposed with the tunnel.</summary>
    /// <param name="configuration">Keys, peers and routes.</param>
    /// <param name="tun">The device packets come from and go to.</param>
    /// <param name="time">The clock. Defaults to the system clock.</param>
    /// <param name="logger">Where refused handshakes and packets are logged, with the reason. Defaults to none.</param>
    public static TunnelDevice Start(TunnelConfiguration configuration, ITunDevice tun, TimeProvider? time = null, ILogger? logger = null) =>
        Start(configuration, tun, time, logger, socketErrors: null, receive: null);

    /// <summary>Starts a tunnel whose socket receives through <paramref name="receive"/> (tests put failures in front of the socket's).</summary>
    /// <param name="configuration">Keys, peers and routes.</param>
    /// <param name="tun">The device packets come from and go to.</param>
    /// <param name="time">The clock. Defaults to the system clock.</param>
    /// <param name="logger">Where refusals and failed receives are logged. Defaults to none.</param>
    /// <param name="socketErrors">What the inbound loop does with a failed receive. Defaults to the library's policy on <paramref name="time"/>.</param>
    /// <param name="receive">The socket's receive. Defaults to <see cref="DatagramSocket.Receive(ReceiveBatch, TimeSpan)"/>.</param>
    /// <param name="crypto">The engine's primitives (tests slow the handshake's down). Defaults to <see cref="Crypto.TunnelCrypto.Default"/>.</param>
    internal static TunnelDevice Start(
        TunnelConfiguration configuration,
        ITunDevice tun,
        TimeProvider? time,
        ILogger? logger,
        ReceiveErrorPolicy? socketErrors,
        Func<DatagramSocket, ReceiveBatch, TimeSpan, int>? receive,
        Crypto.TunnelCrypto? crypto = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        ArgumentNullException.ThrowIfNull(tun);
        var device = new TunnelDevice(configuration, tun, time, logger, socketErrors, receive, crypto);
        device.FollowInterfaceMtu();
        var output = new Output(device);
        device.Engine.Start(output);
        output.Flush();
        device._outbound.Start();
        device._inbound.Start();
        device._handshakes.Start();
        return device;
    }

    /// <inheritdoc />
    public void Dispose()
    {
        _stop.Cancel();
        _outbound.Join(TimeSpan.FromSeconds(2));
        _inbound.Join(TimeSpan.FromSeconds(2));
        _handshakes.Join(TimeSpan.FromSeconds(2));
        _tcp.Dispose();
        _sockets.Dispose();
        _tun.Dispose();
        Engine.Dispose();
        _stop.Dispose();
    }

    /// <summary>
    /// Applies a checked change (a UAPI <c>set=1</c>): the sockets move first (<see cref="TunnelSockets.Change"/>), so
    /// a port in use or a refused mark changes nothing; then the engine applies the rest under its lock.
    /// </summary>
    /// <returns>0, or the UAPI errno, with <paramref name="error"/> saying why.</returns>
    internal int Configure(TunnelChange change, out string? error)
    {
        ArgumentNullException.ThrowIfNull(change);
        var output = new Output(this);
        var errno = _sockets.Change(change.ListenPort, change.FwMark, _tcp, () => Engine.Configure(change, output), out error);
        output.Flush();
        return errno;
    }

    /// <summary>Writes what the device joined since the last flush, counting the packets the kernel refused.</summary>
    private void FlushDevice()
    {
        var refused = _tun.Flush();
        if (refused > 0)
        {
            Interlocked.Add(ref _tunWriteFailures, refused);
        }
    }
}
