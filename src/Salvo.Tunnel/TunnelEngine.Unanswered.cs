using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

/// <summary>
/// The "peer does not answer" diagnosis: initiations that keep going out with no response almost always mean a
/// wrong public key on one side (the peer drops an initiation whose MAC1 is not for its key, silently), a wrong
/// endpoint, or a firewall dropping UDP. It is shown per peer and logged once per <see cref="UnansweredLogInterval"/>,
/// not at each of the retries REKEY_TIMEOUT (5 s) apart.
/// </summary>
public sealed partial class TunnelEngine
{
    /// <summary>Initiations in a row without a response before a peer counts as not answering.</summary>
    public const int UnansweredInitiations = 3;

    /// <summary>
    /// How long initiations must have gone unanswered before a peer counts as not answering: three REKEY_TIMEOUTs, so a
    /// peer that is merely slow to start, or a lost datagram or two, is not named.
    /// </summary>
    public static readonly TimeSpan UnansweredWindow = TimeSpan.FromSeconds(15);

    /// <summary>The least time between two log lines about the same peer not answering (a retry goes every 5 s).</summary>
    public static readonly TimeSpan UnansweredLogInterval = TimeSpan.FromSeconds(60);

    private bool IsUnanswered(Peer peer) =>
        peer.InitiationsIfAny is { } initiations
        && initiations.Unanswered >= UnansweredInitiations
        && initiations.UnansweredSince is { } since
        && _time.GetUtcNow() - since >= UnansweredWindow;

    /// <summary>Logs that the peer does not answer, at most once per <see cref="UnansweredLogInterval"/>; under the lock.</summary>
    private void WarnIfUnanswered(Peer peer)
    {
        var initiations = peer.Initiations;
        if (!IsUnanswered(peer)
            || (initiations.LastWarned != 0 && _time.GetElapsedTime(initiations.LastWarned) < UnansweredLogInterval))
        {
            return;
        }

        initiations.LastWarned = _time.GetTimestamp();
        var seconds = (long)(_time.GetUtcNow() - initiations.UnansweredSince!.Value).TotalSeconds;
        UnansweredCount++;
        TunnelLog.PeerUnanswered(_logger, peer.PublicKeyText.ToString(), ShownEndpoint(peer)?.ToString() ?? "(none)", initiations.Unanswered, seconds);
    }

    /// <summary>Log lines written about peers not answering (for tests: one per interval, not one per retry).</summary>
    internal long UnansweredCount { get; private set; }
}
