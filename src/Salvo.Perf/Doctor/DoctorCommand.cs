using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Doctor;

/// <summary><c>salvo doctor</c>: what limits UDP on this host, each finding with a concrete recommendation.</summary>
internal static class DoctorCommand
{
    public static Command Create(CliConsole console)
    {
        var command = new Command("doctor",
            "Reads and explains what limits UDP here: kernel, socket buffer ceilings (rmem/wmem), udp_mem, " +
            "netdev_max_backlog, GSO/GRO and SO_REUSEPORT (probed on loopback), interface MTUs, the kernel's UDP " +
            "drop counters, io_uring; on Windows FastSendDatagramThreshold.");
        command.SetAction(_ =>
        {
            Print(console, Diagnose());
            return 0;
        });
        return command;
    }

    /// <summary>Runs every check; never throws for a missing file or a refused probe.</summary>
    public static DoctorReport Diagnose()
    {
        var findings = new List<Finding>
        {
            new("cpus", FindingStatus.Info, $"{Environment.ProcessorCount} logical, this process may use [{string.Join(',', CpuAffinity.AllowedCpus())}]",
                Environment.ProcessorCount < 2 ? "With one CPU the sender and the receiver share it; loopback figures are not comparable." : null),
        };
        if (HostOs.IsLinux)
        {
            findings.AddRange(SysctlChecks.Run());
            findings.AddRange(SocketProbes.Run());
            findings.AddRange(SysctlChecks.Interfaces());
        }
        else
        {
            findings.AddRange(SocketProbes.Run());
        }

        findings.AddRange(WindowsChecks.Run());
        findings.Add(LibraryProbe.Run());
        if (HostOs.IsLinux)
        {
            findings.Add(IoUringProbe.Run());
            findings.Add(AfXdpBackendProbe.Run());
        }

        return new DoctorReport("doctor", EnvironmentInfo.Capture(), findings);
    }

    private static void Print(CliConsole console, DoctorReport report)
    {
        console.Document(report, PerfJson.Indented.DoctorReport, PerfJson.Compact.DoctorReport);
        console.Line(report.Environment.Describe());
        var table = new TextTable("check", "status", "value", "recommendation");
        table.LeftAligned.UnionWith([1, 2, 3]);
        foreach (var f in report.Findings)
        {
            table.Add(f.Check, f.Status.ToString().ToLowerInvariant(), f.Value, f.Recommendation ?? string.Empty);
        }

        table.Write(console);
    }
}
