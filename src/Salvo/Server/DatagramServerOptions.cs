using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Server;

/// <summary>
/// How to run a <see cref="DatagramServer"/>. Checked when the server is created (and at host start-up);
/// a bad value is reported with its option's name.
/// </summary>
public sealed partial class DatagramServerOptions
{
    /// <summary>The largest <see cref="BatchSize"/>: 1,024 datagrams (the batch types' own limit).</summary>
    public const int MaxBatchSize = 1024;

    /// <summary>The most <see cref="Workers"/>: 1,024, each a thread and (on Linux) a socket of its own.</summary>
    public const int MaxWorkers = 1024;

    /// <summary>
    /// The options every worker's socket opens with: packet information (reply from the address a request came to, see
    /// <see cref="DatagramContext.TryReply"/>), ECN, don't-fragment, buffer sizes, backend, GSO on replies, the logger for
    /// socket events. <see cref="EndPoint"/>, <see cref="DualMode"/>, <see cref="ReceiveBufferSize"/>,
    /// <see cref="SendBufferSize"/> and <see cref="Backend"/> are the same settings as this template's, named here for
    /// convenience. The server turns <see cref="DatagramSocketOptions.ReusePort"/> on when it opens a socket per worker.
    /// <see cref="DatagramSocketOptions.Gro"/> must stay off: one coalesced buffer can carry up to 64 datagrams, more than
    /// the one reply per request the reply batch has room for. Defaults to a template with GRO off and everything else
    /// at its default. Read-only, so that an initializer cannot replace it after <see cref="EndPoint"/> was set (which
    /// would lose the endpoint, and turn GRO back on); set its properties, or write <c>Socket = { DontFragment = true }</c>
    /// in an object initializer.
    /// </summary>
    public DatagramSocketOptions Socket => _socket;

    private DatagramSocketOptions _socket = new() { Gro = false };

    /// <summary>
    /// Where to listen. Port 0 picks a free port; <see cref="DatagramServer.LocalEndPoint"/> reports it.
    /// Defaults to 0.0.0.0 with port 0. The same setting as <see cref="Socket"/>'s <see cref="DatagramSocketOptions.LocalEndPoint"/>.
    /// </summary>
    public IPEndPoint EndPoint
    {
        get => Socket.LocalEndPoint;
        set => Socket.LocalEndPoint = value;
    }

    /// <summary>
    /// The port to listen on, 0 to 65,535, replacing <see cref="EndPoint"/>'s port when set (handy when the
    /// options come from configuration). Defaults to null (use <see cref="EndPoint"/>'s port).
    /// </summary>
    public int? Port { get; set; }

    /// <summary>
    /// Whether the server may share its port with other sockets that set SO_REUSEPORT (another server of this program, or
    /// another process of the same user): the kernel then spreads the datagrams of all of them by flow hash, so each gets
    /// only part of the traffic. When false, starting on a port that any socket already holds fails with a
    /// <see cref="System.Net.Sockets.SocketException"/> (<see cref="System.Net.Sockets.SocketError.AddressAlreadyInUse"/>)
    /// naming the endpoint. Either way this server's own workers share its port (one SO_REUSEPORT socket each), and a later
    /// server that sets this joins them. Defaults to false.
    /// </summary>
    public bool SharePort { get; set; }

    /// <summary>Whether an IPv6 endpoint also serves IPv4 (IPV6_V6ONLY off). Defaults to true. The same setting as <see cref="Socket"/>'s.</summary>
    public bool DualMode
    {
        get => Socket.DualMode;
        set => Socket.DualMode = value;
    }

    /// <summary>
    /// Receive loops. On the Linux batched backend each worker owns a socket bound with SO_REUSEPORT to the
    /// same endpoint, so the kernel spreads flows over workers by address hash and each flow stays on one
    /// worker, in order. On the portable backend the workers share one socket, each with its own pending
    /// receive (no per-flow order across workers). On <see cref="DatagramBackend.AfXdp"/> it must be 1: one AF_XDP socket
    /// holds every receive queue of the interface. Defaults to <see cref="Environment.ProcessorCount"/>.
    /// </summary>
    public int Workers { get; set; } = Environment.ProcessorCount;

    /// <summary>
    /// Datagrams per receive (one recvmmsg on Linux) and the most handed to the handler at once; also the
    /// capacity of each worker's reply batch. 1 to 1,024. Defaults to 64.
    /// </summary>
    public int BatchSize { get; set; } = ReceiveBatch.DefaultCapacity;

    /// <summary>
    /// Buffer bytes per received datagram, 1 to 65,536; a longer datagram is cut, counted as truncated and,
    /// unless <see cref="DeliverTruncated"/>, dropped. Memory per worker is about <see cref="BatchSize"/> x
    /// this for receiving plus the same for replies, so small-datagram services save much by lowering it.
    /// Defaults to 65,536 (any UDP datagram fits).
    /// </summary>
    public int MaxDatagramSize { get; set; } = ReceiveBatch.DefaultBufferSize;

