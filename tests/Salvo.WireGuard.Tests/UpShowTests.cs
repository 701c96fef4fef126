using System.Net;
using Salvo.WireGuard.Status;
using Salvo.WireGuard.Linux;
using Salvo.Tunnel;
using Salvo.Tunnel.Routing;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>wireguard-salvo up</c>'s refusals before it opens a device (so no root is needed), and what <c>wireguard-salvo show</c>
/// prints from the status files.
/// </summary>
public sealed class UpShowTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-tunnel-test-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public void Routes_AreTheAllowedPrefixesOnce_WithoutDefaultRoutes()
    {
        var configuration = Salvo.Tunnel.Configuration.WireGuardConfigParser.Parse(
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.0.2/32, 198.19.5.0/24, 0.0.0.0/0\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.5.0/24, 2001:db8::/64, ::/0\n");

        var (routes, leftOut) = TunnelRoutes.For(configuration);

        Assert.Equal(["198.19.0.2/32", "198.19.5.0/24", "2001:db8::/64"], routes.Select(r => r.ToString()));
        Assert.Equal(["0.0.0.0/0", "::/0"], leftOut.Select(r => r.ToString()));
    }

    /// <summary>The kernel routes the interface's own address prefixes through it already: a peer prefix inside one needs no route.</summary>
    [Fact]
    public void Routes_InsideTheInterfacesOwnPrefix_AreLeftToTheKernel()
    {
        var configuration = Salvo.Tunnel.Configuration.WireGuardConfigParser.Parse(
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nAddress = 10.0.0.1/8, fd00:5a1::1/64\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 10.1.2.3/32, 10.9.0.0/16, fd00:5a1::2/128\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 11.0.0.2/32, 10.0.0.0/7, fd00:5a2::2/128\n");

        var (routes, _) = TunnelRoutes.For(configuration);

        Assert.Equal(["11.0.0.2/32", "10.0.0.0/7", "fd00:5a2::2/128"], routes.Select(r => r.ToString()));
    }

    [Fact]
    public void Routes_TableOff_AreNone()
    {
        var configuration = Salvo.Tunnel.Configuration.WireGuardConfigParser.Parse(
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nTable = off\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.0.2/32, 0.0.0.0/0\n");

        var (routes, leftOut) = TunnelRoutes.For(configuration);

        Assert.Empty(routes);
        Assert.Empty(leftOut);
    }

    /// <summary>A table of its own takes the default routes too, as wg-quick adds them there; the rules that use it are the user's.</summary>
    [Fact]
    public void Routes_TableNumber_AreEveryPrefixDefaultRoutesIncluded()
    {
        var configuration = Salvo.Tunnel.Configuration.WireGuardConfigParser.Parse(
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nTable = 1234\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.0.2/32, 0.0.0.0/0, ::/0\n");

        var (routes, leftOut) = TunnelRoutes.For(configuration);

        Assert.Equal(["198.19.0.2/32", "0.0.0.0/0", "::/0"], routes.Select(r => r.ToString()));
        Assert.Empty(leftOut);
    }

    [Fact]
    public async Task Up_MissingConfig_NamesTheFile()
    {
        var missing = Path.Combine(_folder, "absent.conf");

        var (exit, _, error) = await Daemon.RunAsync("up", missing);

        Assert.NotEqual(0, exit);
        Assert.Contains($"up: CONFIG: no such file '{missing}'", error, StringComparison.Ordinal);
    }

    /// <summary>A bad value, and a wg-quick key 'up' cannot honour, are refused naming the file, line and key, not ignored.</summary>
    [RequiresTheory(Requirement.Linux)]
    [InlineData("ListenPort = 70000", "up: salvo9.conf: line 3: ListenPort")]
    [InlineData("DNS = 198.18.0.53", "up: salvo9.conf: line 3: DNS: is done by wg-quick itself")]
    [InlineData("PostUp = true", "up: salvo9.conf: line 3: PostUp: is done by wg-quick itself")]
    [InlineData("Table = main", "up: salvo9.conf: line 3: Table: must be off, auto or a routing table's number")]
    public async Task Up_BadConfig_NamesTheFileLineAndKey(string line, string expected)
    {
        var file = WriteConfig("salvo9.conf", $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n{line}\n");

        var (exit, _, error) = await Daemon.RunAsync("up", file);

        Assert.NotEqual(0, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    /// <summary>A private key pasted on the wrong line is refused naming the line and key, and never printed, in base64 or hex.</summary>
    [RequiresTheory(Requirement.Linux)]
    [InlineData("MTU")]
    [InlineData("Address")]
    [InlineData("ListenPort")]
    public async Task Up_PrivateKeyOnAnotherKeysLine_IsNotPrinted(string key)
    {
        var secret = WireGuardKey.GeneratePrivateKey().ToString();
        var file = WriteConfig("salvo9.conf", $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n{key} = {secret}\n");

        var (exit, output, error) = await Daemon.RunAsync("up", file);

        Assert.NotEqual(0, exit);
        Assert.Contains($"up: salvo9.conf: line 3: {key}: ", error, StringComparison.Ordinal);
        Assert.DoesNotContain(secret.TrimEnd('='), output + error, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(Convert.FromBase64String(secret)), output + error, StringComparison.OrdinalIgnoreCase);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("up: -t: '0' is not a number of seconds above 0", "-t", "0")]
    [InlineData("up: --duration: '0' is not a number of seconds above 0", "--duration", "0")]
    [InlineData("up: --name: 'a-sixteen-chars!' is 16 characters; an interface name is 1 to 15", "--name", "a-sixteen-chars!", "-t", "1")]
    public async Task Up_BadOption_IsRefusedNamingIt(string expected, params string[] options)
    {
        var file = WriteConfig("salvo9.conf", ValidConfig());

        var (exit, _, error) = await Daemon.RunAsync(["up", file, .. options]);

        Assert.NotEqual(0, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("")]
    [InlineData("# to be written\n\n")]
    public async Task Up_EmptyConfig_SaysTheFileIsEmpty(string text)
    {
        var file = WriteConfig("empty.conf", text);

        var (exit, _, error) = await Daemon.RunAsync("up", file);

        Assert.NotEqual(0, exit);
        Assert.Contains("up: empty.conf: the file is empty", error, StringComparison.Ordinal);
        Assert.DoesNotContain("line 0", error, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Up_FileNameTooLongForAnInterface_SaysToRenameOrGiveName()
    {
        var file = WriteConfig("a-very-long-tunnel.conf", ValidConfig());

        var (exit, _, error) = await Daemon.RunAsync("up", file, "-t", "1");

        Assert.NotEqual(0, exit);
        Assert.Contains("up: CONFIG: the interface is named after the file: 'a-very-long-tunnel' is 18 characters", error, StringComparison.Ordinal);
        Assert.Contains("--name", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("-x")]
    [InlineData("-")]
    [InlineData("wg\u00e9t\u00e9")]
    [InlineData("\u0442\u0443\u043d\u043d\u0435\u043b\u044c")]
    public async Task Userspace_NameTheKernelOrThisCliRefuses_FailsAtOnceNamingTheArgument(string name)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();

        var (exit, _, error) = await Daemon.RunAsync(name);

        Assert.Equal(2, exit);
        Assert.Contains("IFACE: '", error, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"took {clock.Elapsed}");
    }

    [Theory]
    [InlineData("salvo0", null)]
    [InlineData("abcdefghijklmno", null)]
    [InlineData("", "is 0 characters")]
    [InlineData("abcdefghijklmnop", "is 16 characters")]
    [InlineData("..", "is not an interface name")]
    [InlineData("a/b", "'/', ':' or whitespace")]
    [InlineData("a:b", "'/', ':' or whitespace")]
    [InlineData("a b", "'/', ':' or whitespace")]
    [InlineData("wg\u00e9", "other than printable ASCII")]
    [InlineData("\u0442\u0443\u043d\u043d\u0435\u043b\u044c", "other than printable ASCII")]
    [InlineData("a\u0001", "other than printable ASCII")]
    [InlineData("-x", "starts with '-'")]
    [InlineData("-", "starts with '-'")]
    public void InterfaceName_FollowsTheKernelsRules(string name, string? expected)
    {
        var problem = TunInterfaceName.Problem(name);

        if (expected is null)
        {
            Assert.Null(problem);
        }
        else
        {
            Assert.Contains(expected, problem, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void StatusText_LaysOutInterfaceAndPeersLikeWgShow()
    {
        var key = WireGuardKey.GeneratePrivateKey();
        var peerKey = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var now = new DateTimeOffset(2026, 11, 24, 12, 0, 0, TimeSpan.Zero);
        var peers = new[]
        {
            new PeerStatus(peerKey, new IPEndPoint(IPAddress.Parse("198.18.0.2"), 51820),
                [IPPrefix.Parse("198.19.0.2/32"), IPPrefix.Parse("fd00::/64")], now.AddSeconds(-42), 2048, 1024, TimeSpan.FromSeconds(25), HasSession: true),
            new PeerStatus(WireGuardKey.GeneratePrivateKey().DerivePublicKey(), null, [], null, 0, 0, null, HasSession: false),
        };

        var text = TunnelStatusText.Format("salvo0", key.DerivePublicKey(), 51820, peers, now);

        var expected =
            $"interface: salvo0\n  public key: {key.DerivePublicKey()}\n  listening port: 51820\n" +
            $"\npeer: {peerKey}\n  endpoint: 198.18.0.2:51820\n  path: udp\n  allowed ips: 198.19.0.2/32, fd00::/64\n" +
            "  latest handshake: 42 seconds ago\n  transfer: 2048 B received, 1024 B sent\n  persistent keepalive: every 25 seconds\n" +
            $"\npeer: {peers[1].PublicKey}\n  allowed ips: (none)\n  transfer: 0 B received, 0 B sent\n";
        Assert.Equal(expected, text);
    }

    [Fact]
    public void StatusText_PeerOnTcp_ShowsThePathAndWhyItChanged()
    {
        var now = new DateTimeOffset(2026, 11, 24, 12, 0, 0, TimeSpan.Zero);
        var peer = new PeerStatus(WireGuardKey.GeneratePrivateKey().DerivePublicKey(), new IPEndPoint(IPAddress.Parse("198.18.0.2"), 51820), [], null, 0, 0, null, HasSession: true)
        {
            Path = Salvo.Tunnel.Paths.TunnelPath.Tcp,
            PathChanged = now.AddSeconds(-7),
            PathReason = "a handshake went unanswered",
        };

        var text = TunnelStatusText.Format("salvo0", WireGuardKey.GeneratePrivateKey().DerivePublicKey(), 51820, [peer], now);

        Assert.Contains("  endpoint: 198.18.0.2:51820\n  path: tcp (since 7 seconds ago: a handshake went unanswered)\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void StatusText_HandshakeStampedAfterNow_ReadsZeroSecondsAgo()
    {
        var now = new DateTimeOffset(2026, 11, 24, 12, 0, 0, TimeSpan.Zero);
        var peer = new PeerStatus(WireGuardKey.GeneratePrivateKey().DerivePublicKey(), null, [], now.AddSeconds(2), 0, 0, null, HasSession: true);

        var text = TunnelStatusText.Format("salvo0", WireGuardKey.GeneratePrivateKey().DerivePublicKey(), 1, [peer], now);

        Assert.Contains("  latest handshake: 0 seconds ago\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void StatusFiles_EveryInterfaceInNameOrder()
    {
        WriteStatus("salvo1");
        WriteStatus("salvo0");

        Assert.Equal(["salvo0", "salvo1"], TunnelStatusFiles.Read(_folder, only: null).Select(s => s.Interface));
    }

    [Fact]
    public void StatusFiles_OnlyTheNamedInterface()
    {
        WriteStatus("salvo1");
        WriteStatus("salvo0");

        Assert.Equal(["salvo1"], TunnelStatusFiles.Read(_folder, "salvo1").Select(s => s.Interface));
    }

    [Fact]
    public void StatusFiles_NoneRunning_IsEmpty() =>
        Assert.Empty(TunnelStatusFiles.Read(Path.Combine(_folder, "never-made"), only: null));

    [Fact]
    public void StatusFiles_UnknownName_IsAnErrorNamingIt()
    {
        WriteStatus("salvo0");

        var error = Assert.Throws<DaemonException>(() => TunnelStatusFiles.Read(_folder, "salvo7"));

        Assert.Equal("show: IFACE: no running tunnel 'salvo7'", error.Message);
        Assert.Equal(DaemonException.FailureExitCode, error.ExitCode);
    }

    [Fact]
    public void StatusFiles_LeftByAKilledProcess_AreNotShown()
    {
        // A killed 'up' cannot delete its file; it stops rewriting it every second.
        WriteStatus("salvo0");
        var stale = WriteStatus("salvo1");
        File.SetLastWriteTimeUtc(stale, DateTime.UtcNow - TunnelStatusFiles.StaleAfter - TimeSpan.FromSeconds(1));

        Assert.Equal(["salvo0"], TunnelStatusFiles.Read(_folder, only: null).Select(s => s.Interface));
        Assert.Throws<DaemonException>(() => TunnelStatusFiles.Read(_folder, "salvo1"));
    }

    [Fact]
    public void StatusText_Drops_ListedByReasonAfterThePort()
    {
        var now = new DateTimeOffset(2026, 11, 24, 12, 0, 0, TimeSpan.Zero);
        var status = Status("salvo0", now) with { CookieRepliesSent = 7, Dropped = Dropped((TunnelDropReason.CookieRequired, 7), (TunnelDropReason.HandshakeRateLimited, 40)) };

        var text = TunnelStatusText.Format(status, now);

        Assert.Contains("  listening port: 51820\n  cookie replies sent: 7\n  dropped: CookieRequired 7, HandshakeRateLimited 40\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void StatusText_TcpFallbackStrangersClosed_ListedAmongTheDrops()
    {
        var now = new DateTimeOffset(2026, 11, 28, 12, 0, 0, TimeSpan.Zero);
        var status = Status("salvo0", now) with
        {
            Dropped = Dropped((TunnelDropReason.Malformed, 1000), (TunnelDropReason.TcpUnauthenticatedTimeout, 24), (TunnelDropReason.TcpSourceLimit, 6), (TunnelDropReason.TcpUnauthenticatedEvicted, 3744)),
        };

        var text = TunnelStatusText.Format(status, now);

        Assert.Contains("  dropped: Malformed 1000, TcpUnauthenticatedTimeout 24, TcpSourceLimit 6, TcpUnauthenticatedEvicted 3744\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Show_Json_IsOneDocument_EveryDropReasonCounted()
    {
        var now = DateTimeOffset.UtcNow;
        using (var directory = StatusDirectory.Open(_folder))
        {
            Assert.Null(TunnelStatusFiles.Write(directory, "salvo0", Status("salvo0", now) with { Dropped = Dropped((TunnelDropReason.ControlSendDropped, 3)) }));
        }



        var text = System.Text.Json.JsonSerializer.Serialize(TunnelStatusFiles.Read(_folder, only: null), StatusJson.Indented.IReadOnlyListTunnelStatusDocument);

        using var json = System.Text.Json.JsonDocument.Parse(text);
        var tunnel = Assert.Single(json.RootElement.EnumerateArray());
        Assert.Equal("salvo0", tunnel.GetProperty("interface").GetString());
        var dropped = tunnel.GetProperty("dropped");
        Assert.Equal(Enum.GetNames<TunnelDropReason>().Order(), dropped.EnumerateObject().Select(p => p.Name).Order());
        Assert.Equal(3, dropped.GetProperty("ControlSendDropped").GetInt64());
    }

    private static TunnelStatusDocument Status(string name, DateTimeOffset now) =>
        TunnelStatusDocument.From(name, WireGuardKey.GeneratePrivateKey().DerivePublicKey(), 51820, [], counters: null, now);

    private static Dictionary<string, long> Dropped(params (TunnelDropReason Reason, long Count)[] counts) =>
        Enum.GetValues<TunnelDropReason>().ToDictionary(r => r.ToString(), r => counts.Where(c => c.Reason == r).Sum(c => c.Count));

    private string WriteStatus(string name)
    {
        using var directory = StatusDirectory.Open(_folder);
        Assert.Null(TunnelStatusFiles.Write(directory, name, Status(name, DateTimeOffset.UtcNow)));
        return Path.Combine(_folder, name);
    }

    private static string ValidConfig() =>
        $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\n\n[Peer]\n" +
        $"PublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.0.2/32\n";

    private string WriteConfig(string name, string text)
    {
        var file = Path.Combine(_folder, name);
        File.WriteAllText(file, text);
        return file;
    }
}
