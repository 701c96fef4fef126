using System.Diagnostics;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// The Debian package of the native daemon, built once per test run by packaging/deb/build.sh (a NativeAOT publish:
/// about 2 minutes on the 2-core lab machine, up to 4 under load), or taken from SALVO_DEB where a CI step built it.
/// </summary>
internal static class NativePackage
{
    private static readonly Lazy<(string? Deb, string? Why)> s_built = new(Build);

    /// <summary>The .deb's path; builds it on first use, and fails the test with the build's error when it cannot.</summary>
    public static string Deb => s_built.Value.Deb ?? throw new InvalidOperationException(s_built.Value.Why);

    /// <summary>Why the package test cannot run here, or null; cheap (tools on PATH), as a skip reason must be.</summary>
    public static string? WhyUnavailable()
    {
        if (UserspaceLab.WhyUnavailable(wgQuick: false) is { } lab)
        {
            return lab;
        }

        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("SALVO_DEB")) && RepositoryRoot() is null)
        {
            return "the repository (packaging/deb/build.sh) is not above the test's folder";
        }

        if (new[] { "dpkg", "dpkg-deb", "apt-get", "clang", "wg", "wg-quick", "wireguard-go", "ping", "prometheus", "promtool" }.FirstOrDefault(tool => ExternalTool.Find(tool) is null) is { } missing)
        {
            return $"{missing} is not installed (apt-get install dpkg-dev clang lld zlib1g-dev wireguard-tools wireguard-go iputils-ping prometheus)";
        }

        // An installed wireguard-salvo is someone's: the test installs and removes its own, so it leaves that one alone.
        if (ExternalTool.RunAllowingFailure("dpkg-query", ["-W", "-f=${Status}", "wireguard-salvo"]).Output.Contains("installed", StringComparison.Ordinal))
        {
            return "wireguard-salvo is already installed on this machine";
        }

        return null;
    }

    private static (string? Deb, string? Why) Build()
    {
        var given = Environment.GetEnvironmentVariable("SALVO_DEB");
        if (!string.IsNullOrEmpty(given))
        {
            return File.Exists(given) ? (given, null) : (null, $"SALVO_DEB names {given}, which does not exist");
        }

        var root = RepositoryRoot()!;
        var output = Directory.CreateTempSubdirectory("salvo-deb-").FullName;
        var clock = Stopwatch.StartNew();
        // Bounded: a publish that has not finished in 10 minutes is a broken toolchain, not a slow one.
        var (exit, stdout, stderr) = ExternalTool.RunAllowingFailure(
            Path.Combine(root, "packaging", "deb", "build.sh"), ["", output], timeoutMilliseconds: 600_000);
        var deb = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim();
        return exit == 0 && deb is not null && File.Exists(deb)
            ? (deb, null)
            : (null, $"packaging/deb/build.sh failed after {clock.Elapsed.TotalSeconds:F0} s ({exit}): {stderr[^Math.Min(stderr.Length, 2_000)..]}");
    }

    private static string? RepositoryRoot()
    {
        for (var folder = new DirectoryInfo(AppContext.BaseDirectory); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "packaging", "deb", "build.sh")))
            {
                return folder.FullName;
            }
        }

        return null;
    }
}
