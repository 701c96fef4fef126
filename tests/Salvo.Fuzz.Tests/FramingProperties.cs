using System.Buffers;
using CsCheck;
using Salvo.Streams;

namespace Salvo.Fuzz.Tests;

/// <summary>Round trips of MessageTransport's framing: encoded messages decode to themselves, in order.</summary>
public sealed class FramingProperties
{
    private const int Limit = 256;

    [Theory]
    [InlineData("length-prefix")]
    [InlineData("delimited")]
    public void Framer_EncodedMessages_DecodeToThemselves(string name)
    {
        IMessageFramer framer = name == "delimited" ? new DelimitedFramer(Limit) : new LengthPrefixFramer(Limit);
        // Bytes from a small alphabet that holds the delimiter's STX, ETX and DLE, so escapes are common.
        var message = Gen.OneOf(Gen.Byte, Gen.OneOf<byte>(0x02, 0x03, 0x10)).Array[0, Limit];

        message.Array[1, 6].Sample(messages =>
        {
            var stream = new ArrayBufferWriter<byte>();
            foreach (var m in messages)
            {
                framer.Encode(m, stream);
            }

            Assert.Equal(messages.Sum(m => framer.GetEncodedLength(m)), stream.WrittenCount);
            var input = new ReadOnlySequence<byte>(stream.WrittenMemory);
            foreach (var expected in messages)
            {
                var result = framer.TryDecode(input, new ArrayBufferWriter<byte>());
                Assert.Equal(FrameDecodeStatus.Complete, result.Status);
                Assert.Equal(expected, result.Message.ToArray());
                input = input.Slice(result.Consumed);
            }

            Assert.Equal(0, input.Length);
        });
    }

    [Fact]
    public void UdpEnvelope_Handshake_ReadsBackItsNonce()
    {
        Gen.Select(Gen.OneOf(UdpEnvelope.Hello, UdpEnvelope.HelloAck), Gen.ULong).Sample((type, nonce) =>
        {
            var datagram = new byte[UdpEnvelope.HandshakeLength];
            UdpEnvelope.WriteHandshake(datagram, type, nonce);

            Assert.True(UdpEnvelope.TryReadHandshake(datagram, type, out var read));
            Assert.Equal(nonce, read);
            Assert.False(UdpEnvelope.TryReadHandshake(datagram, type == UdpEnvelope.Hello ? UdpEnvelope.HelloAck : UdpEnvelope.Hello, out _));
        });
    }
}
