namespace Salvo.Perf.Connections;

/// <summary>Which client the load of <c>salvo connections</c> comes from.</summary>
internal enum LoadClientKind
{
    /// <summary><see cref="EpollLoadClient"/>: plain sockets on an epoll loop per core, cheap enough not to be what is measured.</summary>
    Epoll,

    /// <summary>The library's <see cref="Salvo.Streams.StreamClient"/>: measures the client side too, at its cost.</summary>
    Salvo,
}

/// <summary>The <c>--client</c> option's names for <see cref="LoadClientKind"/>.</summary>
internal static class LoadClientNames
{
    public const string Epoll = "epoll";
    public const string Salvo = "salvo";

    /// <summary>The choices, the default first: the epoll client where it runs.</summary>
    public static string[] Choices => EpollLoadClient.IsSupported ? [Epoll, Salvo] : [Salvo, Epoll];

    public static LoadClientKind Parse(string? name) => name == Epoll ? LoadClientKind.Epoll : LoadClientKind.Salvo;
}
