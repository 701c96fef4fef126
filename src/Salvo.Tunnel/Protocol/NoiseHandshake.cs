using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The Noise_IKpsk2 message computations of the paper, section 5.4.2 (initiation) and 5.4.3 (response),
/// over plain byte arrays. MACs are not added here (see <see cref="CookieGenerator"/>); peers are found
/// through the callback the caller passes.
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
    /// Decrypts an initiation addressed to us, finds its sender through <paramref name="findPeer"/>, and accepts it
    /// when its timestamp is newer than any before and it does not come too soon after the last. The peer's
    /// handshake state is replaced only when everything checks out.
    /// </summary>
    public static Peer? TryConsumeInitiation(
        LocalIdentity local, ReadOnlySpan<byte> message, Func<ReadOnlySpan<byte>, Peer?> findPeer, TimeProvider time, out TunnelDropReason refusal)
    {
        refusal = TunnelDropReason.HandshakeNotAuthenticated;
        var crypto = local.Crypto;
        Span<byte> chainingKey = stackalloc byte[KeySize];
        Span<byte> hash = stackalloc byte[KeySize];
        Span<byte> key = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        Span<byte> remoteStatic = stackalloc byte[KeySize];
        Span<byte> timestamp = stackalloc byte[Tai64N.Size];
        try
        {
            local.InitialChainingKey.CopyTo(chainingKey);
            crypto.Hash.Hash(local.InitialHash, local.PublicKey, hash);

            var ephemeral = message.Slice(MessageLayout.InitiationEphemeral, KeySize);
            MixKey(crypto.Hash, chainingKey, ephemeral);
            MixHash(crypto.Hash, hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(local.PrivateKey, ephemeral, shared))
            {
                return null;
            }

            NoiseKdf.Derive(crypto.Hash, chainingKey, shared, chainingKey, key);
            var encryptedStatic = message.Slice(MessageLayout.InitiationStatic, KeySize + MessageLayout.TagSize);
            if (!OpenWithZeroNonce(crypto.Aead, key, hash, encryptedStatic, remoteStatic))
            {
                return null;
            }

            MixHash(crypto.Hash, hash, encryptedStatic);
            var peer = findPeer(remoteStatic);
            if (peer is null)
            {
                refusal = TunnelDropReason.UnknownPeer;
                return null;
            }

            if (!peer.TryGetStaticSecret(local, shared))
            {
                return null;
            }

            NoiseKdf.Derive(crypto.Hash, chainingKey, shared, chainingKey, key);
            var encryptedTimestamp = message.Slice(MessageLayout.InitiationTimestamp, Tai64N.Size + MessageLayout.TagSize);
            if (!OpenWithZeroNonce(crypto.Aead, key, hash, encryptedTimestamp, timestamp))
            {
                return null;
            }

            MixHash(crypto.Hash, hash, encryptedTimestamp);

            // Checked before the peer takes a session: a replayed initiation, or a flood of them, makes none.
            var replayed = !Tai64N.IsAfter(timestamp, peer.LatestTimestamp);
            var flooding = peer.SessionIfActive is { Handshake.HasConsumedInitiation: true } active
                && time.GetElapsedTime(active.Handshake.LastInitiationConsumed) < WireGuardProtocol.InitiationMinimumInterval;
            if (replayed || flooding)
            {
                refusal = replayed ? TunnelDropReason.StaleTimestamp : TunnelDropReason.InitiationFlood;
                return null;
            }

            var state = peer.Handshake;
            timestamp.CopyTo(state.LatestTimestamp);
            state.LastInitiationConsumed = time.GetTimestamp();
            state.HasConsumedInitiation = true;
            hash.CopyTo(state.Hash);
            chainingKey.CopyTo(state.ChainingKey);
            ephemeral.CopyTo(state.RemoteEphemeral);
            state.RemoteIndex = MessageLayout.ReadIndex(message, MessageLayout.InitiationSender);
            state.Stage = HandshakeStage.InitiationConsumed;
            return peer;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(chainingKey);
            CryptographicOperations.ZeroMemory(key);
            CryptographicOperations.ZeroMemory(shared);
        }
    }

    /// <summary>Writes the response (without MACs) to a consumed initiation and leaves the chaining key ready for key derivation.</summary>
    public static bool TryCreateResponse(LocalIdentity local, Peer peer, uint localIndex, Span<byte> message)
    {
        var crypto = local.Crypto;
        var state = peer.Handshake;
        if (state.Stage != HandshakeStage.InitiationConsumed)
        {
            return false;
        }

        Span<byte> ephemeralPrivate = stackalloc byte[KeySize];
        Span<byte> shared = stackalloc byte[KeySize];
        Span<byte> tau = stackalloc byte[KeySize];
        Span<byte> key = stackalloc byte[KeySize];
        try
        {
            MessageLayout.WriteType(message, MessageType.Response);
            MessageLayout.WriteIndex(message, MessageLayout.ResponseSender, localIndex);
            MessageLayout.WriteIndex(message, MessageLayout.ResponseReceiver, state.RemoteIndex);

            crypto.KeyAgreement.GeneratePrivateKey(ephemeralPrivate);
            var ephemeral = message.Slice(MessageLayout.ResponseEphemeral, KeySize);
            crypto.KeyAgreement.DerivePublicKey(ephemeralPrivate, ephemeral);
            MixKey(crypto.Hash, state.ChainingKey, ephemeral);
            MixHash(crypto.Hash, state.Hash, ephemeral);

            if (!crypto.KeyAgreement.TryAgree(ephemeralPrivate, state.RemoteEphemeral, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, state.ChainingKey, shared);
            if (!crypto.KeyAgreement.TryAgree(ephemeralPrivate, peer.PublicKey, shared))
            {
                return false;
            }

            MixKey(crypto.Hash, state.ChainingKey, shared);
            NoiseKdf.Derive(crypto.Hash, state.ChainingKey, peer.PresharedKey, state.ChainingKey, tau, key);
            MixHash(crypto.Hash, state.Hash, tau);
            var encryptedEmpty = message.Slice(MessageLayout.ResponseEmpty, MessageLayout.TagSize);
            SealWithZeroNonce(crypto.Aead, key, state.Hash, [], encryptedEmpty);
            MixHash(crypto.Hash, state.Hash, encryptedEmpty);

            state.LocalIndex = localIndex;
            state.Stage = HandshakeStage.ResponseCreated;
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
