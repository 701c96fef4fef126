using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel;
using Salvo.WireGuard.Status;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>show</c> reads each tunnel's control socket, as <c>wg show</c> does, and adds Salvo's counters where the daemon
/// answers <c>get=salvo</c>; a daemon that closes on it (wireguard-go) is shown with wg's fields only. The daemons here
/// are scripted listeners on sockets in a folder of the test's own.
/// </summary>
public sealed class ShowControlSocketTests : IDisposable
{
    private static readonly WireGuardKey s_private = WireGuardKey.GeneratePrivateKey();
    private static readonly WireGuardKey s_peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-show-").FullName;
    private readonly List<ScriptedDaemon> _daemons = [];

    private static string Get1 =>
        $"private_key={Convert.ToHexStringLower(s_private.Bytes)}\nlisten_port=51820\n" +
        $"public_key={Convert.ToHexStringLower(s_peer.Bytes)}\npreshared_key={new string('0', 64)}\nprotocol_version=1\n" +
        "endpoint=198.18.0.2:51820\nlast_handshake_time_sec=0\nlast_handshake_time_nsec=0\ntx_bytes=740\nrx_bytes=0\n" +
        "persistent_keepalive_interval=0\nallowed_ip=198.19.0.2/32\nerrno=0\n\n";

    private static string GetSalvo(long unansweredSince) =>
        "salvo=1\ncookie_replies_sent=0\ncookie_replies_received=2\nreceive_batches=4\nreceive_batch_datagrams=18\n" +
        "send_batches=5\nsend_batch_packets=5\ndropped=Malformed:3\ndropped=InvalidMac1:0\n" +
        $"public_key={Convert.ToHexStringLower(s_peer.Bytes)}\npath=udp\ninitiations_sent=5\ninitiations_unanswered=5\n" +
        $"unanswered_since_sec={unansweredSince}\nunanswered=1\nerrno=0\n\n";

    public void Dispose()
    {
        foreach (var daemon in _daemons)
        {
            daemon.Dispose();
        }

        Directory.Delete(_folder, recursive: true);
    }

    [LinuxOnlyFact]
    public void Show_SalvoDaemon_AddsCountersAndNamesThePeerThatDoesNotAnswer()
    {
        var since = DateTimeOffset.UtcNow.AddSeconds(-21).ToUnixTimeSeconds();
        Serve("salvo0", Get1, GetSalvo(since));

        var text = Show(new ShowArguments(null, Json: false));

        Assert.Contains($"interface: salvo0\n  public key: {s_private.DerivePublicKey()}\n  listening port: 51820\n", text, StringComparison.Ordinal);
        Assert.Contains("  dropped: Malformed 3\n", text, StringComparison.Ordinal);
        Assert.Contains("  cookie replies received: 2\n", text, StringComparison.Ordinal);
        Assert.Contains("  batches: 4.5 datagrams per receive, 1.0 packets per device read\n", text, StringComparison.Ordinal);
        Assert.Contains($"peer: {s_peer}\n  endpoint: 198.18.0.2:51820\n  path: udp\n  allowed ips: 198.19.0.2/32\n", text, StringComparison.Ordinal);
        Assert.Contains("  handshake initiations: 5 sent, 5 unanswered\n", text, StringComparison.Ordinal);
        Assert.Contains("  warning: no answer to 5 handshake initiations over 2", text, StringComparison.Ordinal);
        Assert.Contains("check the public keys on both sides, the endpoint, and that UDP gets through", text, StringComparison.Ordinal);
    }

    [LinuxOnlyFact]
    public void Show_WireGuardGoDaemon_ClosesOnGetSalvo_ShownWithWgsFieldsOnly()
    {
        Serve("wg7", Get1, salvo: null);

        var json = Show(new ShowArguments("wg7", Json: true));

        using var document = System.Text.Json.JsonDocument.Parse(json);
        var tunnel = Assert.Single(document.RootElement.EnumerateArray());
        Assert.Equal("wg7", tunnel.GetProperty("interface").GetString());
        Assert.False(tunnel.GetProperty("salvo").GetBoolean());
        Assert.Equal(740, tunnel.GetProperty("peers")[0].GetProperty("sentBytes").GetInt64());
        Assert.False(tunnel.GetProperty("peers")[0].TryGetProperty("initiationsSent", out _));
    }

