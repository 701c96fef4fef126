using System.Buffers.Binary;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// One platform ChaCha20-Poly1305 key as the tunnel shares it: the device's send thread, its receive thread and the
/// timer all seal or open with the same key (one OpenSSL context per direction, taken once per packet). Many threads
/// at once, forgeries among them, and a key retired while threads still use it.
/// </summary>
public sealed class PlatformAeadConcurrencyTests
{
    private const int TagSize = 16;
    private const int Threads = 8;
    private const int PacketsPerThread = 2_000;

    private static IAead Platform =>
        PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");

    [Fact]
    public void OneKey_ManyThreadsSealingOpeningAndForging_EveryResultIsBouncyCastles()
    {
        var keyBytes = new byte[32];
        new Random(41).NextBytes(keyBytes);
        using var key = Platform.CreateKey(keyBytes);
        using var reference = BouncyCastleChaCha20Poly1305.Instance.CreateKey(keyBytes);
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();

        Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, thread =>
        {
            var random = new Random(thread);
            var nonce = new byte[12];
            for (var packet = 0; packet < PacketsPerThread && failures.IsEmpty; packet++)
            {
                // Each thread its own nonces (thread number in the high bytes), as each direction has its own counter.
                BinaryPrimitives.WriteUInt32LittleEndian(nonce, (uint)thread);
                BinaryPrimitives.WriteUInt64LittleEndian(nonce.AsSpan(4), (ulong)packet);
                var length = random.Next(0, 1_500);
                var plaintext = new byte[length];
                random.NextBytes(plaintext);
                var expected = new byte[length + TagSize];
                reference.Seal(nonce, [], plaintext, expected);

                var sealedBytes = new byte[length + TagSize];
                key.Seal(nonce, [], plaintext, sealedBytes);
                if (!sealedBytes.AsSpan().SequenceEqual(expected))
                {
                    failures.Enqueue($"thread {thread} packet {packet}: sealed bytes differ from BouncyCastle's");
                }

                if (packet % 3 == 0)
                {
                    // A forged tag fails on the shared opening context, and the next open on it still succeeds.
                    var forged = (byte[])expected.Clone();
                    forged[forged.Length - 1 - random.Next(TagSize)] ^= (byte)(1 << random.Next(8));
                    if (key.TryOpen(nonce, [], forged, forged.AsSpan(0, length)))
                    {
                        failures.Enqueue($"thread {thread} packet {packet}: a forged tag was accepted");
                    }
                }

                if (!key.TryOpen(nonce, [], expected, expected.AsSpan(0, length)) || !expected.AsSpan(0, length).SequenceEqual(plaintext))
                {
                    failures.Enqueue($"thread {thread} packet {packet}: a good packet did not open to its plaintext");
                }
            }
        });

        Assert.Empty(failures);
    }

    [Fact]
    public async Task Key_DisposedWhileThreadsSealAndOpen_EachCallSucceedsWhollyOrThrowsObjectDisposed()
    {
        using var reference = BouncyCastleChaCha20Poly1305.Instance.CreateKey(new byte[32]);
        var plaintext = new byte[1_420];
        var expected = new byte[plaintext.Length + TagSize];
        var nonce = new byte[12];
        reference.Seal(nonce, [], plaintext, expected);
        var key = Platform.CreateKey(new byte[32]);
        using var started = new CountdownEvent(Threads);
        var disposed = 0;
        var wrong = 0;
        var afterDispose = 0;

        var workers = Enumerable.Range(0, Threads).Select(thread => Task.Factory.StartNew(
            () =>
            {
                var buffer = new byte[plaintext.Length + TagSize];
                var signaled = false;
                for (var call = 0; call < 1_000_000; call++)
                {
                    var sawDisposal = Volatile.Read(ref disposed) == 1;
                    try
                    {
                        if (thread % 2 == 0)
                        {
                            key.Seal(nonce, [], plaintext, buffer);
                            if (!buffer.AsSpan().SequenceEqual(expected))
                            {
                                Interlocked.Increment(ref wrong);
                            }
                        }
                        else
                        {
                            expected.CopyTo(buffer, 0);
                            if (!key.TryOpen(nonce, [], buffer, buffer.AsSpan(0, plaintext.Length)))
                            {
                                Interlocked.Increment(ref wrong);
                            }
                        }

                        if (sawDisposal)
                        {
                            Interlocked.Increment(ref afterDispose);
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }

                    if (!signaled)
                    {
                        signaled = true;
                        started.Signal();
                    }
                }

                throw new InvalidOperationException("the key was never seen disposed");
            },
            TaskCreationOptions.LongRunning)).ToArray();

        Assert.True(started.Wait(TimeSpan.FromSeconds(30)), "the threads did not start");
        key.Dispose();
        Volatile.Write(ref disposed, 1);

        // Every thread ends with ObjectDisposedException (what the engine takes for a retired key), none with anything else.
        await Task.WhenAll(workers).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(0, wrong);
        Assert.Equal(0, afterDispose);
    }
}
