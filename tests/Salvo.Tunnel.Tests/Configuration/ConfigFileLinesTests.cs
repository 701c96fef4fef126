using System.Text;
using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Tests.Configuration;

/// <summary>
/// A file is read a buffer at a time rather than whole: its lines are still exactly what splitting the text on '\n'
/// gave (a lone '\r' ends no line, a '\r' before '\n' stays for the trim), across buffer boundaries too, so every line
/// number in an error stays the same.
/// </summary>
public sealed class ConfigFileLinesTests
{
    private static readonly string s_private = WireGuardKey.GeneratePrivateKey().ToString();

    public static TheoryData<string> Texts()
    {
        var longLine = new string('x', ConfigLines.BufferChars - 3);
        return new TheoryData<string>
        {
            string.Empty,
            "\n",
            "a",
            "a\n",
            "a\r\nb\r\n",
            "a\rb\nc",
            "\n\n\r\n",
            longLine + "\n" + longLine + "\nend",
            longLine + "abc\ndef\n",
            new string('\n', ConfigLines.BufferChars + 5),
        };
    }

    [Theory]
    [MemberData(nameof(Texts))]
    public void Split_AnyText_SameLinesAsSplittingOnNewline(string text)
    {
        Assert.Equal(text.Split('\n'), ConfigLines.Split(new StringReader(text)));
    }

    [Fact]
    public void ParseFile_LoneCarriageReturn_SameErrorLineAsParse()
    {
        // "ListenPort = 1\rMTU = 1400" is one line to wg's split on '\n' (a bad port), where ReadLine would make it two.
        var text = $"[Interface]\r\nPrivateKey = {s_private}\r\nListenPort = 1\rMTU = 1400\n";
        var path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, text, new UTF8Encoding(encoderShouldEmitUTF8Identifier: true));
            var fromText = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse(text));
            var fromFile = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.ParseFile(path));
            Assert.Equal(fromText.Message, fromFile.Message);
            Assert.Equal(3, fromFile.Line);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void ParseFile_ManyPeers_SameConfigurationAsParse()
    {
        var text = new StringBuilder($"[Interface]\nPrivateKey = {s_private}\nListenPort = 51820\n");
        for (var i = 0; i < 3_000; i++)
        {
            text.Append($"\n[Peer]\nPublicKey = {WireGuardKey.GeneratePresharedKey()}\nAllowedIPs = 10.0.{i >> 8}.{i & 255}/32\nEndpoint = 127.0.0.1:{10_000 + i}\n");
        }

        var path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, text.ToString());
            var fromText = WireGuardConfigParser.Parse(text.ToString());
            var fromFile = WireGuardConfigParser.ParseFile(path);
            Assert.Equal(
                fromText.Peers.Select(p => $"{p.PublicKey} {string.Join(',', p.AllowedIps)} {p.Endpoint}"),
                fromFile.Peers.Select(p => $"{p.PublicKey} {string.Join(',', p.AllowedIps)} {p.Endpoint}"));
        }
        finally
        {
            File.Delete(path);
        }
    }
}
