using System.Diagnostics;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Output;

/// <summary>'salvo --help' fits a screen; 'salvo completion bash' prints a script that completes the command tree.</summary>
public sealed class TopLevelHelpTests
{
    [Fact]
    public async Task Help_TopLevel_FitsAScreenWithOneLinePerCommand()
    {
        var (exit, output, _) = await Cli.RunAsync("--help");

        Assert.Equal(0, exit);
        var lines = output.TrimEnd('\n').Split('\n');
        Assert.True(lines.Length <= TopLevelHelp.MaxLines, $"{lines.Length} lines:{Environment.NewLine}{output}");
        Assert.All(lines, line => Assert.True(line.Length <= TopLevelHelp.MaxWidth, $"{line.Length} characters: {line}"));
        foreach (var command in HelpTextTests.Root().Subcommands.Where(c => !c.Hidden))
        {
            Assert.Single(lines, l => l.StartsWith($"  {command.Name} ", StringComparison.Ordinal));
        }
    }

    [Fact]
    public async Task Completion_Bash_PrintsAScriptNamingEveryTopLevelCommand()
    {
        var (exit, output, error) = await Cli.RunAsync("completion", "bash");

        Assert.True(exit == 0, error);
        Assert.Contains("complete -F _salvo salvo", output, StringComparison.Ordinal);
        // A '?' in an offered word is a pattern to bash, which then offers matching file names instead.
        Assert.All(output.Split('\n').Where(l => l.TrimStart().StartsWith('"')), line => Assert.DoesNotContain("?", line.Split('"')[3], StringComparison.Ordinal));
        var topLevel = output.Split('\n').Single(l => l.TrimStart().StartsWith("\"\")", StringComparison.Ordinal));
        foreach (var command in HelpTextTests.Root().Subcommands.Where(c => !c.Hidden))
        {
            Assert.Contains($" {command.Name} ", $" {topLevel.Split('"')[3]} ", StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Completion_UnknownShell_IsAUsageError()
    {
        var (exit, _, error) = await Cli.RunAsync("completion", "fish");

        Assert.Equal(CliException.UsageExitCode, exit);
        Assert.Contains("fish", error, StringComparison.Ordinal);
        Assert.Contains("bash", error, StringComparison.Ordinal);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("salvo tun", "tunnel")]
    [InlineData("salvo tunnel ge", "genkey")]
    [InlineData("salvo server --ec", "--echo --echo-rate")]
    [InlineData("salvo client 127.0.0.1 -p 5201 --rev", "--reverse")]
    public async Task Completion_Bash_CompletesInBash(string line, string expected)
    {
        var (_, script, _) = await Cli.RunAsync("completion", "bash");
        var file = Path.Combine(Path.GetTempPath(), $"salvo-completion-{Guid.NewGuid():N}.bash");
        await File.WriteAllTextAsync(file, script);
        try
        {
            var start = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true };
            start.ArgumentList.Add("-c");
            start.ArgumentList.Add($"source '{file}'; COMP_WORDS=({line}); COMP_CWORD={line.Split(' ').Length - 1}; _salvo; echo \"${{COMPREPLY[*]}}\"");
            using var bash = Process.Start(start)!;
            var completed = await bash.StandardOutput.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(30));
            var problems = await bash.StandardError.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(30));
            await bash.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));

            Assert.True(bash.ExitCode == 0 && problems.Length == 0, problems);
            Assert.Equal(expected, completed.Trim());
        }
        finally
        {
            File.Delete(file);
        }
    }
}
