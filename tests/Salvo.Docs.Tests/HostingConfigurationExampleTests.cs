using System.Globalization;
using Salvo.Perf.Tests.Iperf3;
using Salvo.Perf.Tests.Reliability;
using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>
/// Salvo.Hosting's readme pairs an <c>appsettings.json</c> with a program that reads it: both as written, the program run
/// with the file in its content root, echo on the file's port.
/// </summary>
public sealed class HostingConfigurationExampleTests
{
    private const string Readme = "src/Salvo.Hosting/README.md";

    [Fact]
    public void AppSettingsExample_WithItsProgram_EchoesOnTheConfiguredPort()
    {
        var program = Documentation.Blocks.Single(block => block.File == Readme && block.Code.Contains("GetSection(\"Salvo:Server\")", StringComparison.Ordinal));
        var settings = JsonBlock(File.ReadAllText(Path.Combine(SourceTree.RepositoryRoot(), Readme)));
        Assert.Contains("\"127.0.0.1:7007\"", settings, StringComparison.Ordinal);

        var port = Iperf3Binary.FreePort();
        var folder = Directory.CreateTempSubdirectory("salvo-appsettings-example-");
        try
        {
            var dll = Path.Combine(folder.FullName, "Example.dll");
            var errors = ExampleCompiler.Compile(program, program.Code, dll);
            Assert.True(errors.Count == 0, string.Join(Environment.NewLine, errors));
            foreach (var library in ExampleCompiler.Libraries)
            {
                File.Copy(library, Path.Combine(folder.FullName, Path.GetFileName(library)));
            }

            File.WriteAllText(Path.Combine(folder.FullName, "Example.runtimeconfig.json"), $$"""
                { "runtimeOptions": { "tfm": "net{{Environment.Version.Major}}.0", "framework": { "name": "Microsoft.NETCore.App", "version": "{{Environment.Version.Major}}.0.0" } } }
                """);
            File.WriteAllText(
                Path.Combine(folder.FullName, "appsettings.json"),
                settings.Replace(":7007\"", $":{port.ToString(CultureInfo.InvariantCulture)}\"", StringComparison.Ordinal));

            // The host reads appsettings.json from its content root, which the command line sets as a reader's run would.
            using var child = SalvoChild.StartDll(dll, ["--contentRoot", folder.FullName], interruptible: true);
            ExampleProbe.Prove(ExampleRun.UdpEcho, port, child, $"{program.Location} with {Readme}'s appsettings.json");
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    private static string JsonBlock(string markdown)
    {
        const string Fence = "```json\n";
        var start = markdown.IndexOf(Fence, StringComparison.Ordinal);
        Assert.True(start >= 0, $"{Readme} has no json block.");
        start += Fence.Length;
        return markdown[start..markdown.IndexOf("```", start, StringComparison.Ordinal)];
    }
}
