using System.Security.Cryptography;
using System.Text;
using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Lab;

/// <summary>
/// The C reference the lab measures beside Salvo: udplimit.c, the project's own (sender, receiver and request/response
/// over IPv4, the peer's address given with -a), shipped next to the tool as source and built on first use with the C
/// compiler found here into a cache folder keyed by the source and the compiler, so later runs start at once.
/// </summary>
internal static class CReference
{
    /// <summary>The source's file name, in the folder <see cref="BundledFolder"/> next to the tool.</summary>
    public const string SourceFile = "udplimit.c";

    /// <summary>The folder under the tool's own that holds the source (the project item's Link in Salvo.Perf.csproj).</summary>
    public const string BundledFolder = "c";

    /// <summary>The compilers tried, in order: the system's default first.</summary>
    public static IReadOnlyList<string> Compilers { get; } = ["cc", "gcc", "clang"];

    /// <summary>-O2 as the distributions build; the source compiles without warnings under both gcc and clang.</summary>
    private static readonly string[] s_flags = ["-O2", "-Wall", "-Wextra"];

    /// <summary>The source shipped with this build.</summary>
    public static string BundledSource => Path.Combine(AppContext.BaseDirectory, BundledFolder, SourceFile);

    /// <summary>The first of <see cref="Compilers"/> that <paramref name="find"/> knows, or null.</summary>
    public static string? FindCompiler(Func<string, string?> find) => Compilers.Select(find).FirstOrDefault(path => path is not null);

    /// <summary>$XDG_CACHE_HOME/salvo/c-reference, else ~/.cache/salvo/c-reference, else one under the temporary folder.</summary>
    public static string CacheFolder()
    {
        var xdg = Environment.GetEnvironmentVariable("XDG_CACHE_HOME");
        var home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
        var root = !string.IsNullOrEmpty(xdg) ? xdg : !string.IsNullOrEmpty(home) ? Path.Combine(home, ".cache") : Path.GetTempPath();
        return Path.Combine(root, "salvo", "c-reference");
    }

    /// <summary>The cache's name for one build: a digest of the source, the compiler and the flags.</summary>
    public static string BuildKey(string sourceText, string compiler)
    {
        var digest = SHA256.HashData(Encoding.UTF8.GetBytes($"{compiler}\n{string.Join(' ', s_flags)}\n{sourceText}"));
        return Convert.ToHexStringLower(digest.AsSpan(0, 8));
    }

    /// <summary>
    /// The program built from <paramref name="source"/> with <paramref name="compiler"/> under <paramref name="cacheFolder"/>:
    /// the cached one when there is one, else built now (into a temporary name, then moved into place, so a run killed
    /// while building never leaves a half-written program where the next run would use it).
    /// </summary>
    public static string Build(string source, string compiler, string cacheFolder)
    {
        if (!File.Exists(source))
        {
            throw new CliException($"lab: the C reference's source {source} is not there; reinstall the tool or pass --c-reference false", CliException.FailureExitCode);
        }

        var folder = Path.Combine(cacheFolder, BuildKey(File.ReadAllText(source), compiler));
        var program = Path.Combine(folder, "udplimit");
        if (File.Exists(program))
        {
            return program;
        }

        Directory.CreateDirectory(folder);
        var building = $"{program}.{Environment.ProcessId}";
        var (exitCode, output) = BenchTools.Run(compiler, [.. s_flags, "-o", building, source], timeoutSeconds: 120);
        if (exitCode != 0)
        {
            File.Delete(building);
            throw new CliException($"lab: building {source} with {compiler} failed ({exitCode}): {output.Trim()}", CliException.FailureExitCode);
        }

        File.Move(building, program, overwrite: true);
        return program;
    }
}
