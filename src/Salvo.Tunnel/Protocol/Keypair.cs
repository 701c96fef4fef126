using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The transport keys one handshake derived: a sending and a receiving cipher key, the two session indices,
/// the next counter to send and the window of counters received.
/// </summary>
internal sealed class Keypair : IDisposable
{
    private ulong _nextSendCounter;

    public Keypair(IAeadKey send, IAeadKey receive, uint localIndex, uint remoteIndex, bool isInitiator, long createdTimestamp)
    {
        Send = send;
        Receive = receive;
        LocalIndex = localIndex;
        RemoteIndex = remoteIndex;
        IsInitiator = isInitiator;
        CreatedTimestamp = createdTimestamp;
    }

    public IAeadKey Send { get; }

    public IAeadKey Receive { get; }

    public uint LocalIndex { get; }

    public uint RemoteIndex { get; }

    /// <summary>The initiator may send at once; the responder only after the first packet under these keys arrives.</summary>
    public bool IsInitiator { get; }

    public long CreatedTimestamp { get; }

    public ReplayWindow Replay { get; } = new();

    public ulong SentCount => Volatile.Read(ref _nextSendCounter);

    /// <summary>
    /// Takes the next sending counter; false when the key has reached REJECT_AFTER_MESSAGES. Safe from any thread: a
    /// keepalive from the timer and data from the device may take counters at once, and each counter goes out once.
    /// </summary>
    public bool TryTakeSendCounter(out ulong counter)
    {
        while (true)
        {
            counter = Volatile.Read(ref _nextSendCounter);
            if (counter >= WireGuardProtocol.RejectAfterMessages)
            {
                return false;
            }

            if (Interlocked.CompareExchange(ref _nextSendCounter, counter + 1, counter) == counter)
            {
                return true;
            }
        }
    }

    /// <summary>Test hook: jump the sending counter (reaching 2^60 by sending is out of reach).</summary>
    internal void SetNextSendCounter(ulong counter) => _nextSendCounter = counter;

    public void Dispose()
    {
        Send.Dispose();
        Receive.Dispose();
    }
}
