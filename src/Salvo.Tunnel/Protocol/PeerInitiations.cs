namespace Salvo.Tunnel.Protocol;

/// <summary>
/// Handshake initiations this end sent a peer, and how many in a row went unanswered: the evidence behind the
/// "initiations unanswered" diagnosis. Written under the engine's lock.
/// </summary>
internal sealed class PeerInitiations
{
    /// <summary>Initiations sent to the peer, retries and cookie-answering resends included.</summary>
    public long Sent { get; private set; }

    /// <summary>Initiations sent since the last completed handshake (none answered yet).</summary>
    public long Unanswered { get; private set; }

    /// <summary>When the first of <see cref="Unanswered"/> went out (wall clock, for show); null when none.</summary>
    public DateTimeOffset? UnansweredSince { get; private set; }

    /// <summary>The timestamp of the last "unanswered" log line for this peer; 0 when none since the last handshake.</summary>
    public long LastWarned { get; set; }

    public void CountSent(DateTimeOffset now)
    {
        Sent++;
        if (Unanswered++ == 0)
        {
            UnansweredSince = now;
        }
    }

    /// <summary>A handshake completed: whatever went before was answered.</summary>
    public void Answered()
    {
        Unanswered = 0;
        UnansweredSince = null;
        LastWarned = 0;
    }
}
