namespace Salvo.Perf.Loopback;

/// <summary>The methods <c>salvo loopback</c> knows. Add a new one here .</summary>
internal static class LoopbackMethods
{
    /// <summary>Every method, in report order; the first <see cref="DefaultCount"/> run by default.</summary>
    public static IReadOnlyList<ILoopbackMethod> All { get; } =
    [
        new NaiveMethod(),
        new SocketMethod(),
        new SalvoMethod(),
        new SalvoGsoMethod(),
        new SalvoAsyncMethod(),
        new SalvoUringMethod(gso: false),
        new SalvoUringMethod(gso: true),
    ];

    /// <summary>The method the first ratio is taken against: plain .NET at its best.</summary>
    public const string Baseline = "socket";

    /// <summary>The method the second ratio is taken against: the usual .NET code.</summary>
    public const string NaiveBaseline = "naive";

    /// <summary>How many of <see cref="All"/> run when --methods is not given.</summary>
    public const int DefaultCount = 4;

    /// <summary>The default method names.</summary>
    public static IReadOnlyList<string> DefaultNames => All.Take(DefaultCount).Select(m => m.Name).ToArray();

    /// <summary>Finds a method by name (<c>server-wN</c> for a DatagramServer with N workers), or null.</summary>
    public static ILoopbackMethod? Find(string name) =>
        All.FirstOrDefault(m => string.Equals(m.Name, name, StringComparison.OrdinalIgnoreCase)) ?? ServerMethod.TryParse(name);
}
