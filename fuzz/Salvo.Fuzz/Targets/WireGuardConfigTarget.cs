using System.Text;
using Salvo.Tunnel.Configuration;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// A wg/wg-quick configuration file through <see cref="WireGuardConfigParser.Parse"/>, read as UTF-8 the way
/// <see cref="WireGuardConfigParser.ParseFile"/> reads it. Refusal: <see cref="TunnelConfigurationException"/>.
/// </summary>
public sealed class WireGuardConfigTarget : IFuzzTarget
{
    public string Name => "wg-config";

    public string Description => "wg setconf / wg-quick files through WireGuardConfigParser.Parse";

    public void Run(ReadOnlySpan<byte> input)
    {
        TunnelConfiguration configuration;
        try
        {
            configuration = WireGuardConfigParser.Parse(Encoding.UTF8.GetString(input));
        }
        catch (TunnelConfigurationException e) when (e.Message.Length > 0)
        {
            return;
        }

        // What parsed is used at once by the device: each value must be readable.
        _ = configuration.PrivateKey?.DerivePublicKey();
        foreach (var peer in configuration.Peers)
        {
            _ = peer.PublicKey.ToString();
            _ = peer.Endpoint?.ToString();
            _ = peer.AllowedIps.Sum(prefix => prefix.ToString().Length);
        }
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        const string Private = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
        const string Public = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
        yield return ("setconf", Encoding.UTF8.GetBytes(
            $"[Interface]\nPrivateKey = {Private}\nListenPort = 51820\nFwMark = 0x10\n\n" +
            $"[Peer]\nPublicKey = {Public}\nPresharedKey = {Private}\nAllowedIPs = 10.0.0.0/8, fd00::/64\nEndpoint = [::1]:51820\nPersistentKeepalive = 25\n"));
        yield return ("wg-quick", Encoding.UTF8.GetBytes(
            $"# a comment\n[Interface]\nAddress = 10.0.0.1/24, fd00::1/64\nPrivateKey = {Private}\nMTU = 1420\nTable = off\nDNS = 10.0.0.53\n" +
            $"PostUp = true\n\n[Peer]\nPublicKey = {Public}\nAllowedIPs = 0.0.0.0/0\nEndpoint = 127.0.0.1:51820\n"));
        yield return ("empty-peer", Encoding.UTF8.GetBytes($"[Interface]\nPrivateKey = {Private}\n[Peer]\n"));
        yield return ("crlf", Encoding.UTF8.GetBytes($"[Interface]\r\nPrivateKey = {Private}\r\n"));
    }
}
