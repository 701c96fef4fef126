using System.Net;
using Salvo.Pal;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// An Ethernet frame from an AF_XDP receive ring through <see cref="UdpFrameParser.TryParse"/>, with and without the
/// UDP checksum check. Refusal: a status other than <see cref="UdpFrameStatus.Ok"/>. A frame that parses must name a
/// payload inside itself.
/// </summary>
public sealed class XdpFrameTarget : IFuzzTarget
{
    public string Name => "xdp-frame";

    public string Description => "AF_XDP Ethernet/IPv4/IPv6/UDP frames through UdpFrameParser.TryParse";

    public void Run(ReadOnlySpan<byte> input)
    {
        foreach (var verify in (ReadOnlySpan<bool>)[true, false])
        {
            if (UdpFrameParser.TryParse(input, out var parsed, verify) == UdpFrameStatus.Ok)
            {
                _ = parsed.Payload(input);
                _ = parsed.Source.ToString();
                _ = parsed.Destination.ToString();
            }
        }
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        yield return ("ipv4", Frame("127.0.0.1", "127.0.0.2", 32));
        yield return ("ipv4-empty", Frame("127.0.0.1", "127.0.0.2", 0));
        yield return ("ipv6", Frame("::1", "fd00::2", 48));
        yield return ("truncated", Frame("127.0.0.1", "127.0.0.2", 32)[..20]);
    }

    private static byte[] Frame(string source, string destination, int payload)
    {
        var from = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse(source), 40000));
        var to = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse(destination), 5201));
        var frame = new byte[UdpFrame.HeaderLength(from.Family) + payload];
        for (var i = frame.Length - payload; i < frame.Length; i++)
        {
            frame[i] = (byte)i;
        }

        var length = UdpFrame.Write(frame, MacAddress.Parse("02:00:00:00:00:01"), MacAddress.Parse("02:00:00:00:00:02"), from, to, payload, trafficClass: 0x10);
        return frame[..length];
    }
}
