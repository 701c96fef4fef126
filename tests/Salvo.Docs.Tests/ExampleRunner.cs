using System.Globalization;
using System.Text.RegularExpressions;
using Salvo.Perf.Tests.Iperf3;
using Salvo.Perf.Tests.Reliability;

namespace Salvo.Docs.Tests;

/// <summary>Runs a complete example as a child process and proves it (<see cref="ExampleProbe"/>).</summary>
internal static class ExampleRunner
{
    /// <summary>
    /// Compiles <paramref name="block"/> with its port replaced by one free for UDP and TCP (an example may serve
    /// both) into a folder of its own (the libraries beside it, a runtimeconfig naming the shared framework), runs it
    /// with <c>dotnet</c> and proves it.
    /// </summary>
    public static void CompileAndProve(CodeBlock block)
    {
        var port = Iperf3Binary.FreePort();
        var folder = Directory.CreateTempSubdirectory("salvo-example-");
        try
        {
            var dll = Path.Combine(folder.FullName, "Example.dll");
            var errors = ExampleCompiler.Compile(block, Localize(block, port), dll);
            Assert.True(errors.Count == 0, string.Join(Environment.NewLine, errors));
            foreach (var library in ExampleCompiler.Libraries)
            {
                File.Copy(library, Path.Combine(folder.FullName, Path.GetFileName(library)));
            }

            File.WriteAllText(Path.Combine(folder.FullName, "Example.runtimeconfig.json"), RuntimeConfig());
            Prove(block, port, dll);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    /// <summary>Starts the built example <paramref name="dll"/> (Ctrl+C reaches it) and proves it on <paramref name="port"/>.</summary>
    public static void Prove(CodeBlock block, int port, string dll)
    {
        using var child = SalvoChild.StartDll(dll, [], interruptible: true);
        ExampleProbe.Prove(block.Run, port, child, block.Location);
    }

    /// <summary>
    /// The block's code with its documented port replaced by <paramref name="port"/> and the wildcard addresses by
    /// loopback, so that no test listens beyond this machine.
    /// </summary>
    public static string Localize(CodeBlock block, int port) =>
        Regex.Replace(block.Code, $@"\b{block.Port.ToString(CultureInfo.InvariantCulture)}\b", port.ToString(CultureInfo.InvariantCulture))
            .Replace("IPAddress.IPv6Any", "IPAddress.IPv6Loopback", StringComparison.Ordinal)
            .Replace("IPAddress.Any", "IPAddress.Loopback", StringComparison.Ordinal);

    private static string RuntimeConfig() => $$"""
        {
          "runtimeOptions": {
            "tfm": "net{{Environment.Version.Major}}.{{Environment.Version.Minor}}",
            "framework": { "name": "Microsoft.NETCore.App", "version": "{{Environment.Version.Major}}.{{Environment.Version.Minor}}.0" }
          }
        }
        """;
}
