using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Server;
using Salvo.Tests.Lab;

namespace Salvo.Tests.Xdp;

/// <summary>
/// What a user of the AF_XDP backend meets beyond a bare socket, over the two-host lab: a one-worker server in host A on
/// AF_XDP answering a kernel client in host B, and a frame for the port that is no whole UDP datagram, counted and not
/// delivered.
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class AfXdpServerLabTests
{
    private const int Rounds = 10;
    private const int PerRound = 20;

    [RequiresFact(Requirement.AfXdpLab)]
    public async Task EchoServerOnAfXdp_AnswersEveryDatagramOfABurst_AndCountsAMalformedFrameWithoutHandlingIt()
    {
        using var lab = new NetworkLab();
        var options = new DatagramServerOptions
        {
            Backend = DatagramBackend.AfXdp,
            EndPoint = new IPEndPoint(IPAddress.Parse(NetworkLab.AddressA), 0),
            Workers = 1,
        };
        await using var server = new DatagramServer(options, new EchoHandler());
        // The server opens its AF_XDP socket in StartAsync, before it returns: on this thread, so in host A.
        NetworkLab.InHost(lab.HostA, () =>
        {
            server.StartAsync().GetAwaiter().GetResult();
            return 0;
        });
        Assert.Equal(DatagramBackend.AfXdp, server.Backend);
        using var client = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);
        var serverAddress = DatagramAddress.FromIPEndPoint(server.LocalEndPoint);

        SendMalformed(lab.HostB, server.LocalEndPoint);
        var echoed = new HashSet<int>();
        var send = new SendBatch(capacity: PerRound, maxDatagramSize: 64);
        var batch = new ReceiveBatch(capacity: 64, bufferSize: 2048);
        var clock = Stopwatch.StartNew();
        for (var round = 0; round < Rounds; round++)
        {
            send.Clear();
            for (var i = 0; i < PerRound; i++)
            {
                send.Add(BitConverter.GetBytes((round * PerRound) + i), serverAddress);
            }

            Assert.Equal(PerRound, client.Send(send));
            while (echoed.Count < (round + 1) * PerRound && clock.Elapsed < TimeSpan.FromSeconds(10))
            {
                client.Receive(batch, TimeSpan.FromSeconds(1));
                foreach (var datagram in batch)
                {
                    Assert.Equal(serverAddress, datagram.Source);
                    Assert.True(echoed.Add(BitConverter.ToInt32(datagram.Payload)));
                }
            }
        }

        Assert.Equal(Rounds * PerRound, echoed.Count);
        var statistics = server.GetStatistics();
        Assert.Equal(Rounds * PerRound, statistics.DatagramsReceived);
        Assert.Equal(Rounds * PerRound, statistics.DatagramsHandled);
        Assert.Equal(1, statistics.MalformedFrames);
        Assert.Equal(1, server.GetWorkerStatistics(0).MalformedFrames);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void AfXdpSocket_AFrameForItsPortWithAWrongUdpLength_IsCountedAndNotDelivered()
    {
        using var lab = new NetworkLab();
        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var kernel = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);

        SendMalformed(lab.HostB, xdp.LocalEndPoint);
        // A good datagram behind it on the same queue: once it is here, the malformed frame was taken off the ring before it.
        var send = new SendBatch(capacity: 1, maxDatagramSize: 64);
        send.Add([7, 7, 7], xdp.LocalAddress);
        Assert.Equal(1, kernel.Send(send));
        var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        var delivered = new List<byte[]>();
        var clock = Stopwatch.StartNew();
        while (delivered.Count == 0 && clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            xdp.Receive(batch, TimeSpan.FromSeconds(1));
            foreach (var datagram in batch)
            {
                delivered.Add(datagram.Payload.ToArray());
            }
        }

        Assert.Equal(new byte[] { 7, 7, 7 }, Assert.Single(delivered));
        Assert.Equal(0, xdp.Receive(batch, TimeSpan.FromMilliseconds(200)));
        var statistics = xdp.GetStatistics();
        Assert.Equal(1, statistics.MalformedFrames);
        Assert.Equal(1, statistics.DatagramsReceived);
        Assert.Equal(0, kernel.GetStatistics().MalformedFrames);
    }

    /// <summary>
    /// Sends from <paramref name="host"/> one UDP datagram to <paramref name="target"/> whose UDP length field claims 4
    /// bytes more than the packet holds: a raw IPv4 socket for protocol UDP lets the kernel build the IP header (right
    /// lengths and checksum) and sends the UDP header as written, so the program matches the port and the parser refuses it.
    /// </summary>
    private static void SendMalformed(string host, IPEndPoint target)
    {
        using var raw = NetworkLab.InHost(host, () => new Socket(AddressFamily.InterNetwork, SocketType.Raw, ProtocolType.Udp));
        var udp = new byte[8 + 12];
        BinaryPrimitives.WriteUInt16BigEndian(udp, 40_000);
        BinaryPrimitives.WriteUInt16BigEndian(udp.AsSpan(2), (ushort)target.Port);
        BinaryPrimitives.WriteUInt16BigEndian(udp.AsSpan(4), (ushort)(udp.Length + 4));
        Assert.Equal(udp.Length, raw.SendTo(udp, new IPEndPoint(target.Address, 0)));
    }
}
