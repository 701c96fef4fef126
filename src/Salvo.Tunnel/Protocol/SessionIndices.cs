using System.Collections.Concurrent;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// Session index to handshake or keypair (the paper, section 5.4.2). Handshakes change it under the engine's lock;
/// the receive path looks every transport message up in it without that lock, so it is a concurrent map (lock-free,
/// allocation-free reads; a write, once per handshake, allocates its node).
/// </summary>
/// <typeparam name="TEntry">What an index maps to.</typeparam>
internal sealed class SessionIndices<TEntry>
{
    private readonly ConcurrentDictionary<uint, TEntry> _entries = new();

    public TEntry this[uint index]
    {
        set => _entries[index] = value;
    }

    public bool TryAdd(uint index, TEntry entry) => _entries.TryAdd(index, entry);

    public bool TryGetValue(uint index, out TEntry entry) => _entries.TryGetValue(index, out entry!);

    public void Remove(uint index) => _entries.TryRemove(index, out _);

    public void Clear() => _entries.Clear();
}
