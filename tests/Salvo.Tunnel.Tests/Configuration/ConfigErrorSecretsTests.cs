using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Tests.Configuration;

/// <summary>
/// A private key pasted on the wrong line is refused without being repeated: the error names the line, the key and the
/// form expected, and the terminal and logs it reaches never hold the key, in base64 or in hex.
/// </summary>
public sealed class ConfigErrorSecretsTests
{
    private static readonly string s_peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey().ToString();

    public static TheoryData<string, string> EveryKey => new()
    {
        { "Interface", "PrivateKey" },
        { "Interface", "ListenPort" },
        { "Interface", "FwMark" },
        { "Interface", "Address" },
        { "Interface", "MTU" },
        { "Interface", "Table" },
        { "Interface", "TcpFallbackProbeAfterMs" },
        { "Interface", "TcpFallbackProbeTimeoutMs" },
        { "Interface", "DNS" },
        { "Interface", "PreUp" },
        { "Interface", "PostUp" },
        { "Interface", "PreDown" },
        { "Interface", "PostDown" },
        { "Interface", "SaveConfig" },
        { "Interface", "NoSuchKey" },
        { "Peer", "PublicKey" },
        { "Peer", "PresharedKey" },
        { "Peer", "AllowedIPs" },
        { "Peer", "Endpoint" },
        { "Peer", "PersistentKeepalive" },
        { "Peer", "TcpFallback" },
        { "Peer", "NoSuchKey" },
    };

    [Theory]
    [MemberData(nameof(EveryKey))]
    public void Parse_PrivateKeyAsTheValueOfAnyKey_NeverInTheMessage(string section, string key)
    {
        var secret = WireGuardKey.GeneratePrivateKey();
        foreach (var value in Values(secret))
        {
            var message = ErrorOf(File(section, $"{key} = {value}"));

            AssertKeyAbsent(secret, message);
        }
    }

    [Theory]
    [InlineData("MTU")]
    [InlineData("ListenPort")]
    [InlineData("FwMark")]
    [InlineData("Table")]
    [InlineData("Address")]
    public void Parse_PrivateKeyOnAnInterfaceLine_NamesLineKeyAndForm(string key)
    {
        var secret = WireGuardKey.GeneratePrivateKey();

        var message = ErrorOf(File("Interface", $"{key} = {secret}"));

        Assert.StartsWith($"line 3: {key}: ", message, StringComparison.Ordinal);
        Assert.Contains("must be", message, StringComparison.Ordinal);
        Assert.Contains("44 characters; not shown", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_PrivateKeyAsASection_NeverInTheMessage()
    {
        var secret = WireGuardKey.GeneratePrivateKey();

        var message = ErrorOf($"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n[{secret}]\n");

        Assert.Contains("unknown section", message, StringComparison.Ordinal);
        AssertKeyAbsent(secret, message);
    }

    /// <summary>Short values cannot hold a key, and quoting them is what makes the error useful.</summary>
    [Theory]
    [InlineData("MTU = 15OO", "not '15OO'")]
    [InlineData("Table = main", "not 'main'")]
    [InlineData("Address = 198.19.0.1/33", "item 1 must be an IP address with an optional /length")]
    public void Parse_ShortBadValue_IsQuoted(string line, string expected)
    {
        var message = ErrorOf(File("Interface", line));

        Assert.Contains(expected, message, StringComparison.Ordinal);
    }

    /// <summary>The key whole, in hex, as one item of a list, and glued to a port: every way it could land on a line.</summary>
    private static IEnumerable<string> Values(WireGuardKey secret)
    {
        var text = secret.ToString();
        var hex = Convert.ToHexString(Convert.FromBase64String(text));
        return [text, hex, hex.ToLowerInvariant(), $"198.19.0.1/32, {text}", $"{text}:51820", $"[{text}]:51820", $"{text}/24", text.TrimEnd('=')];
    }

    private static string File(string section, string line) =>
        section == "Interface"
            ? $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n{line}\n"
            : $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\n[Peer]\nPublicKey = {s_peer}\n{line}\n";

    /// <summary>The parse error's message and then all of the exception as a log would print it; empty where the value was taken (a key on a key's line).</summary>
    private static string ErrorOf(string text)
    {
        try
        {
            WireGuardConfigParser.Parse(text);
            return string.Empty;
        }
        catch (TunnelConfigurationException e)
        {
            return e.Message + "\n" + e;
        }
    }

    private static void AssertKeyAbsent(WireGuardKey secret, string message)
    {
        var text = secret.ToString();
        var hex = Convert.ToHexString(Convert.FromBase64String(text));
        Assert.DoesNotContain(text.TrimEnd('='), message, StringComparison.Ordinal);
        Assert.DoesNotContain(hex, message, StringComparison.OrdinalIgnoreCase);

        // No run of a quarter of the key either (11 characters, 66 bits), so no error leaks a usable part of it.
        for (var start = 0; start + 11 <= text.Length - 1; start++)
        {
            Assert.DoesNotContain(text.Substring(start, 11), message, StringComparison.Ordinal);
        }
    }
}
