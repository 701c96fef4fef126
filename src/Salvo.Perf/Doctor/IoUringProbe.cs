using System.Net;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;

namespace Salvo.Perf.Doctor;

/// <summary>
/// Whether Salvo's io_uring backend runs here: a socket that asks for it reports IoUring, or LinuxBatched with the
/// library's one warning saying what the kernel refused.
/// </summary>
internal static class IoUringProbe
{
    [SupportedOSPlatform("linux")]
    public static Finding Run()
    {
        var refusal = new LastMessage();
        using var socket = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Backend = DatagramBackend.IoUring,
            Logger = refusal,
        });
        return socket.Backend == DatagramBackend.IoUring
            ? new Finding("salvo io_uring backend", FindingStatus.Ok, "runs (multishot recvmsg with provided-buffer rings, linked sendmsg)")
            : new Finding("salvo io_uring backend", FindingStatus.Info, $"falls back to {socket.Backend}: {refusal.Text ?? "refused"}",
                "--backend uring measures the batched backend here; io_uring needs kernel.io_uring_disabled = 0 and Linux 6.0 (multishot recvmsg).");
    }

    /// <summary>Keeps the last message logged: the library says why once, when it falls back.</summary>
    private sealed class LastMessage : ILogger
    {
        public string? Text { get; private set; }

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Text = formatter(state, exception);
    }
}
