using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// <c>get=salvo</c>, the request only Salvo's own tools send, answers Salvo's counters; what <c>wg</c> sends and
/// receives (<c>get=1</c>, <c>set=1</c>, an unknown operation) stays exactly as wireguard-go has it.
/// </summary>
public sealed class SalvoGetExtensionTests : IDisposable
{
    private static readonly string[] s_wireGuardGetKeys =
    [
        "private_key", "listen_port", "public_key", "preshared_key", "protocol_version", "endpoint",
        "last_handshake_time_sec", "last_handshake_time_nsec", "tx_bytes", "rx_bytes", "persistent_keepalive_interval",
        "allowed_ip", "errno",
    ];

    private readonly UapiTestDevice _lab = new();

    public void Dispose() => _lab.Dispose();

    private static string[] Keys(string answer) =>
        [.. answer.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => line[..line.IndexOf('=', StringComparison.Ordinal)])];

    [Fact]
    public void GetSalvo_AnswersCountersPerDeviceAndPeer()
    {
        using var client = new UapiClient(_lab.Path);
        var answer = client.Send("get=salvo\n\n");

        Assert.StartsWith("salvo=1\ncookie_replies_sent=0\ncookie_replies_received=0\n", answer, StringComparison.Ordinal);
        Assert.Contains("\nreceive_batches=", answer, StringComparison.Ordinal);
        Assert.Contains("\nsend_batch_packets=", answer, StringComparison.Ordinal);
        Assert.Equal(Enum.GetValues<TunnelDropReason>().Length, answer.Split('\n').Count(line => line.StartsWith("dropped=", StringComparison.Ordinal)));
        Assert.Contains("\ndropped=Malformed:0\n", answer, StringComparison.Ordinal);
        Assert.Contains($"\npublic_key={Convert.ToHexStringLower(_lab.PeerKey.Bytes)}\npath=udp\ninitiations_sent=", answer, StringComparison.Ordinal);
        Assert.Contains("\nunanswered=0\n", answer, StringComparison.Ordinal);
        Assert.EndsWith("errno=0\n", answer, StringComparison.Ordinal);
    }

    [Fact]
    public void Get1_BeforeAndAfterGetSalvo_IsWireGuardGosAnswerOnly()
    {
        using var client = new UapiClient(_lab.Path);
        var before = client.Send("get=1\n\n");
        client.Send("get=salvo\n\n");
        var after = client.Send("get=1\n\n");

        Assert.Equal(s_wireGuardGetKeys, Keys(before));
        Assert.Equal(s_wireGuardGetKeys, Keys(after));
        Assert.Contains($"\npublic_key={Convert.ToHexStringLower(_lab.PeerKey.Bytes)}\npreshared_key={new string('0', 64)}\nprotocol_version=1\nendpoint=127.0.0.1:51820\n", before, StringComparison.Ordinal);
        Assert.Contains("\npersistent_keepalive_interval=21\nallowed_ip=198.19.0.2/32\nerrno=0\n", before, StringComparison.Ordinal);
    }

    [Fact]
    public void Set1_AnswersExactlyErrnoZero()
    {
        using var client = new UapiClient(_lab.Path);
        Assert.Equal("errno=0\n", client.Send("set=1\nfwmark=0\n\n"));
    }

    [Theory]
    [InlineData("get=2\n\n")]
    [InlineData("get=salvo2\n\n")]
    [InlineData("GET=SALVO\n\n")]
    public void UnknownOperation_ClosesWithoutAnAnswer_AsWireGuardGo(string request)
    {
        using var client = new UapiClient(_lab.Path);
        client.SendRaw(System.Text.Encoding.ASCII.GetBytes(request));
        Assert.Equal(string.Empty, client.ReadUntilClosed(TimeSpan.FromSeconds(10)));
    }
}
