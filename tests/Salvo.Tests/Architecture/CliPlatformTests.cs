using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>
/// The measuring CLI (src/Salvo.Perf) parses, measures and prints; what knows the OS sits in its Platform/ folder: the
/// libc imports, the readers of each /proc and /sys file, the OS checks (HostOs), the namespace lab and the one
/// child-process runner. Nothing else imports a native function, names a kernel path, asks which OS it runs on, or
/// starts a process. The WireGuard daemon (src/Salvo.WireGuard) keeps the same rule with its Linux/ folder.
/// </summary>
public sealed class CliPlatformTests
{
    private const string Platform = "Platform";

    /// <summary>The WireGuard daemon (src/Salvo.WireGuard), a program of its own: its OS code sits in its Linux/ folder.</summary>
    private const string DaemonPlatform = "Linux";

    private static readonly Regex s_osSpecific = new(@"OperatingSystem\.Is|DllImport|LibraryImport|/proc/|/sys/", RegexOptions.CultureInvariant);

    /// <summary>System.Diagnostics' own starts; ChildProcess.Start and ShardProcess.Start are the runner and its callers.</summary>
    private static readonly Regex s_processStarts = new(@"(?<![\w.])(System\.Diagnostics\.)?Process\.Start\(|ProcessStartInfo\b", RegexOptions.CultureInvariant);

    [Fact]
    public void CliSource_OutsideItsPlatformFolder_NeverAsksTheOsImportsOrReadsKernelFiles()
    {
        var offenders = Offenders(CliRoot(), s_osSpecific, allowed: Platform + Path.DirectorySeparatorChar);

        Assert.Empty(offenders);
    }

    [Fact]
    public void CliSource_StartsProcessesOnlyThroughTheChildProcessRunner()
    {
        var offenders = Offenders(CliRoot(), s_processStarts, allowed: Path.Combine(Platform, "ChildProcess.cs"));

        Assert.Empty(offenders);
    }

    [Fact]
    public void DaemonSource_OutsideItsLinuxFolder_NeverAsksTheOsImportsOrReadsKernelFiles()
    {
        var offenders = Offenders(DaemonRoot(), s_osSpecific, allowed: DaemonPlatform + Path.DirectorySeparatorChar);

        Assert.Empty(offenders);
    }

    [Fact]
    public void DaemonSource_StartsAProcessOnlyToDetachItself()
    {
        // wireguard-go's way of going to the background: the daemon starts itself once, in the foreground, and exits.
        var offenders = Offenders(DaemonRoot(), s_processStarts, allowed: Path.Combine("Userspace", "UserspaceDetach.cs"));

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

    private static string DaemonRoot() => Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo.WireGuard");

    /// <summary>Code lines (comments left out: a comment naming /proc/PID/stat says where a figure comes from) holding one of the words, outside what is allowed.</summary>
    private static List<string> Offenders(string root, Regex words, string allowed) =>
        SourceTree.CSharpFiles(root)
            .Select(file => (file, relative: Path.GetRelativePath(root, file)))
            .Where(source => !source.relative.StartsWith(allowed, StringComparison.Ordinal))
            .SelectMany(source => File.ReadLines(source.file).Select((line, index) => (source.relative, line, number: index + 1)))
            .Where(hit => !hit.line.TrimStart().StartsWith("//", StringComparison.Ordinal))
            .Where(hit => words.IsMatch(hit.line))
            .Select(hit => $"{hit.relative}:{hit.number}: {hit.line.Trim()}")
            .ToList();
}
