using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Tests.Lab;

namespace Salvo.Tests.Xdp;

/// <summary>
/// An AF_PACKET socket bound to one interface of a lab host, sending whole Ethernet frames exactly as written: the way
/// to put on the wire what no socket of the kernel's would build (a spoofed source, a wrong checksum, a VLAN tag).
/// </summary>
[SupportedOSPlatform("linux")]
public sealed partial class PacketSocket : IDisposable
{
    private const int AfPacket = 17;
    private const int SockRaw = 3;
    private const int SockaddrLlLength = 20;
    private readonly int _descriptor;

    private PacketSocket(int descriptor) => _descriptor = descriptor;

    /// <summary>Opens the socket in <paramref name="host"/> on <paramref name="interfaceName"/>.</summary>
    public static PacketSocket Open(string host, string interfaceName) => NetworkLab.InHost(host, () =>
    {
        var index = IfNameToIndex(interfaceName);
        if (index == 0)
        {
            throw new InvalidOperationException($"no interface {interfaceName}: errno {Marshal.GetLastPInvokeError()}");
        }

        // Protocol 0: the socket sends and never receives.
        var descriptor = Socket(AfPacket, SockRaw, 0);
        if (descriptor < 0)
        {
            throw new InvalidOperationException($"socket(AF_PACKET) failed: errno {Marshal.GetLastPInvokeError()}");
        }

        // struct sockaddr_ll: family (host order), protocol (network order), ifindex, hatype, pkttype, halen, addr[8].
        var address = new byte[SockaddrLlLength];
        BinaryPrimitives.WriteUInt16LittleEndian(address, AfPacket);
        BinaryPrimitives.WriteInt32LittleEndian(address.AsSpan(4), (int)index);
        if (Bind(descriptor, address, address.Length) != 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            _ = Close(descriptor);
            throw new InvalidOperationException($"bind(AF_PACKET, {interfaceName}) failed: errno {errno}");
        }

        return new PacketSocket(descriptor);
    });

    /// <summary>Sends <paramref name="frame"/> (from the destination MAC on) out of the interface.</summary>
    public void Send(byte[] frame)
    {
        var sent = SendFrame(_descriptor, frame, (nuint)frame.Length, 0);
        if (sent != frame.Length)
        {
            throw new InvalidOperationException($"send(AF_PACKET) sent {sent} of {frame.Length} bytes: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public void Dispose() => _ = Close(_descriptor);

    [LibraryImport("libc.so.6", EntryPoint = "if_nametoindex", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial uint IfNameToIndex(string name);

    [LibraryImport("libc.so.6", EntryPoint = "socket", SetLastError = true)]
    private static partial int Socket(int domain, int type, int protocol);

    [LibraryImport("libc.so.6", EntryPoint = "bind", SetLastError = true)]
    private static partial int Bind(int descriptor, byte[] address, int length);

    [LibraryImport("libc.so.6", EntryPoint = "send", SetLastError = true)]
    private static partial nint SendFrame(int descriptor, byte[] buffer, nuint length, int flags);

    [LibraryImport("libc.so.6", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int descriptor);
}
