using System.Buffers.Binary;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Runtime.Versioning;
using System.Text.RegularExpressions;

namespace Salvo.Tests.Lab;

/// <summary>What crosses a real path: a veth pair with MTU 1500 between two network namespaces.</summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed partial class TwoHostTests
{
    private static DatagramSocket OpenIn(
        string host, string address, bool dontFragment = false, bool gro = true, bool gso = true, DatagramBackend backend = DatagramBackend.Auto) =>
        NetworkLab.InHost(host, () => new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Parse(address), 0),
            Backend = backend,
            ReceiveBufferSize = 4 << 20,
            DontFragment = dontFragment,
            Gro = gro,
            Gso = gso,
        }));

    [RequiresFact(Requirement.Netns)]
    public async Task GsoRunOf1472ByteSegments_CrossesTheVethIntact()
    {
        using var lab = new NetworkLab();
        using var sender = OpenIn(lab.HostA, NetworkLab.AddressA);
        using var receiver = OpenIn(lab.HostB, NetworkLab.AddressB);
        Assert.True(sender.Capabilities.Gso);
        var received = new ReceiveBatch();
        var pending = receiver.ReceiveAsync(received).AsTask();

        // 1,472 bytes of payload + 28 of headers = the veth's 1,500-byte MTU: real segmentation.
        var batch = new SendBatch(capacity: 64, maxDatagramSize: 1472);
        for (var i = 0; i < 64; i++)
        {
            Assert.True(batch.TryAdd(1472, receiver.LocalAddress, out var payload));
            payload.Fill((byte)i);
            BinaryPrimitives.WriteInt32LittleEndian(payload, i);
        }

        Assert.Equal(64, await sender.SendAsync(batch));
        Assert.Equal(1, sender.GetStatistics().SendCalls);

        var seen = new List<int>();
        await pending.WaitAsync(TimeSpan.FromSeconds(5));
        while (true)
        {
            foreach (var datagram in received)
            {
                Assert.Equal(1472, datagram.Length);
                var index = BinaryPrimitives.ReadInt32LittleEndian(datagram.Payload);
                Assert.All(datagram.Payload[4..].ToArray(), b => Assert.Equal((byte)index, b));
                seen.Add(index);
            }

            if (seen.Count == 64)
            {
                break;
            }

            await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        }

        Assert.Equal(Enumerable.Range(0, 64), seen);
    }

    [RequiresTheory(Requirement.Netns)]
    [InlineData(DatagramBackend.LinuxBatched)]
    [InlineData(DatagramBackend.Portable)]
    public async Task DontFragment_DatagramAboveThePathMtu_FailsWithTheSizeAndTheLimit(DatagramBackend backend)
    {
        using var lab = new NetworkLab();
        using var sender = OpenIn(lab.HostA, NetworkLab.AddressA, dontFragment: true, backend: backend);
        using var receiver = OpenIn(lab.HostB, NetworkLab.AddressB);
        Assert.Equal(1472, sender.GetMaxDatagramSize(receiver.LocalAddress));

        var error = await Assert.ThrowsAsync<DatagramTooLargeException>(() => sender.SendToAsync(new byte[2000], receiver.LocalAddress).AsTask());
        Assert.Equal(2000, error.DatagramSize);
        Assert.Equal(1472, error.MaxDatagramSize);
        Assert.Contains("2000 bytes", error.Message, StringComparison.Ordinal);
        Assert.Contains("1472", error.Message, StringComparison.Ordinal);

        // In a batch, the oversized datagram is counted and skipped; the one that fits goes out.
        var batch = new SendBatch(capacity: 2, maxDatagramSize: 2000);
        batch.Add(new byte[2000], receiver.LocalAddress);
        batch.Add(new byte[1472], receiver.LocalAddress);
        Assert.Equal(1, await sender.SendAsync(batch));
        Assert.Equal(System.Net.Sockets.SocketError.MessageSize, batch.FirstError);
        var got = new ReceiveBatch();
        Assert.Equal(1, await receiver.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Equal(1472, got[0].Length);
    }

    [RequiresFact(Requirement.Netns)]
    public async Task WithoutDontFragment_ALargeDatagramIsFragmentedAndReassembled()
    {
        using var lab = new NetworkLab();
        using var sender = OpenIn(lab.HostA, NetworkLab.AddressA);
        using var receiver = OpenIn(lab.HostB, NetworkLab.AddressB);
        var payload = Enumerable.Range(0, 9000).Select(i => (byte)i).ToArray();
        await sender.SendToAsync(payload, receiver.LocalAddress);
        var got = new ReceiveBatch();
        await receiver.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(payload, got[0].Payload.ToArray());
    }

    [RequiresFact(Requirement.Netns, Tools = ["nft"])]
    public async Task TenPercentRandomDrop_IsMeasuredAsLoss_ThatMatchesTheKernelsCounter()
    {
        const int total = 20_000;
        const int chunk = 250;
        using var lab = new NetworkLab();
        // Without GSO: a veth carries a GSO message as one packet, so the rule would drop whole runs at once
        // and count one packet for many datagrams (on a NIC, segmentation happens before the wire).
        using var sender = OpenIn(lab.HostA, NetworkLab.AddressA, gso: false);
        using var receiver = OpenIn(lab.HostB, NetworkLab.AddressB, gro: false);
        var port = receiver.LocalEndPoint.Port;
        NetworkLab.Exec(lab.HostB, "nft", "add table inet salvo");
        NetworkLab.Exec(lab.HostB, "nft", "add chain inet salvo input '{ type filter hook input priority 0; }'".Replace("'", string.Empty, StringComparison.Ordinal));
        NetworkLab.Exec(lab.HostB, "nft", $"add rule inet salvo input udp dport {port} numgen random mod 100 < 10 counter drop");

        long received = 0;
        var receiving = Task.Run(async () =>
        {
            var batch = new ReceiveBatch(capacity: 64, bufferSize: 128);
            try
            {
                while (true)
                {
                    var count = await receiver.ReceiveAsync(batch);
                    Interlocked.Add(ref received, count);
                }
            }
            catch (ObjectDisposedException)
            {
            }
        });

        var sendBatch = new SendBatch(capacity: 50, maxDatagramSize: 64);
        long dropped = 0;
        for (var sent = 0; sent < total;)
        {
            for (var i = 0; i < chunk; i += sendBatch.Count)
            {
                sendBatch.Clear();
                while (!sendBatch.IsFull)
                {
                    sendBatch.Add(new byte[64], receiver.LocalAddress);
                }

                sent += await sender.SendAsync(sendBatch);
            }

            // Wait until every datagram sent so far is either received or dropped by the rule, so the
            // receiver's buffer never overflows and the two counts can be compared exactly.
            var clock = Stopwatch.StartNew();
            do
            {
                dropped = ReadDropCounter(lab.HostB);
            }
            while (Interlocked.Read(ref received) + dropped < sent && clock.Elapsed < TimeSpan.FromSeconds(5));

            Assert.True(Interlocked.Read(ref received) + dropped == sent, $"after {sent} sent: {received} received, {dropped} dropped by the rule");
        }

        receiver.Dispose();
        await receiving;
        var loss = (double)(total - received) / total;
        Assert.Equal(total - received, dropped);
        Assert.InRange(loss, 0.08, 0.12);
    }

    private static long ReadDropCounter(string host)
    {
        var rules = NetworkLab.Exec(host, "nft", "list chain inet salvo input");
        var match = PacketsCounter().Match(rules);
        return match.Success ? long.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
    }

    [GeneratedRegex(@"counter packets (\d+)")]
    private static partial Regex PacketsCounter();
}
