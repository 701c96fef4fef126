using System.Net;
using BenchmarkDotNet.Attributes;
using Salvo.Pal;

namespace Salvo.Benchmarks;

/// <summary>
/// The per-datagram work Salvo adds on top of the system call: filling a send batch, and reading and
/// writing addresses. Run: dotnet run -c Release --project benchmarks/Salvo.Benchmarks -- --filter *HotPath*
/// </summary>
[MemoryDiagnoser]
public class HotPathBenchmarks
{
    private readonly SendBatch _batch = new(capacity: 64, maxDatagramSize: 1380);
    private readonly byte[] _payload = new byte[1380];
    private readonly byte[] _sockaddr = new byte[32];
    private DatagramAddress _address;

    [GlobalSetup]
    public void Setup()
    {
        _address = DatagramAddress.Create(IPAddress.Parse("2001:db8::1"), 4433);
        LinuxSockaddr.Write(_address, _sockaddr, asIPv6: true);
    }

    [Benchmark(Description = "SendBatch: copy in 64 x 1380 B")]
    public int FillSendBatch()
    {
        _batch.Clear();
        while (_batch.TryAdd(_payload, _address))
        {
        }

        return _batch.Count;
    }

    [Benchmark(Description = "DatagramAddress: sockaddr_in6 read + write")]
    public int AddressRoundTrip()
    {
        var address = LinuxSockaddr.Read(_sockaddr);
        return LinuxSockaddr.Write(address, _sockaddr, asIPv6: true);
    }

    [Benchmark(Description = "DatagramAddress: equality + hash")]
    public int AddressHash() => _address.GetHashCode() ^ (_address == LinuxSockaddr.Read(_sockaddr) ? 1 : 0);
}
