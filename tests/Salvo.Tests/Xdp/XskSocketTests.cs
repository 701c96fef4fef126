using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Tests.Lab;

namespace Salvo.Tests.Xdp;

/// <summary>The AF_XDP socket layer alone (no XDP program, no backend): a frame written into the UMEM and produced on the TX ring leaves the veth.</summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class XskSocketTests
{
    [RequiresFact(Requirement.AfXdpLab)]
    public void FrameOnTheTxRing_ReachesTheKernelSocketOfThePeer_AndItsFrameComesBackOnTheCompletionRing()
    {
        using var lab = new NetworkLab();
        var linkA = LinkOf(lab.HostA, NetworkLab.AddressA);
        var linkB = LinkOf(lab.HostB, NetworkLab.AddressB);
        using var receiver = NetworkLab.InHost(lab.HostB, () => DatagramSocket.Bind(new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 0)));
        using var umem = XdpUmem.TryCreate(XdpUmem.DefaultFrameSize, XdpUmem.DefaultFrameCount, out var errno) ?? throw new InvalidOperationException($"UMEM: {errno}");
        string? failure = null;
        using var xsk = NetworkLab.InHost(lab.HostA, () => XskSocket.TryOpen(umem, (uint)linkA.Index, 0, out failure, out _)) ?? throw new InvalidOperationException(failure);

        // veth has no zero-copy support (no ndo_xsk_wakeup in drivers/net/veth.c), so the socket fell back to copy mode.
        Assert.False(xsk.ZeroCopy);
        Assert.True(umem.TryTakeSendFrame(out var frame));
        var payload = "over the TX ring"u8;
        var source = DatagramAddress.Create(IPAddress.Parse(NetworkLab.AddressA), 40_000);
        var space = umem.Frame(frame, umem.FrameSize);
        payload.CopyTo(space[UdpFrame.HeaderLength(source.Family)..]);
        var length = UdpFrame.Write(space, linkA.Address, linkB.Address, source, receiver.LocalAddress, payload.Length);
        Assert.Equal(1u, xsk.Tx.Free(1));
        xsk.Tx.DescriptorAt(xsk.Tx.ProducerIndex) = new() { Address = frame, Length = (uint)length };
        xsk.Tx.Submit(1);
        xsk.KickTransmit();

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 2048);
        Assert.Equal(1, receiver.Receive(batch, TimeSpan.FromSeconds(5)));
        Assert.Equal(payload.ToArray(), batch[0].Payload.ToArray());
        Assert.Equal(source, batch[0].Source);

        var completed = 0u;
        for (var i = 0; i < 500 && completed == 0; i++)
        {
            completed = xsk.Completion.Ready(1);
            Thread.Sleep(completed == 0 ? 10 : 0);
        }

        Assert.Equal(1u, completed);
        Assert.Equal(frame, xsk.Completion.AddressAt(xsk.Completion.ConsumerIndex));
        xsk.Completion.Release(1);
    }

    private static NetworkInterfaceInfo LinkOf(string host, string address) =>
        NetworkLab.InHost(host, () => NeighbourLookup.InterfaceOf(IPAddress.Parse(address)));
}