    /// <summary>
    /// Whether a datagram cut to <see cref="MaxDatagramSize"/> still reaches the handler (marked
    /// <see cref="ReceivedDatagram.IsTruncated"/>); when false it is dropped and counted. Defaults to false.
    /// </summary>
    public bool DeliverTruncated { get; set; }

    /// <summary>
    /// SO_RCVBUF to ask for per socket, in bytes (capped by net.core.rmem_max, granted twice over on Linux); null keeps the
    /// system default. What overflows it is counted in <see cref="DatagramServerStatistics.KernelDrops"/>. Defaults to
    /// <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB). The same setting as <see cref="Socket"/>'s.
    /// </summary>
    public int? ReceiveBufferSize
    {
        get => Socket.ReceiveBufferSize;
        set => Socket.ReceiveBufferSize = value;
    }

    /// <summary>
    /// SO_SNDBUF to ask for per socket, in bytes (capped by net.core.wmem_max); null keeps the system default. Defaults to
    /// <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB). The same setting as <see cref="Socket"/>'s.
    /// </summary>
    public int? SendBufferSize
    {
        get => Socket.SendBufferSize;
        set => Socket.SendBufferSize = value;
    }

    /// <summary>How workers wait for datagrams. Defaults to <see cref="ServerIoModel.DedicatedThread"/>.</summary>
    public ServerIoModel IoModel { get; set; } = ServerIoModel.DedicatedThread;

    /// <summary>Which socket backend to use. Defaults to <see cref="DatagramBackend.Auto"/>. The same setting as <see cref="Socket"/>'s.</summary>
    public DatagramBackend Backend
    {
        get => Socket.Backend;
        set => Socket.Backend = value;
    }

    /// <summary>Whether the handler runs on the receive loop or behind a bounded queue. Defaults to <see cref="ServerProcessing.Inline"/>.</summary>
    public ServerProcessing Processing { get; set; } = ServerProcessing.Inline;

    /// <summary>Datagrams each worker's queue holds (<see cref="ServerProcessing.Queued"/> only), 1 to 1,048,576. Defaults to 4,096.</summary>
    public int QueueCapacity { get; set; } = 4096;

    /// <summary>
    /// Payload bytes each worker's queue holds (<see cref="ServerProcessing.Queued"/> only), allocated once
    /// on the pinned heap; at least <see cref="MaxDatagramSize"/>. The queue is full when either this or
    /// <see cref="QueueCapacity"/> is reached. Defaults to 4 MiB.
    /// </summary>
    public int QueueBytes { get; set; } = 4 << 20;

    /// <summary>What to do when a worker's queue is full. Defaults to <see cref="QueueOverflowPolicy.Wait"/>.</summary>
    public QueueOverflowPolicy OverflowPolicy { get; set; } = QueueOverflowPolicy.Wait;

    /// <summary>
    /// How long <see cref="DatagramServer.StopAsync(CancellationToken)"/> lets handlers work through what is
    /// already received; what is still queued after it is dropped and counted. Defaults to 5 seconds.
    /// </summary>
    public TimeSpan DrainTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Low-latency mode: before blocking, a worker spins with non-blocking receives for up to this long,
    /// which saves the wake-up (tens of microseconds) at the cost of a busy core. Linux batched backend
    /// only: elsewhere it is logged and reported off by <see cref="DatagramServer.BusyPollEnabled"/>; at most 10 ms. Defaults to <see cref="TimeSpan.Zero"/> (off).
    /// </summary>
    public TimeSpan BusyPoll { get; set; } = TimeSpan.Zero;

    /// <summary>
    /// SO_BUSY_POLL in microseconds for each socket (Linux): the kernel polls the device queue on a blocking
    /// receive instead of waiting for the interrupt. Values above net.core.busy_poll need CAP_NET_ADMIN; a
    /// refusal is logged and reported by <see cref="DatagramServer.KernelBusyPollEnabled"/>, not thrown.
    /// Defaults to null (not set).
    /// </summary>
    public int? KernelBusyPollMicroseconds { get; set; }

    /// <summary>
    /// Creates the server's "Salvo" meter (the host's, so its metrics reach the host's listeners and exporters); null
    /// makes a meter of the server's own, disposed with it. Defaults to null.
    /// </summary>
    public IMeterFactory? MeterFactory { get; set; }

    /// <summary>
    /// Called with the worker's index on each worker's receive thread before its first receive
    /// (<see cref="ServerIoModel.DedicatedThread"/> only: the async model has no thread of its own): the place to pin the
    /// thread to a core or set its priority. An exception thrown here ends that worker. Defaults to null.
    /// </summary>
    public Action<int>? ReceiveThreadStarted { get; set; }

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    /// <exception cref="ArgumentException">An option is invalid; the message and <see cref="ArgumentException.ParamName"/> name it.</exception>
    public void Validate()
    {
        if (GetFirstError() is { } error)
        {
            throw new ArgumentException(error.Message, error.Option);
        }
    }

    /// <summary>Every invalid option with its message, empty when all are valid.</summary>
    public IReadOnlyList<string> GetErrors()
    {
        var errors = new List<string>();
        foreach (var error in EnumerateErrors())
        {
            errors.Add(error.Message);
        }

        return errors;
    }

