using System.Net;
using System.Runtime.Versioning;

namespace Salvo.Tests.Sockets;

/// <summary>What <see cref="DatagramSocket.IsBackendAvailable"/> says agrees with what a socket asking for the backend gets.</summary>
public sealed class BackendAvailabilityTests
{
    [Theory]
    [InlineData(DatagramBackend.Auto)]
    [InlineData(DatagramBackend.Portable)]
    public void IsBackendAvailable_ForABackendOfEveryPlatform_IsTrueWithNoReason(DatagramBackend backend)
    {
        Assert.True(DatagramSocket.IsBackendAvailable(backend, out var reason));
        Assert.Null(reason);
    }

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public void IsBackendAvailable_ForIoUring_AgreesWithTheBackendASocketGets()
    {
        var available = DatagramSocket.IsBackendAvailable(DatagramBackend.IoUring, out var reason);
        using var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0), DatagramBackend.IoUring);

        Assert.Equal(available, socket.Backend == DatagramBackend.IoUring);
        Assert.Equal(available, reason is null);
        Assert.Equal(IoUringAvailability.Unavailable is null, available);
    }

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public void IsBackendAvailable_ForLinuxBatchedOnLinux_IsTrue()
    {
        Assert.True(DatagramSocket.IsBackendAvailable(DatagramBackend.LinuxBatched, out var reason));
        Assert.Null(reason);
    }

    [Fact]
    public void IsBackendAvailable_ForAnUndefinedBackend_ThrowsNamingIt()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => DatagramSocket.IsBackendAvailable((DatagramBackend)42, out _));
        Assert.Equal("backend", error.ParamName);
    }

    [RequiresFact(Requirement.IoUring)]
    [SupportedOSPlatform("linux")]
    public void IoUringThreadNamePrefix_NamesTheThreadsOfTheSharedRings()
    {
        // A socket's first receive off a claiming thread sets up the shared rings, each with a thread of its own.
        using var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0), DatagramBackend.IoUring);
        Assert.Equal(0, socket.Receive(new ReceiveBatch(capacity: 1, bufferSize: 64), TimeSpan.Zero));

        var names = Directory.EnumerateDirectories("/proc/self/task")
            .Select(task => ReadOrEmpty(Path.Combine(task, "comm")).TrimEnd('\n'))
            .ToList();
        Assert.Contains(names, name => name.StartsWith(DatagramSocket.IoUringThreadNamePrefix, StringComparison.Ordinal));
    }

    private static string ReadOrEmpty(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (IOException)
        {
            // The thread ended while being listed.
            return string.Empty;
        }
    }
}
