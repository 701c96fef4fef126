using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Lab;

/// <summary>
/// C's reference program (udplimit: sender/receiver and request/response) built for the lab. It sends to and binds
/// 127.0.0.1 only (INADDR_LOOPBACK); this build, with its Makefile's flags, replaces that address with B's
/// (198.18.0.2) through a header included first, so the unchanged source carries its traffic over the veth pair.
/// </summary>
internal static class CReference
{
    /// <summary>The file the source directory must hold.</summary>
    public const string SourceFile = "udplimit.c";

    /// <summary>The Makefile's flags (gcc -O2 -Wall -Wextra -Wno-sign-compare), so the lab's build is the one the loopback figures came from.</summary>
    private static readonly string[] s_flags = ["-O2", "-Wall", "-Wextra", "-Wno-sign-compare"];

    /// <summary>The header's text: glibc's in.h first (its guard keeps the source's own include from redefining the address), then B's address.</summary>
    public static string Header(IPAddress address)
    {
        var bytes = address.GetAddressBytes();
        var hostOrder = ((uint)bytes[0] << 24) | ((uint)bytes[1] << 16) | ((uint)bytes[2] << 8) | bytes[3];
        // _GNU_SOURCE must come before the first system header, as the source's own first line defines it (for recvmmsg).
        return "#define _GNU_SOURCE\n#include <netinet/in.h>\n#undef INADDR_LOOPBACK\n" +
            $"#define INADDR_LOOPBACK ((in_addr_t) 0x{hostOrder.ToString("x8", CultureInfo.InvariantCulture)})\n";
    }

    /// <summary>Builds udplimit from <paramref name="sourceDirectory"/> into <paramref name="folder"/>; returns the program's path.</summary>
    public static string Build(string sourceDirectory, string folder)
    {
        var source = Path.Combine(sourceDirectory, SourceFile);
        if (!File.Exists(source))
        {
            throw new CliException($"--udplimit: {sourceDirectory} holds no {SourceFile} (the C reference's source directory)");
        }

        var header = Path.Combine(folder, "lab-address.h");
        File.WriteAllText(header, Header(IPAddress.Parse(VethLab.AddressB)));
        var program = Path.Combine(folder, "udplimit-lab");
        var (exitCode, output) = BenchTools.Run("gcc", [.. s_flags, "-include", header, "-o", program, source], timeoutSeconds: 120);
        return exitCode == 0
            ? program
            : throw new CliException($"lab: building {source} with gcc failed ({exitCode}): {output.Trim()}", CliException.FailureExitCode);
    }
}
