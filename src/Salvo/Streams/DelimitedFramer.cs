using System.Buffers;

namespace Salvo.Streams;

/// <summary>
/// STX/ETX framing. Each frame is STX (0x02), the escaped message, ETX (0x03). A message byte equal to STX,
/// ETX or DLE (0x10) is sent as DLE followed by the byte XOR 0x20 (0x02 -> 10 22, 0x03 -> 10 23,
/// 0x10 -> 10 30); every other byte is sent as is. STX ETX is an empty message.
/// </summary>
/// <remarks>
/// Malformed: a byte other than STX between frames, STX inside a frame, DLE followed by anything but 0x22,
/// 0x23 or 0x30, and a message over <see cref="MaxMessageSize"/> bytes, which is reported once that many
/// unescaped bytes have arrived without an ETX, so a reader never buffers more than
/// <see cref="MaxFrameSize"/> bytes for one frame. A frame without escapes decodes without a copy.
/// </remarks>
public sealed class DelimitedFramer : IMessageFramer
{
    /// <summary>Start of text: opens a frame.</summary>
    public const byte Stx = 0x02;

    /// <summary>End of text: closes a frame.</summary>
    public const byte Etx = 0x03;

    /// <summary>Data link escape: the next byte is a delimiter XOR <see cref="EscapeMask"/>.</summary>
    public const byte Dle = 0x10;

    /// <summary>XORed into an escaped byte, so that it is no longer a delimiter.</summary>
    public const byte EscapeMask = 0x20;

    private static readonly SearchValues<byte> Special = SearchValues.Create([Stx, Etx, Dle]);

    /// <summary>Creates a framer.</summary>
    /// <param name="maxMessageSize">The longest message in bytes (before escaping), 1 to 256 MiB. Defaults to 64 KiB.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxMessageSize"/> is out of range.</exception>
    public DelimitedFramer(int maxMessageSize = MessageFramer.DefaultMaxMessageSize)
    {
        MaxMessageSize = MessageFramer.CheckMaxMessageSize(maxMessageSize, nameof(maxMessageSize));
    }

    /// <inheritdoc />
    public int MaxMessageSize { get; }

    /// <inheritdoc />
    public int MaxFrameSize => 2 + (2 * MaxMessageSize);

    /// <inheritdoc />
    public int GetEncodedLength(ReadOnlySpan<byte> message)
    {
        var length = 2 + message.Length;
        var rest = message;
        int index;
        while ((index = rest.IndexOfAny(Special)) >= 0)
        {
            length++;
            rest = rest[(index + 1)..];
        }

        return length;
    }

    /// <inheritdoc />
    public void Encode(ReadOnlySpan<byte> message, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        MessageFramer.CheckMessage(message, MaxMessageSize);
        WriteByte(destination, Stx);
        var rest = message;
        while (!rest.IsEmpty)
        {
            var index = rest.IndexOfAny(Special);
            if (index < 0)
            {
                MessageFramer.WriteChunked(destination, rest);
                break;
            }

            MessageFramer.WriteChunked(destination, rest[..index]);
            var escaped = destination.GetSpan(2);
            escaped[0] = Dle;
            escaped[1] = (byte)(rest[index] ^ EscapeMask);
            destination.Advance(2);
            rest = rest[(index + 1)..];
        }

        WriteByte(destination, Etx);
    }

