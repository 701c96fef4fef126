namespace Salvo.Tests.Architecture;

/// <summary>The repository's own source files, for tests that check how the code is laid out.</summary>
internal static class SourceTree
{
    /// <summary>The folder holding Salvo.slnx, found by walking up from the test assembly.</summary>
    public static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Salvo.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No Salvo.slnx above {AppContext.BaseDirectory}.");
    }

    /// <summary>Every .cs file under <paramref name="folder"/>, build output left out.</summary>
    public static List<string> CSharpFiles(string folder)
    {
        var build = new[] { "bin", "obj" }.Select(name => Path.DirectorySeparatorChar + name + Path.DirectorySeparatorChar).ToArray();
        return Directory.EnumerateFiles(folder, "*.cs", SearchOption.AllDirectories)
            .Where(file => !build.Any(part => file.Contains(part, StringComparison.Ordinal)))
            .ToList();
    }
}
