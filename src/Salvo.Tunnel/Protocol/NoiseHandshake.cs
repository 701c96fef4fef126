using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The Noise_IKpsk2 message computations of the paper, section 5.4.2 (initiation) and 5.4.3 (response),
/// over plain byte arrays. MACs are not added here (see <see cref="CookieGenerator"/>). The responder's side is
/// split so that its Diffie-Hellman work touches no peer (<see cref="TryOpenStatic"/>, <see cref="TryOpenTimestamp"/>, <see cref="TrySealResponse"/>)
/// and the steps that do (<see cref="MayAccept"/>, <see cref="AcceptAnswered"/>) are cheap: the engine holds its lock
/// only around the latter.
/// </summary>
internal static class NoiseHandshake
{
    private const int KeySize = MessageLayout.KeySize;

    /// <summary>Writes an initiation to <paramref name="peer"/> (without MACs) and records the state it needs for the response.</summary>
    public static bool TryCreateInitiation(LocalIdentity local, Peer peer, uint localIndex, DateTimeOffset now, Span<byte> message)
    {
        var crypto = local.Crypto;
        var state = peer.Handshake;
        Span<byte> key = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        try
        {
            local.InitialChainingKey.CopyTo(state.ChainingKey, 0);
            crypto.Hash.Hash(local.InitialHash, peer.PublicKey, state.Hash);

            crypto.KeyAgreement.GeneratePrivateKey(state.LocalEphemeralPrivate);
            var ephemeral = message.Slice(MessageLayout.InitiationEphemeral, KeySize);
            crypto.KeyAgreement.DerivePublicKey(state.LocalEphemeralPrivate, ephemeral);
            MixKey(crypto.Hash, state.ChainingKey, ephemeral);
            MixHash(crypto.Hash, state.Hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(state.LocalEphemeralPrivate, peer.PublicKey, shared))
            {
                return false;
            }

            NoiseKdf.Derive(crypto.Hash, state.ChainingKey, shared, state.ChainingKey, key);
            var encryptedStatic = message.Slice(MessageLayout.InitiationStatic, KeySize + MessageLayout.TagSize);
            SealWithZeroNonce(crypto.Aead, key, state.Hash, local.PublicKey, encryptedStatic);
            MixHash(crypto.Hash, state.Hash, encryptedStatic);

            if (!peer.TryGetStaticSecret(local, shared))
            {
                return false;
            }

            NoiseKdf.Derive(crypto.Hash, state.ChainingKey, shared, state.ChainingKey, key);
            Span<byte> timestamp = stackalloc byte[Tai64N.Size];
            Tai64N.Write(now, timestamp);
            var encryptedTimestamp = message.Slice(MessageLayout.InitiationTimestamp, Tai64N.Size + MessageLayout.TagSize);
            SealWithZeroNonce(crypto.Aead, key, state.Hash, timestamp, encryptedTimestamp);
            MixHash(crypto.Hash, state.Hash, encryptedTimestamp);

            MessageLayout.WriteType(message, MessageType.Initiation);
            MessageLayout.WriteIndex(message, MessageLayout.InitiationSender, localIndex);
            state.LocalIndex = localIndex;
            state.Stage = HandshakeStage.InitiationCreated;
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
            CryptographicOperations.ZeroMemory(shared);
        }
    }

    /// <summary>
    /// Opens the first half of an initiation addressed to us without touching any peer: the ephemeral-static
    /// Diffie-Hellman and the decryption of the initiator's static key, which says which peer sent it (then
    /// <see cref="TryOpenTimestamp"/>, with the static-static secret the engine has cached for that peer or computed).
    /// </summary>
    public static bool TryOpenStatic(LocalIdentity local, ReadOnlySpan<byte> message, OpenedInitiation opened)
    {
        var crypto = local.Crypto;
        var chainingKey = opened.ChainingKey;
        var hash = opened.Hash;
        Span<byte> key = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        try
        {
            local.InitialChainingKey.CopyTo(chainingKey, 0);
            crypto.Hash.Hash(local.InitialHash, local.PublicKey, hash);

            var ephemeral = message.Slice(MessageLayout.InitiationEphemeral, KeySize);
            MixKey(crypto.Hash, chainingKey, ephemeral);
            MixHash(crypto.Hash, hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(local.PrivateKey, ephemeral, shared))
            {
                return false;
            }

            NoiseKdf.Derive(crypto.Hash, chainingKey, shared, chainingKey, key);
            var encryptedStatic = message.Slice(MessageLayout.InitiationStatic, KeySize + MessageLayout.TagSize);
            if (!OpenWithZeroNonce(crypto.Aead, key, hash, encryptedStatic, opened.RemoteStatic))
            {
                return false;
            }

            MixHash(crypto.Hash, hash, encryptedStatic);
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
            CryptographicOperations.ZeroMemory(shared);
        }
    }

