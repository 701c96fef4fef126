namespace Salvo.Streams;

/// <summary>Why a frame is <see cref="FrameDecodeStatus.Malformed"/>; names the metric tag of the close.</summary>
public enum FrameError
{
    /// <summary>No error.</summary>
    None,

    /// <summary>The message is longer than the framer's maximum message size.</summary>
    TooLarge,

    /// <summary>A byte outside any frame (STX/ETX framing: the stream does not start with STX).</summary>
    StrayByte,

    /// <summary>An escape byte followed by a byte that is not an escaped delimiter, or directly by ETX.</summary>
    BadEscape,

    /// <summary>A frame start (STX) inside a frame: the previous frame was cut off.</summary>
    UnexpectedStart,
}
