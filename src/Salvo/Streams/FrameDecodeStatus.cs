namespace Salvo.Streams;

/// <summary>What <see cref="IMessageFramer.TryDecode(in System.Buffers.ReadOnlySequence{byte}, System.Buffers.IBufferWriter{byte})"/> found at the start of its input.</summary>
public enum FrameDecodeStatus
{
    /// <summary>The input does not yet hold a whole frame; read more and try again with the longer input.</summary>
    NeedMore,

    /// <summary>One whole frame: see <see cref="FrameDecodeResult.Message"/> and <see cref="FrameDecodeResult.Consumed"/>.</summary>
    Complete,

    /// <summary>The input breaks the encoding or announces a message over the limit; the stream cannot be resynchronised.</summary>
    Malformed,
}
