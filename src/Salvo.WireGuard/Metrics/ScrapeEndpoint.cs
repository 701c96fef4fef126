using System.Net;
using System.Net.Sockets;
using System.Text;
using Prometheus;

namespace Salvo.WireGuard.Metrics;

/// <summary>
/// <c>GET /metrics</c> over plain HTTP/1.x on a TCP listener, one connection at a time, each closed after its answer:
/// what a Prometheus server needs, and no more. A listener of our own rather than HttpListener: it binds port 0 and
/// says the port it got, and it bounds what a client may send. Every request is hostile until parsed: a request head
/// past <see cref="MaxRequestBytes"/>, one slower than <see cref="RequestTimeout"/>, or anything but GET or HEAD of
/// /metrics is answered with an error status and counted by reason; none ends the loop.
/// </summary>
internal sealed class ScrapeEndpoint : IAsyncDisposable
{
    /// <summary>Prometheus sends about 300 bytes of head (Accept, User-Agent, X-Prometheus-Scrape-Timeout-Seconds).</summary>
    public const int MaxRequestBytes = 8 * 1024;

    /// <summary>A client that has not sent its request head in this time is answered 408 and closed; the next waits no longer.</summary>
    public static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(5);

    private static readonly byte[] s_headEnd = "\r\n\r\n"u8.ToArray();

    private readonly TcpListener _listener;
    private readonly CollectorRegistry _registry;
    private readonly Counter _refused;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;

    private ScrapeEndpoint(TcpListener listener, CollectorRegistry registry)
    {
        _listener = listener;
        _registry = registry;
        _refused = Prometheus.Metrics.WithCustomRegistry(registry).CreateCounter(
            "wireguard_salvo_scrape_requests_refused_total", "Requests to the scrape endpoint refused, by reason: too_large, timeout, malformed, not_found, method.", "reason");
        _loop = Task.Run(() => ServeAsync(_stop.Token));
    }

    /// <summary>Where it listens, with the port the system chose for port 0.</summary>
    public IPEndPoint Endpoint => (IPEndPoint)_listener.LocalEndpoint;

    /// <summary>Listens on <paramref name="endpoint"/> and serves <paramref name="registry"/>; a taken port or an address not ours throws <see cref="SocketException"/>.</summary>
    public static ScrapeEndpoint Start(IPEndPoint endpoint, CollectorRegistry registry)
    {
        var listener = new TcpListener(endpoint);
        listener.Start(backlog: 16);
        return new ScrapeEndpoint(listener, registry);
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        _listener.Stop();
        await _loop.ConfigureAwait(false);
        _stop.Dispose();
    }

    private async Task ServeAsync(CancellationToken stop)
    {
        while (!stop.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(stop).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException && stop.IsCancellationRequested)
            {
                return;
            }
            catch (SocketException)
            {
                // A connection reset before it was accepted, or no descriptor left (EMFILE): the next one is served,
                // after a pause so that an error that repeats does not spin a core.
                await Task.Delay(TimeSpan.FromMilliseconds(100), stop).ContinueWith(_ => { }, TaskScheduler.Default).ConfigureAwait(false);
                continue;
            }

            using (client)
            {
                using var timeout = CancellationTokenSource.CreateLinkedTokenSource(stop);
                timeout.CancelAfter(RequestTimeout);
                try
                {
                    await AnswerAsync(client.GetStream(), timeout.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!stop.IsCancellationRequested)
                {
                    _refused.WithLabels("timeout").Inc();
                }
                catch (Exception e) when (e is IOException or SocketException or OperationCanceledException)
                {
                    // The client went away, or the endpoint is stopping: nothing to answer.
                }
            }
        }
    }

    private async Task AnswerAsync(NetworkStream stream, CancellationToken cancel)
    {
        var head = new byte[MaxRequestBytes];
        var length = 0;
        int end;
        while ((end = head.AsSpan(0, length).IndexOf(s_headEnd)) < 0)
        {
            if (length == head.Length)
            {
                await RefuseAsync(stream, "too_large", "431 Request Header Fields Too Large", cancel).ConfigureAwait(false);
                return;
            }

            var read = await stream.ReadAsync(head.AsMemory(length), cancel).ConfigureAwait(false);
            if (read == 0)
            {
                return;
            }

            length += read;
        }

        var line = head.AsSpan(0, end);
        var lineEnd = line.IndexOf("\r\n"u8);
        var words = Encoding.ASCII.GetString(lineEnd < 0 ? line : line[..lineEnd]).Split(' ');
        if (words is not [var method, var target, var version] || !version.StartsWith("HTTP/1.", StringComparison.Ordinal))
        {
            await RefuseAsync(stream, "malformed", "400 Bad Request", cancel).ConfigureAwait(false);
            return;
        }

        var path = target.Split('?')[0];
        if (path is not ("/metrics" or "/"))
        {
            await RefuseAsync(stream, "not_found", "404 Not Found", cancel).ConfigureAwait(false);
            return;
        }

        if (method is not ("GET" or "HEAD"))
        {
            await RefuseAsync(stream, "method", "405 Method Not Allowed", cancel).ConfigureAwait(false);
            return;
        }

        // The body is written as it is made, so no Content-Length: the connection's close ends it (HTTP/1.0 style).
        await stream.WriteAsync("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nConnection: close\r\n\r\n"u8.ToArray(), cancel).ConfigureAwait(false);
        if (method == "GET")
        {
            await _registry.CollectAndExportAsTextAsync(stream, cancel).ConfigureAwait(false);
        }
    }

    private async Task RefuseAsync(NetworkStream stream, string reason, string status, CancellationToken cancel)
    {
        _refused.WithLabels(reason).Inc();
        await stream.WriteAsync(Encoding.ASCII.GetBytes($"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), cancel).ConfigureAwait(false);
    }
}
