using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Metrics;
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
    /// fails start-up with a message naming it. One server per handler type.
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
}
