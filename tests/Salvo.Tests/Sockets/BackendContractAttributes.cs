using Xunit.Abstractions;
using Xunit.Sdk;

namespace Salvo.Tests.Sockets;

/// <summary>
/// Marks a contract test class whose backend needs io_uring: its inherited tests are reported skipped, with the
/// kernel's refusal as the reason, where the backend cannot run (the backend would otherwise fall back and the tests
/// would measure another one).
/// </summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class RequiresIoUringAttribute : Attribute;

/// <summary>
/// Marks a contract test class whose backend is AF_XDP over the two-host lab: its inherited tests are reported skipped
/// where the lab or the backend cannot run, with the reason.
/// </summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class RequiresAfXdpLabAttribute : Attribute;

/// <summary>A contract test that does not apply to AF_XDP over the lab, with why; reported skipped for that backend only.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class NotOnAfXdpAttribute(string reason) : Attribute
{
    public string Reason { get; } = reason;
}

/// <summary>A contract fact: run for every backend's test class, skipped for a class whose backend is unavailable here.</summary>
[XunitTestCaseDiscoverer("Salvo.Tests.Sockets.BackendFactDiscoverer", "Salvo.Tests")]
public sealed class BackendFactAttribute : FactAttribute;

/// <summary>A contract theory: as <see cref="BackendFactAttribute"/>; <see cref="NeedsLinux"/> skips it off Linux for every backend.</summary>
[XunitTestCaseDiscoverer("Salvo.Tests.Sockets.BackendTheoryDiscoverer", "Salvo.Tests")]
public sealed class BackendTheoryAttribute : TheoryAttribute
{
    public bool NeedsLinux
    {
        get => Skip is not null;
        set => Skip = value && !OperatingSystem.IsLinux() ? "Needs Linux." : null;
    }
}

public sealed class BackendFactDiscoverer(IMessageSink diagnosticMessageSink) : FactDiscoverer(diagnosticMessageSink)
{
    private readonly IMessageSink _sink = diagnosticMessageSink;

    public override IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo factAttribute) =>
        BackendSkip.ReasonFor(testMethod) is string reason
            ? [new BackendUnavailableTestCase(_sink, discoveryOptions, testMethod, reason)]
            : base.Discover(discoveryOptions, testMethod, factAttribute);
}

public sealed class BackendTheoryDiscoverer(IMessageSink diagnosticMessageSink) : TheoryDiscoverer(diagnosticMessageSink)
{
    private readonly IMessageSink _sink = diagnosticMessageSink;

    public override IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo theoryAttribute) =>
        BackendSkip.ReasonFor(testMethod) is string reason
            ? [new BackendUnavailableTestCase(_sink, discoveryOptions, testMethod, reason)]
            : base.Discover(discoveryOptions, testMethod, theoryAttribute);
}

/// <summary>One skipped case standing for a test whose backend cannot run here; the reason travels with it.</summary>
public sealed class BackendUnavailableTestCase : XunitTestCase
{
    private string _reason = "";

    [Obsolete("For the deserializer only.", error: true)]
    public BackendUnavailableTestCase()
    {
    }

    public BackendUnavailableTestCase(IMessageSink sink, ITestFrameworkDiscoveryOptions options, ITestMethod testMethod, string reason)
        : base(sink, options.MethodDisplayOrDefault(), options.MethodDisplayOptionsOrDefault(), testMethod) => _reason = reason;

    public override void Serialize(IXunitSerializationInfo data)
    {
        base.Serialize(data);
        data.AddValue("Reason", _reason);
    }

    public override void Deserialize(IXunitSerializationInfo data)
    {
        _reason = data.GetValue<string>("Reason");
        base.Deserialize(data);
    }

    protected override string GetSkipReason(IAttributeInfo factAttribute) => _reason;
}

internal static class BackendSkip
{
    public static string? ReasonFor(ITestMethod testMethod)
    {
        var type = testMethod.TestClass.Class;
        if (type.GetCustomAttributes(typeof(RequiresIoUringAttribute)).Any())
        {
            return IoUringAvailability.Unavailable;
        }

        if (!type.GetCustomAttributes(typeof(RequiresAfXdpLabAttribute)).Any())
        {
            return null;
        }

        return Xdp.AfXdpLab.WhyUnavailable()
            ?? testMethod.Method.GetCustomAttributes(typeof(NotOnAfXdpAttribute)).Select(attribute => attribute.GetConstructorArguments().Single() as string).FirstOrDefault();
    }
}
