namespace Salvo.Tests.Common;

/// <summary>A fact that runs only where the machine has what it needs; skipped with the precise reason elsewhere.</summary>
/// <param name="needs">What it needs of the machine; <see cref="Requirement.None"/> when only tools or open files.</param>
public sealed class RequiresFactAttribute(Requirement needs = Requirement.None) : FactAttribute
{
    /// <summary>What it needs of the machine.</summary>
    public Requirement Needs { get; } = needs;

    /// <summary>Stock binaries it runs, each found on PATH. Defaults to none.</summary>
    public string[] Tools { get; set; } = [];

    /// <summary>Open files it holds at once, at most the soft limit (ulimit -n). Defaults to 0 (no check).</summary>
    public int OpenFiles { get; set; }

    /// <inheritdoc/>
    public override string? Skip
    {
        get => base.Skip ?? Requirements.WhyNot(Needs, Tools, OpenFiles);
        set => base.Skip = value;
    }
}

/// <summary>A theory that runs only where the machine has what it needs; skipped with the precise reason elsewhere.</summary>
/// <param name="needs">What it needs of the machine; <see cref="Requirement.None"/> when only tools or open files.</param>
public sealed class RequiresTheoryAttribute(Requirement needs = Requirement.None) : TheoryAttribute
{
    /// <summary>What it needs of the machine.</summary>
    public Requirement Needs { get; } = needs;

    /// <summary>Stock binaries it runs, each found on PATH. Defaults to none.</summary>
    public string[] Tools { get; set; } = [];

    /// <summary>Open files it holds at once, at most the soft limit (ulimit -n). Defaults to 0 (no check).</summary>
    public int OpenFiles { get; set; }

    /// <inheritdoc/>
    public override string? Skip
    {
        get => base.Skip ?? Requirements.WhyNot(Needs, Tools, OpenFiles);
        set => base.Skip = value;
    }
}
