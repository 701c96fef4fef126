using CsCheck;
using Salvo.Tunnel.Offload;
using Salvo.Tunnel.Protocol;

namespace Salvo.Fuzz.Tests;

/// <summary>Round trips of the WireGuard message layout and the virtio-net header: what is written reads back.</summary>
public sealed class WireGuardLayoutProperties
{
    [Fact]
    public void MessageLayout_WrittenTypeAndIndex_ReadBack()
    {
        var messages = Gen.Select(
            Gen.OneOf(
                (MessageType.Initiation, MessageLayout.InitiationSize),
                (MessageType.Response, MessageLayout.ResponseSize),
                (MessageType.CookieReply, MessageLayout.CookieReplySize),
                (MessageType.Transport, MessageLayout.TransportMinimumSize),
                (MessageType.Transport, 1500)),
            Gen.UInt);

        messages.Sample((shape, index) =>
        {
            var (type, size) = shape;
            var message = new byte[size];
            MessageLayout.WriteType(message, type);
            MessageLayout.WriteIndex(message, MessageLayout.TransportReceiver, index);

            Assert.Equal(type, MessageLayout.Classify(message));
            Assert.Equal(index, MessageLayout.ReadIndex(message, MessageLayout.TransportReceiver));
            // Handshake sizes are exact, and transport data has a least size: one byte short is no such message.
            if (type != MessageType.Transport || size == MessageLayout.TransportMinimumSize)
            {
                Assert.NotEqual(type, MessageLayout.Classify(message.AsSpan(0, size - 1)));
            }
        });
    }

    [Fact]
    public void MessageLayout_Nonce_HoldsTheCounterLittleEndianAfterFourZeros()
    {
        Gen.ULong.Sample(counter =>
        {
            Span<byte> nonce = stackalloc byte[12];
            MessageLayout.WriteNonce(nonce, counter);

            Assert.Equal(0u, BitConverter.ToUInt32(nonce));
            Assert.Equal(counter, System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(nonce[4..]));
        });
    }

    [Fact]
    public void VirtioNetHeader_Written_ReadsBackEqual()
    {
        Gen.Select(Gen.Byte, Gen.Byte, Gen.UShort, Gen.UShort, Gen.UShort, Gen.UShort).Sample((flags, gso, headers, size, start, offset) =>
        {
            var header = new VirtioNetHeader(flags, gso, headers, size, start, offset);
            var bytes = new byte[VirtioNetHeader.Size];
            header.Write(bytes);

            Assert.Equal(header, VirtioNetHeader.Read(bytes));
        });
    }
}
