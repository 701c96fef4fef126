using System.Net;
using System.Net.Sockets;
using Salvo.Streams;

namespace Salvo.Tests.Sockets;

/// <summary>A refused bind names the endpoint, on every backend, and keeps the error code callers test for.</summary>
public sealed class BindErrorTests
{
    public static TheoryData<DatagramBackend> Backends => OperatingSystem.IsLinux()
        ? new() { DatagramBackend.Auto, DatagramBackend.LinuxBatched, DatagramBackend.IoUring, DatagramBackend.Portable }
        : new() { DatagramBackend.Auto, DatagramBackend.Portable };

    [Theory]
    [MemberData(nameof(Backends))]
    public void DatagramSocket_OnAPortInUse_ThrowsNamingTheEndpoint(DatagramBackend backend)
    {
        using var holder = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));

        var refusal = Assert.Throws<SocketException>(() => DatagramSocket.Bind(holder.LocalEndPoint, backend));

        Assert.Equal(SocketError.AddressAlreadyInUse, refusal.SocketErrorCode);
        Assert.StartsWith($"127.0.0.1:{holder.LocalEndPoint.Port} cannot be bound: ", refusal.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StreamServer_OnAPortInUse_ThrowsNamingTheEndpoint()
    {
        using var holder = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        holder.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        holder.Listen();
        var taken = (IPEndPoint)holder.LocalEndPoint!;
        await using var server = new StreamServer(
            new StreamServerOptions { EndPoint = taken }, StreamHandler.Ignore);

        var refusal = Assert.Throws<SocketException>(server.Start);

        Assert.Equal(SocketError.AddressAlreadyInUse, refusal.SocketErrorCode);
        Assert.Contains($"127.0.0.1:{taken.Port}", refusal.Message, StringComparison.Ordinal);
    }
}
