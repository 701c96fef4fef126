using System.Buffers.Binary;

namespace Salvo.Tunnel.Protocol;

/// <summary>Byte offsets and sizes of the four messages (the WireGuard paper, section 5.4).</summary>
internal static class MessageLayout
{
    public const int KeySize = 32;
    public const int TagSize = 16;
    public const int MacSize = 16;
    public const int TimestampSize = 12;

    public const int InitiationSize = 148;
    public const int InitiationSender = 4;
    public const int InitiationEphemeral = 8;
    public const int InitiationStatic = 40;
    public const int InitiationTimestamp = 88;
    public const int InitiationMac1 = 116;
    public const int InitiationMac2 = 132;

    public const int ResponseSize = 92;
    public const int ResponseSender = 4;
    public const int ResponseReceiver = 8;
    public const int ResponseEphemeral = 12;
    public const int ResponseEmpty = 44;
    public const int ResponseMac1 = 60;
    public const int ResponseMac2 = 76;

    public const int CookieReplySize = 64;
    public const int CookieReplyReceiver = 4;
    public const int CookieReplyNonce = 8;
    public const int CookieReplyNonceSize = 24;
    public const int CookieReplyCookie = 32;

    public const int TransportHeaderSize = 16;
    public const int TransportReceiver = 4;
    public const int TransportCounter = 8;
    public const int TransportMinimumSize = TransportHeaderSize + TagSize;

    /// <summary>Plaintext is padded to a multiple of this, so lengths leak less (the paper, section 5.4.6).</summary>
    public const int PaddingMultiple = 16;

    /// <summary>
    /// The largest transport message: the largest UDP payload over IPv4, 65,535 less 20 bytes of IP header and 8 of
    /// UDP. IPv6 would take 20 bytes more, but a peer's endpoint may roam between families, so one limit holds for both.
    /// </summary>
    public const int LargestTransportSize = 65_507;

    /// <summary>The longest IP packet one transport message carries: <see cref="LargestTransportSize"/> less header and tag, 65,475 bytes.</summary>
    public const int LargestCarriedPacket = LargestTransportSize - TransportHeaderSize - TagSize;

    /// <summary>
    /// The message type, or <see cref="MessageType.None"/> when the length does not match the type or the three
    /// reserved bytes are not zero.
    /// </summary>
    public static MessageType Classify(ReadOnlySpan<byte> message)
    {
        if (message.Length < 4)
        {
            return MessageType.None;
        }

        var type = (MessageType)BinaryPrimitives.ReadUInt32LittleEndian(message);
        return type switch
        {
            MessageType.Initiation when message.Length == InitiationSize => type,
            MessageType.Response when message.Length == ResponseSize => type,
            MessageType.CookieReply when message.Length == CookieReplySize => type,
            MessageType.Transport when message.Length >= TransportMinimumSize => type,
            _ => MessageType.None,
        };
    }

    public static void WriteType(Span<byte> message, MessageType type) =>
        BinaryPrimitives.WriteUInt32LittleEndian(message, (uint)type);

    public static uint ReadIndex(ReadOnlySpan<byte> message, int offset) =>
        BinaryPrimitives.ReadUInt32LittleEndian(message[offset..]);

    public static void WriteIndex(Span<byte> message, int offset, uint index) =>
        BinaryPrimitives.WriteUInt32LittleEndian(message[offset..], index);

    /// <summary>The 12-byte ChaCha20-Poly1305 nonce: four zero bytes, then the 64-bit counter little-endian.</summary>
    public static void WriteNonce(Span<byte> nonce, ulong counter)
    {
        nonce[..4].Clear();
        BinaryPrimitives.WriteUInt64LittleEndian(nonce[4..], counter);
    }
}
