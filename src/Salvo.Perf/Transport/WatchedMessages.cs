using System.Buffers.Binary;
using System.Diagnostics;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Perf.Transport;

/// <summary>One path switch seen while watching: when (seconds after the first message), to which transport, and why.</summary>
internal sealed record TransportSwitch(double AtSeconds, string Transport, string Reason);

/// <summary>What a watch run got.</summary>
/// <param name="Sent">Numbered messages sent (each counted once, however often it was resent).</param>
/// <param name="Echoed">Distinct numbers echoed.</param>
/// <param name="Resent">Sends of a number again because its echo had not come within <see cref="WatchedMessages.EchoTimeout"/>.</param>
/// <param name="DuplicateEchoes">Echoes of a number already echoed: a message delivered twice.</param>
internal sealed record WatchOutcome(int Sent, int Echoed, int Resent, int DuplicateEchoes);

/// <summary>
/// The <c>salvo transport --watch</c> run: numbered messages at a steady pace for a while, one in flight, so that a
/// path switch during the run (a firewall rule added or removed) shows as the switch, the messages resent, and any
/// message delivered twice. A message whose echo does not come within <see cref="EchoTimeout"/> is sent again, as an
/// application over a datagram path would: UDP lost it, the transport did not.
/// </summary>
internal static class WatchedMessages
{
    public static readonly TimeSpan EchoTimeout = TimeSpan.FromSeconds(1);

    /// <summary>How long the last message may keep being resent after the watch time is over.</summary>
    public static readonly TimeSpan Overtime = TimeSpan.FromSeconds(15);

    public static async Task<WatchOutcome> RunAsync(
        MessageTransport transport, ChannelReader<int> echoes, TimeSpan duration, TimeSpan interval, CancellationToken cancellationToken)
    {
        var echoed = new HashSet<int>();
        var (sent, resent, duplicates) = (0, 0, 0);
        var message = new byte[sizeof(int)];
        var clock = Stopwatch.StartNew();
        for (var number = 0; clock.Elapsed < duration; number++)
        {
            BinaryPrimitives.WriteInt32BigEndian(message, number);
            sent++;
            for (var attempt = 0; !echoed.Contains(number) && clock.Elapsed < duration + Overtime; attempt++)
            {
                if (attempt > 0)
                {
                    resent++;
                }

                if (!await transport.SendAsync(message, cancellationToken).ConfigureAwait(false))
                {
                    // Refused while the transport changes paths: wait one echo time, as for a lost message.
                    await Task.Delay(EchoTimeout, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                duplicates += await AwaitEchoAsync(echoes, number, echoed, cancellationToken).ConfigureAwait(false);
            }

            await Task.Delay(interval, cancellationToken).ConfigureAwait(false);
        }

        while (echoes.TryRead(out var late))
        {
            duplicates += echoed.Add(late) ? 0 : 1;
        }

        return new WatchOutcome(sent, echoed.Count, resent, duplicates);
    }

    /// <summary>Reads echoes until <paramref name="number"/>'s comes or <see cref="EchoTimeout"/> passes; returns the duplicates read.</summary>
    private static async Task<int> AwaitEchoAsync(ChannelReader<int> echoes, int number, HashSet<int> echoed, CancellationToken cancellationToken)
    {
        var duplicates = 0;
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        wait.CancelAfter(EchoTimeout);
        try
        {
            while (true)
            {
                var echo = await echoes.ReadAsync(wait.Token).ConfigureAwait(false);
                duplicates += echoed.Add(echo) ? 0 : 1;
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
}
