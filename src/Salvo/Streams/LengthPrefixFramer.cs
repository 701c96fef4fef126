using System.Buffers;
using System.Buffers.Binary;

namespace Salvo.Streams;

/// <summary>
/// Length-prefix framing. Each frame is a 4-byte unsigned big-endian (network order) length N, then exactly N
/// message bytes. N = 0 is an empty message. A length over <see cref="MaxMessageSize"/> is malformed and is
/// reported as soon as the 4 header bytes arrive, before any of the message is buffered.
/// </summary>
public sealed class LengthPrefixFramer : IMessageFramer
{
    /// <summary>Bytes of the length header.</summary>
    public const int HeaderLength = 4;

    /// <summary>Creates a framer.</summary>
    /// <param name="maxMessageSize">The longest message in bytes, 1 to 256 MiB. Defaults to 64 KiB.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxMessageSize"/> is out of range.</exception>
    public LengthPrefixFramer(int maxMessageSize = MessageFramer.DefaultMaxMessageSize)
    {
        MaxMessageSize = MessageFramer.CheckMaxMessageSize(maxMessageSize, nameof(maxMessageSize));
    }

    /// <inheritdoc />
    public int MaxMessageSize { get; }

    /// <inheritdoc />
    public int MaxFrameSize => HeaderLength + MaxMessageSize;

    /// <inheritdoc />
    public int GetEncodedLength(ReadOnlySpan<byte> message) => HeaderLength + message.Length;

    /// <inheritdoc />
    public void Encode(ReadOnlySpan<byte> message, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        MessageFramer.CheckMessage(message, MaxMessageSize);
        BinaryPrimitives.WriteUInt32BigEndian(destination.GetSpan(HeaderLength), (uint)message.Length);
        destination.Advance(HeaderLength);
        MessageFramer.WriteChunked(destination, message);
    }

    /// <inheritdoc />
    public FrameDecodeResult TryDecode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch)
    {
        if (input.Length < HeaderLength)
        {
            return FrameDecodeResult.NeedMore;
        }

        Span<byte> header = stackalloc byte[HeaderLength];
        input.Slice(0, HeaderLength).CopyTo(header);
        var length = BinaryPrimitives.ReadUInt32BigEndian(header);
        if (length > (uint)MaxMessageSize)
        {
            return FrameDecodeResult.Malformed(
                FrameError.TooLarge, $"The length prefix announces {length} bytes; the limit is {MaxMessageSize}.");
        }

        var frameLength = HeaderLength + (long)length;
        return input.Length < frameLength
            ? FrameDecodeResult.NeedMore
            : FrameDecodeResult.Complete(input.Slice(HeaderLength, length), frameLength);
    }
}
