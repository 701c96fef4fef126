using System.CommandLine;

namespace Salvo.Perf.Cli;

/// <summary>
/// <c>--backend auto|linux|uring|portable|afxdp</c>: which <see cref="DatagramBackend"/> the command's Salvo sockets use, so the
/// portable backend can be measured on Linux too. Reports name the backend each socket actually used.
/// </summary>
internal static class BackendOption
{
    public const string Name = "--backend";

    public static Option<string> Create(string appliesTo) => CommonOptions.Choice(Name,
        $"Backend of {appliesTo}: auto (Linux batched where available, else portable), linux (recvmmsg/sendmmsg, Linux only), " +
        "uring (io_uring: multishot receive on a shared ring, Linux only; linux where the kernel refuses it), " +
        "portable (System.Net.Sockets, one datagram per call) or afxdp (AF_XDP: an XDP program hands the port's frames to rings shared " +
        "with the process, Linux only, root; the socket must be bound to an interface's own address).",
        "auto", "linux", "uring", "portable", "afxdp");

    /// <summary><c>--afxdp-busy-poll</c>: AF_XDP sockets spin on their rings instead of sleeping in poll(2) (<see cref="DatagramSocketOptions.AfXdpBusyPoll"/>).</summary>
    public static Option<bool> AfXdpBusyPoll(string appliesTo) => new("--afxdp-busy-poll")
    {
        Description = $"With --backend afxdp: {appliesTo} spin on their rings and ask the kernel to busy-poll the queue (the lowest latency; " +
            "a core busy while a receive waits) instead of sleeping in poll(2). Defaults to off.",
    };

    /// <summary>Sets <see cref="DatagramSocketOptions.AfXdpBusyPoll"/> when asked for (Linux only: other backends ignore it).</summary>
    public static DatagramSocketOptions WithBusyPoll(DatagramSocketOptions options, bool busyPoll)
    {
        if (busyPoll && OperatingSystem.IsLinux())
        {
            options.AfXdpBusyPoll = true;
        }

        return options;
    }

    /// <summary>The backend asked for; linux, uring or afxdp on another OS fails here, naming the option, not when a socket opens.</summary>
    public static DatagramBackend Read(ParseResult parse, Option<string> option) => parse.GetValue(option) switch
    {
        "linux" or "uring" or "afxdp" when !OperatingSystem.IsLinux() => throw new CliException($"{Name}: {parse.GetValue(option)} needs Linux; use auto or portable."),
        "linux" => DatagramBackend.LinuxBatched,
        "uring" => DatagramBackend.IoUring,
        "portable" => DatagramBackend.Portable,
        "afxdp" => DatagramBackend.AfXdp,
        _ => DatagramBackend.Auto,
    };
}
