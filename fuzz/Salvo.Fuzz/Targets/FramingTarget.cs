using System.Buffers;
using Salvo.Streams;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// MessageTransport's framing: a TCP stream through <see cref="LengthPrefixFramer"/> or <see cref="DelimitedFramer"/>
/// (STX/ETX with DLE escapes), and a UDP datagram through the envelope's handshake reader. The first byte picks the
/// framer (bit 0) and where the stream is cut into two reads (the rest of it); the stream is decoded as a connection
/// does, resuming with <see cref="FrameScanState"/>, and every result must equal a decode from nothing. Refusal:
/// <see cref="FrameDecodeStatus.Malformed"/> with an error kind and a reason.
/// </summary>
public sealed class FramingTarget : IFuzzTarget
{
    /// <summary>Small, so that fuzzed lengths cross it often.</summary>
    private const int Limit = 64;

    public string Name => "framing";

    public string Description => "length-prefix and STX/ETX stream framing, UDP envelope handshakes";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        IMessageFramer framer = (input[0] & 1) == 0 ? new LengthPrefixFramer(Limit) : new DelimitedFramer(Limit);
        var stream = input[1..].ToArray();
        var cut = stream.Length == 0 ? 0 : (input[0] >> 1) % (stream.Length + 1);
        Feed(framer, stream, cut);
        _ = UdpEnvelope.TryReadHandshake(stream, UdpEnvelope.Hello, out _);
        _ = UdpEnvelope.TryReadHandshake(stream, UdpEnvelope.HelloAck, out _);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        byte[][] messages = [[.. "hello"u8], [], [0x02, 0x03, 0x10, 0x41], new byte[Limit]];
        foreach (var (kind, framer) in new (string, IMessageFramer)[] { ("length-prefix", new LengthPrefixFramer(Limit)), ("delimited", new DelimitedFramer(Limit)) })
        {
            var encoded = new ArrayBufferWriter<byte>();
            foreach (var message in messages)
            {
                framer.Encode(message, encoded);
            }

            var selector = kind == "delimited" ? (byte)1 : (byte)0;
            yield return ($"{kind}-stream", [selector, .. encoded.WrittenSpan]);
            yield return ($"{kind}-split", [(byte)(selector | (7 << 1)), .. encoded.WrittenSpan]);
        }

        var handshake = new byte[UdpEnvelope.HandshakeLength];
        UdpEnvelope.WriteHandshake(handshake, UdpEnvelope.Hello, 0x0102030405060708);
        yield return ("udp-hello", [0, .. handshake]);
    }

    /// <summary>Decodes <paramref name="stream"/> as two reads that end at <paramref name="cut"/> and at its end.</summary>
    private static void Feed(IMessageFramer framer, byte[] stream, int cut)
    {
        var scratch = new ArrayBufferWriter<byte>(framer.MaxMessageSize + 1);
        var state = default(FrameScanState);
        var consumed = 0L;
        foreach (var received in (ReadOnlySpan<int>)[cut, stream.Length])
        {
            while (true)
            {
                var buffer = new ReadOnlySequence<byte>(stream, (int)consumed, received - (int)consumed);
                scratch.ResetWrittenCount();
                var result = framer.TryDecode(buffer, scratch, ref state);
                var fresh = framer.TryDecode(buffer, new ArrayBufferWriter<byte>());
                if ((fresh.Status, fresh.Error, fresh.Consumed) != (result.Status, result.Error, result.Consumed))
                {
                    throw new InvalidOperationException(
                        $"Resuming gave {result.Status} {result.Error} {result.Consumed}, a fresh decode {fresh.Status} {fresh.Error} {fresh.Consumed}.");
                }

                switch (result.Status)
                {
                    case FrameDecodeStatus.Malformed when result.Error != FrameError.None && !string.IsNullOrEmpty(result.Reason):
                        return;
                    case FrameDecodeStatus.Complete when result.Consumed > 0 && result.Consumed <= buffer.Length && result.Message.Length <= framer.MaxMessageSize:
                        consumed += result.Consumed;
                        state = default;
                        continue;
                    case FrameDecodeStatus.NeedMore:
                        break;
                    default:
                        throw new InvalidOperationException($"TryDecode broke its contract: {result.Status} {result.Error} consumed {result.Consumed} of {buffer.Length}.");
                }

                break;
            }
        }
    }
}
