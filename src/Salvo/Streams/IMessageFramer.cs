using System.Buffers;

namespace Salvo.Streams;

/// <summary>
/// Cuts a byte stream into messages and back. Implementations hold no per-connection state, so one
/// instance serves every connection; a connection keeps the bytes it has not decoded yet and, for framers that
/// resume, a <see cref="FrameScanState"/>.
/// </summary>
public interface IMessageFramer
{
    /// <summary>The longest message, in bytes, that <see cref="Encode"/> accepts and <see cref="TryDecode(in ReadOnlySequence{byte}, IBufferWriter{byte})"/> returns.</summary>
    int MaxMessageSize { get; }

    /// <summary>
    /// The most bytes a whole frame of a message of up to <see cref="MaxMessageSize"/> bytes can take on the wire;
    /// a reader that has buffered more than this without a complete frame has been sent garbage.
    /// </summary>
    int MaxFrameSize { get; }

    /// <summary>The exact number of bytes <see cref="Encode"/> writes for <paramref name="message"/>.</summary>
    int GetEncodedLength(ReadOnlySpan<byte> message);

    /// <summary>Writes one frame holding <paramref name="message"/> to <paramref name="destination"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="message"/> is longer than <see cref="MaxMessageSize"/>.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="destination"/> is null.</exception>
    void Encode(ReadOnlySpan<byte> message, IBufferWriter<byte> destination);

    /// <summary>
    /// Looks for one whole frame at the start of <paramref name="input"/>. Never allocates in proportion to a
    /// length the peer announces: a message over <see cref="MaxMessageSize"/> is reported as soon as its size is
    /// known (from a length field, or once that many bytes arrived without an end).
    /// </summary>
    /// <param name="input">Undecoded bytes; may be split into segments anywhere.</param>
    /// <param name="scratch">Where to write the message when the encoding must be undone (escapes).</param>
    FrameDecodeResult TryDecode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch);

    /// <summary>
    /// Same as <see cref="TryDecode(in ReadOnlySequence{byte}, IBufferWriter{byte})"/>, resuming where an earlier call
    /// on the same incomplete frame stopped. An implementation writes <paramref name="state"/> when it returns
    /// <see cref="FrameDecodeStatus.NeedMore"/> and resets it to <c>default</c> when it returns anything else.
    /// Framers that learn a frame's size from a fixed header have nothing to resume and keep this default, which
    /// ignores <paramref name="state"/>.
    /// </summary>
    /// <param name="input">Undecoded bytes, starting at the same frame as the call that filled <paramref name="state"/>.</param>
    /// <param name="scratch">Where to write the message when the encoding must be undone (escapes).</param>
    /// <param name="state">Kept by the caller between calls; see <see cref="FrameScanState"/>.</param>
    FrameDecodeResult TryDecode(in ReadOnlySequence<byte> input, IBufferWriter<byte> scratch, ref FrameScanState state) =>
        TryDecode(input, scratch);
}
