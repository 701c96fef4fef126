using System.Collections.Concurrent;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Control;

/// <summary>
/// WireGuard's cross-platform configuration protocol ("UAPI", wireguard.com/xplatform) for a running
/// <see cref="TunnelDevice"/>, on the Unix socket <c>/var/run/wireguard/NAME.sock</c> where the stock <c>wg</c> tool
/// looks for a user-space implementation: <c>wg show</c>, <c>wg showconf</c>, <c>wg set</c>, <c>wg setconf</c> and
/// <c>wg syncconf</c> work on the tunnel while it runs. The socket is mode 0600 (root only). Connections are served
/// concurrently, each with a line, size, idle and request limit, so a slow, stuck or flooding client holds up nobody
/// else and holds bounded memory; the tunnel's lock is taken only to read or apply. A <c>set</c> is applied only once
/// it has arrived whole and checked.
/// </summary>
public sealed class WireGuardControlSocket : IDisposable
{
    /// <summary>Where <c>wg</c> looks for the sockets of user-space implementations.</summary>
    public const string DefaultDirectory = "/var/run/wireguard";

    /// <summary>
    /// The largest <c>set=1</c> request taken: a 1,000,000-peer <c>wg setconf</c> with an endpoint and two AllowedIPs a
    /// peer is about 190 MB, and a larger request is answered with EMSGSIZE (-90) and its connection closed, so one
    /// client cannot make the process hold gigabytes.
    /// </summary>
    public const int MaxRequestBytes = 256 << 20;

    private readonly Socket _listener;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<UapiConnection, byte> _open = new();
    private readonly Task _accepting;
    private long _accepted;

    private WireGuardControlSocket(TunnelDevice device, string path, ILogger? logger, UapiLimits limits)
    {
        Device = device;
        Logger = logger ?? NullLogger.Instance;
        Limits = limits;
        LargeRequests = new SemaphoreSlim(limits.LargeRequestsAtOnce, limits.LargeRequestsAtOnce);
        Stopping = _stop.Token;
        Path = path;
        _listener = Pal.TunnelPlatform.Current.ListenOwnerOnly(path);
        _accepting = AcceptAsync();
    }

    /// <summary>The socket file's path.</summary>
    public string Path { get; }

    internal TunnelDevice Device { get; }

    internal string InterfaceName => Device.InterfaceName;

    internal ILogger Logger { get; }

    internal UapiLimits Limits { get; }

    /// <summary>Refused requests and closed connections, by reason.</summary>
    internal UapiCounters Counters { get; } = new();

    /// <summary>Turns for requests past <see cref="UapiLimits.LargeRequestBytes"/>.</summary>
    internal SemaphoreSlim LargeRequests { get; }

    internal CancellationToken Stopping { get; }

    /// <summary>Connections open now.</summary>
    internal int OpenConnections => _open.Count;

    /// <summary>The socket path <c>wg</c> uses for the interface <paramref name="interfaceName"/>.</summary>
    /// <param name="interfaceName">The TUN interface's name.</param>
    public static string PathFor(string interfaceName)
    {
        ArgumentException.ThrowIfNullOrEmpty(interfaceName);
        return System.IO.Path.Combine(DefaultDirectory, interfaceName + ".sock");
    }

    /// <summary>Listens for <c>wg</c> on behalf of <paramref name="device"/>.</summary>
    /// <param name="device">The running tunnel to show and change.</param>
    /// <param name="path">The socket file. Defaults to <see cref="PathFor"/> of the device's interface name.</param>
    /// <param name="logger">Where refused requests and applied changes are logged. Defaults to none.</param>
    /// <exception cref="IOException">Another process answers on <paramref name="path"/>.</exception>
    /// <exception cref="PlatformNotSupportedException">The platform has no owner-only Unix sockets (Linux has).</exception>
    public static WireGuardControlSocket Start(TunnelDevice device, string? path = null, ILogger? logger = null) =>
        Start(device, path, logger, UapiLimits.Default);

    internal static WireGuardControlSocket Start(TunnelDevice device, string? path, ILogger? logger, UapiLimits limits)
    {
        ArgumentNullException.ThrowIfNull(device);
        ArgumentNullException.ThrowIfNull(limits);
        return new WireGuardControlSocket(device, path ?? PathFor(device.InterfaceName), logger, limits);
    }

    /// <summary>Stops listening, closes open connections and removes the socket file.</summary>
    public void Dispose()
    {
        if (_stop.IsCancellationRequested)
        {
            return;
        }

        _stop.Cancel();
        _listener.Dispose();
        try
        {
            File.Delete(Path);
        }
        catch (IOException)
        {
        }

        _accepting.Wait(TimeSpan.FromSeconds(2));
    }

    /// <summary>Applies a checked change; returns its errno.</summary>
    internal int Apply(TunnelChange change)
    {
        var errno = Device.Configure(change, out var error);
        if (errno != UapiErrno.None)
        {
            return Refuse(errno, UapiRefusal.DeviceRefused, error ?? "refused");
        }

        TunnelLog.ControlChanged(Logger, InterfaceName, change.Peers.Count);
        return errno;
    }

    /// <summary>Counts and logs a refused request; <paramref name="error"/> never holds a value from the request.</summary>
    internal int Refuse(int errno, UapiRefusal reason, string error)
    {
        Counters.Count(reason);
        TunnelLog.ControlRefused(Logger, InterfaceName, errno, error);
        return errno;
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
            {
                return;
            }
            catch (SocketException) when (!_stop.IsCancellationRequested)
            {
                // Out of descriptors (EMFILE) or a connection reset before accept: the listener goes on, after a pause
                // so that a lasting EMFILE does not spin.
                Counters.Count(UapiRefusal.AcceptFailed);
                try
                {
                    await Task.Delay(100, _stop.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }

                continue;
            }
            catch (SocketException)
            {
                return;
            }

            MakeRoom();

            var connection = new UapiConnection(this, client, ++_accepted);
            _open.TryAdd(connection, 0);
            _ = ServeAsync(connection);
        }
    }

    private async Task ServeAsync(UapiConnection connection)
    {
        try
        {
            await connection.ServeAsync().ConfigureAwait(false);
        }
        finally
        {
            _open.TryRemove(connection, out _);
            connection.Dispose();
        }
    }

    /// <summary>At the limit, makes room by closing the connection that has gone longest without a whole line.</summary>
    private void MakeRoom()
    {
        // Connections already closing are not counted: each accept in a burst makes room of its own.
        var live = 0;
        UapiConnection? oldest = null;
        foreach (var (connection, _) in _open)
        {
            if (!connection.IsEvicted)
            {
                live++;
                if (oldest is null || connection.IdlerThan(oldest))
                {
                    oldest = connection;
                }
            }
        }

        if (live >= Limits.MaxConnections)
        {
            oldest?.Evict();
        }
    }
}
