namespace Salvo.Tunnel.Protocol;

/// <summary>
/// One peer's timers as deadlines on the monotonic clock (0 = not armed). The engine arms them on protocol
/// events and fires the due ones on each tick, so tests drive them with a fake clock; no OS timer is involved.
/// </summary>
internal sealed class PeerTimers
{
    private long _retransmitHandshake;
    private long _sendKeepalive;
    private long _newHandshake;
    private long _zeroKeyMaterial;
    private long _persistentKeepalive;

    /// <summary>Called when a deadline is armed, so the engine's tick visits this peer until every deadline is spent.</summary>
    public Action? Armed { get; set; }

    /// <summary>Resend the initiation: REKEY_TIMEOUT plus jitter after the last one went unanswered.</summary>
    public long RetransmitHandshake
    {
        get => _retransmitHandshake;
        set => _retransmitHandshake = Arm(value);
    }

    /// <summary>Send an empty packet: KEEPALIVE_TIMEOUT after data arrived, unless something was sent since.</summary>
    public long SendKeepalive
    {
        get => _sendKeepalive;
        set => _sendKeepalive = Arm(value);
    }

    /// <summary>Start a new handshake: data was sent and nothing came back for KEEPALIVE_TIMEOUT + REKEY_TIMEOUT.</summary>
    public long NewHandshake
    {
        get => _newHandshake;
        set => _newHandshake = Arm(value);
    }

    /// <summary>Forget every key: 3 x REJECT_AFTER_TIME after the last session was derived.</summary>
    public long ZeroKeyMaterial
    {
        get => _zeroKeyMaterial;
        set => _zeroKeyMaterial = Arm(value);
    }

    /// <summary>The configured persistent keepalive, re-armed by every authenticated packet sent or received.</summary>
    public long PersistentKeepalive
    {
        get => _persistentKeepalive;
        set => _persistentKeepalive = Arm(value);
    }

    /// <summary>Whether any deadline is armed: a peer with none has nothing for the tick to do (see <see cref="Armed"/>).</summary>
    public bool AnyArmed => (_retransmitHandshake | _sendKeepalive | _newHandshake | _zeroKeyMaterial | _persistentKeepalive) != 0;

    /// <summary>Retransmissions of the current initiation so far.</summary>
    public int HandshakeAttempts { get; set; }

    /// <summary>Data arrived while a keepalive was already pending: send one more after it.</summary>
    public bool NeedAnotherKeepalive { get; set; }

    /// <summary>When the last initiation was sent (monotonic); initiations are at least REKEY_TIMEOUT apart.</summary>
    public long LastInitiationSent { get; set; }

    public bool HasSentInitiation { get; set; }

    /// <summary>Whether the initiator has already asked for a new session because its receiving key is about to expire.</summary>
    public bool SentLastMinuteHandshake { get; set; }

    public static bool IsDue(long deadline, long now) => deadline != 0 && now >= deadline;

    public void StopAll()
    {
        RetransmitHandshake = 0;
        SendKeepalive = 0;
        NewHandshake = 0;
        ZeroKeyMaterial = 0;
        PersistentKeepalive = 0;
        NeedAnotherKeepalive = false;
    }

    /// <summary>Everything back to its start, no callback included: the session goes to another peer.</summary>
    public void Reset()
    {
        Armed = null;
        _retransmitHandshake = _sendKeepalive = _newHandshake = _zeroKeyMaterial = _persistentKeepalive = 0;
        HandshakeAttempts = 0;
        NeedAnotherKeepalive = false;
        LastInitiationSent = 0;
        HasSentInitiation = false;
        SentLastMinuteHandshake = false;
    }

    private long Arm(long deadline)
    {
        if (deadline != 0)
        {
            Armed?.Invoke();
        }

        return deadline;
    }
}
