using System.Text;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>Whole requests only, lines within the limit, and nothing from a request's values in the log.</summary>
public sealed class ControlSocketRequestTests : IDisposable
{
    private readonly UapiTestDevice _lab = new();

    public void Dispose() => _lab.Dispose();

    [Fact]
    public void Set_CutOffBeforeItsBlankLine_ChangesNothingAndAnswersNothing()
    {
        var before = _lab.Get();
        var newPeer = Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes);
        using var client = new UapiClient(_lab.Path);
        client.SendRaw(Encoding.ASCII.GetBytes($"set=1\nreplace_peers=true\npublic_key={newPeer}\nallowed_ip=198.19.5.0/24\n"));
        client.EndSending();

        Assert.Equal(string.Empty, client.ReadUntilClosed(TimeSpan.FromSeconds(10)));
        Assert.Equal(before, _lab.Get());
        Assert.Single(_lab.Device.Engine.GetPeers());
        Assert.Equal(1, _lab.Control.Counters[UapiRefusal.Incomplete]);
    }

    [Fact]
    public void Set_LineOverTheLimit_AnswersEioAndChangesNothing()
    {
        var before = _lab.Get();
        using var client = new UapiClient(_lab.Path);
        var padded = "persistent_keepalive_interval=" + new string('0', 4097 - 32) + "25";
        client.SendRaw(Encoding.ASCII.GetBytes($"set=1\npublic_key={UapiClient.Hex(_lab.PeerKey)}\n{padded}\n\n"));

        Assert.Equal("errno=-5\n\n", client.ReadUntilClosed(TimeSpan.FromSeconds(10)));
        Assert.Equal(before, _lab.Get());
        Assert.Equal(1, _lab.Control.Counters[UapiRefusal.LineTooLong]);
    }

    [Fact]
    public void Set_OverTheRequestSize_AnswersEmsgsizeAndCloses()
    {
        using var small = new UapiTestDevice(UapiLimits.Default with { MaxRequestBytes = 64 << 10 });
        using var client = new UapiClient(small.Path);
        var lines = new StringBuilder("set=1\n");
        while (lines.Length < 100_000)
        {
            lines.Append("listen_port=0\n");
        }

        client.SendRaw(Encoding.ASCII.GetBytes(lines.ToString()));
        Assert.Equal("errno=-90\n\n", client.ReadUntilClosed(TimeSpan.FromSeconds(10)));
        Assert.Equal(1, small.Control.Counters[UapiRefusal.RequestTooLarge]);
        Assert.EndsWith("errno=0\n", small.Get(), StringComparison.Ordinal);
    }

    [Fact]
    public void Set_BadLine_IsDrainedToItsBlankLineAndTheConnectionGoesOn()
    {
        using var client = new UapiClient(_lab.Path);
        Assert.Equal("errno=-71\n", client.Send("set=1\nnot a line\nlisten_port=0\nmore=1\n\n"));
        Assert.Equal("errno=-22\n", client.Send("set=1\nmtu=1420\n\n"));
        Assert.EndsWith("errno=0\n", client.Send("get=1\n\n"), StringComparison.Ordinal);
        Assert.Equal(1, _lab.Control.Counters[UapiRefusal.Malformed]);
        Assert.Equal(1, _lab.Control.Counters[UapiRefusal.Invalid]);
    }

    [Fact]
    public void Set_CarriageReturnLineEnds_AreReadAsWireGuardGoReadsThem()
    {
        // bufio.ScanLines drops a '\r' before each '\n'.
        Assert.Equal("errno=0\n", UapiClient.Request(_lab.Path, $"set=1\npublic_key={UapiClient.Hex(_lab.PeerKey)}\r\npersistent_keepalive_interval=7\r\n\r\n"));
        Assert.Equal(["7"], UapiClient.Values(_lab.Get(), "persistent_keepalive_interval"));
    }

    [Fact]
    public void Set_KeyMaterialInBadLines_NeverReachesTheLog()
    {
        var key = Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().Bytes);
        var badHex = key[..63] + "g";
        var peer = $"public_key={UapiClient.Hex(_lab.PeerKey)}\n";
        string[] requests =
        [
            $"private_key:{key}\n",
            $"private_key={badHex}\n",
            $"private_key={key}0\n",
            $"private_key {key}\n",
            $"{key}=1\n",
            $"{peer}preshared_key={badHex}\n",
            $"{peer}preshared_key:{key}\n",
            $"{peer}{key}\n",
            $"{peer}endpoint={key}\n",
            $"{peer}allowed_ip={key}\n",
            $"{peer}persistent_keepalive_interval={key}\n",
            $"listen_port={key}\n",
            $"fwmark={key}\n",
            $"replace_peers={key}\n",
            $"public_key={badHex}\n",
            $"{peer}protocol_version={key}\n",
        ];

        foreach (var request in requests)
        {
            Assert.StartsWith("errno=-", UapiClient.Request(_lab.Path, $"set=1\n{request}\n"), StringComparison.Ordinal);
        }

        Assert.Equal(requests.Length, _lab.Log.Entries.Count);
        foreach (var entry in _lab.Log.Entries)
        {
            // No run of 16 hex digits of the key, nor of the bad one, in any entry.
            for (var start = 0; start + 16 <= key.Length; start += 8)
            {
                Assert.DoesNotContain(key.Substring(start, 16), entry, StringComparison.OrdinalIgnoreCase);
                Assert.DoesNotContain(badHex.Substring(start, 16), entry, StringComparison.OrdinalIgnoreCase);
            }
        }

        Assert.Contains(_lab.Log.Entries, entry => entry.Contains("line 1: <malformed line>", StringComparison.Ordinal));
        Assert.Contains(_lab.Log.Entries, entry => entry.Contains("line 2: preshared_key must be 64 hex digits", StringComparison.Ordinal));
    }

    [Fact]
    public void Get_FollowedByAnythingButABlankLine_IsRefused()
    {
        using var client = new UapiClient(_lab.Path);
        client.SendRaw("get=1\nx\n"u8.ToArray());
        Assert.Equal("errno=-22\n\n", client.ReadUntilClosed(TimeSpan.FromSeconds(10)));
    }
}
