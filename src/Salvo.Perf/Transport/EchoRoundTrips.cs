using System.Diagnostics;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Perf.Transport;

/// <summary>What the round trips got: messages the transport really took, echoes back, and why it stopped short (null when every echo came).</summary>
/// <param name="Sent">Messages the transport took (a UDP datagram handed to the socket, a TCP message queued).</param>
/// <param name="Echoed">Echoes received.</param>
/// <param name="Failure">Why fewer came back than were asked for, or null.</param>
internal sealed record EchoOutcome(int Sent, int Echoed, string? Failure);

/// <summary>The round trips of <c>salvo transport</c>: one message in flight, each waiting a bounded time for its echo.</summary>
internal static class EchoRoundTrips
{
    /// <summary>How long one message waits for its echo: a round trip across the world is about 300 ms.</summary>
    public static readonly TimeSpan EchoTimeout = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Misses in a row after which the round trips stop: over UDP one lost datagram is noise and the next message
    /// goes on, but three in a row with nothing between is a path that does not answer, found in 3 s instead of one
    /// second per message asked for.
    /// </summary>
    public const int MissesInARow = 3;

    /// <summary>The longest all round trips together may take.</summary>
    public static readonly TimeSpan TotalTimeout = TimeSpan.FromSeconds(10);

    private static readonly byte[] Message = new byte[64];

    /// <summary>Sends up to <paramref name="count"/> messages, each after the previous one's echo or its timeout.</summary>
    public static async Task<EchoOutcome> RunAsync(MessageTransport transport, ChannelReader<int> echoes, int count, CancellationToken cancellationToken)
    {
        var sent = 0;
        var echoed = 0;
        var missed = 0;
        string? refused = null;
        var attempts = 0;
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < count && missed < MissesInARow && clock.Elapsed < TotalTimeout; i++)
        {
            attempts++;
            if (!await transport.SendAsync(Message, cancellationToken).ConfigureAwait(false))
            {
                refused ??= transport.Transport == TransportKind.Udp
                    ? $"the socket refused message {i + 1} (a send error)"
                    : $"the connection refused message {i + 1} (it closed, or its send queue is full)";
                missed++;
                continue;
            }

            sent++;
            using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            wait.CancelAfter(EchoTimeout);
            try
            {
                await echoes.ReadAsync(wait.Token).ConfigureAwait(false);
                echoed++;
                missed = 0;
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                missed++;
            }
        }

        // An echo that came after its message's wait ended still came back.
        while (echoes.TryRead(out _))
        {
            echoed++;
        }

        return new EchoOutcome(sent, echoed, echoed >= count ? null : Explain(sent, echoed, attempts < count, missed, refused));
    }

    private static string Explain(int sent, int echoed, bool stoppedEarly, int missed, string? refused)
    {
        var wait = $"{EchoTimeout.TotalSeconds:0} s";
        var why = echoed == 0 && sent > 0
            ? $"nothing came back: no echo within {wait} of any of the {sent} message(s) sent"
            : $"{sent - echoed} of {sent} message(s) sent got no echo within {wait}";
        if (refused is not null)
        {
            why += $"; {refused}";
        }

        if (stoppedEarly)
        {
            why += missed >= MissesInARow
                ? $"; stopped after {MissesInARow} messages in a row went unanswered"
                : $"; stopped after {TotalTimeout.TotalSeconds:0} s";
        }

        return why;
    }
}
