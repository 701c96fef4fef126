using System.Buffers;

namespace Salvo.Streams;

/// <summary>Limits shared by the framers, and the framers by name.</summary>
public static class MessageFramer
{
    /// <summary>The default maximum message size: 64 KiB.</summary>
    public const int DefaultMaxMessageSize = 64 * 1024;

    /// <summary>
    /// The largest maximum message size a framer accepts: 256 MiB, so that an escaped STX/ETX frame
    /// (at most twice the message plus two) still fits an <see cref="int"/>.
    /// </summary>
    public const int LargestMaxMessageSize = 256 * 1024 * 1024;

    /// <summary>Length-prefix framing (4-byte big-endian length) with the default size limit.</summary>
    public static IMessageFramer LengthPrefix { get; } = new LengthPrefixFramer();

    /// <summary>STX/ETX framing with DLE escapes and the default size limit.</summary>
    public static IMessageFramer Delimited { get; } = new DelimitedFramer();

    internal static int CheckMaxMessageSize(int maxMessageSize, string parameterName)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxMessageSize, parameterName);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxMessageSize, LargestMaxMessageSize, parameterName);
        return maxMessageSize;
    }

    internal static void CheckMessage(ReadOnlySpan<byte> message, int maxMessageSize)
    {
        if (message.Length > maxMessageSize)
        {
            throw new ArgumentOutOfRangeException(
                nameof(message), message.Length, $"The message has {message.Length} bytes; the framer's MaxMessageSize is {maxMessageSize}.");
        }
    }

    /// <summary>
    /// Copies <paramref name="source"/> in pieces as large as the writer offers, so that a pipe writer fills its
    /// pooled blocks instead of asking for one buffer as large as the message.
    /// </summary>
    internal static void WriteChunked(IBufferWriter<byte> destination, ReadOnlySpan<byte> source)
    {
        while (!source.IsEmpty)
        {
            var span = destination.GetSpan();
            var count = Math.Min(span.Length, source.Length);
            source[..count].CopyTo(span);
            destination.Advance(count);
            source = source[count..];
        }
    }
}
