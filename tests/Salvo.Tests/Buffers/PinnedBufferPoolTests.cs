using Salvo.Buffers;

namespace Salvo.Tests.Buffers;

public sealed class PinnedBufferPoolTests
{
    [Fact]
    public void RentAndReturn_ReusesBlocks_AndCountsThem()
    {
        using var pool = new PinnedBufferPool(blockSize: 1024, slabSize: 4096);
        var a = pool.RentBlock();
        var b = pool.RentBlock();
        Assert.Equal(1024, a.Memory.Length);
        Assert.Equal(2, pool.RentedBlocks);
        Assert.Equal(1, pool.SlabCount);
        Assert.Equal(4096, pool.PinnedBytes);
        a.Dispose();
        a.Dispose(); // a second return does nothing
        Assert.Equal(1, pool.RentedBlocks);
        var c = pool.RentBlock();
        Assert.Equal(1, pool.SlabCount);
        b.Dispose();
        c.Dispose();
        Assert.Equal(0, pool.RentedBlocks);
        Assert.Equal(4, pool.AvailableBlocks);
    }

    [Fact]
    public void Blocks_AreDisjointSlicesOfPinnedSlabs()
    {
        using var pool = new PinnedBufferPool(blockSize: 64, slabSize: 256);
        var blocks = Enumerable.Range(0, 8).Select(_ => pool.RentBlock()).ToList();
        for (var i = 0; i < blocks.Count; i++)
        {
            blocks[i].Span.Fill((byte)i);
        }

        for (var i = 0; i < blocks.Count; i++)
        {
            Assert.All(blocks[i].Span.ToArray(), value => Assert.Equal((byte)i, value));
        }

        Assert.Equal(2, pool.SlabCount);
    }

    [Fact]
    public void AtItsCap_TheRentFailsClearly_AndTryRentReturnsFalse()
    {
        using var pool = new PinnedBufferPool(blockSize: 512, slabSize: 1024, maxBytes: 1024);
        var first = pool.RentBlock();
        var second = pool.RentBlock();
        Assert.False(pool.TryRentBlock(out _));
        var error = Assert.Throws<InsufficientMemoryException>(() => pool.RentBlock());
        Assert.Contains("exhausted", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, pool.ExhaustedCount);
        first.Dispose();
        Assert.True(pool.TryRentBlock(out var third));
        third.Dispose();
        second.Dispose();
    }

    [Fact]
    public void AsMemoryPool_RentsBlockSizedOwners_AndRejectsLargerRequests()
    {
        using System.Buffers.MemoryPool<byte> pool = new PinnedBufferPool(blockSize: 2048);
        using (var owner = pool.Rent(100))
        {
            Assert.Equal(2048, owner.Memory.Length);
        }

        Assert.Equal(2048, pool.MaxBufferSize);
        Assert.Equal("minBufferSize", Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(4096)).ParamName);
    }

    [Fact]
    public void ReturnedBlock_CannotBeUsed()
    {
        using var pool = new PinnedBufferPool(blockSize: 64, slabSize: 64);
        var block = pool.RentBlock();
        block.Dispose();
        Assert.Throws<ObjectDisposedException>(() => block.Memory);
    }

    [Fact]
    public void ConcurrentRentAndReturn_LosesNoBlock()
    {
        using var pool = new PinnedBufferPool(blockSize: 64, slabSize: 64 * 16);
        Parallel.For(0, 4, _ =>
        {
            for (var i = 0; i < 20_000; i++)
            {
                var block = pool.RentBlock();
                block.Span[0] = 1;
                block.Dispose();
            }
        });
        Assert.Equal(0, pool.RentedBlocks);
        Assert.Equal(pool.SlabCount * 16, pool.AvailableBlocks);
    }

    [Fact]
    public void InvalidSizes_ThrowNamingTheParameter()
    {
        Assert.Equal("blockSize", Assert.Throws<ArgumentOutOfRangeException>(() => new PinnedBufferPool(blockSize: 0)).ParamName);
        Assert.Equal("slabSize", Assert.Throws<ArgumentOutOfRangeException>(() => new PinnedBufferPool(slabSize: -1)).ParamName);
        Assert.Equal("maxBytes", Assert.Throws<ArgumentOutOfRangeException>(() => new PinnedBufferPool(blockSize: 1024, slabSize: 4096, maxBytes: 10)).ParamName);
    }
}
