namespace Salvo.Tests.Lab;

/// <summary>A theory that needs the two-host lab (Linux, root, iproute2); skipped with the reason otherwise.</summary>
public sealed class LabTheoryAttribute : TheoryAttribute
{
    public LabTheoryAttribute()
    {
        if (NetworkLab.WhyUnavailable() is { } why)
        {
            Skip = why;
        }
    }
}
