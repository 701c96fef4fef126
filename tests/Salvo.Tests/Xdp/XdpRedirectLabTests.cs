using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Tests.Lab;

namespace Salvo.Tests.Xdp;

/// <summary>
/// The XDP program on a real interface (host B's end of the lab's veth pair): attached only while its owner lives,
/// one per interface, and invisible to everything but its own port.
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed partial class XdpRedirectLabTests
{
    private const int Port = 4242;
    private const int F_SETFD = 2;
    private const int FD_CLOEXEC = 1;

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void Attach_ThenDispose_LeavesNoProgram()
    {
        using var lab = new NetworkLab();

        var redirect = Attach(lab);
        try
        {
            Assert.Equal(XdpAttachMode.Native, redirect.Mode);
            Assert.Null(redirect.FallbackReason);
            Assert.Contains("prog/xdp", IpLink(lab), StringComparison.Ordinal);
            Assert.Equal(1, LinkOfB(lab).XdpAttached);
        }
        finally
        {
            redirect.Dispose();
        }

        Assert.DoesNotContain("prog/xdp", IpLink(lab), StringComparison.Ordinal);
        Assert.Equal(0, LinkOfB(lab).XdpAttached);
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void Attach_GenericMode_IsReportedAndDetaches()
    {
        using var lab = new NetworkLab();

        using (var redirect = Attach(lab, XdpAttachMode.Generic))
        {
            Assert.Equal(XdpAttachMode.Generic, redirect.Mode);
            Assert.Contains("xdpgeneric", IpLink(lab), StringComparison.Ordinal);
        }

        Assert.Equal(0, LinkOfB(lab).XdpAttached);
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void Attach_InterfaceWithoutNativeXdp_FallsBackToGenericAndSaysWhy()
    {
        // The loopback device's driver has no XDP hook of its own (no ndo_bpf), so only generic mode attaches.
        using var lab = new NetworkLab();

        var refused = Assert.Throws<InvalidOperationException>(() => AttachToLoopback(lab, XdpAttachMode.Native));
        using var redirect = AttachToLoopback(lab, XdpAttachMode.Auto);

        Assert.Contains("native (driver) mode to lo failed", refused.InnerException!.Message, StringComparison.Ordinal);
        Assert.Equal(XdpAttachMode.Generic, redirect.Mode);
        Assert.Contains("native (driver) XDP refused on lo", redirect.FallbackReason, StringComparison.Ordinal);
        Assert.Contains("xdpgeneric", NetworkLab.Exec(lab.HostB, "ip", "-d link show dev lo"), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void Attach_WhereAProgramIsAttached_IsRefusedNamingTheInterfaceAndProgram()
    {
        using var lab = new NetworkLab();
        using var first = Attach(lab);
        var id = LinkOfB(lab).XdpProgramId;

        var error = Assert.Throws<InvalidOperationException>(() => Attach(lab, XdpAttachMode.Generic));

        Assert.Contains($"Interface {lab.InterfaceB} already has an XDP program: program id {id} in driver (native) mode", error.InnerException!.Message, StringComparison.Ordinal);
        Assert.Contains("prog/xdp", IpLink(lab), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void RegisterSocket_NotAnXdpSocket_IsRefusedNamingTheQueue()
    {
        using var lab = new NetworkLab();
        using var redirect = Attach(lab);
        using var udp = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);

        var error = Assert.Throws<InvalidOperationException>(() => redirect.RegisterSocket(0, udp.SafeHandle));

        Assert.Contains("queue 0", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentOutOfRangeException>(() => redirect.RegisterSocket(redirect.QueueCount, udp.SafeHandle));
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void KilledHolderOfTheLink_LeavesNoProgram()
    {
        using var lab = new NetworkLab();
        var redirect = Attach(lab);
        Process holder;
        try
        {
            // The link passes to a child as an inherited descriptor; once this process closes its own copy, the child
            // is the only holder, and SIGKILL gives it no chance to detach anything itself.
            var link = LinkDescriptor();
            Assert.Equal(0, Fcntl(link, F_SETFD, 0));
            try
            {
                holder = Process.Start(new ProcessStartInfo("sleep", "60")) ?? throw new InvalidOperationException("sleep did not start");
            }
            finally
            {
                Fcntl(link, F_SETFD, FD_CLOEXEC);
            }
        }
        finally
        {
            redirect.Dispose();
        }

        using (holder)
        {
            Assert.Equal(1, LinkOfB(lab).XdpAttached);

            holder.Kill();
            Assert.True(holder.WaitForExit(10_000));
        }

        var deadline = Stopwatch.StartNew();
        while (LinkOfB(lab).XdpAttached != 0 && deadline.Elapsed < TimeSpan.FromSeconds(10))
        {
            Thread.Sleep(20);
        }

        Assert.Equal(0, LinkOfB(lab).XdpAttached);
        Assert.DoesNotContain("prog/xdp", IpLink(lab), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Netns | Requirement.Bpf)]
    public void WhileAttached_PingAndOtherPorts_StillReachTheKernel()
    {
        using var lab = new NetworkLab();
        using var redirect = Attach(lab);
        using var receiver = NetworkLab.InHost(lab.HostB, () =>
        {
            var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            socket.Bind(new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), Port + 1));
            return socket;
        });
        using var sender = NetworkLab.InHost(lab.HostA, () => new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp));

        // ARP and ICMP: the ping resolves B's address and is answered by B's kernel.
        NetworkLab.Exec(lab.HostA, "ping", $"-c 1 -W 5 {NetworkLab.AddressB}");
        sender.SendTo("other port"u8, new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), Port + 1));
        receiver.ReceiveTimeout = 5_000;
        var buffer = new byte[64];
        var received = receiver.Receive(buffer);

        Assert.Equal("other port", System.Text.Encoding.ASCII.GetString(buffer, 0, received));
        Assert.Equal(1, LinkOfB(lab).XdpAttached);
    }

    private static XdpRedirect Attach(NetworkLab lab, XdpAttachMode mode = XdpAttachMode.Auto) =>
        NetworkLab.InHost(lab.HostB, () =>
        {
            var link = NeighbourLookup.InterfaceOf(IPAddress.Parse(NetworkLab.AddressB));
            return XdpRedirect.Attach(link.Index, Port, link.RxQueues, mode);
        });

    private static XdpRedirect AttachToLoopback(NetworkLab lab, XdpAttachMode mode) =>
        NetworkLab.InHost(lab.HostB, () => XdpRedirect.Attach(NeighbourLookup.InterfaceOf(IPAddress.Loopback).Index, Port, 1, mode));

    private static NetworkInterfaceInfo LinkOfB(NetworkLab lab) => NetworkLab.InHost(lab.HostB, () =>
    {
        using var netlink = RouteNetlink.Open();
        return netlink.GetLink(lab.InterfaceB) ?? throw new InvalidOperationException($"{lab.InterfaceB} is gone");
    });

    private static string IpLink(NetworkLab lab) => NetworkLab.Exec(lab.HostB, "ip", $"-d link show dev {lab.InterfaceB}");

    private static int LinkDescriptor()
    {
        var links = Directory.GetFiles("/proc/self/fd")
            .Where(path => new FileInfo(path).LinkTarget == "anon_inode:bpf_link")
            .Select(path => int.Parse(Path.GetFileName(path), System.Globalization.CultureInfo.InvariantCulture))
            .ToList();
        return Assert.Single(links);
    }

    [LibraryImport("libc.so.6", EntryPoint = "fcntl", SetLastError = true)]
    private static partial int Fcntl(int fd, int command, int argument);
}