    /// <summary>
    /// Opens the rest of an initiation <see cref="TryOpenStatic"/> began: mixes in <paramref name="staticSecret"/>
    /// (DH of our static private and the initiator's static public) and decrypts the timestamp, which only the holder
    /// of the initiator's private key can have sealed.
    /// </summary>
    public static bool TryOpenTimestamp(LocalIdentity local, ReadOnlySpan<byte> message, ReadOnlySpan<byte> staticSecret, OpenedInitiation opened)
    {
        var crypto = local.Crypto;
        var chainingKey = opened.ChainingKey;
        var hash = opened.Hash;
        Span<byte> key = stackalloc byte[KeySize];
        try
        {
            NoiseKdf.Derive(crypto.Hash, chainingKey, staticSecret, chainingKey, key);
            var encryptedTimestamp = message.Slice(MessageLayout.InitiationTimestamp, Tai64N.Size + MessageLayout.TagSize);
            if (!OpenWithZeroNonce(crypto.Aead, key, hash, encryptedTimestamp, opened.Timestamp))
            {
                return false;
            }

            MixHash(crypto.Hash, hash, encryptedTimestamp);
            message.Slice(MessageLayout.InitiationEphemeral, KeySize).CopyTo(opened.RemoteEphemeral);
            opened.RemoteIndex = MessageLayout.ReadIndex(message, MessageLayout.InitiationSender);
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>
    /// Whether <paramref name="peer"/> may accept <paramref name="opened"/>: its timestamp is newer than any accepted
    /// before, and it does not come within 20 ms of the last one accepted. Read without making the peer a session, so a
    /// replayed initiation, or a flood of them, makes none.
    /// </summary>
    public static bool MayAccept(Peer peer, OpenedInitiation opened, TimeProvider time, out TunnelDropReason refusal)
    {
        var replayed = !Tai64N.IsAfter(opened.Timestamp, peer.LatestTimestamp);
        var flooding = peer.SessionIfActive is { Handshake.HasConsumedInitiation: true } active
            && time.GetElapsedTime(active.Handshake.LastInitiationConsumed) < WireGuardProtocol.InitiationMinimumInterval;
        refusal = replayed ? TunnelDropReason.StaleTimestamp : TunnelDropReason.InitiationFlood;
        return !replayed && !flooding;
    }

    /// <summary>
    /// Writes the response (without indices and MACs) to an opened initiation, with a fresh ephemeral key and the
    /// peer's <paramref name="presharedKey"/>; <paramref name="opened"/> then holds the final chaining key. Touches no
    /// peer, so the engine runs its three X25519 operations outside its lock.
    /// </summary>
    public static bool TrySealResponse(LocalIdentity local, OpenedInitiation opened, ReadOnlySpan<byte> presharedKey, Span<byte> message)
    {
        var crypto = local.Crypto;
        var chainingKey = opened.ChainingKey;
        var hash = opened.Hash;
        Span<byte> ephemeralPrivate = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        Span<byte> tau = stackalloc byte[KeySize];
        Span<byte> key = stackalloc byte[KeySize];
        try
        {
            MessageLayout.WriteType(message, MessageType.Response);
            crypto.KeyAgreement.GeneratePrivateKey(ephemeralPrivate);
            var ephemeral = message.Slice(MessageLayout.ResponseEphemeral, KeySize);
            crypto.KeyAgreement.DerivePublicKey(ephemeralPrivate, ephemeral);
            MixKey(crypto.Hash, chainingKey, ephemeral);
            MixHash(crypto.Hash, hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(ephemeralPrivate, opened.RemoteEphemeral, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, chainingKey, shared);
            if (!crypto.KeyAgreement.TryAgree(ephemeralPrivate, opened.RemoteStatic, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, chainingKey, shared);
            NoiseKdf.Derive(crypto.Hash, chainingKey, presharedKey, chainingKey, tau, key);
            MixHash(crypto.Hash, hash, tau);
            var encryptedEmpty = message.Slice(MessageLayout.ResponseEmpty, MessageLayout.TagSize);
            SealWithZeroNonce(crypto.Aead, key, hash, [], encryptedEmpty);
            MixHash(crypto.Hash, hash, encryptedEmpty);
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(ephemeralPrivate);
            CryptographicOperations.ZeroMemory(shared);
            CryptographicOperations.ZeroMemory(tau);
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>
    /// Makes an answered initiation the peer's handshake (the caller checked <see cref="MayAccept"/> under its lock):
    /// records its timestamp against replay, takes the final chaining key for <see cref="DeriveKeypair"/>, and writes
    /// both indices into the response.
    /// </summary>
    public static void AcceptAnswered(HandshakeState state, OpenedInitiation opened, uint localIndex, TimeProvider time, Span<byte> response)
    {
        opened.Timestamp.CopyTo(state.LatestTimestamp, 0);
        state.LastInitiationConsumed = time.GetTimestamp();
        state.HasConsumedInitiation = true;
        opened.Hash.CopyTo(state.Hash, 0);
        opened.ChainingKey.CopyTo(state.ChainingKey, 0);
        opened.RemoteEphemeral.CopyTo(state.RemoteEphemeral, 0);
        state.RemoteIndex = opened.RemoteIndex;
        state.LocalIndex = localIndex;
        state.Stage = HandshakeStage.ResponseCreated;
        MessageLayout.WriteIndex(response, MessageLayout.ResponseSender, localIndex);
        MessageLayout.WriteIndex(response, MessageLayout.ResponseReceiver, opened.RemoteIndex);
    }

    /// <summary>Checks a response to our initiation; on success the peer's state holds the final chaining key.</summary>
    public static bool TryConsumeResponse(LocalIdentity local, Peer peer, ReadOnlySpan<byte> message)
    {
        var crypto = local.Crypto;
        var state = peer.Handshake;
        if (state.Stage != HandshakeStage.InitiationCreated)
        {
            return false;
        }

        Span<byte> chainingKey = stackalloc byte[KeySize];
        Span<byte> hash = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        Span<byte> tau = stackalloc byte[KeySize];
        Span<byte> key = stackalloc byte[KeySize];
        try
        {
            state.ChainingKey.CopyTo(chainingKey);
            state.Hash.CopyTo(hash);
            var ephemeral = message.Slice(MessageLayout.ResponseEphemeral, KeySize);
            MixKey(crypto.Hash, chainingKey, ephemeral);
            MixHash(crypto.Hash, hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(state.LocalEphemeralPrivate, ephemeral, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, chainingKey, shared);
            if (!crypto.KeyAgreement.TryAgree(local.PrivateKey, ephemeral, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, chainingKey, shared);
            NoiseKdf.Derive(crypto.Hash, chainingKey, peer.PresharedKey, chainingKey, tau, key);
            MixHash(crypto.Hash, hash, tau);
            var encryptedEmpty = message.Slice(MessageLayout.ResponseEmpty, MessageLayout.TagSize);
            if (!OpenWithZeroNonce(crypto.Aead, key, hash, encryptedEmpty, []))
            {
                return false;
            }

            MixHash(crypto.Hash, hash, encryptedEmpty);
            chainingKey.CopyTo(state.ChainingKey);
            hash.CopyTo(state.Hash);
            state.RemoteIndex = MessageLayout.ReadIndex(message, MessageLayout.ResponseSender);
            state.Stage = HandshakeStage.ResponseConsumed;
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(chainingKey);
            CryptographicOperations.ZeroMemory(shared);
            CryptographicOperations.ZeroMemory(tau);
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>
    /// Splits the final chaining key into transport keys, (initiator to responder, responder to initiator) =
    /// KDF2(C, empty), and wipes the handshake.
    /// </summary>
    public static Keypair DeriveKeypair(LocalIdentity local, HandshakeState state, bool isInitiator, long now)
    {
        Span<byte> first = stackalloc byte[KeySize];
        Span<byte> second = stackalloc byte[KeySize];
        try
        {
            NoiseKdf.Derive(local.Crypto.Hash, state.ChainingKey, [], first, second);
            var aead = local.Crypto.Aead;
            var keypair = isInitiator
                ? new Keypair(aead.CreateKey(first), aead.CreateKey(second), state.LocalIndex, state.RemoteIndex, true, now)
                : new Keypair(aead.CreateKey(second), aead.CreateKey(first), state.LocalIndex, state.RemoteIndex, false, now);
            state.Clear();
            return keypair;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(first);
            CryptographicOperations.ZeroMemory(second);
        }
    }

    private static void MixHash(INoiseHash hash, Span<byte> state, ReadOnlySpan<byte> data) => hash.Hash(state, data, state);

    private static void MixKey(INoiseHash hash, Span<byte> chainingKey, ReadOnlySpan<byte> input) =>
        NoiseKdf.Derive(hash, chainingKey, input, chainingKey);

    private static void SealWithZeroNonce(IAead aead, ReadOnlySpan<byte> key, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
    {
        using var cipher = aead.CreateKey(key);
        Span<byte> nonce = stackalloc byte[12];
        nonce.Clear();
        cipher.Seal(nonce, associatedData, plaintext, ciphertext);
    }

    private static bool OpenWithZeroNonce(IAead aead, ReadOnlySpan<byte> key, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
    {
        using var cipher = aead.CreateKey(key);
        Span<byte> nonce = stackalloc byte[12];
        nonce.Clear();
        return cipher.TryOpen(nonce, associatedData, ciphertext, plaintext);
    }
}
