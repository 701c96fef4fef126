using System.Net;
using System.Net.Sockets;

namespace Salvo.Streams;

/// <summary>
/// Moving a <see cref="TransportMode.UdpFirst"/> transport between paths after connect: from TCP back to UDP when a
/// probe is answered, and from UDP to TCP when keepalives stop being answered. Each message goes over exactly one path,
/// so none is sent twice; the old path stays open for the grace period so that what is queued or in flight on it arrives.
/// </summary>
public sealed partial class MessageTransport
{
    private void StartPathSwitching(IPEndPoint remote)
    {
        if (_options.Mode == TransportMode.UdpFirst)
        {
            _paths = SwitchPathsAsync(remote);
        }
    }

    private async Task SwitchPathsAsync(IPEndPoint remote)
    {
        var token = _stopping.Token;
        try
        {
            while (true)
            {
                if (Transport == TransportKind.Tcp)
                {
                    if (!_options.UdpReprobe)
                    {
                        return;
                    }

                    await MoveToUdpWhenAProbeIsAnsweredAsync(remote, token).ConfigureAwait(false);
                    await Task.Delay(_options.SwitchGracePeriod, _options.TimeProvider, token).ConfigureAwait(false);
                    await CloseTcpAsync().ConfigureAwait(false);
                }
                else
                {
                    if (_options.UdpKeepaliveMisses == 0)
                    {
                        return;
                    }

                    var (oldSocket, oldLoop) = (_udp!, _udpLoop);
                    await MoveToTcpWhenKeepalivesGoUnansweredAsync(remote, token).ConfigureAwait(false);
                    await Task.Delay(_options.SwitchGracePeriod, _options.TimeProvider, token).ConfigureAwait(false);
                    RetireUdp(oldSocket);
                    await oldLoop.ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            // Disposed: DisposeAsync closes what is open, old path included.
        }
        catch (Exception e)
        {
            // Anything else ends path switching but must not keep DisposeAsync from closing the sockets.
            TransportLog.PathSwitchingFailed(_logger, remote, e);
        }
    }

    /// <summary>Probes UDP on the back-off schedule; returns once new messages go over UDP.</summary>
    private async Task MoveToUdpWhenAProbeIsAnsweredAsync(IPEndPoint remote, CancellationToken token)
    {
        var schedule = new UdpProbeSchedule(_options.UdpReprobeBackoff, Random.Shared);
        for (var probes = 1; ; probes++)
        {
            await Task.Delay(schedule.Next(), _options.TimeProvider, token).ConfigureAwait(false);
            DatagramSocket? socket;
            ReceiveBatch? batch;
            string? failure;
            try
            {
                (socket, batch, failure) = await OpenUdpAsync(remote, handshake: true, token).ConfigureAwait(false);
            }
            catch (SocketException e)
            {
                // No route during the very outage the probe waits out (connect(2) on the new socket says
                // ENETUNREACH): an unanswered probe, not the end of probing.
                (socket, batch, failure) = (null, null, e.Message);
            }

            if (socket is not null)
            {
                UseUdp(socket, batch!, $"UDP probe {probes} was answered; TCP closes in {_options.SwitchGracePeriod.TotalMilliseconds:0} ms", switching: true);
                return;
            }

            TransportLog.ProbeUnanswered(_logger, remote, failure!);
        }
    }

    /// <summary>Sends a HELLO every keepalive interval on the UDP socket; returns once new messages go over TCP.</summary>
    private async Task MoveToTcpWhenKeepalivesGoUnansweredAsync(IPEndPoint remote, CancellationToken token)
    {
        var hello = new byte[UdpEnvelope.HandshakeLength];
        var misses = 0;
        while (true)
        {
            var nonce = UdpEnvelope.NewNonce();
            UdpEnvelope.WriteHandshake(hello, UdpEnvelope.Hello, nonce);
            try
            {
                await _udp!.SendAsync(hello, token).ConfigureAwait(false);
            }
            catch (SocketException)
            {
                // Port unreachable or refused by the kernel: the HELLO goes unanswered and counts as a miss.
            }

            await Task.Delay(_options.UdpKeepaliveInterval, _options.TimeProvider, token).ConfigureAwait(false);
            if (Volatile.Read(ref _lastHelloAck) == nonce)
            {
                misses = 0;
                continue;
            }

            if (++misses < _options.UdpKeepaliveMisses)
            {
                continue;
            }

            var reason = $"{misses} UDP keepalives in a row went unanswered ({_options.UdpKeepaliveInterval.TotalMilliseconds:0} ms apart)";
            try
            {
                await ConnectTcpAsync(remote, reason, switching: true, token).ConfigureAwait(false);
                return;
            }
            catch (Exception e) when (e is SocketException or TimeoutException)
            {
                TransportLog.TcpFallbackFailed(_logger, remote, e.Message);
                misses = 0;
            }
        }
    }

    /// <summary>
    /// Keeps the nonce of the latest HELLO-ACK: the keepalive loop compares it with the nonce it sent, so an answer
    /// to an earlier HELLO can never count for a later one.
    /// </summary>
    private void NoteHelloAck(ulong nonce) => Volatile.Write(ref _lastHelloAck, nonce);
}
