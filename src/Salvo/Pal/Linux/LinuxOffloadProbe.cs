using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: every pointer here points into a stackalloc of the same method, handed to one synchronous sendmsg or
// recvmsg with the buffer's own length; the kernel keeps none of them after the call.
/// <summary>
/// Finds out, once per process, whether this kernel really does UDP GSO and GRO: a GSO send of two
/// 100-byte segments over loopback to a socket with UDP_GRO on. Support in the headers is not enough
/// (a kernel can be built without it, a seccomp filter can refuse it), so the probe moves real data.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class LinuxOffloadProbe
{
    private const int SegmentSize = 100;

    private static readonly Lazy<(bool Gso, bool Gro)> s_result = new(Run);

    public static bool Gso => s_result.Value.Gso;

    public static bool Gro => s_result.Value.Gro;

    private static (bool Gso, bool Gro) Run()
    {
        if (!LinuxDatagramPal.IsSupported)
        {
            return (false, false);
        }

        try
        {
            using var receiver = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            using var sender = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
            receiver.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            sender.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            var groSet = LinuxSocketOption.TrySet(receiver.SafeHandle, Constants.SOL_UDP, Constants.UDP_GRO, 1) == Errno.None;
            sender.Connect(receiver.LocalEndPoint!);
            if (!SendSegmented(sender))
            {
                return (false, false);
            }

            // The two segments arrive either as one 200-byte buffer with a UDP_GRO message (GRO works) or
            // as two datagrams (GSO works, GRO does not).
            if (!receiver.Poll(1_000_000, SelectMode.SelectRead))
            {
                return (false, false);
            }

            var (length, groSize) = ReceiveWithControl(receiver);
            var gro = groSet && length == 2 * SegmentSize && groSize == SegmentSize;
            var gso = length is SegmentSize or (2 * SegmentSize);
            return (gso, gro);
        }
        catch (SocketException)
        {
            return (false, false);
        }
    }

    private static bool SendSegmented(Socket sender)
    {
        var payload = stackalloc byte[2 * SegmentSize];
        var control = stackalloc byte[ControlMessages.SegmentSpace];
        var controlLength = ControlMessages.WriteUInt16(new Span<byte>(control, ControlMessages.SegmentSpace), 0, Constants.SOL_UDP, Constants.UDP_SEGMENT, SegmentSize);
        var iov = new IOVec { Base = payload, Length = 2 * SegmentSize };
        var header = new MsgHdr { IOVecs = &iov, IOVecCount = 1, Control = control, ControlLength = (nuint)controlLength };
        return Libc.SendMsg(sender.SafeHandle, &header, 0) == 2 * SegmentSize;
    }

    private static (int Length, int GroSize) ReceiveWithControl(Socket receiver)
    {
        var buffer = stackalloc byte[4 * SegmentSize];
        var control = stackalloc byte[ControlMessages.ReceiveStride];
        var iov = new IOVec { Base = buffer, Length = 4 * SegmentSize };
        var header = new MsgHdr { IOVecs = &iov, IOVecCount = 1, Control = control, ControlLength = ControlMessages.ReceiveStride };
        var length = (int)Libc.RecvMsg(receiver.SafeHandle, &header, Constants.MSG_DONTWAIT);
        var groSize = 0;
        foreach (var message in ControlMessages.Enumerate(new ReadOnlySpan<byte>(control, (int)header.ControlLength)))
        {
            if (message.Level == Constants.SOL_UDP && message.Type == Constants.UDP_GRO)
            {
                groSize = ControlMessages.ReadInt32(message.Data);
            }
        }

        return (length, groSize);
    }
}
