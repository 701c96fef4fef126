namespace Salvo.Tunnel.Control;

/// <summary>
/// What one control connection may hold and for how long, and how many are served at once. The defaults keep the
/// small requests of the control socket's clients under about 100 MB however they behave (see docs/tunnel.md, "Limits"),
/// while a 1,000,000-peer <c>wg setconf</c> (about 190 MB, 1,000,000 peers, 2,000,000 AllowedIPs) still goes through
/// in one request; such a request holds its parsed peers (about 400 bytes each) until it is applied.
/// </summary>
internal sealed record UapiLimits
{
    /// <summary>The defaults <see cref="WireGuardControlSocket"/> runs with.</summary>
    public static UapiLimits Default { get; } = new();

    /// <summary>
    /// The longest line taken, without its newline. The longest line the protocol has is under 100 bytes (a key is 64
    /// hex digits; a bracketed IPv6 endpoint with a zone and a port is at most 78), so a longer one is not parsed but
    /// refused. wireguard-go reads with a bufio.Scanner, whose limit is bufio.MaxScanTokenSize, 64 KiB. Defaults to 256.
    /// </summary>
    public int MaxLineBytes { get; init; } = 256;

    /// <summary>The largest <c>set=1</c> request, its lines and newlines together. Defaults to <see cref="WireGuardControlSocket.MaxRequestBytes"/>.</summary>
    public long MaxRequestBytes { get; init; } = WireGuardControlSocket.MaxRequestBytes;

    /// <summary><c>public_key</c> lines in one request: a million-peer <c>wg setconf</c> fits. Defaults to 1,048,576.</summary>
    public int MaxPeersPerRequest { get; init; } = 1 << 20;

    /// <summary><c>allowed_ip</c> lines in one request. Defaults to 4,194,304 (four a peer at the most peers).</summary>
    public int MaxAllowedIpsPerRequest { get; init; } = 4 << 20;

    /// <summary>
    /// A request past this size must hold one of <see cref="LargeRequestsAtOnce"/> turns to read on, so many clients
    /// cannot each hold a large change at once; <c>wg set</c> is a few hundred bytes and never waits. Defaults to 16 KiB.
    /// </summary>
    public long LargeRequestBytes { get; init; } = 16 << 10;

    /// <summary>Requests larger than <see cref="LargeRequestBytes"/> read at once; the others wait their turn. Defaults to 2.</summary>
    public int LargeRequestsAtOnce { get; init; } = 2;

    /// <summary>A connection that sends no whole line for this long is closed. Defaults to 5 seconds.</summary>
    public TimeSpan IdleTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// A request (from its operation line to its blank line), or the writing of its answer, that takes longer is
    /// ended and its connection closed: long enough for a million-peer set or dump on a loaded 2-core machine (about
    /// 10 s and 5 s), while a stalled client is still closed by <see cref="IdleTimeout"/>. Defaults to 60 seconds.
    /// </summary>
    public TimeSpan RequestTimeout { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>
    /// Connections served at once. At the limit a new connection is served and the one that has gone longest
    /// without a whole line is closed, so a crowd of stalled clients cannot lock <c>wg</c> out. Defaults to 256.
    /// </summary>
    public int MaxConnections { get; init; } = 256;
}
