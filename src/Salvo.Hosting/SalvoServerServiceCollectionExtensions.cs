using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Metrics;
using System.Net;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salvo.Server;

namespace Salvo.Hosting;

/// <summary>Registers Salvo datagram servers in a service collection.</summary>
public static class SalvoServerServiceCollectionExtensions
{
    /// <summary>
    /// Runs a <see cref="DatagramServer"/> with handler <typeparamref name="THandler"/> (a singleton, created
    /// by the container) as a hosted service. The options are validated when the host starts; an invalid one
    /// fails start-up with a message naming it. One server per handler type. The endpoint starts as loopback with port 0:
    /// the server is open to the network only where <paramref name="configure"/> says so.
    /// </summary>
    /// <typeparam name="THandler">An <see cref="IDatagramHandler"/> or <see cref="IAsyncDatagramHandler"/>.</typeparam>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the server's options.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><typeparamref name="THandler"/> implements neither handler interface.</exception>
    public static IServiceCollection AddSalvoServer<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>(
        this IServiceCollection services, Action<DatagramServerOptions> configure)
        where THandler : class
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        if (!typeof(IDatagramHandler).IsAssignableFrom(typeof(THandler)) && !typeof(IAsyncDatagramHandler).IsAssignableFrom(typeof(THandler)))
        {
            throw new ArgumentException(
                $"{typeof(THandler).FullName} must implement IDatagramHandler or IAsyncDatagramHandler.", nameof(THandler));
        }

        services.AddOptions<DatagramServerOptions>(DatagramServerHostedService<THandler>.OptionsName)
            .Configure(options => options.EndPoint = new IPEndPoint(IPAddress.Loopback, 0))
            .Configure(configure)
            // The host's meter factory, unless the configuration chose one: its listeners and exporters see the server.
            .PostConfigure<IServiceProvider>((options, provider) => options.MeterFactory ??= provider.GetService<IMeterFactory>())
            .ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<DatagramServerOptions>, DatagramServerOptionsValidator>());
        services.TryAddSingleton<THandler>();
        services.TryAddSingleton(sp => new DatagramServerHostedService<THandler>(
            sp.GetRequiredService<THandler>(),
            sp.GetRequiredService<IOptionsMonitor<DatagramServerOptions>>(),
            sp.GetService<ILoggerFactory>()));
        services.AddHostedService(sp => sp.GetRequiredService<DatagramServerHostedService<THandler>>());
        return services;
    }

    /// <summary>
    /// Runs a <see cref="DatagramServer"/> with handler <typeparamref name="THandler"/> as a hosted service, its options
    /// read from <paramref name="configuration"/> (a section such as <c>configuration.GetSection("Salvo:Server")</c>), then
    /// given to <paramref name="configure"/>. The keys are the options' names: <c>EndPoint</c> (<c>127.0.0.1:7007</c>,
    /// <c>[::]:7007</c>), <c>Port</c>, <c>DualMode</c>, <c>SharePort</c>, <c>Workers</c>, <c>BatchSize</c>,
    /// <c>MaxDatagramSize</c>, <c>DeliverTruncated</c>, <c>ReceiveBufferSize</c> and <c>SendBufferSize</c> (empty: the
    /// system default), <c>IoModel</c>, <c>Backend</c>, <c>Processing</c>, <c>QueueCapacity</c>, <c>QueueBytes</c>,
    /// <c>OverflowPolicy</c>, <c>DrainTimeout</c> and <c>BusyPoll</c> (<c>00:00:05</c>) and <c>KernelBusyPollMicroseconds</c>.
    /// Without an <c>EndPoint</c> the server listens on loopback. A value that does not parse, a key that is no option and
    /// an invalid option fail start-up with a message naming the key, such as
    /// <c>Salvo:Server:EndPoint: 'localhost:x' is not an IP endpoint (such as 127.0.0.1:7007 or [::1]:7007).</c>
    /// Read by name, without reflection: trimming and native AOT keep it.
    /// </summary>
    /// <typeparam name="THandler">An <see cref="IDatagramHandler"/> or <see cref="IAsyncDatagramHandler"/>.</typeparam>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The section holding the server's options.</param>
    /// <param name="configure">Sets what configuration cannot (the socket template, a thread callback) after it is read; null for none.</param>
    /// <returns>The service collection, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configuration"/> is null.</exception>
    /// <exception cref="ArgumentException"><typeparamref name="THandler"/> implements neither handler interface.</exception>
    public static IServiceCollection AddSalvoServer<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>(
        this IServiceCollection services, IConfiguration configuration, Action<DatagramServerOptions>? configure = null)
        where THandler : class
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return services.AddSalvoServer<THandler>(options =>
        {
            DatagramServerConfiguration.Read(configuration, options);
            configure?.Invoke(options);
        });
    }
}
