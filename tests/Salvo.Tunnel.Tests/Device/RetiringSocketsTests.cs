namespace Salvo.Tunnel.Tests.Device;

/// <summary>The UDP sockets a listen-port change replaced, closed after a delay unless taken back first.</summary>
public sealed class RetiringSocketsTests
{
    private static readonly TimeSpan s_delay = TimeSpan.FromSeconds(2);

    [Fact]
    public void SocketTakenBackAndRetiredAgain_TheFirstRetirementsExpiry_LeavesTheSecondAlone()
    {
        using var retiring = new RetiringSockets(s_delay);
        var socket = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0) });
        var port = socket.LocalEndPoint.Port;

        // Retired, taken back at once (a flip back to its port), and retired again a second later: that retirement
        // lasts until 3 s; the first one's expiry comes at 2 s and must find nothing of its own left.
        retiring.Retire(socket, mark: 0);
        Assert.True(retiring.TryTake(port, out var takenBack, out _));
        Assert.Same(socket, takenBack);
        Thread.Sleep(TimeSpan.FromSeconds(1));
        retiring.Retire(socket, mark: 0);
        Thread.Sleep(TimeSpan.FromSeconds(1.4));

        Assert.True(retiring.TryTake(port, out var again, out _), "the second retirement was closed by the first one's expiry");
        Assert.Same(socket, again);
        again!.Dispose();
    }
}
