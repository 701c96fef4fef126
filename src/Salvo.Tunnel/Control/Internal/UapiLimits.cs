namespace Salvo.Tunnel.Control;

/// <summary>
/// What one control connection may hold and for how long, and how many are served at once. The defaults keep the
/// whole control socket under about 100 MB however its clients behave (see docs/tunnel.md, "Limits"), while a
/// 10,000-peer <c>wg setconf</c> (about 3 MB, 10,000 peers, 20,000 AllowedIPs) still goes through in one request.
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

    /// <summary><c>public_key</c> lines in one request. Defaults to 65,536.</summary>
    public int MaxPeersPerRequest { get; init; } = 65_536;

    /// <summary><c>allowed_ip</c> lines in one request. Defaults to 262,144 (four a peer at the most peers).</summary>
    public int MaxAllowedIpsPerRequest { get; init; } = 262_144;

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
    /// ended and its connection closed. Defaults to 10 seconds.
    /// </summary>
    public TimeSpan RequestTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Connections served at once. At the limit a new connection is served and the one that has gone longest
    /// without a whole line is closed, so a crowd of stalled clients cannot lock <c>wg</c> out. Defaults to 256.
    /// </summary>
    public int MaxConnections { get; init; } = 256;
}
