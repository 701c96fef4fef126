using System.Net;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Tests.Output;

/// <summary>The closing line of <c>salvo transport --watch</c> is the one docs/cli.md shows, placeholders for numbers.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed partial class TransportWatchDocsTests
{
    [Fact]
    public async Task WatchClosingLine_IsTheOneDocsCliShows()
    {
        await using var server = new Salvo.Streams.MessageTransportServer(
            new Salvo.Streams.MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0) },
            async (peer, message) => await peer.SendAsync(System.Buffers.BuffersExtensions.ToArray(message)).ConfigureAwait(false));
        server.Start();
        var endPoint = $"127.0.0.1:{server.LocalEndPoint!.Port}";

        var (exit, output, error) = await Cli.RunAsync("transport", endPoint, "--watch", "1", "--interval-ms", "20").WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(exit == 0, error);
        var closing = output.Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1].TrimEnd('\r');
        Assert.Matches(DocumentedPattern(), closing);
        Assert.StartsWith($"{endPoint}: sent ", closing, StringComparison.Ordinal);
    }

    /// <summary>
    /// The line as docs/cli.md writes it, in the code span that starts "HOST:PORT: sent N numbered": each one-letter
    /// placeholder a number, HOST:PORT an endpoint and the last transport's name a word.
    /// </summary>
    private static Regex DocumentedPattern()
    {
        var docs = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "docs", "cli.md"));
        var span = DocumentedLine().Match(docs);
        Assert.True(span.Success, "docs/cli.md has no `HOST:PORT: sent N numbered message(s) ...` line for transport --watch");
        var pattern = Regex.Escape(span.Groups[1].Value)
            .Replace("HOST:PORT", @"\S+", StringComparison.Ordinal)
            .Replace(@"now\ on\ Udp\.", @"now\ on\ \w+\.", StringComparison.Ordinal);
        pattern = Placeholder().Replace(pattern, @"\d+");
        return new Regex($"^{pattern}$", RegexOptions.None, TimeSpan.FromSeconds(5));
    }

    [GeneratedRegex(@"`(HOST:PORT: sent N numbered [^`]+)`")]
    private static partial Regex DocumentedLine();

    // A lone capital letter between spaces or before one: N, S, E, (F, R, D, X, K, C as the docs name the counts.
    [GeneratedRegex(@"(?<=\\ |\()[NSEFRDXKC](?=\\ )")]
    private static partial Regex Placeholder();
}
