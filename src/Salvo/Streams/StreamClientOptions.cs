namespace Salvo.Streams;

/// <summary>How a <see cref="StreamClient"/> connects. Checked when it is created; a bad value names its option.</summary>
public sealed class StreamClientOptions : StreamOptions
{
    /// <summary>How long a connect may take. Defaults to 10 seconds.</summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <inheritdoc />
    public override void Validate()
    {
        base.Validate();
        if (ConnectTimeout <= TimeSpan.Zero && ConnectTimeout != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(ConnectTimeout), ConnectTimeout, "ConnectTimeout must be positive or Timeout.InfiniteTimeSpan.");
        }
    }
}
