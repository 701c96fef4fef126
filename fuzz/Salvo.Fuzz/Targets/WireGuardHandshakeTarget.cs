namespace Salvo.Fuzz.Targets;

/// <summary>
/// Handshake messages through the engine's datagram receive. The first byte picks what the rest of the input is:
/// 0, a raw datagram to Bob; 1, a mask XORed over Alice's real initiation before Bob takes it; 2, a mask over Bob's
/// real response before Alice takes it; 3, a mask over Bob's real cookie reply (Bob under load) before Alice takes
/// it, after which Alice initiates again with the cookie. A mask of zeros is the valid message, so afl starts from
/// messages that pass MAC1 and decrypt, and reaches the checks behind them.
/// </summary>
public sealed class WireGuardHandshakeTarget : IFuzzTarget
{
    private const int Modes = 4;

    public string Name => "wg-handshake";

    public string Description => "WireGuard initiation, response and cookie reply through TunnelEngine.ReceiveDatagram";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        using var pair = new WireGuardPair();
        var rest = input[1..];
        switch (input[0] % Modes)
        {
            case 0:
                pair.Bob.ReceiveDatagram(rest.ToArray(), WireGuardPair.AliceSource, pair.BobOut);
                break;
            case 1:
                pair.Bob.ReceiveDatagram(WireGuardPair.Mask(pair.AliceInitiation(), rest), WireGuardPair.AliceSource, pair.BobOut);
                break;
            case 2:
                var response = pair.BobAnswer(pair.AliceInitiation());
                pair.Alice.ReceiveDatagram(WireGuardPair.Mask(response, rest), WireGuardPair.BobSource, pair.AliceOut);
                break;
            default:
                pair.Bob.UnderLoad = true;
                var cookie = pair.BobAnswer(pair.AliceInitiation());
                pair.Alice.ReceiveDatagram(WireGuardPair.Mask(cookie, rest), WireGuardPair.BobSource, pair.AliceOut);
                // The retry carries MAC2 from the cookie, if Alice took it: Bob checks it.
                pair.Clock.Advance(TimeSpan.FromSeconds(6));
                pair.Alice.Tick(pair.AliceOut);
                foreach (var retry in pair.AliceOut.Take())
                {
                    pair.Bob.ReceiveDatagram(retry, WireGuardPair.AliceSource, pair.BobOut);
                }

                break;
        }
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        using var pair = new WireGuardPair();
        var initiation = pair.AliceInitiation();
        yield return ("raw-initiation", [0, .. initiation]);
        yield return ("raw-transport-header", [0, 4, 0, 0, 0, 1, 0, 0, 0, .. new byte[24]]);
        yield return ("raw-empty", [0]);
        yield return ("initiation", [1]);
        yield return ("initiation-flipped-mac1", [1, .. new byte[116], 1]);
        yield return ("response", [2]);
        yield return ("response-longer", [2, .. new byte[93]]);
        yield return ("cookie-reply", [3]);
    }
}
