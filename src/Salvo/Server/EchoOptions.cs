namespace Salvo.Server;

/// <summary>How an <see cref="EchoHandler"/> limits what it sends back.</summary>
public sealed class EchoOptions
{
    /// <summary>
    /// The most datagrams per second echoed to one source address and port; the rest are dropped and
    /// counted in <see cref="EchoHandler.RateLimited"/>. An open echo service reflects traffic to whatever
    /// source a packet claims, so a public one should set this. Null means no limit. Defaults to null.
    /// </summary>
    public double? MaxDatagramsPerSecondPerSource { get; set; }

    /// <summary>Datagrams a source may send at once before the rate applies. Defaults to 32.</summary>
    public int Burst { get; set; } = 32;

    /// <summary>
    /// Sources each worker tracks (rounded up to a power of two); a source whose slot is taken by another
    /// starts afresh with a full burst. Defaults to 4,096.
    /// </summary>
    public int TrackedSources { get; set; } = 4096;

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range; the message names it.</exception>
    public void Validate()
    {
        if (MaxDatagramsPerSecondPerSource is { } rate && !(rate > 0 && double.IsFinite(rate)))
        {
            throw new ArgumentOutOfRangeException(nameof(MaxDatagramsPerSecondPerSource), rate, "MaxDatagramsPerSecondPerSource must be positive or null.");
        }

        if (Burst < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(Burst), Burst, "Burst must be at least 1.");
        }

        if (TrackedSources is < 1 or > 1 << 24)
        {
            throw new ArgumentOutOfRangeException(nameof(TrackedSources), TrackedSources, "TrackedSources must be between 1 and 16,777,216.");
        }
    }
}
