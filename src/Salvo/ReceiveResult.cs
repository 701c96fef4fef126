namespace Salvo;

/// <summary>The outcome of a single-datagram receive.</summary>
/// <param name="Length">Bytes written into the caller's buffer.</param>
/// <param name="Source">Who sent the datagram.</param>
/// <param name="IsTruncated">True when the datagram was longer than the buffer and was cut to <paramref name="Length"/>.</param>
public readonly record struct ReceiveResult(int Length, DatagramAddress Source, bool IsTruncated);