    /// <inheritdoc />
    public FrameDecodeResult TryDecode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch)
    {
        var fresh = default(FrameScanState);
        return TryDecode(input, scratch, ref fresh);
    }

    /// <inheritdoc />
    public FrameDecodeResult TryDecode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch, ref FrameScanState state)
    {
        var result = Decode(input, scratch, ref state);
        if (result.Status != FrameDecodeStatus.NeedMore)
        {
            state = default;
        }

        return result;
    }

    private FrameDecodeResult Decode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch, ref FrameScanState state)
    {
        ArgumentNullException.ThrowIfNull(scratch);
        if (input.IsEmpty)
        {
            return FrameDecodeResult.NeedMore;
        }

        var first = input.FirstSpan[0];
        if (first != Stx)
        {
            return FrameDecodeResult.Malformed(
                FrameError.StrayByte, $"Byte 0x{first:X2} outside a frame; a frame starts with STX (0x02).");
        }

        var afterStart = input.Slice(1);
        if (state.Examined > afterStart.Length)
        {
            state = default;
        }

        // Only the bytes after those an earlier call examined: they held no ETX and no STX, and Tally DLEs.
        var unseen = afterStart.Slice(state.Examined);
        var end = unseen.PositionOf(Etx);
        var fresh = end is { } position ? unseen.Slice(0, position) : unseen;
        if (fresh.PositionOf(Stx) is not null)
        {
            return FrameDecodeResult.Malformed(
                FrameError.UnexpectedStart, "STX (0x02) inside a frame: the frame before it has no ETX.");
        }

        var bodyLength = state.Examined + fresh.Length;
        var escapes = state.Tally + Count(fresh, Dle);
        var messageLength = bodyLength - escapes;
        if (messageLength > MaxMessageSize)
        {
            return FrameDecodeResult.Malformed(
                FrameError.TooLarge, $"The frame holds more than {MaxMessageSize} message bytes without an ETX (the limit).");
        }

        if (bodyLength > MaxFrameSize - 2)
        {
            // Valid escapes at most double a message, so a longer body has a DLE escaping a DLE. Caught here and not at
            // an ETX that may never come: counting every DLE as an escape let STX then endless DLEs buffer without bound.
            return FrameDecodeResult.Malformed(
                FrameError.BadEscape, $"A frame of {bodyLength} bytes cannot hold a message of at most {MaxMessageSize} bytes unless a DLE (0x10) escapes a DLE.");
        }

        if (end is null)
        {
            state.Examined = bodyLength;
            state.Tally = escapes;
            return FrameDecodeResult.NeedMore;
        }

        var body = afterStart.Slice(0, bodyLength);
        var consumed = bodyLength + 2;
        if (escapes == 0)
        {
            return FrameDecodeResult.Complete(body, consumed);
        }

        var memory = scratch.GetMemory((int)messageLength);
        var written = Unescape(body, memory.Span);
        if (written < 0)
        {
            return FrameDecodeResult.Malformed(
                FrameError.BadEscape, "DLE (0x10) must be followed by 0x22, 0x23 or 0x30 (an escaped STX, ETX or DLE).");
        }

        scratch.Advance(written);
        return FrameDecodeResult.Complete(new ReadOnlySequence<byte>(memory[..written]), consumed);
    }

    private static void WriteByte(IBufferWriter<byte> destination, byte value)
    {
        destination.GetSpan(1)[0] = value;
        destination.Advance(1);
    }

    private static long Count(in ReadOnlySequence<byte> sequence, byte value)
    {
        long count = 0;
        foreach (var segment in sequence)
        {
            count += segment.Span.Count(value);
        }

        return count;
    }

    /// <summary>Returns the bytes written, or -1 for a bad escape. Copies the runs between escapes in bulk.</summary>
    private static int Unescape(in ReadOnlySequence<byte> body, Span<byte> destination)
    {
        var written = 0;
        var pendingEscape = false;
        foreach (var segment in body)
        {
            var span = segment.Span;
            while (!span.IsEmpty)
            {
                if (pendingEscape)
                {
                    var original = (byte)(span[0] ^ EscapeMask);
                    if (original is not (Stx or Etx or Dle))
                    {
                        return -1;
                    }

                    destination[written++] = original;
                    pendingEscape = false;
                    span = span[1..];
                    continue;
                }

                var index = span.IndexOf(Dle);
                var run = index < 0 ? span : span[..index];
                run.CopyTo(destination[written..]);
                written += run.Length;
                if (index < 0)
                {
                    break;
                }

                pendingEscape = true;
                span = span[(index + 1)..];
            }
        }

        return pendingEscape ? -1 : written;
    }
}