    [LinuxOnlyFact]
    public void Show_EveryTunnelInNameOrder_SocketLeftByAGoneDaemonSkipped()
    {
        Serve("salvo1", Get1, GetSalvo(0));
        Serve("salvo0", Get1, salvo: null);
        using (var gone = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified))
        {
            gone.Bind(new UnixDomainSocketEndPoint(Path.Combine(_folder, "salvo5.sock")));
        }

        Assert.Equal(["salvo0", "salvo1"], ShowCommand.Read(_folder, only: null, DateTimeOffset.UtcNow).Select(s => s.Interface));
        var error = Assert.Throws<DaemonException>(() => ShowCommand.Read(_folder, "salvo5", DateTimeOffset.UtcNow));
        Assert.Equal("show: IFACE: no running tunnel 'salvo5'", error.Message);
        Assert.Empty(ShowCommand.Read(Path.Combine(_folder, "never-made"), only: null, DateTimeOffset.UtcNow));
    }

    [LinuxOnlyFact]
    public void Show_AnswerLineThatDoesNotParse_NamesTheKeyNeverTheValue()
    {
        var secret = Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().Bytes);
        Serve("salvo0", $"private_key={secret}zz\nerrno=0\n\n", salvo: null);

        var error = Assert.Throws<DaemonException>(() => ShowCommand.Read(_folder, "salvo0", DateTimeOffset.UtcNow));

        Assert.Equal("show: salvo0: the wg control socket answered a private_key line that does not parse", error.Message);
        Assert.DoesNotContain(secret, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Show_NotRoot_SaysTheSocketIsRootOnlyAndHowToRun()
    {
        var message = ControlSocketSession.RootOnly("/var/run/wireguard/wg0.sock");
        Assert.Equal("show: the wg control socket /var/run/wireguard/wg0.sock is root-only (mode 0600, as wireguard-go makes it); run 'sudo wireguard-salvo show'", message);
    }

    private string Show(ShowArguments arguments)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        Assert.Equal(0, ShowCommand.Run(arguments, new DaemonConsole(output, error), _folder));
        return output.ToString();
    }

    private void Serve(string name, string get1, string? salvo) =>
        _daemons.Add(new ScriptedDaemon(Path.Combine(_folder, name + ".sock"), get1, salvo));

    /// <summary>Answers get=1 with <c>get1</c>, and get=salvo with <c>salvo</c> or, when null, by closing (as wireguard-go does).</summary>
    private sealed class ScriptedDaemon : IDisposable
    {
        private readonly Socket _listener = new(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        private readonly Task _serving;

        public ScriptedDaemon(string path, string get1, string? salvo)
        {
            _listener.Bind(new UnixDomainSocketEndPoint(path));
            _listener.Listen(8);
            _serving = Task.Run(() => ServeAsync(get1, salvo));
        }

        public void Dispose()
        {
            _listener.Dispose();
            _serving.Wait(TimeSpan.FromSeconds(5));
        }

        private async Task ServeAsync(string get1, string? salvo)
        {
            while (true)
            {
                Socket client;
                try
                {
                    client = await _listener.AcceptAsync();
                }
                catch (Exception e) when (e is SocketException or ObjectDisposedException)
                {
                    return;
                }

                using (client)
                using (var reader = new StreamReader(new NetworkStream(client), Encoding.ASCII))
                {
                    // At most two requests a connection: get=1, then get=salvo.
                    for (var request = 0; request < 2; request++)
                    {
                        var line = await reader.ReadLineAsync();
                        await reader.ReadLineAsync();
                        var answer = line switch
                        {
                            "get=1" => get1,
                            "get=salvo" => salvo,
                            _ => null,
                        };
                        if (answer is null)
                        {
                            break;
                        }

                        await client.SendAsync(Encoding.ASCII.GetBytes(answer));
                    }
                }
            }
        }
    }
}
