namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The receive counter filter: a ring of 64-bit words, one bit per counter (RFC 6479's design, which the
/// reference implementations use). 128 words hold 8,192 bits; one word is always being cleared ahead of the
/// newest counter, so the window that is remembered is 8,192 - 64 = 8,128 counters behind the newest.
/// Counters are checked before decryption (cheap rejection) and marked only after authentication, so a forged
/// packet cannot move the window.
/// </summary>
internal sealed class ReplayWindow
{
    /// <summary>Counters behind the newest that are still accepted once.</summary>
    public const ulong WindowSize = (RingWords - 1) * BitsPerWord;

    private const int RingWords = 128;
    private const int BitsPerWord = 64;
    private const int WordShift = 6;

    private readonly ulong[] _ring = new ulong[RingWords];
    private ulong _newest;

    /// <summary>Whether <paramref name="counter"/> could still be accepted: neither used nor too old nor past the limit.</summary>
    public bool MayAccept(ulong counter)
    {
        if (counter >= WireGuardProtocol.RejectAfterMessages)
        {
            return false;
        }

        if (counter > _newest)
        {
            return true;
        }

        if (_newest - counter > WindowSize)
        {
            return false;
        }

        var word = (int)((counter >> WordShift) % RingWords);
        return (_ring[word] & (1UL << (int)(counter % BitsPerWord))) == 0;
    }

    /// <summary>Records <paramref name="counter"/> as received; false when it was seen before, is too old, or past the limit.</summary>
    public bool TryMark(ulong counter)
    {
        if (!MayAccept(counter))
        {
            return false;
        }

        if (counter > _newest)
        {
            // Clear the words between the old newest and the new one: those counters have not been seen yet.
            var current = _newest >> WordShift;
            var target = counter >> WordShift;
            var advance = Math.Min(target - current, RingWords);
            for (ulong i = 1; i <= advance; i++)
            {
                _ring[(int)((current + i) % RingWords)] = 0;
            }

            _newest = counter;
        }

        _ring[(int)((counter >> WordShift) % RingWords)] |= 1UL << (int)(counter % BitsPerWord);
        return true;
    }
}
