using System.Net.Sockets;

namespace Salvo.Perf.Iperf3;

/// <summary>
/// Tells which client opened a control connection from its first byte, without taking it off the stream:
/// Salvo's hello is JSON and starts with '{'; iperf3 starts with its cookie, a lowercase base32 character.
/// </summary>
internal static class ControlProtocolDetector
{
    /// <summary>
    /// Whether the first byte within <paramref name="timeout"/> starts an iperf3 cookie. False when it does
    /// not, when the peer closed or sent nothing in time: the caller's own hello handling reports those.
    /// </summary>
    public static async Task<bool> IsIperf3Async(Socket client, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var first = new byte[1];
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        try
        {
            return await client.ReceiveAsync(first, SocketFlags.Peek, deadline.Token).ConfigureAwait(false) == 1 && Iperf3Cookie.CanStart(first[0]);
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException)
        {
            return false;
        }
    }
}
