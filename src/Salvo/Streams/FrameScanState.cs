namespace Salvo.Streams;

/// <summary>
/// What a framer learned about an incomplete frame at the start of its input, so that the next call, with more
/// bytes behind the same frame start, looks only at the new bytes. Without it a frame that arrives in N reads is
/// scanned N times from its first byte: a 1 MiB STX/ETX frame in 4 KiB reads is 128 MiB of scanning.
/// </summary>
/// <remarks>
/// Start from <c>default</c> for each connection. Pass the same value to every call whose input begins at the same
/// frame; the framer resets it when it returns anything but <see cref="FrameDecodeStatus.NeedMore"/>, so the caller
/// only keeps it. Input shorter than what was examined (a caller that moved on without saying) is scanned afresh.
/// </remarks>
public struct FrameScanState
{
    /// <summary>Bytes of the frame already examined and found to hold no end of frame.</summary>
    public long Examined { get; internal set; }

    /// <summary>A framer-specific count over those bytes (escape bytes, for <see cref="DelimitedFramer"/>).</summary>
    internal long Tally { get; set; }
}
