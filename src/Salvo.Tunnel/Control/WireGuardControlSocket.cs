using System.Net.Sockets;
using System.Text;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Salvo.Tunnel.Control;

/// <summary>
/// WireGuard's cross-platform configuration protocol ("UAPI", wireguard.com/xplatform) for a running
/// <see cref="TunnelDevice"/>, on the Unix socket <c>/var/run/wireguard/NAME.sock</c> where the stock <c>wg</c> tool
/// looks for a user-space implementation: <c>wg show</c>, <c>wg showconf</c>, <c>wg set</c>, <c>wg setconf</c> and
/// <c>wg syncconf</c> work on the tunnel while it runs. The socket is mode 0600 (root only). Each connection is served
/// on its own, so a slow or stuck client holds up nobody else; the tunnel's lock is taken only to read or apply.
/// </summary>
public sealed class WireGuardControlSocket : IDisposable
{
    /// <summary>Where <c>wg</c> looks for the sockets of user-space implementations.</summary>
    public const string DefaultDirectory = "/var/run/wireguard";

    /// <summary>
    /// The largest <c>set=1</c> request taken: a 10,000-peer <c>wg setconf</c> is about 3 MB, and a larger request is
    /// answered with EINVAL and its connection closed, so one client cannot make the process hold gigabytes.
    /// </summary>
    public const int MaxRequestBytes = 64 << 20;

    /// <summary>Connections served at once; more are closed at accept (wg uses one per command).</summary>
    private const int MaxConnections = 64;

    private readonly TunnelDevice _device;
    private readonly Socket _listener;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _accepting;
    private int _connections;

    private WireGuardControlSocket(TunnelDevice device, string path, ILogger? logger)
    {
        _device = device;
        _logger = logger ?? NullLogger.Instance;
        Path = path;
        _listener = Pal.TunnelPlatform.Current.ListenOwnerOnly(path);
        _accepting = AcceptAsync();
    }

    /// <summary>The socket file's path.</summary>
    public string Path { get; }

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
    public static WireGuardControlSocket Start(TunnelDevice device, string? path = null, ILogger? logger = null)
    {
        ArgumentNullException.ThrowIfNull(device);
        return new WireGuardControlSocket(device, path ?? PathFor(device.InterfaceName), logger);
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
        _stop.Dispose();
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
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            if (Interlocked.Increment(ref _connections) > MaxConnections)
            {
                Interlocked.Decrement(ref _connections);
                client.Dispose();
                continue;
            }

            _ = ServeAsync(client);
        }
    }

    private async Task ServeAsync(Socket client)
    {
        try
        {
            using var stream = new NetworkStream(client, ownsSocket: true);
            var reader = new UapiLineReader(stream);
            while (await ServeOneAsync(reader, stream).ConfigureAwait(false))
            {
            }
        }
        catch (Exception e) when (e is IOException or SocketException or InvalidDataException or OperationCanceledException or ObjectDisposedException)
        {
            // The client went away or broke the protocol: only its connection ends.
        }
        finally
        {
            Interlocked.Decrement(ref _connections);
        }
    }

    /// <summary>Answers one request; false when the connection should close.</summary>
    private async Task<bool> ServeOneAsync(UapiLineReader reader, NetworkStream stream)
    {
        var operation = await reader.ReadLineAsync(_stop.Token).ConfigureAwait(false);
        var answer = new StringBuilder();
        int errno;
        switch (operation)
        {
            case "get=1":
                // The request is "get=1" and an empty line; anything else there is refused as wireguard-go refuses it.
                var end = await reader.ReadLineAsync(_stop.Token).ConfigureAwait(false);
                if (end is null)
                {
                    return false;
                }

                errno = end.Length == 0 ? Get(answer) : Refuse(UapiErrno.Invalid, "get=1 must be followed by an empty line");
                break;
            case "set=1":
                var start = reader.BytesRead;
                var lines = new List<string>();
                while (await reader.ReadLineAsync(_stop.Token).ConfigureAwait(false) is { Length: > 0 } line)
                {
                    if (reader.BytesRead - start > MaxRequestBytes)
                    {
                        Refuse(UapiErrno.Invalid, $"set request larger than {MaxRequestBytes} bytes");
                        await WriteAsync(stream, $"errno={UapiErrno.Invalid}\n\n").ConfigureAwait(false);
                        return false;
                    }

                    lines.Add(line);
                }

                errno = Set(lines);
                break;
            default:
                // Not an operation of the protocol (or the end of the stream): wireguard-go closes the connection too.
                return false;
        }

        answer.Append("errno=").Append(errno).Append("\n\n");
        await WriteAsync(stream, answer.ToString()).ConfigureAwait(false);
        return true;
    }

    private int Get(StringBuilder answer)
    {
        UapiGetWriter.Write(answer, _device);
        return UapiErrno.None;
    }

    private int Set(List<string> lines)
    {
        var errno = UapiSetParser.TryParse(lines, out var change, out var error);
        if (errno == UapiErrno.None)
        {
            errno = _device.Configure(change, out error);
        }

        if (errno != UapiErrno.None)
        {
            return Refuse(errno, error ?? "refused");
        }

        TunnelLog.ControlChanged(_logger, _device.InterfaceName, change.Peers.Count);
        return errno;
    }

    private int Refuse(int errno, string error)
    {
        TunnelLog.ControlRefused(_logger, _device.InterfaceName, errno, error);
        return errno;
    }

    private async Task WriteAsync(NetworkStream stream, string text) =>
        await stream.WriteAsync(Encoding.ASCII.GetBytes(text), _stop.Token).ConfigureAwait(false);
}
