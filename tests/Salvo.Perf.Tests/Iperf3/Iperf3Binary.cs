using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.Tests.Iperf3;

/// <summary>Runs the stock iperf3 binary with bounded time.</summary>
internal static class Iperf3Binary
{
    public static string? Path { get; } = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
        .Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Select(d => System.IO.Path.Combine(d, "iperf3"))
        .FirstOrDefault(File.Exists);

    /// <summary>Why iperf3 tests are skipped here, or null when they run.</summary>
    public static string? SkipReason => Path is null ? "Needs the iperf3 binary on PATH (Debian package iperf3)." : null;

    /// <summary>Runs iperf3 to the end (killed after 60 s); returns its exit code and output.</summary>
    public static async Task<(int Exit, string Out, string Error)> RunAsync(params string[] args)
    {
        using var process = Start(args);
        var output = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        var error = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill();
            throw new TimeoutException($"iperf3 {string.Join(' ', args)} ran past 60 s");
        }

        return (process.ExitCode, await output, await error);
    }

    /// <summary>Starts iperf3; the caller reads its output and ends it.</summary>
    public static Process Start(params string[] args)
    {
        var info = new ProcessStartInfo(Path!) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }

        return Process.Start(info)!;
    }

    /// <summary>A port free for TCP and UDP on loopback right now (iperf3 needs a number up front).</summary>
    public static int FreePort()
    {
        for (var attempt = 0; ; attempt++)
        {
            using var tcp = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            tcp.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            var port = ((IPEndPoint)tcp.LocalEndPoint!).Port;
            using var udp = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            try
            {
                udp.Bind(new IPEndPoint(IPAddress.Loopback, port));
                return port;
            }
            catch (SocketException) when (attempt < 20)
            {
            }
        }
    }

    /// <summary>Waits until something listens on TCP <paramref name="port"/> (a bind fails), without connecting: a connection would be a client.</summary>
    public static async Task WaitForListenerAsync(int port, Process process)
    {
        for (var i = 0; i < 200; i++)
        {
            using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                probe.Bind(new IPEndPoint(IPAddress.Any, port));
            }
            catch (SocketException)
            {
                return;
            }

            Assert.False(process.HasExited, "iperf3 -s exited before listening");
            await Task.Delay(25);
        }

        Assert.Fail($"iperf3 -s did not listen on port {port} within 5 s");
    }
}
