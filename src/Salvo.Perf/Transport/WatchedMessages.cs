using System.Buffers.Binary;
using System.Diagnostics;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Perf.Transport;

/// <summary>One path switch seen while watching: when (seconds after the first message), to which transport, and why.</summary>
internal sealed record TransportSwitch(double AtSeconds, string Transport, string Reason);

/// <summary>What a watch run got.</summary>
/// <param name="Sent">Numbered messages the transport took (each counted once, however often it was resent).</param>
/// <param name="Echoed">Distinct numbers echoed.</param>
/// <param name="Resent">
/// Sends of a number again because its echo had not come within <see cref="WatchedMessages.EchoTimeout"/> (over TCP, only
/// once the connection it went on had closed).
/// </param>
/// <param name="DuplicateEchoes">Echoes of a number already echoed: a message delivered twice.</param>
/// <param name="Refused">Sends the transport refused (its TCP connection closed and not yet back, or the UDP socket refused), each tried again shortly.</param>
/// <param name="InFlightAtEnd">1 when the watch time ran out while the last number still had its first echo wait to go; it is not counted as lost.</param>
internal sealed record WatchOutcome(int Sent, int Echoed, int Resent, int DuplicateEchoes, int Refused, int InFlightAtEnd)
{
    /// <summary>Every number echoed (but one still in flight at the end), and none twice.</summary>
    public bool Complete => Echoed + InFlightAtEnd >= Sent && DuplicateEchoes == 0;
}

/// <summary>
/// The <c>salvo transport --watch</c> run: numbered messages at a steady pace for a while, one in flight, so that a
/// path switch during the run (a firewall rule added or removed, a server restarted) shows as the switch, the messages
/// resent, and any message delivered twice. A message whose echo does not come within <see cref="EchoTimeout"/> is sent
/// again, as an application over a datagram path would: UDP lost it, the transport did not. Over TCP it is sent again only
/// once the connection it went on has closed, as TCP loses nothing on an open connection. The run ends when its time is
/// up, whatever is in flight.
/// </summary>
internal static class WatchedMessages
{
    public static readonly TimeSpan EchoTimeout = TimeSpan.FromSeconds(1);

    /// <summary>The pause before trying a refused send again: a TCP connection that closed is tried again after 100 ms at first.</summary>
    public static readonly TimeSpan RefusedPause = TimeSpan.FromMilliseconds(100);

    public static async Task<WatchOutcome> RunAsync(
        MessageTransport transport, ChannelReader<int> echoes, TimeSpan duration, TimeSpan interval, CancellationToken cancellationToken)
    {
        var echoed = new EchoTally();
        var (sent, resent, duplicates, refused) = (0, 0, 0, 0);
        var message = new byte[sizeof(int)];
        var clock = Stopwatch.StartNew();
        TimeSpan Left() => duration - clock.Elapsed;
        var number = 0;
        TimeSpan? lastFirstSent = null;
        StreamConnection? carrier = null;
        for (; Left() > TimeSpan.Zero; number++)
        {
            BinaryPrimitives.WriteInt32BigEndian(message, number);
            lastFirstSent = null;
            while (!echoed.Contains(number) && Left() > TimeSpan.Zero)
            {
                // Null over UDP. Over TCP a message on a connection still open is not lost, only late: it is waited
                // for rather than sent twice (a slow echo resent after 1 s came back twice), and resent once that
                // connection has closed.
                carrier = transport.TcpConnection;
                if (!await transport.SendAsync(message, cancellationToken).ConfigureAwait(false))
                {
                    refused++;
                    await Pause(RefusedPause, Left(), cancellationToken).ConfigureAwait(false);
                    continue;
                }

                echoed.Sent(number);
                if (lastFirstSent is null)
                {
                    sent++;
                    lastFirstSent = clock.Elapsed;
                }
                else
                {
                    resent++;
                }

                do
                {
                    duplicates += await AwaitEchoAsync(echoes, number, echoed, Min(EchoTimeout, Left()), cancellationToken).ConfigureAwait(false);
                }
                while (!echoed.Contains(number) && Left() > TimeSpan.Zero && carrier is { IsOpen: true });
            }

            if (echoed.Contains(number))
            {
                await Pause(interval, Left(), cancellationToken).ConfigureAwait(false);
            }
        }

        while (echoes.TryRead(out var late))
        {
            duplicates += echoed.Echo(late) ? 0 : 1;
        }

        // The last number taken is in flight when it is still on an open connection, or first went out within one echo
        // wait of the end (it never had its full wait).
        var inFlight = lastFirstSent is { } firstSent && !echoed.Contains(number - 1)
            && (carrier is { IsOpen: true } || duration - firstSent < EchoTimeout) ? 1 : 0;
        return new WatchOutcome(sent, echoed.Count, resent, duplicates, refused, inFlight);
    }

    private static TimeSpan Min(TimeSpan a, TimeSpan b) => a < b ? a : b;

    private static async Task Pause(TimeSpan pause, TimeSpan left, CancellationToken cancellationToken)
    {
        var wait = Min(pause, left);
        if (wait > TimeSpan.Zero)
        {
            await Task.Delay(wait, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Reads echoes until <paramref name="number"/>'s comes or <paramref name="wait"/> passes; returns the duplicates read.</summary>
    private static async Task<int> AwaitEchoAsync(ChannelReader<int> echoes, int number, EchoTally echoed, TimeSpan wait, CancellationToken cancellationToken)
    {
        var duplicates = 0;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(wait);
        try
        {
            while (true)
            {
                var echo = await echoes.ReadAsync(timeout.Token).ConfigureAwait(false);
                duplicates += echoed.Echo(echo) ? 0 : 1;
                if (echo == number)
                {
                    return duplicates;
                }
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return duplicates;
        }
    }

    /// <summary>
    /// Each number's sends and echoes. An echo is a duplicate only past the number's sends: a resend whose first echo
    /// was late (over 1 s on a loaded machine) is answered twice by design, and that is not the transport delivering
    /// one send twice.
    /// </summary>
    private sealed class EchoTally
    {
        private readonly Dictionary<int, (int Sends, int Echoes)> _numbers = [];

        public int Count { get; private set; }

        public bool Contains(int number) => _numbers.TryGetValue(number, out var tally) && tally.Echoes > 0;

        public void Sent(int number)
        {
            _numbers.TryGetValue(number, out var tally);
            _numbers[number] = tally with { Sends = tally.Sends + 1 };
        }

        /// <summary>Counts an echo; false when the number came back more often than it was sent.</summary>
        public bool Echo(int number)
        {
            _numbers.TryGetValue(number, out var tally);
            if (tally.Echoes == 0)
            {
                Count++;
            }

            _numbers[number] = tally with { Echoes = tally.Echoes + 1 };
            return tally.Echoes < tally.Sends;
        }
    }
}
