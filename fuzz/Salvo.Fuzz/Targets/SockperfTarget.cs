using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// What a stock sockperf peer sends: the 14-byte header (<see cref="SockperfHeader.TryRead"/>), the server's verdict
/// on a datagram and its reply, the sniff of a TCP connection's first bytes, and the client's reading of an answer
/// (<see cref="SockperfRrCodec.ReadResponse"/>). Refusals are status values; nothing may throw.
/// </summary>
public sealed class SockperfTarget : IFuzzTarget
{
    private static readonly SockperfRrCodec s_codec = new(requestBytes: 64, outstanding: 4);

    public string Name => "sockperf";

    public string Description => "sockperf header, server verdict and reply, TCP sniff, ping-pong answers";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (SockperfHeader.TryRead(input, out var header) == SockperfHeaderError.None)
        {
            _ = header.IsClient && header.IsPongRequest && header.IsWarmup;
        }

        if (SockperfServerRules.DecideDatagram(input) == SockperfVerdict.Reply)
        {
            SockperfServerRules.WriteReply(input, new byte[input.Length]);
        }

        _ = SockperfServerRules.Sniff(input);
        _ = s_codec.ReadResponse(input, out _);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        var request = new byte[s_codec.RequestBytes];
        s_codec.WriteRequest(request, slot: 1, sequence: 7, timeNanoseconds: 1_000_000);
        yield return ("ping-pong-request", request);
        var reply = new byte[request.Length];
        SockperfServerRules.WriteReply(request, reply);
        yield return ("ping-pong-reply", reply);
        yield return ("short", request[..SockperfHeader.Size]);
        yield return ("not-sockperf", "{\"type\":\"hello\"}"u8.ToArray());
    }
}
