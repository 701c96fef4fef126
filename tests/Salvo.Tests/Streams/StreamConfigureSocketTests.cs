using System.Net.Sockets;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>StreamOptions.ConfigureSocket: which sockets it sees, when, and what a throw does.</summary>
public sealed class StreamConfigureSocketTests
{
    [Fact]
    public async Task ConfigureSocket_ServerAndClient_SeeTheListenerBeforeBindAndTheClientBeforeConnect()
    {
        var seen = new List<(string Side, bool Bound, bool Connected)>();
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { ConfigureSocket = socket => seen.Add(("server", socket.IsBound, socket.Connected)) },
            serverHandler);
        server.Start();
        await using var client = new StreamClient(
            new StreamClientOptions { ConfigureSocket = socket => seen.Add(("client", socket.IsBound, socket.Connected)) },
            new RecordingHandler());

        await client.ConnectAsync(server.LocalEndPoint!);
        await serverHandler.NextConnectionAsync();

        // Accepted sockets are not passed: one call for the listener, one for the client's socket.
        Assert.Equal([("server", false, false), ("client", false, false)], seen);
    }

    [Fact]
    public async Task ConfigureSocket_Throws_TheConnectFailsWithItsException()
    {
        await using var server = new StreamServer(new StreamServerOptions(), new RecordingHandler());
        server.Start();
        await using var client = new StreamClient(
            new StreamClientOptions { ConfigureSocket = _ => throw new SocketException((int)SocketError.AccessDenied) },
            new RecordingHandler());

        var error = await Assert.ThrowsAsync<SocketException>(() => client.ConnectAsync(server.LocalEndPoint!));

        Assert.Equal(SocketError.AccessDenied, error.SocketErrorCode);
        Assert.Equal(0, client.ConnectionCount);
    }
}
