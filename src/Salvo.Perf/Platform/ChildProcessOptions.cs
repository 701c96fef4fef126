namespace Salvo.Perf.Platform;

/// <summary>Where and how <see cref="ChildProcess.Start"/> runs a program.</summary>
internal sealed record ChildProcessOptions
{
    /// <summary>The network namespace to run it in (through <c>ip netns exec</c>). Defaults to null: this one.</summary>
    public string? Namespace { get; init; }

    /// <summary>The one CPU it may run on (through <c>taskset -c</c>). Defaults to null: any this process may use.</summary>
    public int? Cpu { get; init; }

    /// <summary>Environment variables to set, or with a null value to leave out. Defaults to none: this process's own.</summary>
    public IReadOnlyDictionary<string, string?> Environment { get; init; } = new Dictionary<string, string?>();

    /// <summary>What error messages call it. Defaults to null: the program's name.</summary>
    public string? Name { get; init; }
}
