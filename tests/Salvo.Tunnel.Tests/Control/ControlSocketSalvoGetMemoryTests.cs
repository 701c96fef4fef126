using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// <c>get=salvo</c> from a client that stops reading: like <c>get=1</c>, the answer is written a page of peers at a
/// time, so a connection holds a chunk of text and a page however many peers there are (each of up to 256 connections
/// held the whole answer, 27 MiB of GC heap at 100,000 peers, while its client read slowly).
/// </summary>
[Collection(ControlSocketMemoryCollection.Name)]
public sealed class ControlSocketSalvoGetMemoryTests
{
    private const long MiB = 1 << 20;

    [Fact]
    public void GetSalvo_HundredThousandPeers_SlowReader_WrittenAPageAtATime()
    {
        const int Peers = 100_000;
        using var lab = new UapiTestDevice(UapiLimits.Default with { RequestTimeout = TimeSpan.FromMinutes(2) });
        Assert.Equal(0, lab.Device.Configure(ManyPeerChanges.Adding(Peers), out _));
        var baseline = GC.GetTotalMemory(forceFullCollection: true);
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Connect(new UnixDomainSocketEndPoint(lab.Path));
        socket.Send("get=salvo\n\n"u8);
        var buffer = new byte[64 << 10];
        var text = new StringBuilder();
        text.Append(Encoding.ASCII.GetString(buffer, 0, socket.Receive(buffer)));

        // The reader stops: the server fills the socket's buffer and waits, holding what it holds while it writes.
        Thread.Sleep(1_000);
        var during = GC.GetTotalMemory(forceFullCollection: true);
        Assert.True(during - baseline < 16 * MiB, $"{(during - baseline) / MiB} MiB held while the answer was written");

        socket.ReceiveTimeout = 60_000;
        while (!text.ToString(Math.Max(0, text.Length - 16), Math.Min(16, text.Length)).EndsWith("errno=0\n\n", StringComparison.Ordinal))
        {
            var read = socket.Receive(buffer);
            Assert.True(read > 0, "the answer ended before errno=0");
            text.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }

        // Every peer once (the lab's own and the 100,000), each with its counters.
        var answer = text.ToString();
        Assert.StartsWith("salvo=1\n", answer, StringComparison.Ordinal);
        Assert.Equal(Peers + 1, UapiClient.Values(answer, "public_key").Distinct().Count());
        Assert.Equal(Peers + 1, UapiClient.Values(answer, "unanswered").Count);
    }
}
