namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// Where one packet of a batch lies in the batch's buffer (<see cref="IBatchAeadKey.SealBatch"/>,
/// <see cref="IBatchAeadKey.TryOpenBatch"/>): offsets and lengths rather than spans, so a batch is plain data on the stack.
/// The associated data must not overlap the packet's body or tag.
/// </summary>
/// <param name="Offset">Where the plaintext (and the ciphertext that replaces it) starts.</param>
/// <param name="Length">Bytes of plaintext; the sealed packet is 16 bytes longer (the tag follows at once).</param>
/// <param name="AssociatedDataOffset">Where the packet's associated data starts.</param>
/// <param name="AssociatedDataLength">Bytes of associated data; 0 for WireGuard's transport messages.</param>
internal readonly record struct AeadPacket(int Offset, int Length, int AssociatedDataOffset = 0, int AssociatedDataLength = 0)
{
    /// <summary>Bytes of Poly1305 tag after each sealed packet.</summary>
    public const int TagSize = 16;
}
