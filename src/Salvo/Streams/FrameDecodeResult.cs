using System.Buffers;

namespace Salvo.Streams;

/// <summary>The outcome of one <see cref="IMessageFramer.TryDecode(in System.Buffers.ReadOnlySequence{byte}, System.Buffers.IBufferWriter{byte})"/> call.</summary>
public readonly struct FrameDecodeResult
{
    private FrameDecodeResult(FrameDecodeStatus status, ReadOnlySequence<byte> message, long consumed, FrameError error, string? reason)
    {
        Status = status;
        Message = message;
        Consumed = consumed;
        Error = error;
        Reason = reason;
    }

    /// <summary>Whether a frame was found, more input is needed, or the input is malformed.</summary>
    public FrameDecodeStatus Status { get; }

    /// <summary>
    /// The decoded message when <see cref="Status"/> is <see cref="FrameDecodeStatus.Complete"/>: a slice of the input,
    /// or of the scratch writer when the encoding had to be undone (escapes). Valid until the input is advanced
    /// past it or the scratch writer is written to or reset.
    /// </summary>
    public ReadOnlySequence<byte> Message { get; }

    /// <summary>Input bytes the frame took (header, delimiters and escapes included); 0 unless complete.</summary>
    public long Consumed { get; }

    /// <summary>The kind of error when <see cref="Status"/> is <see cref="FrameDecodeStatus.Malformed"/>.</summary>
    public FrameError Error { get; }

    /// <summary>A sentence saying what is wrong with the input, with the numbers; null unless malformed.</summary>
    public string? Reason { get; }

    /// <summary>More input is needed.</summary>
    public static FrameDecodeResult NeedMore => default;

    /// <summary>A whole frame.</summary>
    public static FrameDecodeResult Complete(ReadOnlySequence<byte> message, long consumed) =>
        new(FrameDecodeStatus.Complete, message, consumed, FrameError.None, null);

    /// <summary>Broken input.</summary>
    /// <exception cref="ArgumentException"><paramref name="error"/> is <see cref="FrameError.None"/>.</exception>
    public static FrameDecodeResult Malformed(FrameError error, string reason)
    {
        if (error == FrameError.None)
        {
            throw new ArgumentException("A malformed frame needs an error kind.", nameof(error));
        }

        return new(FrameDecodeStatus.Malformed, default, 0, error, reason);
    }
}
