namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// An nftables table in one lab host that can drop UDP to and from one port, both ways, while traffic flows. The
/// table goes with <see cref="Dispose"/> (and with the namespace, should the process die first).
/// </summary>
internal sealed class UdpBlock : IDisposable
{
    private const string Table = "salvotest";
    private readonly string _host;
    private readonly int _port;

    public UdpBlock(string host, int port)
    {
        (_host, _port) = (host, port);
        Nft($"add table inet {Table}");
        try
        {
            Nft($"add chain inet {Table} input {{ type filter hook input priority 0 ; policy accept ; }}");
            Nft($"add chain inet {Table} output {{ type filter hook output priority 0 ; policy accept ; }}");
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    public static bool Available => Salvo.Tests.Lab.NetworkLab.HasNftables;

    /// <summary>Drops UDP to the port on the way in and from it on the way out.</summary>
    public void Block()
    {
        Nft($"add rule inet {Table} input udp dport {_port} counter drop");
        Nft($"add rule inet {Table} output udp sport {_port} counter drop");
    }

    /// <summary>Drops <paramref name="percent"/> % of the UDP to and from the port at random, each way: a lossy path that still works.</summary>
    public void Lose(int percent)
    {
        Nft($"add rule inet {Table} input udp dport {_port} numgen random mod 100 < {percent} counter drop");
        Nft($"add rule inet {Table} output udp sport {_port} numgen random mod 100 < {percent} counter drop");
    }

    /// <summary>
    /// Drops, both ways and without a reset, the one TCP connection that has <paramref name="peerPort"/> at the other
    /// end, as a NAT that forgot it would: neither end is told, and a new connection (another port) gets through.
    /// </summary>
    public void SilenceTcpConnectionFrom(int peerPort)
    {
        Nft($"add rule inet {Table} input tcp dport {_port} tcp sport {peerPort} counter drop");
        Nft($"add rule inet {Table} output tcp sport {_port} tcp dport {peerPort} counter drop");
    }

    public void Unblock()
    {
        Nft($"flush chain inet {Table} input");
        Nft($"flush chain inet {Table} output");
    }

    public void Dispose()
    {
        try
        {
            Nft($"delete table inet {Table}");
        }
        catch (InvalidOperationException)
        {
            // Already gone, or never made: nothing to clean up.
        }
    }

    private void Nft(string arguments) => Salvo.Tests.Lab.NetworkLab.Exec(_host, "nft", arguments);
}
