using System.Net.Sockets;

namespace Salvo.Streams;

/// <summary>
/// The client half of the UDP handshake: HELLO with a random nonce, answered by HELLO-ACK with the same nonce
/// (see <see cref="UdpEnvelope"/>). Proves that datagrams get through both ways, not just that a port is open.
/// </summary>
internal static class UdpHandshake
{
    /// <summary>Returns null when the server answered, else why UDP is not usable.</summary>
    public static async Task<string?> RunAsync(
        DatagramSocket socket, ReceiveBatch batch, TimeSpan timeout, int attempts, CancellationToken cancellationToken)
    {
        var nonce = UdpEnvelope.NewNonce();
        var hello = new byte[UdpEnvelope.HandshakeLength];
        UdpEnvelope.WriteHandshake(hello, UdpEnvelope.Hello, nonce);
        var interval = timeout / attempts;
        var icmpBefore = socket.GetStatistics().IcmpErrors;
        for (var attempt = 0; attempt < attempts; attempt++)
        {
            try
            {
                await socket.SendAsync(hello, cancellationToken).ConfigureAwait(false);
            }
            catch (SocketException e)
            {
                return $"sending the UDP HELLO failed ({e.SocketErrorCode})";
            }

            using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            wait.CancelAfter(interval);
            try
            {
                while (true)
                {
                    await socket.ReceiveAsync(batch, wait.Token).ConfigureAwait(false);
                    foreach (var datagram in batch)
                    {
                        if (UdpEnvelope.TryReadHandshake(datagram.Payload, UdpEnvelope.HelloAck, out var echoed) && echoed == nonce)
                        {
                            return null;
                        }
                    }
                }
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                // No answer within this attempt's share of the timeout.
            }

            if (socket.GetStatistics().IcmpErrors > icmpBefore)
            {
                return "the server's UDP port is unreachable (ICMP)";
            }
        }

        return $"no UDP handshake answer within {timeout.TotalMilliseconds:0} ms ({attempts} HELLOs)";
    }
}
