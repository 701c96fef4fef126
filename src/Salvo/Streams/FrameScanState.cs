namespace Salvo.Streams;

/// <summary>
/// What a framer learned about an incomplete frame at the start of its input, so that the next call, with more
/// bytes behind the same frame start, looks only at the new bytes. Without it a frame that arrives in N reads is
/// scanned N times from its first byte: a 1 MiB STX/ETX frame in 4 KiB reads is 128 MiB of scanning.
/// </summary>
/// <remarks>
/// The caller starts from <c>default</c>, passes the same value with every call whose input begins at the same frame
/// and holds at least the bytes the last call held, and resets it to <c>default</c> whenever it drops or replaces
/// input. The framer writes it when it returns <see cref="FrameDecodeStatus.NeedMore"/> and resets it to
/// <c>default</c> when it returns anything else. <see cref="DelimitedFramer"/> also scans afresh when the input is
/// shorter than <see cref="Examined"/> says; it cannot detect other misuse.
/// </remarks>
public struct FrameScanState
{
    /// <summary>Bytes of the frame, after its first byte, already examined and found to hold no end of frame.</summary>
    public long Examined { get; set; }

    /// <summary>A count the framer keeps over the examined bytes; its meaning is the framer's (escape bytes, for <see cref="DelimitedFramer"/>).</summary>
    public long Tally { get; set; }
}
