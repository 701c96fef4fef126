using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>Control socket tests that read the process's GC heap: run alone, so no other test's allocations count.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ControlSocketMemoryCollection
{
    public const string Name = "Control socket memory";
}

/// <summary>What a large or endless request makes the process hold, while it lasts and once its client has gone.</summary>
[Collection(ControlSocketMemoryCollection.Name)]
public sealed class ControlSocketMemoryTests
{
    private const long MiB = 1 << 20;

    [Fact]
    public void Set_TwelveMegabytesOfTwoByteLines_HeldAsNothingAndReturnedOnClose()
    {
        // Memory, not time, is measured here: a loaded machine may take longer than the 10 s a request is given.
        using var lab = new UapiTestDevice(UapiLimits.Default with { RequestTimeout = TimeSpan.FromMinutes(2) });
        var baseline = Heap();
        using (var client = new UapiClient(lab.Path))
        {
            client.SendRaw("set=1\n"u8.ToArray());
            var chunk = new byte[1 << 20];
            for (var i = 0; i < chunk.Length; i += 2)
            {
                chunk[i] = (byte)'x';
                chunk[i + 1] = (byte)'\n';
            }

            // 12 MB of lines and no blank line: the sends return once the server has read all but a socket buffer.
            for (var i = 0; i < 12; i++)
            {
                client.SendRaw(chunk);
            }

            Thread.Sleep(500);
            var during = Heap();
            Assert.True(during - baseline < 8 * MiB, $"{(during - baseline) / MiB} MiB held during the request");
        }

        // The server reads what the socket still held (up to its buffer) before it sees the end.
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (lab.Control.Counters[UapiRefusal.Incomplete] == 0 && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(50);
        }

        Assert.Equal(1, lab.Control.Counters[UapiRefusal.Incomplete]);
        var after = WaitForHeap(baseline + (4 * MiB));
        Assert.True(after - baseline < 4 * MiB, $"{(after - baseline) / MiB} MiB still held after the client closed");
    }

    [Fact]
    public void Set_SixtyThousandPeersThatChangeNothing_ParsedWithinBoundsAndReturnedOnClose()
    {
        using var lab = new UapiTestDevice();
        var request = new StringBuilder("set=1\n");
        for (var i = 1; i <= 60_000; i++)
        {
            // update_only peers that do not exist: the whole request is parsed and held, and applying it changes nothing.
            request.Append(PublicKeyLine(i)).Append("update_only=true\nallowed_ip=10.").Append(i >> 16).Append('.').Append((i >> 8) & 255).Append('.').Append(i & 255)
                .Append("/32\nallowed_ip=fd00::").Append(i.ToString("x", System.Globalization.CultureInfo.InvariantCulture)).Append("/128\n");
        }

        request.Append('\n');
        var bytes = Encoding.ASCII.GetBytes(request.ToString());
        request = null;
        Assert.InRange(bytes.Length, 8 * MiB, WireGuardControlSocket.MaxRequestBytes);

        var baseline = Heap();
        using (var client = new UapiClient(lab.Path))
        {
            client.SendRaw(bytes);
            Assert.Equal("errno=0\n", client.Send(string.Empty));

            // The answer is written before the server's request ends; its change is let go right after.
            var answered = WaitForHeap(baseline + (4 * MiB));
            Assert.True(answered - baseline < 4 * MiB, $"{(answered - baseline) / MiB} MiB held once answered, the connection still open");
        }

        var after = WaitForHeap(baseline + (4 * MiB));
        Assert.True(after - baseline < 4 * MiB, $"{(after - baseline) / MiB} MiB still held after the client closed");
        Assert.Single(lab.Device.Engine.GetPeers());
        GC.KeepAlive(bytes);
    }

