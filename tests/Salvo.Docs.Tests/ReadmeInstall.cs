using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>
/// The command lines of the README's Install section, as a reader copies them: the shell blocks between "## Install"
/// and the next heading, one command a line, comments dropped. The package tests run these, so they cannot drift.
/// </summary>
internal sealed class ReadmeInstall
{
    /// <summary>The folder the README packs into and installs from, as it writes it.</summary>
    public const string PackageFolder = "~/salvo-packages";

    private ReadmeInstall(List<string[]> commands) => Commands = commands;

    /// <summary>Each command's words, in order.</summary>
    public IReadOnlyList<string[]> Commands { get; }

    /// <summary>The pack line, which the fixture runs as <c>--no-build</c> on the build under test.</summary>
    public string[] Pack => Commands.Single(words => words is ["dotnet", "pack", ..]);

    /// <summary>The lines that set up a project and add the libraries, in order: all but the pack and the tool's.</summary>
    public IEnumerable<string[]> ProjectLines => Commands.Where(words => words is not ["dotnet", "pack", ..] and not ["dotnet", "tool", ..]);

    /// <summary>The tool's install line.</summary>
    public string[] ToolInstall => Commands.Single(words => words is ["dotnet", "tool", "install", ..]);

    public static ReadmeInstall Read()
    {
        var lines = File.ReadAllLines(Path.Combine(SourceTree.RepositoryRoot(), "README.md"));
        var start = Array.IndexOf(lines, "## Install");
        Assert.True(start >= 0, "README.md has no '## Install' section.");
        var commands = new List<string[]>();
        var inShell = false;
        for (var i = start + 1; i < lines.Length && !lines[i].StartsWith("## ", StringComparison.Ordinal); i++)
        {
            if (lines[i].StartsWith("```", StringComparison.Ordinal))
            {
                inShell = !inShell && lines[i] == "```sh";
                continue;
            }

            var command = lines[i].Split('#', 2)[0].Trim();
            if (inShell && command.Length > 0)
            {
                commands.Add(command.Split(' ', StringSplitOptions.RemoveEmptyEntries));
            }
        }

        return new ReadmeInstall(commands);
    }

    /// <summary><paramref name="words"/> less the leading "dotnet", with the README's package folder replaced by <paramref name="feed"/>.</summary>
    public static string[] Arguments(string[] words, string feed)
    {
        Assert.Equal("dotnet", words[0]);
        return [.. words[1..].Select(word => word == PackageFolder ? feed : word)];
    }
}
