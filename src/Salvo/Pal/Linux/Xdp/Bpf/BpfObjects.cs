using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.BpfConstants;

namespace Salvo.Pal;

/// <summary>
/// The bpf(2) commands the XDP redirect needs: create an XSKMAP, load a program, fill the map, link the program to an
/// interface. Each object is a descriptor; the kernel frees it when the last descriptor (or link) referring to it
/// closes, which a process's death does too.
/// </summary>
// Safety: each attribute handed to bpf(2) lives on the calling frame, and every buffer it points at is fixed (or a
// local) for the length of the call; descriptors inside attributes are held by a DescriptorLease across it.
[SupportedOSPlatform("linux")]
internal static unsafe class BpfObjects
{
    // The verifier's log for a refused program: a few dozen instructions log well under 64 KiB at level 1.
    private const int LogCapacity = 64 * 1024;

    /// <summary>A new XSKMAP: key the queue index (u32), value an AF_XDP socket's descriptor (u32).</summary>
    public static SafeDescriptorHandle CreateXskMap(int maxEntries)
    {
        if (maxEntries <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(maxEntries), maxEntries, "An XSKMAP needs at least one entry (the interface's queue count).");
        }

        var attribute = new BpfMapCreateAttr { MapType = BPF_MAP_TYPE_XSKMAP, KeySize = 4, ValueSize = 4, MaxEntries = (uint)maxEntries };
        WriteName(new Span<byte>(attribute.MapName, 16), "salvo_xsks");
        // Safety: the attribute lives on this frame for the length of the call, which reads sizeof(BpfMapCreateAttr) bytes.
        var fd = BpfSyscall.Call(BPF_MAP_CREATE, &attribute);
        return fd >= 0 ? new SafeDescriptorHandle(fd) : throw Refused("Creating the XSKMAP", Libc.LastErrno);
    }

    /// <summary>Sets <paramref name="key"/> to <paramref name="value"/> in <paramref name="map"/>; the errno on failure.</summary>
    public static Errno UpdateElement(SafeHandle map, uint key, uint value)
    {
        using var lease = new DescriptorLease(map);
        var attribute = new BpfMapElemAttr { MapFd = (uint)lease.Descriptor, Key = (ulong)&key, Value = (ulong)&value, Flags = BPF_ANY };
        // Safety: the attribute, key and value live on this frame for the length of the call; the lease keeps the
        // map's descriptor open across it.
        return BpfSyscall.Call(BPF_MAP_UPDATE_ELEM, &attribute) == 0 ? Errno.None : Libc.LastErrno;
    }

    /// <summary>
    /// Loads an XDP program. A refusal is retried once with the verifier's log on, so the exception carries the
    /// verifier's own account of the instruction it rejected.
    /// </summary>
    public static SafeDescriptorHandle LoadXdpProgram(ReadOnlySpan<BpfInstruction> program, string name)
    {
        var fd = Load(program, name, log: default, out var errno);
        if (fd >= 0)
        {
            return new SafeDescriptorHandle(fd);
        }

        var log = new byte[LogCapacity];
        fd = Load(program, name, log, out var loggedErrno);
        if (fd >= 0)
        {
            return new SafeDescriptorHandle(fd);
        }

        var text = Encoding.ASCII.GetString(log, 0, Math.Max(0, Array.IndexOf(log, (byte)0))).Trim();
        throw new InvalidOperationException(
            $"The kernel refused the XDP program ({errno}{(loggedErrno != errno ? $", then {loggedErrno}" : string.Empty)}){(errno == Errno.EPERM ? ": loading BPF programs needs root or CAP_BPF and CAP_NET_ADMIN" : string.Empty)}. Verifier log:\n{text}");
    }

    /// <summary>
    /// Attaches <paramref name="program"/> to interface <paramref name="ifIndex"/> through a BPF link: the program
    /// stays attached exactly as long as the returned descriptor is open. The errno on failure.
    /// </summary>
    public static Errno CreateXdpLink(SafeHandle program, int ifIndex, uint xdpFlags, out SafeDescriptorHandle? link)
    {
        using var lease = new DescriptorLease(program);
        var attribute = new BpfLinkCreateAttr { ProgFd = (uint)lease.Descriptor, TargetIfIndex = (uint)ifIndex, AttachType = BPF_XDP, Flags = xdpFlags };
        // Safety: the attribute lives on this frame for the length of the call; the lease keeps the program open across it.
        var fd = BpfSyscall.Call(BPF_LINK_CREATE, &attribute);
        link = fd >= 0 ? new SafeDescriptorHandle(fd) : null;
        return fd >= 0 ? Errno.None : Libc.LastErrno;
    }

    /// <summary>
    /// Runs <paramref name="program"/> once on <paramref name="packet"/> (BPF_PROG_TEST_RUN, queue 0) and returns its
    /// verdict: how the program's parsing is checked without a device or traffic.
    /// </summary>
    public static int TestRun(SafeHandle program, ReadOnlySpan<byte> packet, out Errno errno)
    {
        using var lease = new DescriptorLease(program);
        // Safety: the packet is fixed and the attribute on this frame for the length of the call, which reads exactly
        // DataSizeIn bytes and writes no output (DataOut is null).
        fixed (byte* data = packet)
        {
            var attribute = new BpfTestRunAttr { ProgFd = (uint)lease.Descriptor, DataIn = (ulong)data, DataSizeIn = (uint)packet.Length, Repeat = 1 };
            errno = BpfSyscall.Call(BPF_PROG_TEST_RUN, &attribute) == 0 ? Errno.None : Libc.LastErrno;
            return (int)attribute.ReturnValue;
        }
    }

    private static int Load(ReadOnlySpan<BpfInstruction> program, string name, Span<byte> log, out Errno errno)
    {
        ReadOnlySpan<byte> license = "GPL\0"u8;
        // Safety: the instructions, licence and log are fixed for the length of the call, and the attribute gives the
        // kernel their exact lengths.
        fixed (BpfInstruction* instructions = program)
        fixed (byte* licenseText = license)
        fixed (byte* logBuffer = log)
        {
            var attribute = new BpfProgLoadAttr
            {
                ProgType = BPF_PROG_TYPE_XDP,
                InsnCount = (uint)program.Length,
                Insns = (ulong)instructions,
                License = (ulong)licenseText,
                LogLevel = log.IsEmpty ? 0u : 1u,
                LogSize = (uint)log.Length,
                LogBuffer = (ulong)logBuffer,
            };
            WriteName(new Span<byte>(attribute.ProgName, 16), name);
            var fd = BpfSyscall.Call(BPF_PROG_LOAD, &attribute);
            errno = fd >= 0 ? Errno.None : Libc.LastErrno;
            return fd;
        }
    }

    /// <summary>An object name: up to 15 characters of [A-Za-z0-9_.], NUL-terminated (bpf_obj_name_cpy).</summary>
    private static void WriteName(Span<byte> destination, string name)
    {
        destination.Clear();
        Encoding.ASCII.GetBytes(name.AsSpan(0, Math.Min(name.Length, 15)), destination);
    }

    private static InvalidOperationException Refused(string what, Errno errno) => new(errno == Errno.EPERM
        ? $"{what} failed (EPERM): AF_XDP needs root or CAP_BPF and CAP_NET_ADMIN."
        : $"{what} failed: {errno}.");
}