    private (string Option, string Message)? GetFirstError()
    {
        foreach (var error in EnumerateErrors())
        {
            return error;
        }

        return null;
    }

    private IEnumerable<(string Option, string Message)> EnumerateErrors()
    {
        if (Socket.Gro)
        {
            yield return (nameof(Socket), "Socket.Gro must be false: one coalesced buffer can carry up to 64 datagrams, more than the reply batch's one reply per request.");
        }

        if (EndPoint is null)
        {
            yield return (nameof(EndPoint), "EndPoint is required.");
        }
        else if (EndPoint.AddressFamily is not (AddressFamily.InterNetwork or AddressFamily.InterNetworkV6))
        {
            yield return (nameof(EndPoint), $"EndPoint must be IPv4 or IPv6, not {EndPoint.AddressFamily}.");
        }

        if (Port is < IPEndPoint.MinPort or > IPEndPoint.MaxPort)
        {
            yield return (nameof(Port), $"Port must be between 0 and 65,535 (was {Port}).");
        }

        if (Workers < 1)
        {
            yield return (nameof(Workers), $"Workers must be at least 1 (was {Workers}).");
        }
        else if (Workers > MaxWorkers)
        {
            yield return (nameof(Workers), $"Workers must be at most {MaxWorkers} (was {Workers}).");
        }

        if (BatchSize is < 1 or > MaxBatchSize)
        {
            yield return (nameof(BatchSize), $"BatchSize must be between 1 and {MaxBatchSize} (was {BatchSize}).");
        }

        if (MaxDatagramSize is < 1 or > ReceiveBatch.DefaultBufferSize)
        {
            yield return (nameof(MaxDatagramSize), $"MaxDatagramSize must be between 1 and {ReceiveBatch.DefaultBufferSize} (was {MaxDatagramSize}).");
        }

        if (ReceiveBufferSize is <= 0)
        {
            yield return (nameof(ReceiveBufferSize), $"ReceiveBufferSize must be positive or null (was {ReceiveBufferSize}).");
        }

        if (SendBufferSize is <= 0)
        {
            yield return (nameof(SendBufferSize), $"SendBufferSize must be positive or null (was {SendBufferSize}).");
        }

        if (!Enum.IsDefined(IoModel))
        {
            yield return (nameof(IoModel), $"IoModel {IoModel} is unknown.");
        }

        // What the options ask of the backend comes first, so that the first error names an option the caller chose
        // (Workers, EndPoint) wherever the backend is refused too, and a configuration is told everything at once.
        foreach (var error in BackendLimitErrors())
        {
            yield return error;
        }

        if (!Enum.IsDefined(Backend))
        {
            yield return (nameof(Backend), $"Backend {Backend} is unknown.");
        }
        else if (Pal.Platform.Current.RefuseBackend(Backend) is string refusal)
        {
            yield return (nameof(Backend), refusal);
        }

        if (!Enum.IsDefined(Processing))
        {
            yield return (nameof(Processing), $"Processing {Processing} is unknown.");
        }

        if (!Enum.IsDefined(OverflowPolicy))
        {
            yield return (nameof(OverflowPolicy), $"OverflowPolicy {OverflowPolicy} is unknown.");
        }

        if (QueueCapacity is < 1 or > 1 << 20)
        {
            yield return (nameof(QueueCapacity), $"QueueCapacity must be between 1 and 1,048,576 (was {QueueCapacity}).");
        }

        if (QueueBytes < MaxDatagramSize)
        {
            yield return (nameof(QueueBytes), $"QueueBytes must be at least MaxDatagramSize ({MaxDatagramSize}) so any datagram fits (was {QueueBytes}).");
        }

        if (DrainTimeout < TimeSpan.Zero && DrainTimeout != Timeout.InfiniteTimeSpan)
        {
            yield return (nameof(DrainTimeout), $"DrainTimeout must be zero or positive (was {DrainTimeout}).");
        }

        if (BusyPoll < TimeSpan.Zero || BusyPoll > TimeSpan.FromMilliseconds(10))
        {
            yield return (nameof(BusyPoll), $"BusyPoll must be between 0 and 10 ms (was {BusyPoll}).");
        }

        if (KernelBusyPollMicroseconds is < 0)
        {
            yield return (nameof(KernelBusyPollMicroseconds), $"KernelBusyPollMicroseconds must be zero or positive (was {KernelBusyPollMicroseconds}).");
        }
    }

    /// <summary>The endpoint to bind: <see cref="EndPoint"/> with <see cref="Port"/> applied.</summary>
    internal IPEndPoint ResolveEndPoint() => Port is int port ? new IPEndPoint(EndPoint.Address, port) : EndPoint;

    /// <summary>A copy, so a running server is not affected by later changes to these options.</summary>
    internal DatagramServerOptions Clone()
    {
        var copy = (DatagramServerOptions)MemberwiseClone();
        copy._socket = _socket.Clone();
        return copy;
    }
}
