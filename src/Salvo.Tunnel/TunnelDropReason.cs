namespace Salvo.Tunnel;

/// <summary>Why the tunnel refused a datagram from the network, a packet from the device, or a TCP fallback connection.</summary>
public enum TunnelDropReason
{
    /// <summary>Not a message of the protocol: a type other than 1 to 4, or the wrong size for its type.</summary>
    Malformed,

    /// <summary>A response, cookie reply or transport message naming a receiver index with no handshake or session.</summary>
    UnknownIndex,

    /// <summary>A handshake message whose MAC1 does not prove the sender knows our public key.</summary>
    InvalidMac1,

    /// <summary>A handshake without a valid MAC2 while under load: answered with a cookie reply instead of Diffie-Hellman work.</summary>
    CookieRequired,

    /// <summary>An initiation whose static key or timestamp did not decrypt: it was not made for our key.</summary>
    HandshakeNotAuthenticated,

    /// <summary>An initiation from a public key that is not a configured peer.</summary>
    UnknownPeer,

    /// <summary>An initiation whose TAI64N timestamp is not newer than the last one accepted from that peer (a replay).</summary>
    StaleTimestamp,

    /// <summary>An initiation less than 20 ms after the last one accepted from that peer.</summary>
    InitiationFlood,

    /// <summary>A response or cookie reply that did not authenticate.</summary>
    ResponseNotAuthenticated,

    /// <summary>A transport message whose Poly1305 tag did not verify.</summary>
    DecryptionFailed,

    /// <summary>A transport message with a counter seen before or too old for the replay window.</summary>
    Replayed,

    /// <summary>A transport message under a key older than REJECT_AFTER_TIME (180 s).</summary>
    Expired,

    /// <summary>A decrypted packet that is not a whole IPv4 or IPv6 packet.</summary>
    BadInnerPacket,

    /// <summary>A decrypted packet whose source address is not in the sending peer's AllowedIPs.</summary>
    SourceNotAllowed,

    /// <summary>A packet from the device with no peer for its destination, or a peer with no endpoint.</summary>
    NoRoute,

    /// <summary>A packet that waited for a handshake and was dropped: the queue was full or the handshake gave up.</summary>
    StagedDropped,

    /// <summary>A handshake message received, or a packet to send, while the device has no private key (started empty, or the key was removed).</summary>
    NoPrivateKey,
    /// <summary>
    /// A handshake message while under load from a source past its own rate (20 a second, a burst of 5, per IPv4
    /// address or IPv6 /64): one source cannot take the handshakes or the cookie replies every other source needs.
    /// </summary>
    HandshakeRateLimited,

    /// <summary>
    /// A handshake without a valid MAC2 while under load, when this second's cookie replies were spent: dropped
    /// unanswered, so replies to forged addresses cannot fill the socket's send buffer. Sources that are a peer's
    /// endpoint are still answered.
    /// </summary>
    CookieReplyLimited,

    /// <summary>
    /// A handshake message or cookie reply the UDP socket could not take at once (its send buffer was full, or a
    /// quarter of it was held by datagrams that wait for an address to resolve): dropped so that it never waits
    /// behind, or holds up, the data.
    /// </summary>
    ControlSendDropped,

    /// <summary>
    /// A packet from the device longer than one WireGuard datagram can carry: 65,475 bytes (65,535 less 20 of IPv4
    /// header, 8 of UDP and 32 of WireGuard), reachable when the interface's MTU is raised above that (a TUN takes up
    /// to 65,535), or a packet read while the MTU was being raised, longer than the buffer it was read into.
    /// </summary>
    PacketTooLarge,

    /// <summary>
    /// What a data loop held (a batch of packets or datagrams) when an unexpected error interrupted it: the loop drops
    /// the batch, logs the error (at most once a second) and goes on with the next.
    /// </summary>
    InternalError,

    /// <summary>
    /// A TCP fallback connection accepted from the network that carried no authenticated WireGuard message within
    /// 8 s of opening: closed. Frames that do not authenticate do not extend the wait.
    /// </summary>
    TcpUnauthenticatedTimeout,

    /// <summary>
    /// A TCP fallback connection refused at once: its source (IPv4 address or IPv6 /64) already held 8 connections
    /// that had not yet carried an authenticated message.
    /// </summary>
    TcpSourceLimit,

    /// <summary>
    /// A TCP fallback connection that had not yet carried an authenticated message, closed to make room for a newer
    /// one: 256 such connections may wait at once, and the oldest gives way.
    /// </summary>
    TcpUnauthenticatedEvicted,

    /// <summary>
    /// A handshake message received while the device's handshake queue was full (1,024 messages waiting for the
    /// handshake thread): dropped on arrival, so the thread that receives data never waits for handshake work. The
    /// queue is an eighth full long before this, so cookies are required; a real peer sends again.
    /// </summary>
    HandshakeQueueFull,
}
