namespace Salvo.Perf.Lab;

/// <summary>The paths <c>salvo lab</c> measures side by side.</summary>
internal static class LabPaths
{
    /// <summary>Salvo on the kernel's UDP path: recvmmsg/sendmmsg (--backend linux).</summary>
    public const string Kernel = "kernel";

    /// <summary>Salvo on AF_XDP (--backend afxdp), waiting in poll(2).</summary>
    public const string AfXdp = "afxdp";

    /// <summary>Salvo on AF_XDP spinning on its rings (--backend afxdp --afxdp-busy-poll).</summary>
    public const string AfXdpBusyPoll = "afxdp-busy";

    /// <summary>C's reference, udplimit: recv -m recvmmsg; ppserver and ppclient.</summary>
    public const string C = "c";

    /// <summary>Every path, in the order each round measures them.</summary>
    public static IReadOnlyList<string> All { get; } = [Kernel, AfXdp, AfXdpBusyPoll, C];

    /// <summary>The --backend options a Salvo path passes to its processes; null for C.</summary>
    public static string[]? Backend(string path) => path switch
    {
        Kernel => ["--backend", "linux"],
        AfXdp => ["--backend", "afxdp"],
        AfXdpBusyPoll => ["--backend", "afxdp", "--afxdp-busy-poll"],
        _ => null,
    };
}
