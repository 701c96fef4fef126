using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// Whether this process may run the AF_XDP backend, asked once: an AF_XDP socket opens (CAP_NET_RAW, and a kernel built
/// with CONFIG_XDP_SOCKETS) and a two-instruction XDP program loads (CAP_BPF and CAP_NET_ADMIN, or root). Whether a given
/// interface takes the program, and a queue of it is free, is only known when a socket binds to it.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class AfXdpProbe
{
    private static readonly Lazy<string?> s_refusal = new(Probe);

    /// <summary>Null when the backend can run here; otherwise why not.</summary>
    public static string? Refusal => s_refusal.Value;

    private static string? Probe()
    {
        var descriptor = Libc.Socket(XskConstants.AF_XDP, NetlinkConstants.SOCK_RAW | NetlinkConstants.SOCK_CLOEXEC, 0);
        if (descriptor < 0)
        {
            var errno = Libc.LastErrno;
            var hint = errno switch
            {
                Errno.EPERM or Errno.EACCES => " (it needs root or CAP_NET_RAW)",
                Errno.EAFNOSUPPORT => " (the kernel is built without CONFIG_XDP_SOCKETS)",
                _ => string.Empty,
            };
            return $"Backend AfXdp is not available: socket(AF_XDP) failed with {errno}{hint}.";
        }

        _ = Libc.Close(descriptor);
        try
        {
            // r0 = XDP_PASS; exit.
            using var program = BpfObjects.LoadXdpProgram([BpfInstruction.Mov64Imm(0, 2), BpfInstruction.Exit()], "salvo_probe");
            return null;
        }
        catch (InvalidOperationException e)
        {
            return $"Backend AfXdp is not available: loading an XDP program failed ({e.Message}); it needs root, or CAP_BPF and CAP_NET_ADMIN.";
        }
    }
}
