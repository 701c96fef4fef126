using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Salvo.Server;

namespace Salvo.Hosting;

/// <summary>
/// Runs a <see cref="DatagramServer"/> with handler <typeparamref name="THandler"/> for the host's
/// lifetime: started with the host, stopped (drained within <see cref="DatagramServerOptions.DrainTimeout"/>)
/// when it stops. Resolve it from the container to read <see cref="Server"/>'s statistics.
/// </summary>
/// <typeparam name="THandler">An <see cref="IDatagramHandler"/> or <see cref="IAsyncDatagramHandler"/>.</typeparam>
public sealed class DatagramServerHostedService<THandler> : IHostedService, IAsyncDisposable
    where THandler : class
{
    private readonly THandler _handler;
    private readonly IOptionsMonitor<DatagramServerOptions> _options;
    private readonly ILoggerFactory _loggerFactory;
    private DatagramServer? _server;

    /// <summary>Creates the service; the server is created and bound in <see cref="StartAsync"/>.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public DatagramServerHostedService(THandler handler, IOptionsMonitor<DatagramServerOptions> options, ILoggerFactory? loggerFactory = null)
    {
        ArgumentNullException.ThrowIfNull(handler);
        ArgumentNullException.ThrowIfNull(options);
        _handler = handler;
        _options = options;
        _loggerFactory = loggerFactory ?? NullLoggerFactory.Instance;
    }

    /// <summary>The options name this server reads: the handler type's full name.</summary>
    public static string OptionsName => typeof(THandler).FullName ?? typeof(THandler).Name;

    /// <summary>The running server.</summary>
    /// <exception cref="InvalidOperationException">The host has not started it yet.</exception>
    public DatagramServer Server => _server ?? throw new InvalidOperationException("The datagram server starts with the host.");

    /// <inheritdoc />
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var options = _options.Get(OptionsName);
        var logger = _loggerFactory.CreateLogger<DatagramServer>();
        _server = _handler switch
        {
            IDatagramHandler handler => new DatagramServer(options, handler, logger),
            IAsyncDatagramHandler handler => new DatagramServer(options, handler, logger),
            _ => throw new InvalidOperationException(
                $"{typeof(THandler).FullName} implements neither IDatagramHandler nor IAsyncDatagramHandler."),
        };
        await _server.StartAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public Task StopAsync(CancellationToken cancellationToken) => _server?.StopAsync(cancellationToken) ?? Task.CompletedTask;

    /// <inheritdoc />
    public ValueTask DisposeAsync() => _server?.DisposeAsync() ?? ValueTask.CompletedTask;
}