    [Fact]
    public void Set_TenThousandPeersWithTwoAllowedIpsEach_AppliedInOneRequest()
    {
        using var lab = new UapiTestDevice();
        var request = new StringBuilder("set=1\nreplace_peers=true\n");
        var psk = new string('7', 64);
        for (var i = 1; i <= 10_000; i++)
        {
            // What 'wg setconf' sends for each peer of a file with a preshared key and an endpoint (on loopback, and
            // with no keepalive, so no peer sends anything).
            request.Append(PublicKeyLine(i)).Append("preshared_key=").Append(psk)
                .Append("\nendpoint=127.0.0.1:51820\nreplace_allowed_ips=true\nallowed_ip=10.")
                .Append(i >> 8).Append('.').Append(i & 255).Append(".0/24\nallowed_ip=fd00:").Append(i.ToString("x", System.Globalization.CultureInfo.InvariantCulture)).Append("::/64\n");
        }

        request.Append('\n');
        Assert.Equal("errno=0\n", UapiClient.Request(lab.Path, request.ToString()));
        Assert.Equal(10_000, lab.Device.Engine.GetPeers().Count);
        Assert.Equal(20_000, UapiClient.Values(lab.Get(), "allowed_ip").Count);
    }

    /// <summary>
    /// <c>get=1</c> and Salvo's own <c>get=salvo</c> from a client that stops reading: each answer is written a page of
    /// peers at a time, so a connection holds a chunk of text and a page however many peers there are (a
    /// <c>get=salvo</c> held its whole answer, 27 MiB of GC heap at 100,000 peers, while its client read slowly).
    /// </summary>
    [Theory]
    [InlineData("get=1", "public_key", null)]
    [InlineData("get=salvo", "unanswered", "salvo=1\n")]
    public void Get_HundredThousandPeers_WrittenAPageAtATime_NeverHoldingEveryPeersState(string request, string perPeerKey, string? answerStart)
    {
        const int Peers = 100_000;
        using var lab = new UapiTestDevice(UapiLimits.Default with { RequestTimeout = TimeSpan.FromMinutes(2) });
        Assert.Equal(0, lab.Device.Configure(ManyPeerChanges.Adding(Peers), out _));
        var baseline = Heap();
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Connect(new UnixDomainSocketEndPoint(lab.Path));
        socket.Send(Encoding.ASCII.GetBytes(request + "\n\n"));
        var buffer = new byte[64 << 10];
        var text = new StringBuilder();
        text.Append(Encoding.ASCII.GetString(buffer, 0, socket.Receive(buffer)));

        // The reader stops: the server fills the socket's buffer and waits, holding what it holds while it writes.
        Thread.Sleep(1_000);
        var during = Heap();
        Assert.True(during - baseline < 16 * MiB, $"{(during - baseline) / MiB} MiB held while the answer was written");

        socket.ReceiveTimeout = 60_000;
        while (!text.ToString(Math.Max(0, text.Length - 16), Math.Min(16, text.Length)).EndsWith("errno=0\n\n", StringComparison.Ordinal))
        {
            var read = socket.Receive(buffer);
            Assert.True(read > 0, "the answer ended before errno=0");
            text.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }

        // Every peer once (1 configured by the lab, and the 100,000), each with its lines.
        var answer = text.ToString();
        if (answerStart is not null)
        {
            Assert.StartsWith(answerStart, answer, StringComparison.Ordinal);
        }

        Assert.Equal(Peers + 1, UapiClient.Values(answer, "public_key").Distinct().Count());
        Assert.Equal(Peers + 1, UapiClient.Values(answer, perPeerKey).Count);
    }

    private static string PublicKeyLine(int peer) => $"public_key={peer:x64}\n";

    private static long Heap() => GC.GetTotalMemory(forceFullCollection: true);

    /// <summary>The heap once it is below <paramref name="bound"/>, or after 5 s: the server's side of a closed connection ends on its own turn.</summary>
    private static long WaitForHeap(long bound)
    {
        var deadline = DateTime.UtcNow.AddSeconds(5);
        long heap;
        while ((heap = Heap()) >= bound && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(100);
        }

        return heap;
    }
}
