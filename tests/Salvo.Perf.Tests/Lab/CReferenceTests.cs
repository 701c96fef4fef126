using System.Diagnostics;
using Salvo.Perf.Lab;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Tests.Lab;

/// <summary>The C reference <c>salvo lab</c> builds: shipped beside the tool, built once into a cache, and working.</summary>
public sealed class CReferenceTests
{
    [Fact]
    public void BundledSource_IsCopiedBesideTheTool()
    {
        Assert.True(File.Exists(CReference.BundledSource), CReference.BundledSource);
        Assert.Contains("ppclient", File.ReadAllText(CReference.BundledSource), StringComparison.Ordinal);
    }

    [Fact]
    public void BuildKey_DependsOnTheSourceAndTheCompiler()
    {
        var key = CReference.BuildKey("int main(void) { return 0; }", "/usr/bin/cc");

        Assert.Matches("^[0-9a-f]{16}$", key);
        Assert.NotEqual(key, CReference.BuildKey("int main(void) { return 1; }", "/usr/bin/cc"));
        Assert.NotEqual(key, CReference.BuildKey("int main(void) { return 0; }", "/usr/bin/clang"));
    }

    [CCompilerFact]
    public void Build_Twice_CompilesOnceAndAnswersRequestsOnLoopback()
    {
        var cache = Directory.CreateTempSubdirectory("salvo-c-reference-test-");
        try
        {
            var compiler = CReference.FindCompiler(BenchTools.Find)!;
            var program = CReference.Build(CReference.BundledSource, compiler, cache.FullName);
            var built = File.GetLastWriteTimeUtc(program);

            Assert.Equal(program, CReference.Build(CReference.BundledSource, compiler, cache.FullName));
            Assert.Equal(built, File.GetLastWriteTimeUtc(program));
            Assert.Single(Directory.GetFiles(Path.GetDirectoryName(program)!));

            using var server = Process.Start(new ProcessStartInfo(program, ["ppserver", "-p", "0", "-r", "64", "-t", "30", "-I", "5"]) { RedirectStandardError = true, RedirectStandardOutput = true })!;
            try
            {
                // "READY ppserver port N" names the port the kernel chose.
                var ready = server.StandardError.ReadLine() ?? string.Empty;
                Assert.StartsWith("READY ppserver port ", ready, StringComparison.Ordinal);
                var port = ready.Split(' ')[^1];

                var (exitCode, output) = BenchTools.Run(program, ["ppclient", "-p", port, "-n", "2", "-q", "64", "-t", "0.3"], timeoutSeconds: 30);

                Assert.True(exitCode == 0, output);
                var result = ResultLine.Find(output)!;
                Assert.True(ResultLine.Number(result, "rps") > 0, output);
                Assert.True(ResultLine.Number(result, "p50") <= ResultLine.Number(result, "p99"), output);
            }
            finally
            {
                server.Kill();
                server.WaitForExit(5_000);
            }
        }
        finally
        {
            cache.Delete(recursive: true);
        }
    }
}

/// <summary>A fact that needs a C compiler (cc, gcc or clang); skipped with the reason otherwise.</summary>
public sealed class CCompilerFactAttribute : FactAttribute
{
    public CCompilerFactAttribute()
    {
        Skip = CReference.FindCompiler(BenchTools.Find) is null ? "no C compiler (cc, gcc or clang) here" : null;
    }
}
