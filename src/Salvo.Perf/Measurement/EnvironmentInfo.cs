using System.Runtime.InteropServices;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Measurement;

/// <summary>Where a measurement ran: printed with every report so that figures are never quoted without it.</summary>
/// <param name="Os">The operating system description.</param>
/// <param name="Kernel">The kernel release (Linux: /proc/sys/kernel/osrelease).</param>
/// <param name="CpuModel">The CPU model name (Linux: /proc/cpuinfo), or the architecture.</param>
/// <param name="Cores">Logical processors available to the process.</param>
/// <param name="DotnetVersion">The .NET runtime.</param>
/// <param name="TimestampUtc">When the measurement started, ISO 8601.</param>
/// <param name="LoadAverage">The 1, 5 and 15 minute load averages at the start (Linux /proc/loadavg), or null: on a shared host, the other load behind the figures.</param>
internal sealed record EnvironmentInfo(string Os, string Kernel, string CpuModel, int Cores, string DotnetVersion, string TimestampUtc, string? LoadAverage)
{
    /// <summary>Describes the current machine.</summary>
    public static EnvironmentInfo Capture() => new(
        RuntimeInformation.OSDescription,
        ProcFiles.Sysctl("kernel/osrelease") ?? Environment.OSVersion.VersionString,
        CpuModelName() ?? RuntimeInformation.ProcessArchitecture.ToString(),
        Environment.ProcessorCount,
        RuntimeInformation.FrameworkDescription,
        DateTime.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", System.Globalization.CultureInfo.InvariantCulture),
        ReadLoadAverage());

    /// <summary>One line for table captions.</summary>
    public string Describe() => $"{CpuModel}, {Cores} cores, {Os}, kernel {Kernel}, {DotnetVersion}" + (LoadAverage is null ? string.Empty : $", load average {LoadAverage}");

    /// <summary>The 1, 5 and 15 minute load averages now (Linux /proc/loadavg), or null.</summary>
    public static string? ReadLoadAverage()
    {
        var line = ProcFiles.LoadAverage();
        return line is null ? null : string.Join(' ', line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Take(3));
    }

    private static string? CpuModelName()
    {
        if (ProcFiles.CpuInfo() is not { } text)
        {
            return null;
        }

        foreach (var line in text.Split('\n'))
        {
            if (line.StartsWith("model name", StringComparison.Ordinal))
            {
                var colon = line.IndexOf(':', StringComparison.Ordinal);
                return colon < 0 ? null : line[(colon + 1)..].Trim();
            }
        }

        return null;
    }
}
