namespace Salvo.Perf.Lab;

/// <summary>How to start this same salvo again in another namespace.</summary>
internal static class SalvoItself
{
    /// <summary>
    /// The command line that runs this build: its apphost (salvo, Salvo.Perf) as started, dotnet with the assembly when
    /// started through dotnet or a test host, or the process itself when published as a single file (no assembly path).
    /// </summary>
    public static string[] Command()
    {
        var assembly = typeof(SalvoItself).Assembly.Location;
        var process = Environment.ProcessPath;
        if (string.IsNullOrEmpty(assembly) && process is not null)
        {
            return [process];
        }

        var name = process is null ? null : Path.GetFileNameWithoutExtension(process);
        if (name is "salvo" or "Salvo.Perf")
        {
            return [process!];
        }

        // Under a test host the process is neither: dotnet from the same installation when known.
        return [name == "dotnet" ? process! : "dotnet", assembly];
    }
}
