using System.CommandLine;
using System.Net;
using Salvo.Perf.Platform;
using Salvo.Server;

namespace Salvo.Perf.Cli;

/// <summary>
/// <c>--backend auto|linux|uring|portable</c> (and <c>afxdp</c> where a command can bind one interface's address with one
/// worker): which <see cref="DatagramBackend"/> the command's Salvo sockets use, so the portable backend can be measured on
/// Linux too. Reports name the backend each socket actually used.
/// </summary>
internal static class BackendOption
{
    public const string Name = "--backend";

    private const string AfXdpChoice = "afxdp";

    /// <param name="appliesTo">What the option sets, for its description.</param>
    /// <param name="afXdp">Whether the command offers afxdp: only one that binds an address given on its command line.</param>
    public static Option<string> Create(string appliesTo, bool afXdp = false) => CommonOptions.Choice(Name,
        $"Backend of {appliesTo}: auto (Linux batched where available, else portable), linux (recvmmsg/sendmmsg, Linux only), " +
        "uring (io_uring: multishot receive on a shared ring, Linux only; linux where the kernel refuses it) " +
        "or portable (System.Net.Sockets, one datagram per call)" +
        (afXdp ? ", or afxdp (AF_XDP: an XDP program and the interface's rings; Linux only, root, one worker bound to the interface's own address)." : "."),
        afXdp ? ["auto", "linux", "uring", "portable", AfXdpChoice] : ["auto", "linux", "uring", "portable"]);

    /// <summary><c>--afxdp-busy-poll</c>: AF_XDP sockets spin on their rings instead of sleeping in poll(2) (<see cref="DatagramSocketOptions.AfXdpBusyPoll"/>).</summary>
    public static Option<bool> AfXdpBusyPoll(string appliesTo) => new("--afxdp-busy-poll")
    {
        Description = $"With --backend afxdp: {appliesTo} spin on their rings and ask the kernel to busy-poll the queue (the lowest latency; " +
            "a core busy while a receive waits) instead of sleeping in poll(2). Defaults to off.",
    };

    /// <summary>Sets <see cref="DatagramSocketOptions.AfXdpBusyPoll"/> when asked for (Linux only: other backends ignore it).</summary>
    public static DatagramSocketOptions WithBusyPoll(DatagramSocketOptions options, bool busyPoll)
    {
        if (busyPoll && HostOs.IsLinux)
        {
            options.AfXdpBusyPoll = true;
        }

        return options;
    }

    /// <summary>The backend asked for; linux, uring or afxdp on another OS fails here, naming the option, not when a socket opens.</summary>
    public static DatagramBackend Read(ParseResult parse, Option<string> option) => parse.GetValue(option) switch
    {
        "linux" or "uring" or AfXdpChoice when !HostOs.IsLinux => throw new CliException($"{Name}: {parse.GetValue(option)} needs Linux; use auto or portable."),
        "linux" => DatagramBackend.LinuxBatched,
        "uring" => DatagramBackend.IoUring,
        "portable" => DatagramBackend.Portable,
        AfXdpChoice when HostOs.IsLinux => DatagramBackend.AfXdp,
        _ => DatagramBackend.Auto,
    };

    /// <summary>
    /// Refuses at start what AF_XDP cannot take, in the library's own words (<see cref="DatagramServerOptions.Validate"/>:
    /// more than one worker, an address that is no one interface's, a host where the backend does not run), naming the
    /// command's option where the library names its own.
    /// </summary>
    public static void RefuseAfXdpMisfit(DatagramBackend backend, int workers, IPAddress address)
    {
        if (!HostOs.IsLinux || backend != DatagramBackend.AfXdp)
        {
            return;
        }

        var options = new DatagramServerOptions { EndPoint = new IPEndPoint(address, 0), Workers = workers, Backend = backend };
        try
        {
            options.Validate();
        }
        catch (ArgumentException e)
        {
            throw new CliException($"{OptionOf(e.ParamName)}: {MessageOf(e)}");
        }
    }

    private static string OptionOf(string? libraryOption) => libraryOption switch
    {
        nameof(DatagramServerOptions.Workers) => "--workers",
        nameof(DatagramServerOptions.EndPoint) => "-B/--bind",
        _ => Name,
    };

    /// <summary>The library's message without the " (Parameter 'Workers')" that <see cref="ArgumentException.Message"/> appends.</summary>
    private static string MessageOf(ArgumentException e)
    {
        var suffix = $" (Parameter '{e.ParamName}')";
        return e.ParamName is not null && e.Message.EndsWith(suffix, StringComparison.Ordinal) ? e.Message[..^suffix.Length] : e.Message;
    }
}
