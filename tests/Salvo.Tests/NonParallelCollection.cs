namespace Salvo.Tests;

/// <summary>Tests that measure the whole process (allocations, thread counts) run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class NonParallelCollection
{
    public const string Name = "Measures the whole process";
}
