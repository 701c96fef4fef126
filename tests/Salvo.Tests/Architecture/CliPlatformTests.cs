using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>
/// The measuring CLI (src/Salvo.Perf) parses, measures and prints; what knows the OS sits in its Platform/ folder: the
/// libc imports, the readers of each /proc and /sys file, the OS checks (HostOs), the namespace lab and the one
/// child-process runner. Nothing else imports a native function, names a kernel path, asks which OS it runs on, or
/// starts a process.
/// </summary>
public sealed class CliPlatformTests
{
    private const string Platform = "Platform";

    /// <summary>
    /// The tunnel host ('salvo tunnel up/show/userspace': TunnelCommand.cs and the Tunnel/Linux and Tunnel/Userspace
    /// folders, with Native/Netlink.cs) leaves the CLI for a program of its own; until it has gone it is exempt here.
    /// </summary>
    private static readonly string[] s_leaving =
    [
        Path.Combine("Tunnel", "TunnelCommand.cs"),
        Path.Combine("Tunnel", "Linux") + Path.DirectorySeparatorChar,
        Path.Combine("Tunnel", "Userspace") + Path.DirectorySeparatorChar,
        Path.Combine("Native", "Netlink.cs"),
    ];

    private static readonly Regex s_osSpecific = new(@"OperatingSystem\.Is|DllImport|LibraryImport|/proc/|/sys/", RegexOptions.CultureInvariant);

    /// <summary>System.Diagnostics' own starts; ChildProcess.Start and ShardProcess.Start are the runner and its callers.</summary>
    private static readonly Regex s_processStarts = new(@"(?<![\w.])(System\.Diagnostics\.)?Process\.Start\(|ProcessStartInfo\b", RegexOptions.CultureInvariant);

    [Fact]
    public void CliSource_OutsideItsPlatformFolder_NeverAsksTheOsImportsOrReadsKernelFiles()
    {
        var offenders = Offenders(s_osSpecific, allowed: Platform + Path.DirectorySeparatorChar);

        Assert.Empty(offenders);
    }

    [Fact]
    public void CliSource_StartsProcessesOnlyThroughTheChildProcessRunner()
    {
        var offenders = Offenders(s_processStarts, allowed: Path.Combine(Platform, "ChildProcess.cs"));

        Assert.Empty(offenders);
    }

    [Fact]
    public void CliScan_SeesThePlatformFoldersOwnChecksReadersImportsAndProcessStarts()
    {
        // Guards the tests above against passing because they read nothing.
        var platform = string.Join('\n', SourceTree.CSharpFiles(Path.Combine(CliRoot(), Platform)).Select(File.ReadAllText));

        Assert.All(new[] { "OperatingSystem.IsLinux", "LibraryImport", "/proc/", "/sys/", "Process.Start(" },
            word => Assert.Contains(word, platform, StringComparison.Ordinal));
    }

    [Fact]
    public void CliSource_BuildsOneNamespaceLab()
    {
        // `salvo lab` and `salvo tunnel bench` share one: only the namespace lab adds a namespace or a veth pair.
        var root = CliRoot();
        var builders = SourceTree.CSharpFiles(root)
            .Where(file => File.ReadAllText(file) is var text && (text.Contains("\"netns\", \"add\"", StringComparison.Ordinal) || text.Contains("\"type\", \"veth\"", StringComparison.Ordinal)))
            .Select(file => Path.GetRelativePath(root, file))
            .ToList();

        Assert.Equal([Path.Combine(Platform, "Linux", "NamespaceLab.cs")], builders);
    }

    private static string CliRoot() => Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo.Perf");

    /// <summary>Code lines (comments left out: a comment naming /proc/PID/stat says where a figure comes from) holding one of the words, outside what is allowed.</summary>
    private static List<string> Offenders(Regex words, string allowed)
    {
        var root = CliRoot();
        return SourceTree.CSharpFiles(root)
            .Select(file => (file, relative: Path.GetRelativePath(root, file)))
            .Where(source => !source.relative.StartsWith(allowed, StringComparison.Ordinal) && !s_leaving.Any(leaving => source.relative.StartsWith(leaving, StringComparison.Ordinal)))
            .SelectMany(source => File.ReadLines(source.file).Select((line, index) => (source.relative, line, number: index + 1)))
            .Where(hit => !hit.line.TrimStart().StartsWith("//", StringComparison.Ordinal))
            .Where(hit => words.IsMatch(hit.line))
            .Select(hit => $"{hit.relative}:{hit.number}: {hit.line.Trim()}")
            .ToList();
    }
}
