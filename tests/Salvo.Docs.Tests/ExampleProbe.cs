using System.Net;
using System.Net.Sockets;
using System.Text;
using Salvo.Perf.Tests.Reliability;

namespace Salvo.Docs.Tests;

/// <summary>Proves that a running example does what its text says, from a loopback client, then ends it as a reader would.</summary>
internal static class ExampleProbe
{
    /// <summary>The longest any step waits; reached only when the example is broken (a dotnet start takes about a second).</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private static readonly TimeSpan s_retry = TimeSpan.FromMilliseconds(200);

    /// <summary>Checks <paramref name="child"/>, started from an example of kind <paramref name="run"/> listening on <paramref name="port"/>.</summary>
    public static void Prove(ExampleRun run, int port, SalvoChild child, string name)
    {
        switch (run)
        {
            case ExampleRun.UdpEcho:
                UdpEcho(port, child, name);
                Interrupt(child, name);
                break;
            case ExampleRun.TcpStxEcho:
                TcpStxEcho(port, child, name);
                Interrupt(child, name);
                break;
            case ExampleRun.Exits:
                Assert.True(child.Process.WaitForExit(Patience), $"{name} did not end within {Patience.TotalSeconds} s: {child.Output.Text}");
                child.Process.WaitForExit();
                Assert.True(child.Process.ExitCode == 0, $"{name} exited {child.Process.ExitCode}: {child.Output.Text}");
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(run), run, "Only a block with a run word runs.");
        }
    }

    private static void UdpEcho(int port, SalvoChild child, string name)
    {
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        client.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var server = new IPEndPoint(IPAddress.Loopback, port);

        // Until the first echo the example may still be starting: what it has not bound yet is lost, so resend.
        var deadline = DateTime.UtcNow + Patience;
        for (var attempt = 0; !TryExchange(client, server, Encoding.ASCII.GetBytes($"probe {attempt}"), s_retry); attempt++)
        {
            StillRunning(child, name);
            Assert.True(DateTime.UtcNow < deadline, $"{name} did not echo within {Patience.TotalSeconds} s: {child.Output.Text}");
        }

        foreach (var size in new[] { 1, 100, 1_380 })
        {
            var payload = Enumerable.Range(0, size).Select(i => (byte)(i * 7 + size)).ToArray();
            if (!TryExchange(client, server, payload, Patience))
            {
                StillRunning(child, name);
                Assert.Fail($"{name} did not echo a {size}-byte datagram: {child.Output.Text}");
            }
        }
    }

    /// <summary>Sends <paramref name="payload"/>; true when the same bytes come back from <paramref name="server"/> in time (late probe echoes are passed over).</summary>
    private static bool TryExchange(Socket client, IPEndPoint server, byte[] payload, TimeSpan wait)
    {
        client.SendTo(payload, server);
        var buffer = new byte[65_536];
        var deadline = DateTime.UtcNow + wait;
        while (client.Poll(Remaining(deadline), SelectMode.SelectRead))
        {
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            var length = client.ReceiveFrom(buffer, ref from);
            if (from.Equals(server) && buffer.AsSpan(0, length).SequenceEqual(payload))
            {
                return true;
            }
        }

        return false;
    }

    private static void TcpStxEcho(int port, SalvoChild child, string name)
    {
        var deadline = DateTime.UtcNow + Patience;
        using var client = new TcpClient(AddressFamily.InterNetwork);
        while (true)
        {
            try
            {
                client.Connect(IPAddress.Loopback, port);
                break;
            }
            catch (SocketException) when (DateTime.UtcNow < deadline)
            {
                StillRunning(child, name);
                Thread.Sleep(s_retry);
            }
        }

        // STX, the message, ETX (docs/streams.md): "hello" has no byte that needs escaping.
        byte[] frame = [0x02, .. "hello"u8, 0x03];
        var stream = client.GetStream();
        stream.ReadTimeout = (int)Patience.TotalMilliseconds;
        stream.Write(frame);
        var reply = new List<byte>();
        while (reply.Count == 0 || reply[^1] != 0x03)
        {
            var next = stream.ReadByte();
            Assert.True(next >= 0, $"{name} closed the connection after {reply.Count} bytes: {child.Output.Text}");
            reply.Add((byte)next);
        }

        Assert.Equal(frame, reply.ToArray());
    }

    /// <summary>Ctrl+C, as the example's text says: it must end within the bound, with exit code 0.</summary>
    private static void Interrupt(SalvoChild child, string name)
    {
        StillRunning(child, name);
        child.Interrupt();
        Assert.True(child.Process.WaitForExit(Patience), $"{name} did not end on Ctrl+C (SIGINT): {child.Output.Text}");
        child.Process.WaitForExit();
        Assert.True(child.Process.ExitCode == 0, $"{name} exited {child.Process.ExitCode} on Ctrl+C: {child.Output.Text}");
    }

    private static void StillRunning(SalvoChild child, string name)
    {
        if (child.Process.HasExited)
        {
            child.Process.WaitForExit();
            Assert.Fail($"{name} ended (exit code {child.Process.ExitCode}) before it was asked to: {child.Output.Text}");
        }
    }

    private static TimeSpan Remaining(DateTime deadline) =>
        TimeSpan.FromTicks(Math.Max(0, (deadline - DateTime.UtcNow).Ticks));
}
